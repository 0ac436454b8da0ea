// Second factors with the official, unmodified @supabase/auth-js client against the real
// `regard` binary: TOTP (codes computed here, RFC 6238) and phone (the code read from the SMS
// the server writes to its development outbox), assurance levels before and after
// verification, refresh, a second session at aal1, removal of the factor.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthClient } from '@supabase/auth-js';
import { nextSms, outboxMark } from './support/outbox.mjs';
import { startServer } from './support/server.mjs';
import { totpCode, totpStep } from './support/totp.mjs';

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
    storageKey: 'regard-mfa',
    autoRefreshToken: false,
    persistSession: true,
    detectSessionInUrl: false,
  });
}

const randomEmail = (prefix) => `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
const PASSWORD = 'correct horse';

/** The claims of an access token (not verified: the server did that). */
const claims = (jwt) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url'));

/** `{currentLevel, nextLevel}` of the client's stored session. */
async function levels(client, jwt) {
  const { data, error } = await client.mfa.getAuthenticatorAssuranceLevel(jwt);
  assert.equal(error, null);
  return { currentLevel: data.currentLevel, nextLevel: data.nextLevel };
}

/** A new client signed in with the password. */
async function signedIn(url, email) {
  const client = newClient(url);
  const { error } = await client.signInWithPassword({ email, password: PASSWORD });
  assert.equal(error, null);
  return client;
}

describe('TOTP codes (RFC 6238, SHA-1, 6 digits, 30 s)', () => {
  it('match the RFC 6238 SHA-1 vectors', () => {
    // Appendix B's secret "12345678901234567890", base32; its 8-digit codes end in these 6.
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    assert.equal(totpCode(secret, totpStep(59_000)), '287082'); // 94287082
    assert.equal(totpCode(secret, totpStep(1_111_111_109_000)), '081804'); // 07081804
    assert.equal(totpCode(secret, totpStep(1_234_567_890_000)), '005924'); // 89005924
    assert.equal(totpCode(secret, totpStep(2_000_000_000_000)), '279037'); // 69279037
    assert.equal(totpCode(secret, totpStep(20_000_000_000_000)), '353130'); // 65353130
  });
});

describe('second factors with @supabase/auth-js against regard', () => {
  let server;
  before(async () => {
    server = await startServer({ REGARD_RATE_LIMIT_SIGN_IN: '0', REGARD_RATE_LIMIT_SIGN_UP: '0' });
  });
  after(async () => {
    await server?.stop();
  });

  it('enrols, verifies and removes a TOTP factor, with the assurance levels on the way', async () => {
    const email = randomEmail('totp');
    const client = newClient(server.url);
    const events = [];
    client.onAuthStateChange((event) => events.push(event));
    const signUp = await client.signUp({ email, password: PASSWORD });
    assert.equal(signUp.error, null);
    assert.ok(signUp.data.session, 'auto-confirmed sign-up returns a session');
    assert.deepEqual(await levels(client), { currentLevel: 'aal1', nextLevel: 'aal1' });

    // Enrolment: a QR code auth-js turns into an SVG data URI, the secret and the otpauth URI.
    const enrolled = await client.mfa.enroll({ factorType: 'totp', friendlyName: 'Téléphone de test' });
    assert.equal(enrolled.error, null);
    const factorId = enrolled.data.id;
    assert.equal(enrolled.data.type, 'totp');
    assert.equal(enrolled.data.friendly_name, 'Téléphone de test');
    const { qr_code: qrCode, secret, uri } = enrolled.data.totp;
    assert.ok(qrCode.startsWith('data:image/svg+xml;utf-8,'), qrCode.slice(0, 40));
    assert.match(qrCode, /<svg[\s>]/);
    assert.ok(!qrCode.includes('#'), 'no # in the data URI (it would end the data)');
    assert.match(secret, /^[A-Z2-7]{32}$/);
    assert.ok(uri.startsWith('otpauth://totp/'), uri);
    assert.equal(new URL(uri).searchParams.get('secret'), secret);
    assert.ok(decodeURIComponent(uri).includes(email), uri);

    // Unverified: listed among all factors but not as a TOTP factor, and no second level yet,
    // whether read from the stored session or from the server (a token given).
    const unverified = await client.mfa.listFactors();
    assert.equal(unverified.error, null);
    assert.deepEqual(unverified.data.all.map((f) => [f.id, f.factor_type, f.status]), [[factorId, 'totp', 'unverified']]);
    assert.deepEqual(unverified.data.totp, []);
    assert.deepEqual(await levels(client), { currentLevel: 'aal1', nextLevel: 'aal1' });
    const { data: before } = await client.getSession();
    assert.deepEqual(await levels(client, before.session.access_token), { currentLevel: 'aal1', nextLevel: 'aal1' });

    const challenge = await client.mfa.challenge({ factorId });
    assert.equal(challenge.error, null);
    assert.equal(challenge.data.type, 'totp');
    assert.ok(challenge.data.expires_at > Date.now() / 1000, 'the challenge expires in the future');

    // A wrong code: none of the codes the server accepts around now.
    const step = totpStep();
    const valid = new Set([step - 1, step, step + 1, step + 2].map((s) => totpCode(secret, s)));
    const wrongCode = ['000000', '111111', '222222', '333333'].find((code) => !valid.has(code));
    const wrong = await client.mfa.verify({ factorId, challengeId: challenge.data.id, code: wrongCode });
    assert.equal(wrong.error?.code, 'mfa_verification_failed');
    assert.equal(wrong.error?.status, 422);
    assert.deepEqual(await levels(client), { currentLevel: 'aal1', nextLevel: 'aal1' });

    // The right code on the same challenge raises this session to aal2.
    const verified = await client.mfa.verify({ factorId, challengeId: challenge.data.id, code: totpCode(secret, step) });
    assert.equal(verified.error, null);
    assert.equal(claims(verified.data.access_token).aal, 'aal2');
    assert.equal(verified.data.user.factors.find((f) => f.id === factorId)?.status, 'verified');
    assert.ok(events.includes('MFA_CHALLENGE_VERIFIED'), events.join(', '));
    const aal2 = await client.mfa.getAuthenticatorAssuranceLevel();
    assert.equal(aal2.data.currentLevel, 'aal2');
    assert.equal(aal2.data.nextLevel, 'aal2');
    const methods = aal2.data.currentAuthenticationMethods.map((m) => m.method);
    assert.ok(methods.includes('totp') && methods.includes('password'), methods.join(', '));

    const listed = await client.mfa.listFactors();
    assert.deepEqual(listed.data.totp.map((f) => [f.id, f.status, f.friendly_name]), [[factorId, 'verified', 'Téléphone de test']]);
    assert.deepEqual(listed.data.phone, []);

    // A refresh keeps the level.
    const refreshed = await client.refreshSession();
    assert.equal(refreshed.error, null);
    assert.notEqual(refreshed.data.session.refresh_token, verified.data.refresh_token, 'refresh token rotated');
    assert.equal(claims(refreshed.data.session.access_token).aal, 'aal2');
    assert.deepEqual(await levels(client), { currentLevel: 'aal2', nextLevel: 'aal2' });

    // A fresh sign-in of the same user starts at aal1 and is told aal2 is possible; at aal1 it may
    // not add a factor nor remove the verified one.
    const second = await signedIn(server.url, email);
    assert.deepEqual(await levels(second), { currentLevel: 'aal1', nextLevel: 'aal2' });
    const refusedTotp = await second.mfa.enroll({ factorType: 'totp', friendlyName: 'Autre' });
    assert.equal(refusedTotp.error?.code, 'insufficient_aal');
    assert.equal(refusedTotp.error?.status, 403);
    const refusedPhone = await second.mfa.enroll({ factorType: 'phone', phone: '+33612345678' });
    assert.equal(refusedPhone.error?.code, 'insufficient_aal');
    const refusedUnenroll = await second.mfa.unenroll({ factorId });
    assert.equal(refusedUnenroll.error?.code, 'insufficient_aal');

    // challengeAndVerify with the next step's code (a code is good once; one step of skew is
    // accepted, so this needs no wait for the next 30 s).
    const both = await second.mfa.challengeAndVerify({ factorId, code: totpCode(secret, step + 1) });
    assert.equal(both.error, null);
    assert.deepEqual(await levels(second), { currentLevel: 'aal2', nextLevel: 'aal2' });

    // The code just used is refused a second time, and said to be used (Regard's code; GoTrue
    // says `mfa_verification_failed`).
    const replay = await second.mfa.challengeAndVerify({ factorId, code: totpCode(secret, step + 1) });
    assert.equal(replay.error?.code, 'mfa_code_already_used');

    // Removal from aal2; afterwards a fresh sign-in needs no second factor.
    const removed = await client.mfa.unenroll({ factorId });
    assert.equal(removed.error, null);
    assert.equal(removed.data.id, factorId);
    const third = await signedIn(server.url, email);
    assert.deepEqual(await levels(third), { currentLevel: 'aal1', nextLevel: 'aal1' });
    const none = await third.mfa.listFactors();
    assert.deepEqual(none.data.all, []);
  });

  it('enrols and verifies a phone factor with the code of the SMS', async () => {
    const email = randomEmail('phone');
    const client = newClient(server.url);
    assert.equal((await client.signUp({ email, password: PASSWORD })).error, null);

    const enrolled = await client.mfa.enroll({ factorType: 'phone', phone: '+33612345678', friendlyName: 'Portable' });
    assert.equal(enrolled.error, null);
    assert.equal(enrolled.data.type, 'phone');
    assert.equal(enrolled.data.phone, '+33612345678');
    const factorId = enrolled.data.id;
    assert.deepEqual(await levels(client), { currentLevel: 'aal1', nextLevel: 'aal1' });

    const seen = await outboxMark(server.dataDir);
    const challenge = await client.mfa.challenge({ factorId });
    assert.equal(challenge.error, null);
    assert.equal(challenge.data.type, 'phone');
    const sms = await nextSms(server.dataDir, seen);
    assert.equal(sms.to, '+33612345678');
    const code = /\b(\d{6})\b/.exec(sms.body)?.[1];
    assert.ok(code, `a 6-digit code in the SMS: ${sms.body}`);

    const wrongCode = code === '000000' ? '000001' : '000000';
    const wrong = await client.mfa.verify({ factorId, challengeId: challenge.data.id, code: wrongCode });
    assert.equal(wrong.error?.code, 'mfa_verification_failed');

    const verified = await client.mfa.verify({ factorId, challengeId: challenge.data.id, code });
    assert.equal(verified.error, null);
    assert.equal(claims(verified.data.access_token).aal, 'aal2');
    const aal = await client.mfa.getAuthenticatorAssuranceLevel();
    assert.equal(aal.data.currentLevel, 'aal2');
    assert.equal(aal.data.nextLevel, 'aal2');
    assert.ok(aal.data.currentAuthenticationMethods.some((m) => m.method === 'mfa/phone'), JSON.stringify(aal.data.currentAuthenticationMethods));

    const listed = await client.mfa.listFactors();
    assert.deepEqual(listed.data.phone.map((f) => [f.id, f.status, f.phone]), [[factorId, 'verified', '+33612345678']]);
    assert.deepEqual(listed.data.totp, []);

    // Another session of the same user, at aal1, may not add a factor.
    const second = await signedIn(server.url, email);
    assert.deepEqual(await levels(second), { currentLevel: 'aal1', nextLevel: 'aal2' });
    const refused = await second.mfa.enroll({ factorType: 'totp' });
    assert.equal(refused.error?.code, 'insufficient_aal');
  });
});
