// The ends of the signed-in pages, in Chromium against the real `regard` binary (issue 31): scrolled
// to its end, no page leaves anything under the assistant's round button at 390, 1024 and
// 1440 px (the last cards, "Afficher plus", a form's buttons), the desktop keeping its room
// below the page; and the heatmaps list shows no search or order over an empty library, but keeps
// them while a search matches nothing, so that it can be cleared.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServerAndBrowser, stopServerAndBrowser } from './support/browser.mjs';
import { newPage, register } from './support/session.mjs';

const WIDTHS = [390, 1024, 1440];
/** The locations list shows 60 at a time: one more puts "Afficher plus" at its end. */
const LOCATIONS = 61;

/**
 * Scrolled to the end of the page: what of the page lies under the assistant's button, and how
 * far the page's last visible box ends above the button's top.
 */
async function underAssistant(page) {
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  return page.evaluate(() => {
    const button = document.querySelector('[data-testid="chat-toggle"]').getBoundingClientRect();
    const boxes = [...document.querySelectorAll('main *')]
      .map((el) => [el, el.getBoundingClientRect()])
      .filter(([el, r]) => r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden');
    const covered = boxes
      .filter(([el]) => el.children.length === 0 || el.matches('a, button, input, select, textarea, img'))
      .filter(([, r]) => Math.min(r.right, button.right) > Math.max(r.left, button.left) && Math.min(r.bottom, button.bottom) > Math.max(r.top, button.top))
      .map(([el]) => `${el.tagName.toLowerCase()} "${el.textContent.trim().slice(0, 40)}"`);
    const end = Math.max(...boxes.map(([, r]) => r.bottom));
    return { covered, gap: button.top - end, sideways: document.documentElement.scrollWidth > document.documentElement.clientWidth };
  });
}

describe('Page ends in Chromium', () => {
  let server;
  let browser;
  let context;
  let page;
  let errors;
  before(async () => {
    ({ server, browser } = await startServerAndBrowser());
    ({ context, page, errors } = await newPage(browser, server.url));
    await register(page, 'page-ends');
  });
  after(async () => {
    await context?.close();
    await stopServerAndBrowser({ server, browser });
  });

  it('has no heatmaps toolbar over an empty library, and keeps it while a search matches nothing', async () => {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto('/heatmap');
      await page.getByText("Vous n'avez pas encore de heatmap.", { exact: false }).waitFor();
      assert.equal(await page.getByRole('search').count(), 0, `no toolbar over the empty library at ${width} px`);
      assert.equal(await page.getByLabel('Rechercher').count(), 0);

      // A search (a link, or one typed before the last heatmap was deleted) keeps the toolbar to clear it.
      await page.goto('/heatmap?q=zzz');
      const noMatch = page.getByTestId('heatmaps-no-match');
      await noMatch.waitFor();
      assert.equal(await noMatch.locator('p').textContent(), 'Aucune heatmap ne correspond à « zzz ».');
      const toolbar = page.getByRole('search');
      assert.equal(await page.getByLabel('Rechercher').inputValue(), 'zzz');
      const [bar, empty] = [await toolbar.boundingBox(), await noMatch.boundingBox()];
      assert.ok(bar.y + bar.height <= empty.y, `the toolbar (${JSON.stringify(bar)}) sits above the message (${JSON.stringify(empty)}) at ${width} px`);
      const outside = await page.evaluate(() => {
        const doc = document.documentElement;
        const main = document.querySelector('main').getBoundingClientRect();
        const parts = [...document.querySelectorAll('[role="search"] *, [data-testid="heatmaps-no-match"] *')].filter((el) => el.tagName !== 'OPTION');
        const problems = parts
          .filter((el) => {
            const r = el.getBoundingClientRect();
            return r.left < main.left - 0.5 || r.right > main.right + 0.5;
          })
          .map((el) => `${el.tagName.toLowerCase()} "${el.textContent.trim().slice(0, 30)}" leaves the page`);
        if (doc.scrollWidth > doc.clientWidth) problems.push('the page scrolls sideways');
        return problems;
      });
      assert.deepEqual(outside, [], `toolbar and message fit the page at ${width} px`);

      await page.getByRole('button', { name: 'Effacer la recherche' }).click();
      await page.getByText("Vous n'avez pas encore de heatmap.", { exact: false }).waitFor();
      assert.equal(await page.getByRole('search').count(), 0, `the toolbar goes with the search at ${width} px`);
      assert.equal(new URL(page.url()).search, '');
    }
    assert.deepEqual(errors, []);
  });

  it('lets the end of every page scroll clear of the assistant\'s button, keeping the desktop as it was', async () => {
    await page.goto('/creatives');
    const made = await page.evaluate(async (count) => {
      const token = JSON.parse(localStorage.getItem('regard-auth-token')).access_token;
      const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
      for (let i = 1; i <= count; i += 1) {
        const body = JSON.stringify({ name: `Abribus ${String(i).padStart(2, '0')}, avenue Jean Jaurès`, city: 'Lyon' });
        const answer = await fetch('/api/v1/locations', { method: 'POST', headers, body });
        if (!answer.ok) throw new Error(`location ${i}: ${answer.status} ${await answer.text()}`);
      }
      return count;
    }, LOCATIONS);
    assert.equal(made, LOCATIONS);

    const pages = [
      ['/locations', async () => page.getByRole('button', { name: 'Afficher plus' }).waitFor()],
      ['/locations/new', async () => page.getByRole('heading', { level: 1 }).waitFor()],
      ['/simulation', async () => page.getByRole('heading', { level: 1, name: 'Mes simulations' }).waitFor()],
      ['/account', async () => page.getByTestId('account-password').waitFor()],
      ['/help', async () => page.getByRole('heading', { level: 1 }).waitFor()],
    ];
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 });
      for (const [path, ready] of pages) {
        await page.goto(path);
        await ready();
        await page.getByTestId('chat-toggle').waitFor();
        const { covered, gap, sideways } = await underAssistant(page);
        assert.deepEqual(covered, [], `${path} at ${width} px: nothing under the assistant's button`);
        assert.ok(gap >= 16, `${path} at ${width} px: the page ends ${gap} px above the button`);
        assert.equal(sideways, false, `${path} at ${width} px scrolls sideways`);
      }
      // Wider than a phone, the room below the page is what it was (6rem).
      const padding = await page.evaluate(() => getComputedStyle(document.querySelector('main')).paddingBottom);
      if (width > 640) assert.equal(padding, '96px', `at ${width} px`);
    }

    // The list's last card and "Afficher plus" on a phone, scrolled to the end: in full view, above the button.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/locations');
    const more = page.getByRole('button', { name: 'Afficher plus' });
    await more.waitFor();
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const button = await page.getByTestId('chat-toggle').boundingBox();
    const moreBox = await more.boundingBox();
    const lastCard = await page.getByTestId('location-card').last().boundingBox();
    for (const [name, box] of [['Afficher plus', moreBox], ['the last card', lastCard]]) {
      assert.ok(box.y + box.height <= button.y, `${name} (${JSON.stringify(box)}) ends above the button (${JSON.stringify(button)})`);
      assert.ok(box.y >= 0, `${name} is in view`);
    }
    assert.deepEqual(errors, []);
  });
});
