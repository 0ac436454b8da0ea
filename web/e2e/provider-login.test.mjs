// Third-party sign-in in a real browser: the login screen offers the provider the server has
// enabled, the button sends Chromium through the real `regard` binary to a fake OpenID provider
// (support/oidc-provider.mjs, which consents at once) and back, and the app lands signed in.
// The provider starts first (the server reads its issuer at start); once the server runs, its
// real callback address (`<site url>/auth/v1/callback`, the server's default) is registered with
// the provider, with no host mapping.
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { launchBrowser } from './support/browser.mjs';
import { newPerson, startOidcProvider } from './support/oidc-provider.mjs';
import { startServer } from './support/server.mjs';
import { newPage } from './support/session.mjs';

const HOME = { level: 1, name: 'Mes créations' };
const LOGIN = { level: 1, name: 'Connexion' };

describe('provider sign-in in Chromium', () => {
  let server;
  let provider;
  let browser;
  before(async () => {
    provider = await startOidcProvider();
    server = await startServer({
      REGARD_OAUTH_PROVIDERS: 'keycloak',
      REGARD_OAUTH_KEYCLOAK_ISSUER: provider.issuer,
      REGARD_OAUTH_KEYCLOAK_CLIENT_ID: provider.clientId,
      REGARD_OAUTH_KEYCLOAK_CLIENT_SECRET: provider.clientSecret,
    });
    provider.register(`${server.url}/auth/v1/callback`);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await provider?.close();
  });

  it('signs in with the provider button and lands on the creatives page', async () => {
    const person = newPerson(`provider-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`);
    provider.signInAs(person);
    const { context, page, errors } = await newPage(browser, server.url);

    await page.goto('/');
    await page.getByRole('heading', LOGIN).waitFor();
    const button = page.getByRole('button', { name: 'Continuer avec Keycloak' });
    await button.waitFor();
    assert.equal(await page.getByTestId('providers').locator('button').count(), 1, 'one provider offered');
    const shot = join(process.env.TMPDIR ?? tmpdir(), 'regard-provider-login.png');
    await page.screenshot({ path: shot, fullPage: true });

    await button.click();
    await page.getByRole('heading', HOME).waitFor();
    assert.equal(new URL(page.url()).pathname, '/creatives');
    assert.equal(new URL(page.url()).searchParams.get('code'), null, 'no code left in the address');
    assert.equal((await page.getByTestId('user-menu').textContent()).trim(), `${person.email.charAt(0).toUpperCase()}${person.email}`);
    await page.getByTestId('user-menu').click();
    assert.equal((await page.locator('.user-menu__full-email').textContent()).trim(), person.email);

    // The browser went through the provider once, asking for the OpenID scopes, with PKCE on
    // the app's side (the provider only sees the server as its client).
    assert.equal(provider.authorizations.length, 1);
    assert.equal(provider.authorizations[0].scope, 'openid email profile');
    assert.equal(provider.authorizations[0].redirect_uri, `${server.url}/auth/v1/callback`);

    // The session is the app's: a reload keeps it.
    await page.reload();
    await page.getByRole('heading', HOME).waitFor();

    assert.deepEqual(errors, []);
    await context.close();
  });
});
