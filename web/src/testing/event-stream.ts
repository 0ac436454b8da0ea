//! A stand-in for the live events stream: `fetch('/api/v1/events')` answers a stream the test
//! writes to (`send(event, data)`), every other call goes through the `mockApi` handler.
import { vi } from 'vitest';

import { mockApi, type ApiHandler } from './api-mock';

export function withEventStream(handler: ApiHandler) {
  const apiFetch = mockApi(handler);
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.endsWith('/api/v1/events')) {
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          controller = c;
        },
      });
      init?.signal?.addEventListener('abort', () => controller?.error(new DOMException('aborted', 'AbortError')));
      return Promise.resolve(new Response(body, { headers: { 'Content-Type': 'text/event-stream' } }));
    }
    return apiFetch(input, init);
  });
  return {
    apiFetch,
    send: (event: string, data: unknown) => controller!.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)),
    connected: () => controller !== null,
  };
}
