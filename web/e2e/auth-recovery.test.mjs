// Password recovery with the official, unmodified @supabase/auth-js client against the real
// `regard` binary, reading the mails the server writes to its development outbox: the PKCE
// flow (the link ends in `redirectTo?code=`, exchanged by the client that asked), the implicit
// flow with the 6-digit code of the mail (`verifyOtp`), and an unknown address.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AuthClient } from '@supabase/auth-js';
import { nextMail, outboxMark, verifyLink } from './support/outbox.mjs';
import { startServer } from './support/server.mjs';

function memoryStorage() {
  const items = new Map();
  return {
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
  };
}

function newClient(url, flowType = 'implicit') {
  return new AuthClient({
    url: `${url}/auth/v1`,
    flowType,
    storage: memoryStorage(),
    storageKey: 'regard-recovery',
    autoRefreshToken: false,
    persistSession: true,
    detectSessionInUrl: false,
  });
}

const randomEmail = (prefix) => `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
const OLD_PASSWORD = 'correct horse';
const NEW_PASSWORD = 'battery staple 2';

/** The 6-digit code of a recovery mail ("… code dans Regard : 123456"). */
function mailCode(text) {
  const code = /Regard[^\d\n]{0,4}(\d{6})\b/.exec(text)?.[1];
  if (!code) throw new Error(`no 6-digit code in the mail:\n${text}`);
  return code;
}

describe('password recovery with @supabase/auth-js against regard', () => {
  let server;
  before(async () => {
    server = await startServer({ REGARD_RATE_LIMIT_SIGN_IN: '0', REGARD_RATE_LIMIT_SIGN_UP: '0' });
  });
  after(async () => {
    await server?.stop();
  });

  /** A new account (through its own client, signed out afterwards). */
  async function newAccount(prefix) {
    const email = randomEmail(prefix);
    const client = newClient(server.url);
    const { data, error } = await client.signUp({ email, password: OLD_PASSWORD });
    assert.equal(error, null);
    assert.ok(data.session, 'auto-confirmed sign-up returns a session');
    return email;
  }

  /** After recovery: the new password signs in, the old one no longer does. */
  async function onlyNewPasswordWorks(email) {
    const withNew = await newClient(server.url).signInWithPassword({ email, password: NEW_PASSWORD });
    assert.equal(withNew.error, null);
    assert.equal(withNew.data.user.email, email);
    const withOld = await newClient(server.url).signInWithPassword({ email, password: OLD_PASSWORD });
    assert.equal(withOld.error?.code, 'invalid_credentials');
  }

  it('PKCE: the link ends in redirectTo?code=, exchanged for a recovery session', async () => {
    const email = await newAccount('pkce');
    const client = newClient(server.url, 'pkce');
    const events = [];
    client.onAuthStateChange((event) => events.push(event));
    const redirectTo = `${server.url}/reset-password`;

    const seen = await outboxMark(server.dataDir);
    const asked = await client.resetPasswordForEmail(email, { redirectTo });
    assert.equal(asked.error, null);
    assert.deepEqual(asked.data, {});
    const link = verifyLink(await nextMail(server.dataDir, seen));
    assert.ok(link.startsWith(`${server.url}/auth/v1/verify?`), link);
    assert.equal(new URL(link).searchParams.get('type'), 'recovery');

    // The browser follows the link: a 303 to redirectTo with the flow's code.
    const res = await fetch(link, { redirect: 'manual' });
    assert.equal(res.status, 303);
    const landing = new URL(res.headers.get('location'));
    assert.equal(`${landing.origin}${landing.pathname}`, redirectTo);
    const code = landing.searchParams.get('code');
    assert.ok(code, landing.toString());
    assert.equal(landing.hash, '', 'no tokens in the fragment with PKCE');

    const { data, error } = await client.exchangeCodeForSession(code);
    assert.equal(error, null);
    assert.equal(data.user.email, email);
    assert.equal(data.redirectType, 'recovery');
    assert.ok(data.session.access_token);
    assert.ok(events.includes('PASSWORD_RECOVERY'), events.join(', '));
    const amr = JSON.parse(Buffer.from(data.session.access_token.split('.')[1], 'base64url')).amr;
    assert.equal(amr[0].method, 'recovery');

    const updated = await client.updateUser({ password: NEW_PASSWORD });
    assert.equal(updated.error, null);
    assert.ok(events.includes('USER_UPDATED'), events.join(', '));
    await onlyNewPasswordWorks(email);

    // The link is good once: the second time it sends the browser back with an error.
    const again = await fetch(link, { redirect: 'manual' });
    assert.equal(again.status, 303);
    const refused = new URL(again.headers.get('location'));
    assert.equal(`${refused.origin}${refused.pathname}`, redirectTo);
    assert.equal(refused.searchParams.get('error_code'), 'otp_expired');
    assert.equal(refused.searchParams.get('code'), null);
  });

  it('implicit: the 6-digit code of the mail opens a recovery session (verifyOtp)', async () => {
    const email = await newAccount('otp');
    const client = newClient(server.url);
    const events = [];
    client.onAuthStateChange((event) => events.push(event));

    const seen = await outboxMark(server.dataDir);
    const asked = await client.resetPasswordForEmail(email);
    assert.equal(asked.error, null);
    const text = await nextMail(server.dataDir, seen);
    const code = mailCode(text);

    // A wrong code first (the right one still works afterwards).
    const wrong = await client.verifyOtp({ email, token: code === '000000' ? '000001' : '000000', type: 'recovery' });
    assert.equal(wrong.error?.code, 'otp_expired');

    const { data, error } = await client.verifyOtp({ email, token: code, type: 'recovery' });
    assert.equal(error, null);
    assert.equal(data.user.email, email);
    assert.ok(data.session.access_token);
    assert.ok(events.includes('PASSWORD_RECOVERY'), events.join(', '));

    const updated = await client.updateUser({ password: NEW_PASSWORD });
    assert.equal(updated.error, null);
    await onlyNewPasswordWorks(email);

    // The code and the link of that mail are used up.
    const reused = await newClient(server.url).verifyOtp({ email, token: code, type: 'recovery' });
    assert.equal(reused.error?.code, 'otp_expired');
    const res = await fetch(verifyLink(text), { redirect: 'manual' });
    assert.equal(new URL(res.headers.get('location')).searchParams.get('error_code'), 'otp_expired');
  });

  it('answers an unknown address the same, and mails nobody', async () => {
    const known = await newAccount('known');
    const unknown = randomEmail('nobody');
    const seen = await outboxMark(server.dataDir);

    const forUnknown = await newClient(server.url).resetPasswordForEmail(unknown);
    const forKnown = await newClient(server.url).resetPasswordForEmail(known);
    assert.deepEqual(forUnknown, forKnown);
    assert.deepEqual(forUnknown, { data: {}, error: null });

    // The known address's mail arrives (asked after the unknown one); it is the only new mail.
    await nextMail(server.dataDir, seen);
    const fresh = (await outboxMark(server.dataDir)).filter((name) => !seen.includes(name));
    assert.equal(fresh.length, 1, fresh.join(', '));
    const raw = await readFile(join(server.dataDir, 'outbox', fresh[0]), 'utf8');
    assert.match(raw, new RegExp(`^To: .*${known.replace(/[.+]/g, '\\$&')}`, 'mi'));
    assert.ok(!raw.includes(unknown), 'nothing mentions the unknown address');
  });
});
