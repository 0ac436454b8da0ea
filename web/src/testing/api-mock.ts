//! A stand-in for the server behind `fetch('/api/v1/...')`. `mockApi(handler)`
//! replaces the global fetch; the handler sees method, path (without /api/v1),
//! query, JSON body and headers, and returns `{status, body}` (undefined → 404 not_found).
//! Calls come as a `Request` (the `api` client) or as a URL and its init (the live events).
import { vi } from 'vitest';

export type ApiCall = { method: string; path: string; query: URLSearchParams; body: unknown; headers: Headers };
export type ApiAnswer = { status?: number; body?: unknown } | undefined;
export type ApiHandler = (call: ApiCall) => ApiAnswer | Promise<ApiAnswer>;

function respond(answer: ApiAnswer): Response {
  if (!answer) return Response.json({ code: 'not_found', message: 'Not found', details: {} }, { status: 404 });
  const status = answer.status ?? 200;
  if (status === 204) return new Response(null, { status });
  return Response.json(answer.body ?? null, { status });
}

/** A request sent through `fetch(input, init)`: a `Request` (the `api` client's) or a URL and its init. */
export function requestOf(input: RequestInfo | URL, init?: RequestInit): Request {
  if (input instanceof Request) return input;
  return new Request(new URL(typeof input === 'string' ? input : input.href, 'http://localhost'), init);
}

/** The path of a request's URL without `/api/v1`. */
const pathOf = (request: Request) => new URL(request.url).pathname.replace(/^\/api\/v1/, '');

export function mockApi(handler: ApiHandler) {
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = requestOf(input, init);
    const text = await request.clone().text();
    const body = text ? (JSON.parse(text) as unknown) : undefined;
    return respond(
      await handler({ method: request.method, path: pathOf(request), query: new URL(request.url).searchParams, body, headers: request.headers }),
    );
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

/** The calls made so far, as `METHOD /path`. */
export function calls(fetchMock: ReturnType<typeof mockApi>): string[] {
  return fetchMock.mock.calls.map(([input, init]) => {
    const request = requestOf(input, init);
    return `${request.method} ${pathOf(request)}`;
  });
}

/** The header `name` of the `index`th call (null when it was not sent). */
export function sentHeader(fetchMock: { mock: { calls: ArrayLike<unknown[]> } }, index: number, name: string): string | null {
  const [input, init] = fetchMock.mock.calls[index] as [RequestInfo | URL, RequestInit | undefined];
  return requestOf(input, init).headers.get(name);
}

/** Every list is empty; everything else is 404. The default in every test. */
export const emptyLists: ApiHandler = ({ method, path }) =>
  method === 'GET' && /^\/(creatives|locations|simulations)$/.test(path) ? { body: { items: [], next_cursor: null } } : undefined;

export function fakeMedia(id: string, overrides: Record<string, unknown> = {}) {
  return {
    id,
    kind: 'upload',
    mime: 'image/png',
    width: 1920,
    height: 1080,
    bytes: 1234,
    sha256: 'x',
    original_name: `${id}.png`,
    gps: null,
    urls: {
      original: `/api/v1/files/${id}/original?exp=1&sig=a`,
      preview: `/api/v1/files/${id}/preview?exp=1&sig=a`,
      thumbnail: `/api/v1/files/${id}/thumbnail?exp=1&sig=a`,
    },
    urls_expire_at: '2030-01-01T00:00:00.000Z',
    created_at: '2026-11-21T00:00:00.000Z',
    ...overrides,
  };
}
