import { beforeEach, describe, expect, it, vi } from 'vitest';

import { requestOf } from '@/testing/api-mock';
import { fakeSession, resetAuthMock } from '@/testing/auth-mock';

import { clearConversation, loadConversation, saveConversation } from '../lib/conversation';

import { askAssistant, isInAppHref, parseReply } from './chat';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));

beforeEach(() => {
  resetAuthMock(fakeSession());
});

/** A response streaming `chunks` as server-sent events. */
function sse(chunks: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
}

const request = { messages: [{ role: 'user' as const, content: 'combien ?' }], locale: 'fr' as const, path: '/locations' };

describe('askAssistant', () => {
  it('streams the sentences and resolves with the final reply', async () => {
    const done = { answer: 'Vous avez 3 emplacements. À Lyon.', links: [{ label: 'Emplacements', href: '/locations' }], intent: 'count' };
    const fetchMock = vi.fn(() =>
      Promise.resolve(
        sse([
          'event: delta\ndata: {"text":"Vous avez 3 empl',
          'acements. "}\n\nevent: delta\ndata: {"text":"À Lyon."}\n\n',
          `event: done\ndata: ${JSON.stringify(done)}\n\n`,
        ]),
      ),
    );
    vi.stubGlobal('fetch', fetchMock);
    const pieces: string[] = [];
    await expect(askAssistant(request, { onDelta: (t) => pieces.push(t) })).resolves.toEqual(done);
    expect(pieces).toEqual(['Vous avez 3 emplacements. ', 'À Lyon.']);
    const sent = requestOf(...(fetchMock.mock.calls[0] as unknown as [Request]));
    expect([sent.method, new URL(sent.url).pathname]).toEqual(['POST', '/api/v1/assistant/chat']);
    expect(sent.headers.get('Accept')).toBe('text/event-stream');
    expect(sent.headers.get('Authorization')).toBe('Bearer access');
    expect(await sent.json()).toEqual(request);
  });

  it('fails with the server code, or when the stream is cut before the end', async () => {
    vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(Response.json({ code: 'validation_failed', message: 'x', details: { fields: { 'messages.0.content': 'too_long' } } }, { status: 422 }))));
    await expect(askAssistant(request)).rejects.toMatchObject({ status: 422, code: 'validation_failed' });
    vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(sse(['event: delta\ndata: {"text":"Vous"}\n\n']))));
    await expect(askAssistant(request)).rejects.toMatchObject({ code: 'network' });
  });

  it('reads replies defensively and keeps only in-app links', () => {
    expect(parseReply({ answer: 'a', intent: 'help', links: [{ label: 'x', href: '/help' }, { label: 1 }] })).toEqual({
      answer: 'a',
      intent: 'help',
      links: [{ label: 'x', href: '/help' }],
    });
    expect(parseReply({ answer: 1 })).toBeNull();
    expect(isInAppHref('/creatives/1')).toBe(true);
    expect(isInAppHref('//evil.example')).toBe(false);
    expect(isInAppHref('https://example.com')).toBe(false);
  });
});

describe('the conversation of the tab', () => {
  it('is kept in sessionStorage until cleared', () => {
    saveConversation([{ id: 1, author: 'user', text: 'bonjour' }]);
    expect(loadConversation()).toEqual([{ id: 1, author: 'user', text: 'bonjour' }]);
    clearConversation();
    expect(loadConversation()).toEqual([]);
  });

  it('ignores what it cannot read', () => {
    window.sessionStorage.setItem('regard-assistant', '{not json');
    expect(loadConversation()).toEqual([]);
    window.sessionStorage.setItem('regard-assistant', JSON.stringify([{ id: 1, author: 'robot' }, { id: 2, author: 'user', text: 'ok' }]));
    expect(loadConversation()).toEqual([{ id: 2, author: 'user', text: 'ok' }]);
  });
});
