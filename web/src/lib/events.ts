//! Live events from the server: `GET /api/v1/events` (server-sent events,
//! docs/architecture/heatmaps.md). `EventSource` cannot send an
//! `Authorization` header, so the stream is read with `fetch` and parsed with
//! `eventsource-parser`.
//!
//! One connection per tab, shared: pages that show live work hold it open
//! (`useLiveConnection`); it closes a little after the last one lets go, so
//! moving between such pages does not reconnect. Listeners (`onLiveEvent`)
//! are independent of the connection. The stream ends when the access token
//! expires (and on any network trouble): the client reconnects with backoff
//! and a fresh token. A 401 goes through `renewAfterUnauthorized` (lib/session.ts),
//! which ends the session when the server no longer knows it. Events are not replayed, so every `ready` (the first one
//! and each after a reconnect) tells listeners to refetch what they show.
//!
//! The stream carries the events of the tab's workspace (lib/workspace.ts, `X-Workspace-Id`):
//! switching reopens it (`restartLiveEvents`). `members` says the workspace's members or roles
//! changed; a stream refused with 404 (the workspace is gone, or the user is no longer a
//! member) is told to listeners as `workspace_unavailable`, and the stream keeps retrying.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { useEffect, useRef, useSyncExternalStore } from 'react';

import { accessToken, API_BASE, type JobErrorCode, type Schemas } from '@/lib/api';
import { renewAfterUnauthorized } from '@/lib/session';
import { workspaceHeaders } from '@/lib/workspace';

// ---------- Events (docs/architecture/heatmaps.md, "Live events") ----------
// The events' data are the document's types (the server's own structs).

export type LiveItemStatus = Schemas['ItemStatus'];

/** `data` of a `heatmap_item` event: one status change of a heatmap item. */
export type HeatmapItemEvent = Schemas['HeatmapItemEvent'];

/** Why a job failed (a code unknown to this build gets the generic message). */
export type JobError = Schemas['JobFailure'];

/** `data` of a `simulation` event (docs/architecture/simulations.md): one status change of a simulation. */
export type SimulationStatus = Schemas['SimulationStatus'];
export type SimulationEvent = Schemas['SimulationEvent'];

/** `data` of a `members` event: the workspace whose members or roles changed. */
export type MembersEvent = { workspace_id: string };

export type LiveEvent =
  | { type: 'ready' }
  | { type: 'heatmap_item'; data: HeatmapItemEvent }
  | { type: 'simulation'; data: SimulationEvent }
  | { type: 'members'; data: MembersEvent }
  /** Not an event of the server: the stream was refused with 404 (see the module's comment). */
  | { type: 'workspace_unavailable' };

const SIMULATION_STATUSES = new Set<string>(['draft', 'queued', 'rendering', 'done', 'failed']);

const ITEM_STATUSES = new Set<string>(['queued', 'processing', 'done', 'failed']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A parsed SSE message as a typed event; null for unknown event types (a newer
 * server may send more) and for malformed data, which are ignored.
 */
export function parseLiveEvent(message: EventSourceMessage): LiveEvent | null {
  // `resync` (the server's stream fell behind, or its node lost events) asks for the same as a
  // new subscription: refetch everything shown.
  if (message.event === 'ready' || message.event === 'resync') return { type: 'ready' };
  if (message.event === 'simulation') return parseSimulationEvent(message.data);
  if (message.event === 'members') return parseMembersEvent(message.data);
  if (message.event !== 'heatmap_item') return null;
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    return null;
  }
  if (!isRecord(data)) return null;
  const { heatmap_id, item_id, status, score, error } = data;
  if (typeof heatmap_id !== 'string' || typeof item_id !== 'string') return null;
  if (typeof status !== 'string' || !ITEM_STATUSES.has(status)) return null;
  return {
    type: 'heatmap_item',
    data: {
      heatmap_id,
      item_id,
      status: status as LiveItemStatus,
      score: typeof score === 'number' && Number.isFinite(score) ? score : null,
      error:
        isRecord(error) && typeof error.code === 'string'
          ? { code: error.code as JobErrorCode, message: typeof error.message === 'string' ? error.message : error.code }
          : null,
    },
  };
}

