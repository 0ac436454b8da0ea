import { AuthApiError, AuthRefreshDiscardedError, AuthRetryableFetchError } from '@supabase/auth-js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { answer, api, uploadMedia } from '@/lib/api';
import { closeLiveEvents, holdLiveEvents } from '@/lib/events';
import { getSessionEnded, renewAfterUnauthorized } from '@/lib/session';
import { requestOf, sentHeader } from '@/testing/api-mock';
import { authClient, fakeSession, resetAuthMock } from '@/testing/auth-mock';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));

const unauthorized = () =>
  Response.json({ code: 'unauthorized', message: 'x', details: { reason: 'session_not_found' } }, { status: 401 });

/** A server that accepts only `token` (every other bearer gets 401). */
function serverAccepting(token: string | null) {
  const fetchMock = vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
    const auth = requestOf(input, init).headers.get('Authorization');
    return Promise.resolve(token && auth === `Bearer ${token}` ? Response.json({ ok: true }) : unauthorized());
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

/** The refresh answers like auth-js: a new session (stored, so getSession sees it too) or an error. */
function refreshGives(result: { token: string } | { error: unknown }) {
  authClient.refreshSession.mockImplementation(async () => {
    await Promise.resolve();
    if ('error' in result) return { data: { user: null, session: null }, error: result.error };
    const session = { ...fakeSession(), access_token: result.token };
    authClient.getSession.mockResolvedValue({ data: { session }, error: null });
    return { data: { user: session.user, session }, error: null };
  });
}

/** A call through the `api` client. */
const listCreatives = () => answer(api.GET('/creatives'));

const sessionNotFound = () => new AuthApiError('Session not found', 403, 'session_not_found');

beforeEach(() => {
  resetAuthMock(fakeSession());
});

describe('renewAfterUnauthorized', () => {
  it('refreshes once for ten parallel 401s, and every request is sent again with the new token', async () => {
    refreshGives({ token: 'fresh' });
    const fetchMock = serverAccepting('fresh');
    const results = await Promise.all(Array.from({ length: 10 }, () => listCreatives()));
    expect(results).toEqual(Array(10).fill({ ok: true }));
    expect(authClient.refreshSession).toHaveBeenCalledTimes(1);
    expect(fetchMock).toHaveBeenCalledTimes(20);
    expect(authClient.signOut).not.toHaveBeenCalled();
  });

  it('does not refresh again for a late 401 when the token was already replaced', async () => {
    authClient.getSession.mockResolvedValue({ data: { session: { ...fakeSession(), access_token: 'newer' } }, error: null });
    await expect(renewAfterUnauthorized('access')).resolves.toEqual({ status: 'renewed', token: 'newer' });
    expect(authClient.refreshSession).not.toHaveBeenCalled();
  });

  it.each([
    ['session_not_found', sessionNotFound()],
    ['refresh_token_not_found', new AuthApiError('Invalid Refresh Token: Refresh Token Not Found', 400, 'refresh_token_not_found')],
  ])('ends the session locally, once, when the refresh answers %s', async (_code, error) => {
    refreshGives({ error });
    serverAccepting(null);
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => listCreatives()));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    for (const result of results) expect((result as PromiseRejectedResult).reason).toMatchObject({ status: 401, code: 'session_ended' });
    expect(authClient.refreshSession).toHaveBeenCalledTimes(1);
    expect(authClient.signOut).toHaveBeenCalledTimes(1);
    expect(authClient.signOut).toHaveBeenCalledWith({ scope: 'local' });
    expect(getSessionEnded()).toEqual({ interruptedUploads: 0 });
  });

  it('ends nothing when the refresh fails for a passing reason (network, 5xx, rate limit)', async () => {
    serverAccepting(null);
    for (const error of [
      new AuthRetryableFetchError('Failed to fetch', 0),
      new AuthApiError('boom', 500, 'unexpected_failure'),
      new AuthApiError('slow down', 429, 'over_request_rate_limit'),
    ]) {
      refreshGives({ error });
      await expect(listCreatives()).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
    }
    expect(authClient.signOut).not.toHaveBeenCalled();
    expect(getSessionEnded()).toBeNull();
  });

  it('takes the stored token when auth-js discarded its refresh because storage changed', async () => {
    authClient.refreshSession.mockImplementation(() => {
      authClient.getSession.mockResolvedValue({ data: { session: { ...fakeSession(), access_token: 'other-tab' } }, error: null });
      return Promise.resolve({ data: { user: null, session: null }, error: new AuthRefreshDiscardedError() });
    });
    await expect(renewAfterUnauthorized('access')).resolves.toEqual({ status: 'renewed', token: 'other-tab' });
    expect(authClient.signOut).not.toHaveBeenCalled();
  });

  it('says ended, without signing out again, when there is no session left', async () => {
    resetAuthMock(null);
    await expect(renewAfterUnauthorized('access')).resolves.toEqual({ status: 'ended' });
    expect(authClient.refreshSession).not.toHaveBeenCalled();
    expect(authClient.signOut).not.toHaveBeenCalled();
    expect(getSessionEnded()).toBeNull();
  });
});

