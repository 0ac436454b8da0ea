// Third-party sign-in with the official, unmodified @supabase/auth-js client (PKCE flow)
// against the real `regard` binary and a fake OpenID provider (support/oidc-provider.mjs).
// The test plays the browser: it follows every redirect by hand. The server's callback URL is
// `http://regard.test/auth/v1/callback` (what a real provider would have registered); the
// "browser" resolves regard.test to the server's address, as a DNS entry would.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthClient } from '@supabase/auth-js';
import { newPerson, startOidcProvider } from './support/oidc-provider.mjs';
import { startServer } from './support/server.mjs';

const CALLBACK = 'http://regard.test/auth/v1/callback';
const SITE_URL = 'http://app.test';
const STORAGE_KEY = 'regard-oauth';

function memoryStorage() {
  const items = new Map();
  return {
    items,
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
  };
}

function newClient(url, storage = memoryStorage()) {
  return new AuthClient({
    url: `${url}/auth/v1`,
    flowType: 'pkce',
    storage,
    storageKey: STORAGE_KEY,
    autoRefreshToken: false,
    persistSession: true,
    detectSessionInUrl: false,
  });
}

/** One step of the browser: a GET that must answer with a redirect; returns its target. */
async function redirectOf(url, status = 302) {
  const res = await fetch(url, { redirect: 'manual' });
  assert.equal(res.status, status, `GET ${new URL(url).pathname} answered ${res.status}`);
  return res.headers.get('location');
}

/** auth-js keeps the verifier of the latest flow under this key, as JSON. */
const VERIFIER_KEY = `${STORAGE_KEY}-code-verifier`;
const storedVerifier = (storage) => JSON.parse(storage.getItem(VERIFIER_KEY) ?? 'null');