function parseMembersEvent(text: string): LiveEvent | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(data) || typeof data.workspace_id !== 'string') return null;
  return { type: 'members', data: { workspace_id: data.workspace_id } };
}

function parseSimulationEvent(text: string): LiveEvent | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(data)) return null;
  const { simulation_id, status, error } = data;
  if (typeof simulation_id !== 'string' || typeof status !== 'string' || !SIMULATION_STATUSES.has(status)) return null;
  return {
    type: 'simulation',
    data: {
      simulation_id,
      status: status as SimulationStatus,
      error:
        isRecord(error) && typeof error.code === 'string'
          ? { code: error.code as JobErrorCode, message: typeof error.message === 'string' ? error.message : error.code }
          : null,
    },
  };
}

// ---------- One connection with reconnects ----------

/** First reconnect delay, doubled on every failure up to the maximum. */
export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_MAX_MS = 30_000;
/** The server sends `: ping` every 15 s; this long without a byte means the connection is dead. */
export const IDLE_TIMEOUT_MS = 45_000;

/**
 * The wait before reconnect attempt `attempt` (0-based): exponential, capped,
 * with jitter (between half and all of the step) so that tabs cut off by the
 * same server restart do not all come back at the same instant.
 */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const step = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempt));
  return Math.round(step * (0.5 + 0.5 * random()));
}

/** idle: not running; connecting: asking; open: `ready` received; retrying: waiting to reconnect. */
export type StreamStatus = 'idle' | 'connecting' | 'open' | 'retrying';

export type EventStreamOptions = {
  /** The access token; `refresh` asks for a new one (after a 401). Null: no session for now. */
  getToken: (refresh: boolean) => Promise<string | null>;
  onEvent: (event: LiveEvent) => void;
  onStatus?: (status: StreamStatus) => void;
  url?: string;
  /** Extra request headers, read at each connection (the workspace's). */
  headers?: () => Record<string, string>;
  /** Defaults to the global `fetch`, looked up at each connection. */
  fetch?: typeof fetch;
  random?: () => number;
  idleTimeoutMs?: number;
};

/** Thrown inside a connection to say "a 401: refresh the token before the next try". */
class Unauthorized extends Error {}

/** The stream of one tab: connect, read, and reconnect until stopped. */
export class EventStream {
  private readonly options: EventStreamOptions;
  private running = false;
  private controller: AbortController | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private attempt = 0;
  private refresh = false;
  status: StreamStatus = 'idle';

  constructor(options: EventStreamOptions) {
    this.options = options;
  }

  start() {
    if (this.running) return;
    this.running = true;
    void this.connect();
  }

  stop() {
    this.running = false;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.controller?.abort();
    this.controller = null;
    this.setStatus('idle');
  }

  private setStatus(status: StreamStatus) {
    if (status === this.status) return;
    this.status = status;
    this.options.onStatus?.(status);
  }

  private async connect() {
    this.retryTimer = null;
    const controller = new AbortController();
    this.controller = controller;
    this.setStatus('connecting');
    let watchdog: ReturnType<typeof setTimeout> | null = null;
    const idle = this.options.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
    const arm = () => {
      if (watchdog !== null) clearTimeout(watchdog);
      watchdog = setTimeout(() => controller.abort(), idle);
    };

    try {
      const token = await this.options.getToken(this.refresh);
      if (controller.signal.aborted) return;
      if (!token) throw new Error('no session');
      const fetchFn = this.options.fetch ?? globalThis.fetch;
      const response = await fetchFn(this.options.url ?? `${API_BASE}/events`, {
        headers: { Accept: 'text/event-stream', Authorization: `Bearer ${token}`, ...this.options.headers?.() },
        cache: 'no-store',
        signal: controller.signal,
      });
      if (response.status === 401) throw new Unauthorized();
      if (response.status === 404) this.options.onEvent({ type: 'workspace_unavailable' });
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      this.refresh = false;

      const parser = createParser({
        onEvent: (message) => {
          const event = parseLiveEvent(message);
          if (!event || controller.signal.aborted) return;
          if (event.type === 'ready') {
            // A live subscription: the next trouble starts the backoff from the beginning.
            this.attempt = 0;
            this.setStatus('open');
          }
          this.options.onEvent(event);
        },
      });
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      arm();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        arm();
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch (error) {
      // A 401 means the token expired or was revoked: ask for a fresh one next time.
      if (error instanceof Unauthorized) this.refresh = true;
    } finally {
      if (watchdog !== null) clearTimeout(watchdog);
    }

    // Ended (token expiry, server restart, network) or failed: try again unless stopped.
    if (!this.running || this.controller !== controller) return;
    controller.abort();
    this.setStatus('retrying');
    const delay = backoffDelay(this.attempt, this.options.random);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => void this.connect(), delay);
  }
}

