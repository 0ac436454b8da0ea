//! The assistant (`POST /api/v1/assistant/chat`, docs/assistant.md). The answer
//! streams as server-sent events (`delta` events of `{text}`, then `done` with
//! the whole `{answer, links, intent}`), read with `fetch` and
//! `eventsource-parser` since `EventSource` cannot POST; the `api` client renews
//! the session once on a 401, as for every API call.
import { createParser } from 'eventsource-parser';

import { api, ApiError, errorFromBody, type Schemas } from '@/lib/api';

export type ChatRole = Schemas['Role'];
export type ChatLink = Schemas['Link'];
export type ChatReply = Schemas['Reply'];
export type ChatRequest = Schemas['ChatRequest'];

/** Longest message the server accepts, in characters. */
export const MAX_MESSAGE_LENGTH = 2000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a `{answer, links, intent}` object; null when it is not one. */
export function parseReply(value: unknown): ChatReply | null {
  if (!isRecord(value) || typeof value.answer !== 'string' || typeof value.intent !== 'string') return null;
  const links = Array.isArray(value.links)
    ? value.links.filter((l): l is ChatLink => isRecord(l) && typeof l.label === 'string' && typeof l.href === 'string')
    : [];
  return { answer: value.answer, links, intent: value.intent };
}

/** Whether a link stays inside the app (an absolute path, not `//host`). */
export function isInAppHref(href: string): boolean {
  return href.startsWith('/') && !href.startsWith('//');
}

export type AskOptions = {
  /** Called with each piece of the answer as it arrives. */
  onDelta?: (text: string) => void;
  signal?: AbortSignal;
};

/** Asks the assistant; resolves with the whole reply once the stream ends. */
export async function askAssistant(request: ChatRequest, { onDelta, signal }: AskOptions = {}): Promise<ChatReply> {
  const { data: stream, error, response } = await api.POST('/assistant/chat', {
    body: request,
    headers: { Accept: 'text/event-stream' },
    parseAs: 'stream',
    signal,
  });
  if (!response.ok) throw errorFromBody(response.status, error);
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('text/event-stream') || !stream) {
    // A server (or proxy) that answered JSON after all.
    const reply = parseReply(await response.json());
    if (!reply) throw new ApiError(response.status, 'internal', 'unexpected answer');
    onDelta?.(reply.answer);
    return reply;
  }
  let final: ChatReply | null = null;
  const parser = createParser({
    onEvent(message) {
      let data: unknown;
      try {
        data = JSON.parse(message.data);
      } catch {
        return;
      }
      if (message.event === 'delta' && isRecord(data) && typeof data.text === 'string') onDelta?.(data.text);
      if (message.event === 'done') final = parseReply(data);
    },
  });
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
  if (!final) throw new ApiError(0, 'network', 'the answer was cut off');
  return final;
}
