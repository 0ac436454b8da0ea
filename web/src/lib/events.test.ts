import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { fakeSession, resetAuthMock, authClient } from '@/testing/auth-mock';

import {
  backoffDelay,
  closeLiveEvents,
  EventStream,
  getLiveStatus,
  holdLiveEvents,
  LINGER_MS,
  onLiveEvent,
  parseLiveEvent,
  type LiveEvent,
} from './events';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));

/** A server side of one SSE response: send text, end it; aborting the request errors the body like fetch does. */
function sseConnection(signal?: AbortSignal | null) {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
  });
  const encoder = new TextEncoder();
  let closed = false;
  signal?.addEventListener('abort', () => {
    if (!closed) controller.error(new DOMException('aborted', 'AbortError'));
    closed = true;
  });
  return {
    response: new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    send: (text: string) => controller.enqueue(encoder.encode(text)),
    end: () => {
      closed = true;
      controller.close();
    },
    get aborted() {
      return signal?.aborted ?? false;
    },
  };
}

type Connection = ReturnType<typeof sseConnection> & { headers: Record<string, string> };

/** A fetch that opens a new fake SSE connection per call (or answers `status` when queued). */
function fakeServer() {
  const connections: Connection[] = [];
  const statuses: number[] = [];
  const fetchMock = vi.fn((_url: RequestInfo | URL, init?: RequestInit) => {
    const status = statuses.shift();
    if (status !== undefined) return Promise.resolve(Response.json({ code: 'x', message: 'x' }, { status }));
    const connection = Object.assign(sseConnection(init?.signal), { headers: init?.headers as Record<string, string> });
    connections.push(connection);
    return Promise.resolve(connection.response);
  });
  return { fetchMock, connections, failNext: (status: number) => statuses.push(status) };
}

/** Lets pending promise chains (token → fetch → read → parse) run. */
async function settle() {
  for (let i = 0; i < 10; i++) await vi.advanceTimersByTimeAsync(0);
}

const READY = 'event: ready\ndata: {}\n\n';
const item = (status: string, extra = '') =>
  `event: heatmap_item\ndata: {"heatmap_id":"h1","item_id":"i1","status":"${status}","score":null,"error":null${extra}}\n\n`;

describe('parseLiveEvent', () => {
  it('reads ready and heatmap_item events', () => {
    expect(parseLiveEvent({ event: 'ready', data: '{}' })).toEqual({ type: 'ready' });
    expect(parseLiveEvent({ event: 'resync', data: '{}' })).toEqual({ type: 'ready' });
    expect(
      parseLiveEvent({
        event: 'heatmap_item',
        data: '{"heatmap_id":"h","item_id":"i","status":"failed","score":null,"error":{"code":"invalid_image","message":"bad"}}',
      }),
    ).toEqual({
      type: 'heatmap_item',
      data: { heatmap_id: 'h', item_id: 'i', status: 'failed', score: null, error: { code: 'invalid_image', message: 'bad' } },
    });
    expect(parseLiveEvent({ event: 'heatmap_item', data: '{"heatmap_id":"h","item_id":"i","status":"done","score":71.5}' })).toEqual({
      type: 'heatmap_item',
      data: { heatmap_id: 'h', item_id: 'i', status: 'done', score: 71.5, error: null },
    });
  });

  it('ignores unknown events and malformed data', () => {
    expect(parseLiveEvent({ event: 'render_progress', data: '{}' })).toBeNull();
    expect(parseLiveEvent({ event: undefined, data: 'hello' })).toBeNull();
    expect(parseLiveEvent({ event: 'heatmap_item', data: 'not json' })).toBeNull();
    expect(parseLiveEvent({ event: 'heatmap_item', data: '[]' })).toBeNull();
    expect(parseLiveEvent({ event: 'heatmap_item', data: '{"heatmap_id":"h","item_id":"i","status":"exploded"}' })).toBeNull();
    expect(parseLiveEvent({ event: 'heatmap_item', data: '{"heatmap_id":1,"item_id":"i","status":"done"}' })).toBeNull();
  });
});

describe('backoffDelay', () => {
  it('doubles from one second up to thirty, with jitter between half and all of the step', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 20].map((n) => backoffDelay(n, () => 1))).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000,
    ]);
    expect(backoffDelay(0, () => 0)).toBe(500);
    expect(backoffDelay(5, () => 0)).toBe(15000);
  });
});

