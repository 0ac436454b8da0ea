// Drives the official, unmodified @supabase/auth-js client against a running `regard` binary:
// the wire protocol under /auth/v1 must be what the client expects, error codes included.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthClient } from '@supabase/auth-js';
import { startServer } from './support/server.mjs';

/** A storage adapter in memory, as a browser's localStorage would be. */
function memoryStorage() {
  const items = new Map();
  return {
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
  };
}

function newClient(url) {
  return new AuthClient({
    url: `${url}/auth/v1`,
    storage: memoryStorage(),
    storageKey: 'regard-compat',
    autoRefreshToken: false,
    persistSession: true,
    detectSessionInUrl: false,
  });
}

describe('@supabase/auth-js against regard', () => {
  let server;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server?.stop();
  });

  const email = `compat-${Date.now()}@example.com`;
  const password = 'correct horse';

  it('signs up, signs in, reads the user, refreshes and signs out', async () => {
    const client = newClient(server.url);
    const events = [];
    const { data: sub } = client.onAuthStateChange((event) => events.push(event));

    const signUp = await client.signUp({ email, password });
    assert.equal(signUp.error, null);
    assert.equal(signUp.data.user.email, email);
    assert.ok(signUp.data.session.access_token, 'auto-confirmed sign-up returns a session');

    const dup = await newClient(server.url).signUp({ email, password });
    assert.equal(dup.error?.code, 'user_already_exists');

    const weak = await newClient(server.url).signUp({ email: `weak-${email}`, password: '12345' });
    assert.equal(weak.error?.code, 'weak_password');

    const wrong = await newClient(server.url).signInWithPassword({ email, password: 'wrong password' });
    assert.equal(wrong.error?.code, 'invalid_credentials');
    assert.equal(wrong.error?.message, 'Invalid login credentials');

    const unknown = await newClient(server.url).signInWithPassword({ email: `nobody-${email}`, password });
    assert.equal(unknown.error?.code, 'invalid_credentials');

    const signIn = await client.signInWithPassword({ email, password });
    assert.equal(signIn.error, null);
    const session = signIn.data.session;
    assert.equal(session.token_type, 'bearer');
    assert.ok(session.expires_at > Date.now() / 1000);

    const { data: userData, error: userError } = await client.getUser();
    assert.equal(userError, null);
    assert.equal(userData.user.id, signUp.data.user.id);
    assert.equal(userData.user.email, email);

    const refreshed = await client.refreshSession();
    assert.equal(refreshed.error, null);
    assert.notEqual(refreshed.data.session.refresh_token, session.refresh_token, 'refresh token rotated');
    assert.equal(refreshed.data.user.id, signUp.data.user.id);

    const updated = await client.updateUser({ data: { display_name: 'Camille' } });
    assert.equal(updated.error, null);
    assert.equal(updated.data.user.user_metadata.display_name, 'Camille');

    const { error: signOutError } = await client.signOut();
    assert.equal(signOutError, null);
    const { data: afterOut } = await client.getSession();
    assert.equal(afterOut.session, null);

    // The signed-out session's access token no longer reads the user.
    const stale = await newClient(server.url).getUser(refreshed.data.session.access_token);
    assert.ok(stale.error, 'a token of a signed-out session is refused');

    sub.subscription.unsubscribe();
    for (const expected of ['INITIAL_SESSION', 'SIGNED_IN', 'TOKEN_REFRESHED', 'USER_UPDATED', 'SIGNED_OUT']) {
      assert.ok(events.includes(expected), `event ${expected} in ${events.join(', ')}`);
    }
  });

  it('reads the server settings', async () => {
    const res = await fetch(`${server.url}/auth/v1/settings`);
    assert.equal(res.status, 200);
    const settings = await res.json();
    assert.equal(settings.external.email, true);
    assert.equal(settings.mailer_autoconfirm, true);
  });
});
