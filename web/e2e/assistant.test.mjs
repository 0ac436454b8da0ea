// The assistant in a real browser against the real `regard` binary (offline engine): a how-to
// question and a question about the user's own data, in French, answered in the widget with
// links that navigate inside the app; the conversation kept while moving between pages and
// forgotten on sign-out; the Help page; the widget absent on exactly /heatmap.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServerAndBrowser, stopServerAndBrowser } from './support/browser.mjs';
import { newPage, register, signOut } from './support/session.mjs';

describe('The assistant in Chromium', () => {
  let server;
  let browser;
  before(async () => ({ server, browser } = await startServerAndBrowser()));
  after(() => stopServerAndBrowser({ server, browser }));

  /** Creates locations for the signed-in user of `page` through the API, with its own token. */
  async function createLocations(page, locations) {
    const token = await page.evaluate(() => JSON.parse(window.localStorage.getItem('regard-auth-token')).access_token);
    for (const body of locations) {
      const response = await fetch(`${server.url}/api/v1/locations`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 201, await response.text());
    }
  }

  /** Asks a question in the open widget and returns the locator of its answer once complete. */
  async function ask(page, question) {
    const answers = page.getByTestId('chat-answer');
    const before = await answers.count();
    await page.getByTestId('chat-input').fill(question);
    await page.getByTestId('chat-input').press('Enter');
    const answer = answers.nth(before);
    await answer.waitFor();
    // The log is busy from the question (same render as the answer's bubble) to the stream's end.
    await page.locator('[data-testid="chat-messages"][aria-busy="false"]').waitFor();
    return answer;
  }

  it('answers a how-to and a data question in French and follows their links', async () => {
    const { context, page, errors } = await newPage(browser, server.url);
    await register(page, 'assistant');
    await createLocations(page, [
      { name: 'Part-Dieu', city: 'Lyon' },
      { name: 'Bellecour', city: 'Lyon' },
      { name: 'Opéra', city: 'Paris' },
    ]);

    await page.getByTestId('chat-toggle').click();
    const panel = page.getByRole('dialog', { name: 'Assistant' });
    await panel.getByText('Bonjour ! Comment puis-je vous aider ?').waitFor();
    assert.equal(await page.getByPlaceholder('Posez votre question...').count(), 1);

    // How-to: answered from the help articles, with a link to the article.
    const howTo = await ask(page, 'Comment tracer les coins du panneau ?');
    const howToText = await howTo.textContent();
    assert.match(howToText, /poignée/, howToText);
    await howTo.getByTestId('chat-link').filter({ hasText: 'coins du panneau' }).click();
    await page.waitForURL((url) => url.pathname === '/help/locations');
    await page.getByRole('heading', { level: 1, name: 'Enregistrer un emplacement et tracer les coins du panneau' }).waitFor();
    await page.getByTestId('help-article').getByRole('heading', { name: 'Tracer les coins du panneau' }).waitFor();

    // Data: the user's own locations, counted by city, with links to each of them.
    const data = await ask(page, "Combien d'emplacements à Lyon ?");
    const dataText = await data.textContent();
    assert.match(dataText, /2 emplacements à Lyon/, dataText);
    assert.doesNotMatch(dataText, /Opéra/);
    await data.getByTestId('chat-link').filter({ hasText: 'Bellecour' }).click();
    await page.waitForURL((url) => /^\/locations\/[0-9a-f-]{36}$/.test(url.pathname));
    await page.getByRole('heading', { level: 1, name: "Modifier l'emplacement" }).waitFor();
    assert.equal(await page.getByLabel(/^Nom/).inputValue(), 'Bellecour');

    // The conversation stays with the tab, across pages and a reload.
    await page.reload();
    await page.getByTestId('chat-toggle').click();
    await page.getByTestId('chat-question').filter({ hasText: "Combien d'emplacements à Lyon ?" }).waitFor();
    assert.equal(await page.getByTestId('chat-answer').count(), 2);

    // Signing out forgets it.
    await page.getByTestId('chat-close').click();
    await signOut(page);
    await page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();
    assert.equal(await page.evaluate(() => window.sessionStorage.getItem('regard-assistant')), null);

    assert.deepEqual(errors, []);
    await context.close();
  });

  it('lists the help articles and hides the widget on exactly /heatmap', async () => {
    const { context, page, errors } = await newPage(browser, server.url);
    await register(page, 'assistant-help');
    await page.getByTestId('user-menu').click();
    await page.getByTestId('help-link').click();
    await page.waitForURL((url) => url.pathname === '/help');
    await page.getByRole('heading', { level: 1, name: 'Aide' }).waitFor();
    await page.getByTestId('help-list').getByRole('link', { name: 'Les rendus de nuit' }).click();
    await page.waitForURL((url) => url.pathname === '/help/night-renders');
    await page.getByRole('heading', { level: 1, name: 'Les rendus de nuit' }).waitFor();
    assert.equal(await page.getByTestId('chat-widget').count(), 1);

    await page.goto('/heatmap');
    await page.getByRole('heading', { level: 1, name: 'Mes heatmaps' }).waitFor();
    assert.equal(await page.getByTestId('chat-widget').count(), 0);
    await page.goto('/heatmap/new');
    await page.getByRole('heading', { level: 1, name: 'Nouvelle heatmap' }).waitFor();
    assert.equal(await page.getByTestId('chat-widget').count(), 1);

    assert.deepEqual(errors, []);
    await context.close();
  });
});