describe('EventStream', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function makeStream(
    server: ReturnType<typeof fakeServer>,
    getToken = vi.fn((refresh: boolean): Promise<string | null> => Promise.resolve(refresh ? 'fresh' : 'token')),
  ) {
    const events: LiveEvent[] = [];
    const statuses: string[] = [];
    const stream = new EventStream({
      getToken,
      fetch: server.fetchMock,
      onEvent: (event) => events.push(event),
      onStatus: (status) => statuses.push(status),
      random: () => 1,
      idleTimeoutMs: 45_000,
    });
    return { stream, events, statuses, getToken };
  }

  it('sends the bearer token and dispatches events split across chunks, skipping pings and unknown events', async () => {
    const server = fakeServer();
    const { stream, events, statuses } = makeStream(server);
    stream.start();
    await settle();
    expect(server.fetchMock).toHaveBeenCalledTimes(1);
    expect(server.fetchMock.mock.calls[0][0]).toBe('/api/v1/events');
    expect(server.connections[0].headers).toEqual({ Accept: 'text/event-stream', Authorization: 'Bearer token' });

    const [connection] = server.connections;
    connection.send(READY);
    connection.send(': ping\n\n');
    const text = item('processing');
    connection.send(text.slice(0, 20));
    await settle();
    expect(events).toEqual([{ type: 'ready' }]);
    connection.send(text.slice(20) + 'event: something_new\ndata: {}\n\n' + item('done').replace('"score":null', '"score":64'));
    await settle();
    expect(events).toEqual([
      { type: 'ready' },
      { type: 'heatmap_item', data: { heatmap_id: 'h1', item_id: 'i1', status: 'processing', score: null, error: null } },
      { type: 'heatmap_item', data: { heatmap_id: 'h1', item_id: 'i1', status: 'done', score: 64, error: null } },
    ]);
    expect(statuses).toEqual(['connecting', 'open']);
    stream.stop();
    expect(connection.aborted).toBe(true);
  });

  it('reconnects after the stream ends, and announces ready again', async () => {
    const server = fakeServer();
    const { stream, events, statuses } = makeStream(server);
    stream.start();
    await settle();
    server.connections[0].send(READY);
    await settle();
    server.connections[0].end();
    await settle();
    expect(statuses.at(-1)).toBe('retrying');

    // The first retry waits the first backoff step (1 s with this jitter), not less.
    await vi.advanceTimersByTimeAsync(999);
    expect(server.fetchMock).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(server.fetchMock).toHaveBeenCalledTimes(2);
    server.connections[1].send(READY);
    await settle();
    expect(events).toEqual([{ type: 'ready' }, { type: 'ready' }]);
    expect(statuses).toEqual(['connecting', 'open', 'retrying', 'connecting', 'open']);
    stream.stop();
  });

  it('backs off more after each failure and starts over once connected', async () => {
    const server = fakeServer();
    const { stream } = makeStream(server);
    server.failNext(503);
    server.failNext(503);
    server.failNext(503);
    stream.start();
    await settle();
    expect(server.fetchMock).toHaveBeenCalledTimes(1);
    for (const [wait, expected] of [
      [1000, 2],
      [2000, 3],
      [4000, 4],
    ] as const) {
      await vi.advanceTimersByTimeAsync(wait - 1);
      expect(server.fetchMock).toHaveBeenCalledTimes(expected - 1);
      await vi.advanceTimersByTimeAsync(1);
      await settle();
      expect(server.fetchMock).toHaveBeenCalledTimes(expected);
    }
    // The fourth attempt got a stream: after `ready`, an end waits the first step again.
    server.connections[0].send(READY);
    await settle();
    server.connections[0].end();
    await settle();
    await vi.advanceTimersByTimeAsync(1000);
    await settle();
    expect(server.fetchMock).toHaveBeenCalledTimes(5);
    stream.stop();
  });

  it('asks for a fresh token after a 401', async () => {
    const server = fakeServer();
    const { stream, getToken } = makeStream(server);
    server.failNext(401);
    stream.start();
    await settle();
    await vi.advanceTimersByTimeAsync(1000);
    await settle();
    expect(getToken.mock.calls).toEqual([[false], [true]]);
    expect(server.connections[0].headers.Authorization).toBe('Bearer fresh');
    stream.stop();
  });

  it('waits and tries again while there is no session', async () => {
    const server = fakeServer();
    const getToken = vi.fn<(refresh: boolean) => Promise<string | null>>().mockResolvedValueOnce(null).mockResolvedValue('token');
    const { stream } = makeStream(server, getToken);
    stream.start();
    await settle();
    expect(server.fetchMock).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1000);
    await settle();
    expect(server.fetchMock).toHaveBeenCalledTimes(1);
    stream.stop();
  });

  it('drops a silent connection after the idle timeout and reconnects', async () => {
    const server = fakeServer();
    const { stream } = makeStream(server);
    stream.start();
    await settle();
    server.connections[0].send(READY);
    await settle();
    // Pings keep it alive…
    await vi.advanceTimersByTimeAsync(40_000);
    server.connections[0].send(': ping\n\n');
    await settle();
    await vi.advanceTimersByTimeAsync(40_000);
    expect(server.connections[0].aborted).toBe(false);
    // …silence does not.
    await vi.advanceTimersByTimeAsync(5_000);
    await settle();
    expect(server.connections[0].aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(1000);
    await settle();
    expect(server.fetchMock).toHaveBeenCalledTimes(2);
    stream.stop();
  });

  it('stops for good: no reconnect after stop()', async () => {
    const server = fakeServer();
    const { stream, statuses } = makeStream(server);
    stream.start();
    await settle();
    stream.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(server.fetchMock).toHaveBeenCalledTimes(1);
    expect(statuses.at(-1)).toBe('idle');
  });
});

