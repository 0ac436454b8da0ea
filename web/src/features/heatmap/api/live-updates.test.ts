import { QueryClient, type InfiniteData } from '@tanstack/react-query';
import { waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

import type { Media, Page } from '@/lib/api';
import type { HeatmapItemEvent } from '@/lib/events';
import { useToastStore } from '@/lib/toast';
import { fakeMedia, mockApi } from '@/testing/api-mock';

import { heatmapKeys, type Heatmap, type HeatmapItem, type HeatmapSummary, type MediaHeatmap } from './heatmaps';
import { applyHeatmapEvent, patchItem } from './live-updates';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));

const item = (id: string, status: HeatmapItem['status']): HeatmapItem => ({
  id,
  position: 0,
  status,
  error: null,
  source: fakeMedia(`m-${id}`) as Media,
  attempts: 0,
  label: null,
  aoi: null,
  aois: [],
  started_at: null,
  finished_at: null,
  result: null,
});

const heatmap = (items: HeatmapItem[]): Heatmap => ({
  id: 'h1',
  name: 'Été',
  status: 'queued',
  item_count: items.length,
  done_count: 0,
  failed_count: 0,
  score: null,
  best_score: null,
  thumbnail: null,
  created_at: '2026-11-21T00:00:00.000Z',
  updated_at: '2026-11-21T00:00:00.000Z',
  items,
});

const event = (data: Partial<HeatmapItemEvent>) =>
  ({ type: 'heatmap_item', data: { heatmap_id: 'h1', item_id: 'i1', status: 'processing', score: null, error: null, ...data } }) as const;

function seeded() {
  const client = new QueryClient();
  client.setQueryData(heatmapKeys.detail('h1'), heatmap([item('i1', 'queued'), item('i2', 'queued')]));
  const summary: Partial<Heatmap> = heatmap([]);
  delete summary.items;
  client.setQueryData<InfiniteData<Page<HeatmapSummary>>>(heatmapKeys.list(), {
    pages: [{ items: [summary as HeatmapSummary], next_cursor: null }],
    pageParams: [null],
  });
  client.setQueryData<MediaHeatmap>(heatmapKeys.media('m-i1'), {
    media: fakeMedia('m-i1') as Media,
    heatmap: { id: 'h1', name: 'Été', created_at: '2026-11-21T00:00:00.000Z' },
    item: item('i1', 'queued'),
  });
  return client;
}

const stale = (client: QueryClient, key: readonly unknown[]) => client.getQueryState(key)?.isInvalidated ?? false;

