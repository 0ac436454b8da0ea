//! Benchmarks of a heatmap's results: where each measure and each area stands against the
//! user's own results and against the reference shipped with the product
//! (`GET /heatmaps/{id}/benchmarks`, docs/architecture/heatmaps.md "Benchmarks").

import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';

import { answer, api, type Schemas } from '@/lib/api';

import type { HeatmapItem } from './heatmaps';

// Generated from the API document (src/api/): the server's own types.
/** What an image is, for comparisons (an `image` is none of the others: compared with all). */
export type BenchmarkKind = Schemas['BenchmarkKind'];
export type BenchmarkMetric = 'score' | 'focus' | 'clarity' | 'panel' | 'first_second';
/** The user's library: `percentile` is null until there are enough results to compare with. */
export type LibraryStanding = Schemas['LibraryStanding'];
export type ReferenceStanding = Schemas['ReferenceStanding'];
export type MetricBenchmark = Schemas['MetricBenchmark'];
export type AreaBenchmark = Schemas['AreaBenchmark'];
/** `metrics` by measure (`panel` and `first_second` only for renders). */
export type ItemBenchmarks = Omit<Schemas['ItemBenchmarks'], 'metrics'> & {
  metrics: Partial<Record<BenchmarkMetric, MetricBenchmark>>;
};
export type Benchmarks = Omit<Schemas['Benchmarks'], 'items'> & { items: ItemBenchmarks[] };

/** Fewest other results for a library percentile (the server's `MIN_LIBRARY`). */
export const MIN_LIBRARY = 5;

/**
 * What one item's benchmarks depend on: whether it is done, and its areas. When it changes, the
 * heatmap's benchmarks are refetched (they place every image against the others).
 */
export function itemSignature(item: HeatmapItem): string {
  return `${item.id}:${item.status}:${(item.aois ?? []).map((a) => `${a.id}@${a.updated_at}`).join(',')}`;
}

const benchmarkKey = (heatmapId: string) => ['heatmaps', 'benchmarks', heatmapId] as const;

export function benchmarksQueryOptions(heatmapId: string) {
  return queryOptions({
    queryKey: benchmarkKey(heatmapId),
    queryFn: ({ signal }): Promise<Benchmarks> =>
      answer(api.GET('/heatmaps/{id}/benchmarks', { params: { path: { id: heatmapId } }, signal })),
  });
}

/**
 * The benchmarks of the heatmap an item belongs to (one request for all its images), refetched
 * when this item finishes or its areas change. Off on a share link's page (they need an account).
 */
export function useItemBenchmarks(heatmapId: string, item: HeatmapItem, enabled: boolean) {
  const queryClient = useQueryClient();
  const signature = itemSignature(item);
  const first = useRef(signature);
  useEffect(() => {
    if (signature === first.current) return;
    first.current = signature;
    void queryClient.invalidateQueries({ queryKey: benchmarkKey(heatmapId) });
  }, [queryClient, heatmapId, signature]);
  const query = useQuery({ ...benchmarksQueryOptions(heatmapId), enabled: enabled && item.status === 'done' });
  return itemOf(query.data, item.id);
}

/** One item's benchmarks with the reference they are read against. */
export type ItemStanding = { item: ItemBenchmarks; reference: Benchmarks['reference'] };

/** The benchmarks of one item out of its heatmap's, if it has any. */
export function itemOf(benchmarks: Benchmarks | undefined, itemId: string): ItemStanding | null {
  const found = benchmarks?.items.find((b) => b.item_id === itemId);
  return found && benchmarks ? { item: found, reference: benchmarks.reference } : null;
}
