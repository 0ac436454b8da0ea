import { beforeEach, describe, expect, it, vi } from 'vitest';

import { answer, api, ApiError, apiErrorKey, errorFromBody, fieldErrorKey, postForm, publicApi, queryString, uploadMedia } from '@/lib/api';
import { i18n } from '@/lib/i18n';
import { useWorkspaceStore } from '@/lib/workspace';
import { calls, mockApi, requestOf, sentHeader } from '@/testing/api-mock';
import { authClient, fakeSession, resetAuthMock } from '@/testing/auth-mock';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));

beforeEach(() => {
  resetAuthMock(fakeSession());
});

const listCreatives = () => answer(api.GET('/creatives'));

describe('the api client', () => {
  it('sends the bearer token and JSON, and reads JSON', async () => {
    const fetchMock = mockApi(({ method, path, body }) =>
      method === 'POST' && path === '/creatives' ? { status: 201, body: { echoed: body } } : undefined,
    );
    await expect(answer(api.POST('/creatives', { body: { media_id: 'm' } }))).resolves.toEqual({
      echoed: { media_id: 'm' },
    });
    const request = requestOf(...fetchMock.mock.calls[0]);
    expect(new URL(request.url).pathname).toBe('/api/v1/creatives');
    expect(Object.fromEntries(request.headers)).toMatchObject({
      authorization: 'Bearer access',
      'content-type': 'application/json',
      accept: 'application/json',
    });
    expect(calls(fetchMock)).toEqual(['POST /creatives']);
  });

  it('fills path parameters and sends only the set query values', async () => {
    const fetchMock = mockApi(() => ({ body: {} }));
    await answer(api.GET('/help/{slug}', { params: { path: { slug: 'a b/c' }, query: { locale: 'en' } } }));
    await answer(api.GET('/creatives', { params: { query: { limit: 50, q: '', cursor: undefined, brand: 'évry 100%' } } }));
    expect(fetchMock.mock.calls.map(([input, init]) => requestOf(input, init).url.replace(/^https?:\/\/[^/]+/, ''))).toEqual([
      '/api/v1/help/a%20b%2Fc?locale=en',
      '/api/v1/creatives?limit=50&brand=%C3%A9vry+100%25',
    ]);
  });

  it('sends no Authorization header without a session', async () => {
    resetAuthMock(null);
    const fetchMock = mockApi(() => ({ body: {} }));
    await listCreatives();
    expect(sentHeader(fetchMock, 0, 'Authorization')).toBeNull();
  });

  it('refreshes the session once on 401 and retries with the new token', async () => {
    authClient.refreshSession.mockResolvedValue({ data: { session: { ...fakeSession(), access_token: 'fresh' } }, error: null });
    const fetchMock = vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const auth = requestOf(input, init).headers.get('Authorization');
      return Promise.resolve(
        auth === 'Bearer fresh'
          ? Response.json({ ok: true })
          : Response.json({ code: 'unauthorized', message: 'x', details: { reason: 'bad_jwt' } }, { status: 401 }),
      );
    });
    vi.stubGlobal('fetch', fetchMock);
    await expect(listCreatives()).resolves.toEqual({ ok: true });
    expect(fetchMock).toHaveBeenCalledTimes(2);

    // A refresh the server refuses ends the session (lib/session.ts): the request says so.
    authClient.refreshSession.mockResolvedValue({ data: { session: null }, error: new Error('gone') });
    await expect(listCreatives()).rejects.toMatchObject({ status: 401, code: 'session_ended' });
    expect(authClient.refreshSession).toHaveBeenCalledTimes(2);
    expect(authClient.signOut).toHaveBeenCalledWith({ scope: 'local' });
  });

  it('sends the body again when it retries', async () => {
    authClient.refreshSession.mockResolvedValue({ data: { session: { ...fakeSession(), access_token: 'fresh' } }, error: null });
    const bodies: unknown[] = [];
    mockApi(({ body }) => {
      bodies.push(body);
      return bodies.length === 1 ? { status: 401, body: { code: 'unauthorized', message: 'x', details: {} } } : { status: 201, body: {} };
    });
    await answer(api.POST('/creatives', { body: { media_id: 'm' } }));
    expect(bodies).toEqual([{ media_id: 'm' }, { media_id: 'm' }]);
  });

  it('resolves undefined on 204', async () => {
    mockApi(() => ({ status: 204 }));
    await expect(answer(api.DELETE('/creatives/{id}', { params: { path: { id: '1' } } }))).resolves.toBeUndefined();
  });

  it('throws an ApiError with the server code and field details', async () => {
    mockApi(() => ({
      status: 422,
      body: { code: 'validation_failed', message: 'bad', details: { fields: { name: 'required', weird: 3 } } },
    }));
    const error = await answer(api.POST('/locations', { body: { name: '' } })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 422, code: 'validation_failed', message: 'bad' });
    expect((error as ApiError).fields).toEqual({ name: 'required' });
  });

  it('turns a non-JSON failure and a network failure into codes', async () => {
    vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(new Response('<html>', { status: 502 }))));
    await expect(listCreatives()).rejects.toMatchObject({ status: 502, code: 'internal' });
    vi.stubGlobal('fetch', vi.fn(() => Promise.reject(new TypeError('Failed to fetch'))));
    await expect(listCreatives()).rejects.toMatchObject({ status: 0, code: 'network' });
  });

  it('works when reading the session fails', async () => {
    authClient.getSession.mockRejectedValue(new Error('storage'));
    const fetchMock = mockApi(() => ({ body: { ok: true } }));
    await expect(listCreatives()).resolves.toEqual({ ok: true });
    expect(sentHeader(fetchMock, 0, 'Authorization')).toBeNull();
  });
});

