//! A stand-in for the live events stream: `fetch('/api/v1/events')` answers a stream the test
//! writes to (`send(event, data)`), every other call goes through the `mockApi` handler.
import { vi } from 'vitest';

import { mockApi, requestOf, type ApiHandler } from './api-mock';

export function withEventStream(handler: ApiHandler) {
  const fetchMock = mockApi(handler);
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    if (requestOf(input, init).url.endsWith('/api/v1/events')) {
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          controller = c;
        },
      });
      init?.signal?.addEventListener('abort', () => controller?.error(new DOMException('aborted', 'AbortError')));
      return Promise.resolve(new Response(body, { headers: { 'Content-Type': 'text/event-stream' } }));
    }
    return fetchMock(input, init);
  });
  return {
    fetchMock,
    send: (event: string, data: unknown) => controller!.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)),
    connected: () => controller !== null,
  };
}
