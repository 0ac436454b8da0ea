import { beforeEach, describe, expect, it, vi } from 'vitest';

import { answer, api, authorizedFetch } from '@/lib/api';
import { EventStream, parseLiveEvent, type LiveEvent } from '@/lib/events';
import { mockApi, sentHeader } from '@/testing/api-mock';
import { fakeSession, resetAuthMock } from '@/testing/auth-mock';

import { currentWorkspaceId, resetWorkspace, useWorkspaceStore, workspaceHeaders, WORKSPACE_HEADER } from './workspace';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));

beforeEach(() => {
  resetAuthMock(fakeSession());
});

describe("the tab's workspace", () => {
  it('starts in the personal workspace: no header', () => {
    expect(currentWorkspaceId()).toBeNull();
    expect(workspaceHeaders()).toEqual({});
  });

  it('keeps a shared workspace in sessionStorage (this tab only), and forgets it on reset', () => {
    useWorkspaceStore.getState().set('w1');
    expect(workspaceHeaders()).toEqual({ 'X-Workspace-Id': 'w1' });
    expect(JSON.parse(window.sessionStorage.getItem('regard-workspace') ?? '{}')).toEqual({ state: { id: 'w1' }, version: 0 });
    expect(window.localStorage.getItem('regard-workspace')).toBeNull();
    resetWorkspace();
    expect(currentWorkspaceId()).toBeNull();
    expect(JSON.parse(window.sessionStorage.getItem('regard-workspace') ?? '{}')).toEqual({ state: { id: null }, version: 0 });
  });

  it('reads a stored choice back, and treats a broken one as the personal workspace', async () => {
    window.sessionStorage.setItem('regard-workspace', JSON.stringify({ state: { id: 'w9' }, version: 0 }));
    await useWorkspaceStore.persist.rehydrate();
    expect(currentWorkspaceId()).toBe('w9');
    window.sessionStorage.setItem('regard-workspace', JSON.stringify({ state: { id: 42 }, version: 0 }));
    await useWorkspaceStore.persist.rehydrate();
    expect(currentWorkspaceId()).toBeNull();
  });
});

describe('X-Workspace-Id on /api/v1', () => {
  it('is sent with every request while a shared workspace is current, read at sending time', async () => {
    const fetchMock = mockApi(() => ({ body: { items: [], next_cursor: null } }));
    await answer(api.GET('/creatives'));
    expect(sentHeader(fetchMock, 0, WORKSPACE_HEADER)).toBeNull();

    useWorkspaceStore.getState().set('w1');
    await answer(api.GET('/creatives'));
    await authorizedFetch('/heatmaps/h1/report.pdf');
    expect(sentHeader(fetchMock, 1, WORKSPACE_HEADER)).toBe('w1');
    expect(sentHeader(fetchMock, 2, WORKSPACE_HEADER)).toBe('w1');

    useWorkspaceStore.getState().set(null);
    await answer(api.GET('/creatives'));
    expect(sentHeader(fetchMock, 3, WORKSPACE_HEADER)).toBeNull();
  });

  it('goes on the live stream too, with the members event and a refusal told to listeners', async () => {
    useWorkspaceStore.getState().set('w1');
    const seen: Array<Record<string, string>> = [];
    const events: LiveEvent[] = [];
    const fetchMock = vi.fn((_url: RequestInfo | URL, init?: RequestInit) => {
      seen.push(init?.headers as Record<string, string>);
      return Promise.resolve(Response.json({ code: 'not_found', message: 'x' }, { status: 404 }));
    });
    const stream = new EventStream({
      getToken: () => Promise.resolve('token'),
      headers: workspaceHeaders,
      fetch: fetchMock,
      onEvent: (event) => events.push(event),
      random: () => 1,
    });
    stream.start();
    await vi.waitFor(() => expect(events).toEqual([{ type: 'workspace_unavailable' }]));
    stream.stop();
    expect(seen[0]).toEqual({ Accept: 'text/event-stream', Authorization: 'Bearer token', 'X-Workspace-Id': 'w1' });

    expect(parseLiveEvent({ event: 'members', data: '{"workspace_id":"w1"}', id: undefined })).toEqual({
      type: 'members',
      data: { workspace_id: 'w1' },
    });
    expect(parseLiveEvent({ event: 'members', data: '{}', id: undefined })).toBeNull();
  });
});