describe('the public client', () => {
  it('reads a share link without a token, and says network when no answer came', async () => {
    const fetchMock = mockApi(({ path }) => (path === '/shared/t%2F1' ? { body: { ok: true } } : undefined));
    await expect(answer(publicApi.GET('/shared/{token}', { params: { path: { token: 't/1' } } }))).resolves.toEqual({ ok: true });
    expect(sentHeader(fetchMock, 0, 'Authorization')).toBeNull();
    expect(authClient.getSession).not.toHaveBeenCalled();
    mockApi(() => ({ status: 410, body: { code: 'share_expired', message: 'x', details: {} } }));
    await expect(answer(publicApi.GET('/shared/{token}', { params: { path: { token: 't' } } }))).rejects.toMatchObject({
      status: 410,
      code: 'share_expired',
    });
    vi.stubGlobal('fetch', vi.fn(() => Promise.reject(new TypeError('Failed to fetch'))));
    await expect(answer(publicApi.GET('/shared/{token}', { params: { path: { token: 't' } } }))).rejects.toMatchObject({
      status: 0,
      code: 'network',
    });
  });
});

describe('helpers', () => {
  it('builds query strings from the set values only', () => {
    expect(queryString({ limit: 50, q: '', cursor: null, x: undefined })).toBe('?limit=50');
    expect(queryString({ q: 'évry 100%' })).toBe('?q=%C3%A9vry+100%25');
    expect(queryString({})).toBe('');
  });

  it('reads error bodies defensively', () => {
    expect(errorFromBody(404, { code: 'not_found' })).toMatchObject({ code: 'not_found', message: 'not_found', details: {} });
    expect(errorFromBody(400, null)).toMatchObject({ code: 'unknown' });
    expect(errorFromBody(500, 'text')).toMatchObject({ code: 'internal' });
  });

  it('maps codes to messages in both languages', () => {
    expect(apiErrorKey('unsupported_media_type')).toBe('apiErrors.unsupported_media_type');
    expect(apiErrorKey(new ApiError(413, 'file_too_large', ''))).toBe('apiErrors.file_too_large');
    expect(apiErrorKey('internal')).toBe('apiErrors.internal');
    expect(apiErrorKey('something_new')).toBe('apiErrors.generic');
    expect(apiErrorKey(new Error('x'))).toBe('apiErrors.generic');
    expect(fieldErrorKey('not_clockwise')).toBe('fieldErrors.not_clockwise');
    expect(fieldErrorKey('brand_new_code')).toBe('fieldErrors.invalid');

    expect(i18n.t(apiErrorKey('unsupported_media_type'))).toBe("Ce fichier n'est pas une image JPEG, PNG ou WebP.");
    expect(i18n.t(apiErrorKey('unsupported_media_type'), { lng: 'en' })).toBe('This file is not a JPEG, PNG or WebP image.');
    expect(i18n.t(apiErrorKey('boom'))).toBe('Une erreur est survenue. Veuillez réessayer.');
  });
});