describe('the tab connection', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    resetAuthMock(fakeSession());
  });
  afterEach(() => {
    closeLiveEvents();
    vi.useRealTimers();
  });

  it('opens one connection for every holder, lingers after the last one and closes', async () => {
    const server = fakeServer();
    vi.stubGlobal('fetch', server.fetchMock);
    const received: LiveEvent[] = [];
    const stopListening = onLiveEvent((event) => received.push(event));

    const releaseA = holdLiveEvents();
    const releaseB = holdLiveEvents();
    await settle();
    expect(server.fetchMock).toHaveBeenCalledTimes(1);
    expect(server.connections[0].headers.Authorization).toBe('Bearer access');
    server.connections[0].send(READY);
    await settle();
    expect(getLiveStatus()).toBe('open');
    expect(received).toEqual([{ type: 'ready' }]);

    releaseA();
    releaseB();
    releaseB(); // twice is harmless
    // Still open a while (moving to another page that holds it again keeps the same connection).
    await vi.advanceTimersByTimeAsync(LINGER_MS - 1);
    const releaseC = holdLiveEvents();
    await settle();
    expect(server.fetchMock).toHaveBeenCalledTimes(1);
    releaseC();
    await vi.advanceTimersByTimeAsync(LINGER_MS);
    expect(server.connections[0].aborted).toBe(true);
    expect(getLiveStatus()).toBe('idle');
    stopListening();
  });

  it('refreshes the session after a 401 (auth-js refreshSession)', async () => {
    const server = fakeServer();
    vi.stubGlobal('fetch', server.fetchMock);
    authClient.refreshSession.mockResolvedValue({ data: { session: { ...fakeSession(), access_token: 'renewed' } }, error: null });
    server.failNext(401);
    const release = holdLiveEvents();
    await settle();
    await vi.advanceTimersByTimeAsync(1000);
    await settle();
    expect(authClient.refreshSession).toHaveBeenCalledTimes(1);
    expect(server.connections[0].headers.Authorization).toBe('Bearer renewed');
    release();
  });

  it('keeps dispatching when a listener throws', async () => {
    const server = fakeServer();
    vi.stubGlobal('fetch', server.fetchMock);
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const received: LiveEvent[] = [];
    const stopA = onLiveEvent(() => {
      throw new Error('boom');
    });
    const stopB = onLiveEvent((event) => received.push(event));
    const release = holdLiveEvents();
    await settle();
    server.connections[0].send(READY + item('queued'));
    await settle();
    expect(received).toHaveLength(2);
    expect(error).toHaveBeenCalled();
    stopA();
    stopB();
    release();
  });
});
