// A session ended on another device (auth-js's default global sign-out) in a real browser: the
// other browser returns to the login screen on its next request, with a notice, and after a
// reload of a page whose stored token the server no longer accepts; signing in again brings the
// user back to the page they were on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServerAndBrowser, stopServerAndBrowser } from './support/browser.mjs';
import { newPage, register, signIn, signOut } from './support/session.mjs';

const NOTICE = 'Votre session a pris fin, par exemple après une déconnexion sur un autre appareil.';

describe('a session ended elsewhere', () => {
  let server;
  let browser;
  before(async () => ({ server, browser } = await startServerAndBrowser()));
  after(() => stopServerAndBrowser({ server, browser }));

  it('sends the other browsers back to the login screen, then to where they were', async () => {
    const phone = await newPage(browser, server.url);
    const email = await register(phone.page, 'ended');

    // The laptop (next request) and a second laptop tab profile (reload), both signed in.
    const laptop = await newPage(browser, server.url);
    await laptop.page.goto('/locations');
    await signIn(laptop.page, email);
    await laptop.page.getByRole('heading', { level: 1, name: 'Mes emplacements' }).waitFor();
    const desk = await newPage(browser, server.url);
    await desk.page.goto('/heatmap/new');
    await signIn(desk.page, email);
    await desk.page.getByRole('heading', { level: 1, name: 'Nouvelle heatmap' }).waitFor();

    // Sign out on the phone: auth-js's default scope is global, every session of the user ends.
    await signOut(phone.page);
    await phone.page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();

    // The laptop's next request is refused: login screen with the notice, no menu.
    await laptop.page.getByRole('link', { name: 'Créations' }).click();
    await laptop.page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();
    assert.match(await laptop.page.getByTestId('session-ended').textContent(), new RegExp(NOTICE));
    assert.equal(await laptop.page.getByRole('navigation', { name: 'Navigation principale' }).count(), 0);
    assert.equal(new URL(laptop.page.url()).pathname, '/creatives');
    // auth-js no longer holds the session, so a reload stays on the login screen.
    assert.equal(await laptop.page.evaluate(() => localStorage.getItem('regard-auth-token')), null);
    await laptop.page.reload();
    await laptop.page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();
    await signIn(laptop.page, email);
    await laptop.page.getByRole('heading', { level: 1, name: 'Mes créations' }).waitFor();
    assert.equal(await laptop.page.getByTestId('session-ended').count(), 0);

    // The other browser reloads: auth-js loads the stored (still unexpired) token without asking
    // the server; the first API call is refused and the refresh answers that the session is gone.
    await desk.page.reload();
    await desk.page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();
    assert.match(await desk.page.getByTestId('session-ended').textContent(), new RegExp(NOTICE));
    await signIn(desk.page, email);
    await desk.page.getByRole('heading', { level: 1, name: 'Nouvelle heatmap' }).waitFor();
    assert.equal(new URL(desk.page.url()).pathname, '/heatmap/new');

    for (const { context, errors } of [phone, laptop, desk]) {
      assert.deepEqual(errors, []);
      await context.close();
    }
  });
});