// ---------- The tab's shared connection ----------

/** How long the connection stays open after the last page holding it goes away. */
export const LINGER_MS = 30_000;

type Listener = (event: LiveEvent) => void;

const listeners = new Set<Listener>();
const statusListeners = new Set<() => void>();
const holds = new Set<symbol>();
let stream: EventStream | null = null;
let lingerTimer: ReturnType<typeof setTimeout> | null = null;
let currentStatus: StreamStatus = 'idle';

function dispatch(event: LiveEvent) {
  for (const listener of [...listeners]) {
    try {
      listener(event);
    } catch (error) {
      // One listener's bug must not cut the others (or the stream) off.
      console.error('live event listener failed', error);
    }
  }
}

function publishStatus(status: StreamStatus) {
  currentStatus = status;
  for (const notify of [...statusListeners]) notify();
}

/** Listens to every event of the tab's connection (whether or not it is open). */
export function onLiveEvent(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The token the shared stream last sent, so that a 401 names the token the server refused. */
let lastStreamToken: string | null = null;

async function streamToken(refresh: boolean): Promise<string | null> {
  if (refresh && lastStreamToken) {
    const renewal = await renewAfterUnauthorized(lastStreamToken);
    lastStreamToken = renewal.status === 'renewed' ? renewal.token : null;
  } else {
    lastStreamToken = await accessToken();
  }
  return lastStreamToken;
}

/** Keeps the connection open until the returned function is called. */
export function holdLiveEvents(): () => void {
  const hold = Symbol('live-events');
  holds.add(hold);
  if (lingerTimer !== null) clearTimeout(lingerTimer);
  lingerTimer = null;
  stream ??= new EventStream({
    getToken: streamToken,
    headers: workspaceHeaders,
    onEvent: dispatch,
    onStatus: publishStatus,
  });
  stream.start();
  return () => {
    if (!holds.delete(hold) || holds.size > 0) return;
    lingerTimer = setTimeout(closeLiveEvents, LINGER_MS);
  };
}

/** Closes the connection now (sign-out; tests). Listeners stay registered. */
export function closeLiveEvents() {
  if (lingerTimer !== null) clearTimeout(lingerTimer);
  lingerTimer = null;
  holds.clear();
  stream?.stop();
  stream = null;
  publishStatus('idle');
}

/**
 * Reconnects the connection if it is open (another workspace is now current: its stream carries
 * that workspace's events), keeping the pages that hold it. Listeners get a new `ready`.
 */
export function restartLiveEvents() {
  if (!stream) return;
  stream.stop();
  stream.start();
}

export function getLiveStatus(): StreamStatus {
  return currentStatus;
}

function subscribeStatus(notify: () => void) {
  statusListeners.add(notify);
  return () => statusListeners.delete(notify);
}

// ---------- React ----------

/** Holds the tab's connection open while the calling component is mounted. */
export function useLiveConnection(enabled = true) {
  useEffect(() => (enabled ? holdLiveEvents() : undefined), [enabled]);
}

/** Calls `listener` (the latest one rendered) for every live event while mounted. */
export function useLiveEventListener(listener: Listener) {
  const latest = useRef(listener);
  useEffect(() => {
    latest.current = listener;
  });
  useEffect(() => onLiveEvent((event) => latest.current(event)), []);
}

/** The connection's status, re-rendering when it changes. */
export function useLiveStatus(): StreamStatus {
  return useSyncExternalStore(subscribeStatus, getLiveStatus, getLiveStatus);
}