const randomEmail = (prefix) => `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;

describe('third-party sign-in with @supabase/auth-js against regard', () => {
  let server;
  let provider;

  /** The callback URL the provider sent the browser to, resolved to the server. */
  const resolve = (url) => {
    assert.ok(url.startsWith('http://regard.test/'), `the provider sent the browser to ${url}`);
    return url.replace('http://regard.test', server.url);
  };

  /** signInWithOAuth, then /authorize and the provider: the callback URL (resolved). */
  async function throughProvider(client, redirectTo) {
    const { data, error } = await client.signInWithOAuth({
      provider: 'fake',
      options: { redirectTo, skipBrowserRedirect: true, scopes: 'calendar' },
    });
    assert.equal(error, null);
    assert.ok(data.url.startsWith(`${server.url}/auth/v1/authorize?provider=fake`), data.url);
    const atProvider = await redirectOf(data.url);
    assert.ok(atProvider.startsWith(`${provider.issuer}/authorize?`), atProvider);
    return resolve(await redirectOf(atProvider));
  }

  /** `POST /token?grant_type=pkce` as auth-js sends it, without the client's bookkeeping. */
  const exchangeRaw = (code, verifier) =>
    fetch(`${server.url}/auth/v1/token?grant_type=pkce`, {
      method: 'POST',
      headers: { 'content-type': 'application/json;charset=UTF-8', 'x-supabase-api-version': '2024-01-01' },
      body: JSON.stringify({ auth_code: code, code_verifier: verifier }),
    });

  before(async () => {
    provider = await startOidcProvider({ redirectUri: CALLBACK });
    server = await startServer({
      REGARD_SITE_URL: SITE_URL,
      REGARD_REDIRECT_ALLOW_LIST: 'http://localhost:3000/**',
      REGARD_OAUTH_PROVIDERS: 'fake',
      REGARD_OAUTH_FAKE_ISSUER: provider.issuer,
      REGARD_OAUTH_FAKE_CLIENT_ID: provider.clientId,
      REGARD_OAUTH_FAKE_CLIENT_SECRET: provider.clientSecret,
      REGARD_OAUTH_CALLBACK_URL: CALLBACK,
      REGARD_RATE_LIMIT_SIGN_IN: '0',
      REGARD_RATE_LIMIT_SIGN_UP: '0',
    });
  });
  after(async () => {
    await server?.stop();
    await provider?.close();
  });

  it('signs in through the provider and exchanges the code for a session', async () => {
    const person = newPerson(randomEmail('oauth'));
    provider.signInAs(person);
    const storage = memoryStorage();
    const client = newClient(server.url, storage);
    const events = [];
    client.onAuthStateChange((event) => events.push(event));

    const callback = await throughProvider(client, 'http://localhost:3000/welcome');
    const asked = provider.authorizations.at(-1);
    assert.equal(asked.scope, 'openid email profile calendar');
    assert.equal(asked.state, new URL(callback).searchParams.get('state'));

    const landing = await redirectOf(callback);
    assert.ok(landing.startsWith('http://localhost:3000/welcome?code='), landing);
    const code = new URL(landing).searchParams.get('code');
    const verifier = storedVerifier(storage);

    const { data, error } = await client.exchangeCodeForSession(code);
    assert.equal(error, null);
    assert.equal(data.user.email, person.email);
    assert.ok(data.session.provider_token.startsWith('provider-access-'));
    assert.deepEqual(data.user.app_metadata, { provider: 'fake', providers: ['fake'] });
    assert.equal(data.user.identities.length, 1);
    assert.equal(data.user.identities[0].provider, 'fake');
    assert.equal(data.user.identities[0].id, person.sub);
    assert.ok(events.includes('SIGNED_IN'), events.join(', '));
    assert.equal(provider.tokenAuth.at(-1), 'post', 'client_secret_post when only that is offered');

    const payload = JSON.parse(Buffer.from(data.session.access_token.split('.')[1], 'base64url'));
    assert.equal(payload.amr[0].method, 'oauth');

    const { data: fresh, error: userError } = await client.getUser();
    assert.equal(userError, null);
    assert.equal(fresh.user.id, data.user.id);

    // The code is single-use.
    const again = await exchangeRaw(code, verifier);
    assert.equal(again.status, 404);
    assert.equal((await again.json()).code, 'flow_state_not_found');

    const settings = await (await fetch(`${server.url}/auth/v1/settings`)).json();
    assert.equal(settings.external.fake, true);
  });

  it('refuses a callback whose state is not the flow it started', async () => {
    const client = newClient(server.url);
    const callback = new URL(await throughProvider(client, `${SITE_URL}/in`));
    callback.searchParams.set('state', crypto.randomUUID());
    const target = new URL(await redirectOf(callback.toString(), 303));
    assert.equal(target.origin, SITE_URL);
    assert.equal(target.searchParams.get('error'), 'invalid_request');
    assert.equal(target.searchParams.get('error_code'), 'bad_oauth_state');
    assert.equal(target.searchParams.get('code'), null);
  });

  it('refuses a wrong PKCE verifier and keeps the code for the right one', async () => {
    provider.signInAs(newPerson(randomEmail('verifier')));
    const storage = memoryStorage();
    const client = newClient(server.url, storage);
    const landing = await redirectOf(await throughProvider(client, `${SITE_URL}/in`));
    const code = new URL(landing).searchParams.get('code');

    const verifier = storedVerifier(storage);
    assert.ok(verifier, 'auth-js stored its verifier');
    storage.setItem(VERIFIER_KEY, JSON.stringify(`${verifier.slice(0, -4)}0000`));
    const { error } = await client.exchangeCodeForSession(code);
    assert.equal(error?.code, 'bad_code_verifier');
    assert.equal(error?.status, 400);

    // GoTrue keeps the flow state after a wrong verifier: the right one still works.
    const res = await exchangeRaw(code, verifier);
    assert.equal(res.status, 200);
    assert.ok((await res.json()).access_token);
  });

  it('sends the code to the site, not to a redirect target outside the allow-list', async () => {
    provider.signInAs(newPerson(randomEmail('redirect')));
    const client = newClient(server.url);
    const landing = await redirectOf(await throughProvider(client, 'https://evil.example/steal'));
    assert.ok(landing.startsWith(`${SITE_URL}/?code=`), landing);
    const { error } = await client.exchangeCodeForSession(new URL(landing).searchParams.get('code'));
    assert.equal(error, null);
  });
});