/** A stand-in XMLHttpRequest: the test answers each one. */
class FakeXhr {
  static all: FakeXhr[] = [];
  headers: Record<string, string> = {};
  body: unknown = null;
  status = 0;
  responseText = '';
  upload = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  aborted = false;
  constructor() {
    FakeXhr.all.push(this);
  }
  open() {}
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  send(body: unknown) {
    this.body = body;
  }
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
  answer(status: number, body: unknown) {
    this.status = status;
    this.responseText = JSON.stringify(body);
    this.onload?.();
  }
}

describe('uploads and the session', () => {
  beforeEach(() => {
    FakeXhr.all = [];
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
  });

  const file = () => new File(['png'], 'a.png', { type: 'image/png' });

  it('sends the file again with the new token after a 401', async () => {
    refreshGives({ token: 'fresh' });
    const upload = uploadMedia(file());
    await vi.waitFor(() => expect(FakeXhr.all).toHaveLength(1));
    FakeXhr.all[0].answer(401, { code: 'unauthorized' });
    await vi.waitFor(() => expect(FakeXhr.all).toHaveLength(2));
    expect(FakeXhr.all[1].headers.Authorization).toBe('Bearer fresh');
    FakeXhr.all[1].answer(201, { id: 'm1' });
    await expect(upload).resolves.toEqual({ id: 'm1' });
  });

  it('fails every upload under way with session_ended when the session ends, and counts them', async () => {
    refreshGives({ error: sessionNotFound() });
    const first = uploadMedia(file());
    const second = uploadMedia(file());
    await vi.waitFor(() => expect(FakeXhr.all).toHaveLength(2));
    // The first one's 401 ends the session; the second is cancelled at once, not left to fail later.
    FakeXhr.all[0].answer(401, { code: 'unauthorized' });
    await expect(first).rejects.toMatchObject({ code: 'session_ended' });
    await expect(second).rejects.toMatchObject({ code: 'session_ended' });
    expect(FakeXhr.all[1].aborted).toBe(true);
    expect(FakeXhr.all).toHaveLength(2);
    expect(getSessionEnded()).toEqual({ interruptedUploads: 2 });
    expect(authClient.signOut).toHaveBeenCalledTimes(1);
  });

  it('fails an upload that another request’s 401 interrupted', async () => {
    refreshGives({ error: sessionNotFound() });
    serverAccepting(null);
    const upload = uploadMedia(file());
    await vi.waitFor(() => expect(FakeXhr.all).toHaveLength(1));
    await expect(listCreatives()).rejects.toMatchObject({ code: 'session_ended' });
    await expect(upload).rejects.toMatchObject({ code: 'session_ended' });
    expect(getSessionEnded()).toEqual({ interruptedUploads: 1 });
  });
});

describe('the events stream and the session', () => {
  afterEach(() => {
    closeLiveEvents();
  });

  it('ends the session when the stream is refused and the refresh says the session is gone', async () => {
    refreshGives({ error: sessionNotFound() });
    const fetchMock = serverAccepting(null);
    const release = holdLiveEvents();
    await vi.waitFor(() => expect(authClient.signOut).toHaveBeenCalledWith({ scope: 'local' }), { timeout: 3000 });
    expect(sentHeader(fetchMock, 0, 'Authorization')).toBe('Bearer access');
    expect(getSessionEnded()).toEqual({ interruptedUploads: 0 });
    release();
  });
});