/** A stand-in XMLHttpRequest driven by the test. */
class FakeXhr {
  static last: FakeXhr | null = null;
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: unknown = null;
  status = 0;
  responseText = '';
  upload: { onprogress: ((event: ProgressEvent) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  aborted = false;
  constructor() {
    FakeXhr.last = this;
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
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
  responseHeaders: Record<string, string> = {};
  getResponseHeader(name: string) {
    return this.responseHeaders[name.toLowerCase()] ?? null;
  }
  progress(loaded: number, total: number) {
    this.upload.onprogress?.({ lengthComputable: true, loaded, total } as ProgressEvent);
  }
  answer(status: number, body: unknown) {
    this.status = status;
    this.responseText = JSON.stringify(body);
    this.onload?.();
  }
}

describe('uploadMedia', () => {
  beforeEach(() => {
    FakeXhr.last = null;
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
  });

  async function started() {
    await vi.waitFor(() => expect(FakeXhr.last?.body).toBeTruthy());
    return FakeXhr.last!;
  }

  it('posts the file as multipart field `file` with the token, reporting progress', async () => {
    const progress = vi.fn();
    const file = new File(['png'], 'a.png', { type: 'image/png' });
    const promise = uploadMedia(file, { onProgress: progress });
    const xhr = await started();
    expect([xhr.method, xhr.url]).toEqual(['POST', '/api/v1/media']);
    expect(xhr.headers.Authorization).toBe('Bearer access');
    expect((xhr.body as FormData).get('file')).toBeInstanceOf(File);
    xhr.progress(5, 10);
    expect(progress).toHaveBeenCalledWith(5, 10);
    xhr.answer(201, { id: 'm1' });
    await expect(promise).resolves.toEqual({ id: 'm1' });
  });

  it('names the shared workspace the tab works in, and none for the personal one', async () => {
    useWorkspaceStore.getState().set('w-shared');
    const shared = uploadMedia(new File(['png'], 'a.png', { type: 'image/png' }));
    const xhr = await started();
    expect(xhr.headers['X-Workspace-Id']).toBe('w-shared');
    xhr.answer(201, { id: 'm1' });
    await shared;

    FakeXhr.last = null;
    useWorkspaceStore.getState().set(null);
    const personal = uploadMedia(new File(['png'], 'a.png', { type: 'image/png' }));
    const next = await started();
    expect(next.headers).not.toHaveProperty('X-Workspace-Id');
    next.answer(201, { id: 'm2' });
    await personal;
  });

  it('rejects with the server error code', async () => {
    const promise = uploadMedia(new File(['x'], 'x.png'));
    (await started()).answer(415, { code: 'unsupported_media_type', message: 'no', details: {} });
    await expect(promise).rejects.toMatchObject({ status: 415, code: 'unsupported_media_type' });
  });

  it('rejects on network failure and on abort', async () => {
    const failing = uploadMedia(new File(['x'], 'x.png'));
    (await started()).onerror?.();
    await expect(failing).rejects.toMatchObject({ code: 'network' });

    FakeXhr.last = null;
    const controller = new AbortController();
    const aborted = uploadMedia(new File(['x'], 'x.png'), { signal: controller.signal });
    const xhr = await started();
    controller.abort();
    expect(xhr.aborted).toBe(true);
    await expect(aborted).rejects.toMatchObject({ code: 'aborted' });
  });
});

describe('postForm', () => {
  beforeEach(() => {
    FakeXhr.last = null;
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
  });

  it('resolves the statuses it is told to, with their body and headers, and rejects the others', async () => {
    const form = () => {
      const body = new FormData();
      body.append('dry_run', 'true');
      return body;
    };
    const refused = postForm('/locations/import', form, { resolveStatuses: [422] });
    await vi.waitFor(() => expect(FakeXhr.last?.body).toBeTruthy());
    const xhr = FakeXhr.last!;
    expect(xhr.url).toBe('/api/v1/locations/import');
    expect((xhr.body as FormData).get('dry_run')).toBe('true');
    xhr.responseHeaders['x-import-rows'] = '3';
    xhr.answer(422, { errors: [{ row: 2 }] });
    const answered = await refused;
    expect([answered.status, answered.body, answered.header('X-Import-Rows')]).toEqual([422, { errors: [{ row: 2 }] }, '3']);

    FakeXhr.last = null;
    const rejected = postForm('/locations/import', form);
    await vi.waitFor(() => expect(FakeXhr.last?.body).toBeTruthy());
    FakeXhr.last!.answer(422, { code: 'validation_failed', message: 'x', details: {} });
    await expect(rejected).rejects.toMatchObject({ status: 422, code: 'validation_failed' });
  });
});
