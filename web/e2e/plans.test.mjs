// Campaign plans in a real browser against the real `regard` binary (with its workers): two
// locations with their contacts a day (made through the API from images drawn in the page) are
// chosen in the locations list, the plan form opens with them and its totals move with the dates;
// the plan page shows the contacts at once, the noticed contacts once the sites are rendered and
// analysed, and both exports download. With REGARD_SCREENSHOTS=<folder> it also saves its pages
// there (light French, dark English, phone width) for a person to look at.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServerAndBrowser, stopServerAndBrowser } from './support/browser.mjs';
import { installPageApi } from './support/page-api.mjs';
import { newPage as openPage, register as registerAccount } from './support/session.mjs';

const RESULT_TIMEOUT_MS = 120_000;
const SHOTS = process.env.REGARD_SCREENSHOTS;

describe('Campaign plans in Chromium', () => {
  let server;
  let browser;
  before(async () => ({ server, browser } = await startServerAndBrowser()));
  after(() => stopServerAndBrowser({ server, browser }));

  async function shot(page, name) {
    if (!SHOTS) return;
    await mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  }

  /** Through the API: a creative and two roadside locations with 10,000 and 4,000 contacts a day. */
  async function seed(page) {
    await installPageApi(page);
    return page.evaluate(async () => {
      const { draw, upload, post } = window.regardTest;
      const poster = await draw(1200, 900, (ctx, w, h) => {
        ctx.fillStyle = '#b91c1c';
        ctx.fillRect(0, 0, w, h);
        ctx.fillStyle = '#ffffff';
        ctx.font = 'bold 200px sans-serif';
        ctx.fillText('SOLDES', w * 0.12, h * 0.45);
        ctx.font = 'bold 90px sans-serif';
        ctx.fillText('jusqu’à -50 %', w * 0.14, h * 0.7);
      });
      const street = (sky) =>
        draw(1200, 800, (ctx, w, h) => {
          ctx.fillStyle = sky;
          ctx.fillRect(0, 0, w, h * 0.55);
          ctx.fillStyle = '#6b6459';
          ctx.fillRect(0, h * 0.55, w, h * 0.45);
          ctx.fillStyle = '#d1d5db';
          ctx.fillRect(w * 0.3, h * 0.2, w * 0.4, h * 0.3);
        });
      const creative = await post('/creatives', { media_id: await upload(poster, 'soldes.png'), name: 'Soldes' });
      const quad = [
        { x: 0.3, y: 0.2 },
        { x: 0.7, y: 0.2 },
        { x: 0.7, y: 0.5 },
        { x: 0.3, y: 0.5 },
      ];
      const site = async (name, contacts, sky) =>
        post('/locations', {
          name,
          city: 'Paris',
          address: name === 'Rivoli' ? '12 rue de Rivoli' : '3 place de la Nation',
          format: '4x3',
          audience: 'road',
          viewing_distance_min_m: 10,
          viewing_distance_max_m: 60,
          daily_contacts: contacts,
          audience_source: 'Affimétrie 2026',
          photo_media_id: await upload(await street(sky), `${name}.png`),
          panel_quad: quad,
        });
      await site('Rivoli', 10000, '#87a5c4');
      await site('Nation', 4000, '#9fb7cf');
      return creative.id;
    });
  }

  it('makes a plan from the list’s selection, counts its contacts, then its noticed contacts, and exports it', async () => {
    const { context, page, errors } = await openPage(browser, server.url);
    await registerAccount(page, 'plans');
    await seed(page);

    // Choose both locations in the list; the bar offers a plan with them.
    await page.goto('/locations');
    await page.getByRole('checkbox', { name: 'Sélectionner Rivoli' }).check();
    await page.getByRole('checkbox', { name: 'Sélectionner Nation' }).check();
    await shot(page, 'locations-selection-fr-light');
    await page.getByTestId('plan-from-selection').click();
    await page.getByRole('heading', { level: 1, name: 'Nouveau plan de campagne' }).waitFor();
    await page.getByTestId('plan-chosen').getByText('Nation').waitFor();

    await page.getByLabel('Nom du plan').fill('Soldes d’hiver');
    await page.getByTestId('plan-creative').selectOption({ label: 'Soldes' });
    await page.getByLabel('Premier jour').fill('2027-01-07');
    // One day first, then the fortnight: the contacts follow the dates.
    await page.getByLabel('Dernier jour').fill('2027-01-07');
    const contacts = page.getByTestId('plan-total-contacts').locator('dd');
    await page.waitForFunction(() => document.querySelector('[data-testid="plan-total-contacts"] dd')?.textContent?.replace(/\s/g, '') === '14000');
    await page.getByLabel('Dernier jour').fill('2027-01-20');
    await page.waitForFunction(() => document.querySelector('[data-testid="plan-total-contacts"] dd')?.textContent?.replace(/\s/g, '') === '196000');
    assert.equal((await contacts.textContent()).replace(/\s/g, ''), '196000');
    await shot(page, 'plan-new-fr-light');
    await page.getByTestId('create-plan').click();

    // The plan: contacts at once, noticed contacts once every site is rendered and analysed.
    await page.getByRole('heading', { level: 1, name: 'Soldes d’hiver' }).waitFor();
    assert.equal((await page.getByTestId('plan-site').count()), 2);
    await page.getByTestId('plan-status').getByText('Prêt').waitFor({ timeout: RESULT_TIMEOUT_MS });
    const noticed = (await page.getByTestId('plan-total-noticed').locator('dd').textContent()).replace(/\s/g, '');
    assert.match(noticed, /^\d+$/);
    assert.ok(Number(noticed) > 0 && Number(noticed) <= 196000, noticed);
    await shot(page, 'plan-fr-light');

    // Both exports download.
    for (const [button, extension] of [
      ['plan-export-xlsx', '.xlsx'],
      ['plan-export-pdf', '.pdf'],
    ]) {
      const download = page.waitForEvent('download');
      await page.getByTestId(button).click();
      const file = await download;
      assert.ok(file.suggestedFilename().endsWith(extension));
      if (SHOTS) await file.saveAs(join(SHOTS, `plan${extension}`));
    }

    if (SHOTS) {
      // English, dark; then a phone.
      await page.evaluate(() => {
        localStorage.setItem('regard-language', 'en');
        localStorage.setItem('theme-storage', JSON.stringify({ state: { theme: 'dark' }, version: 0 }));
      });
      await page.reload();
      await page.getByTestId('plan-view').waitFor();
      await shot(page, 'plan-en-dark');
      await page.setViewportSize({ width: 390, height: 900 });
      await shot(page, 'plan-en-dark-phone');
      await page.goto('/plans');
      await page.getByTestId('plans-list').waitFor();
      await shot(page, 'plans-en-dark-phone');
    }
    assert.deepEqual(errors, []);
    await context.close();
  });
});