describe('applyHeatmapEvent', () => {
  it('patches a started item everywhere without asking the server', () => {
    const client = seeded();
    applyHeatmapEvent(client, event({ status: 'processing' }));
    const detail = client.getQueryData<Heatmap>(heatmapKeys.detail('h1'))!;
    expect(detail.status).toBe('processing');
    expect(detail.items.map((i) => i.status)).toEqual(['processing', 'queued']);
    expect(client.getQueryData<InfiniteData<Page<HeatmapSummary>>>(heatmapKeys.list())!.pages[0].items[0].status).toBe('processing');
    expect(client.getQueryData<MediaHeatmap>(heatmapKeys.media('m-i1'))!.item!.status).toBe('processing');
    expect(stale(client, heatmapKeys.detail('h1'))).toBe(false);
    expect(stale(client, heatmapKeys.list())).toBe(false);
  });

  it('a patch made while the query is being fetched refetches it (the answer in flight may be older)', () => {
    const client = seeded();
    void client.fetchQuery({ queryKey: heatmapKeys.detail('h1'), queryFn: () => new Promise<Heatmap>(() => {}) });
    applyHeatmapEvent(client, event({ status: 'processing' }));
    expect(stale(client, heatmapKeys.detail('h1'))).toBe(true);
    expect(stale(client, heatmapKeys.list())).toBe(false);
  });

  it('a finished item invalidates the heatmap, the lists and its media query; a failure shows at once', () => {
    const client = seeded();
    applyHeatmapEvent(client, event({ status: 'failed', error: { code: 'invalid_image', message: 'bad' } }));
    const detail = client.getQueryData<Heatmap>(heatmapKeys.detail('h1'))!;
    expect(detail.items[0]).toMatchObject({ status: 'failed', error: { code: 'invalid_image', message: 'bad' } });
    expect(detail.items[1].status).toBe('queued');
    expect(stale(client, heatmapKeys.detail('h1'))).toBe(true);
    expect(stale(client, heatmapKeys.list())).toBe(true);
    expect(stale(client, heatmapKeys.media('m-i1'))).toBe(true);
  });

  it('a done item keeps its status until the refetch brings its result', () => {
    const client = seeded();
    applyHeatmapEvent(client, event({ status: 'done', score: 71 }));
    expect(client.getQueryData<Heatmap>(heatmapKeys.detail('h1'))!.items[0].status).toBe('queued');
    expect(stale(client, heatmapKeys.detail('h1'))).toBe(true);
  });

  it('a finished item shows one toast per heatmap, named from the caches', () => {
    const client = seeded();
    applyHeatmapEvent(client, event({ status: 'processing' }));
    expect(useToastStore.getState().toasts).toEqual([]);
    applyHeatmapEvent(client, event({ status: 'done', score: 71 }));
    applyHeatmapEvent(client, event({ item_id: 'i2', status: 'done', score: 40 }));
    expect(useToastStore.getState().toasts).toMatchObject([{ message: 'Heatmap prête : Été', variant: 'success' }]);

    client.removeQueries({ queryKey: heatmapKeys.detail('h1') });
    applyHeatmapEvent(client, event({ status: 'failed', error: { code: 'internal', message: 'x' } }));
    expect(useToastStore.getState().toasts).toMatchObject([{ message: 'Heatmap en échec : Été', variant: 'error' }]);

  });

  it('asks the server for the name of a heatmap no cache holds (a simulation\'s "Analyse attention")', async () => {
    mockApi(({ method, path }) =>
      method === 'GET' && path === '/heatmaps/sim-h' ? { body: { ...heatmap([item('i1', 'done')]), id: 'sim-h', name: 'Soldes en gare' } } : undefined,
    );
    const client = new QueryClient();
    applyHeatmapEvent(client, event({ heatmap_id: 'sim-h', status: 'done', score: 64 }));
    await waitFor(() => expect(useToastStore.getState().toasts).toMatchObject([{ message: 'Heatmap prête : Soldes en gare', variant: 'success' }]));
    // The answer stays in the cache: the next event of the heatmap is named at once.
    expect(client.getQueryData<Heatmap>(heatmapKeys.detail('sim-h'))?.name).toBe('Soldes en gare');

    // "Unnamed" only when the server cannot tell either.
    applyHeatmapEvent(new QueryClient(), event({ heatmap_id: 'gone', status: 'done' }));
    await waitFor(() => expect(useToastStore.getState().toasts.at(-1)).toMatchObject({ message: 'Heatmap prête : sans nom' }));
  });

  it('an unknown heatmap (made in another tab) refreshes the lists only', () => {
    const client = seeded();
    applyHeatmapEvent(client, event({ heatmap_id: 'other', item_id: 'x' }));
    expect(stale(client, heatmapKeys.list())).toBe(true);
    expect(stale(client, heatmapKeys.detail('h1'))).toBe(false);
  });

  it('ready (a new or renewed stream) invalidates every heatmap query', () => {
    const client = seeded();
    applyHeatmapEvent(client, { type: 'ready' });
    expect([heatmapKeys.detail('h1'), heatmapKeys.list(), heatmapKeys.media('m-i1')].map((key) => stale(client, key))).toEqual([
      true,
      true,
      true,
    ]);
  });

  it('patchItem leaves other items and identical states untouched', () => {
    const queued = item('i1', 'queued');
    expect(patchItem(queued, event({ item_id: 'i2' }).data)).toBe(queued);
    expect(patchItem(queued, event({ status: 'queued' }).data)).toBe(queued);
    expect(patchItem(queued, event({ status: 'failed' }).data).error).toEqual({ code: 'internal', message: 'internal' });
  });
});
