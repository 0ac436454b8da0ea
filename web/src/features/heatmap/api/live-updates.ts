//! Keeps the heatmap caches in step with the live stream (lib/events.ts):
//!
//! - `ready` (a new or renewed subscription): events are not replayed, so
//!   everything under `['heatmaps']` is invalidated (shown queries refetch);
//! - `heatmap_item` queued/processing: the item's status is patched in place
//!   (detail, media and list caches), no request;
//! - `heatmap_item` done/failed: a failure is patched at once, then the
//!   heatmap, the lists and the media query holding the item are invalidated:
//!   the result (score, urls, grid) and the derived heatmap status come with
//!   the refetch. A `done` item keeps its previous status until then, so the
//!   page never shows "done" without a result.
//!
//! A finished item also shows a toast naming its heatmap, one per heatmap: items finishing
//! together replace each other's toast. A heatmap no cache holds (one the server made for a
//! simulation's "Analyse attention", or one made in another tab) is asked for its name first.
//!
//! A patched query that is being fetched at that moment is invalidated too:
//! the answer in flight may predate the event and would undo the patch.
import { useQueryClient, type QueryClient, type InfiniteData } from '@tanstack/react-query';

import type { Page } from '@/lib/api';
import { i18n } from '@/lib/i18n';
import { toast } from '@/lib/toast';
import { useLiveConnection, useLiveEventListener, type HeatmapItemEvent, type LiveEvent } from '@/lib/events';

import {
  heatmapKeys,
  heatmapQueryOptions,
  isFinished,
  type Heatmap,
  type HeatmapItem,
  type HeatmapSummary,
  type MediaHeatmap,
} from './heatmaps';

/** The item as the event describes it (done items wait for the refetch). */
export function patchItem(item: HeatmapItem, event: HeatmapItemEvent): HeatmapItem {
  if (event.status === 'done' || item.id !== event.item_id) return item;
  if (event.status === 'failed') {
    return { ...item, status: 'failed', error: event.error ?? { code: 'internal', message: 'internal' }, result: null };
  }
  return item.status === event.status ? item : { ...item, status: event.status, error: null, result: null };
}

/** A queued heatmap becomes processing as soon as one of its items starts. */
function patchSummary<T extends HeatmapSummary>(heatmap: T, event: HeatmapItemEvent): T {
  return heatmap.status === 'queued' && event.status === 'processing' ? { ...heatmap, status: 'processing' } : heatmap;
}

/** Refetches `key` when asked to, or when a fetch in flight could bring back older data. */
function refresh(queryClient: QueryClient, key: readonly unknown[], always: boolean, exact = true) {
  const fetching = queryClient.isFetching({ queryKey: key, exact }) > 0;
  if (always || fetching) void queryClient.invalidateQueries({ queryKey: key, exact });
}

/** The heatmap's name as any cache knows it, if one does. */
function cachedHeatmapName(queryClient: QueryClient, heatmapId: string): string | undefined {
  const detail = queryClient.getQueryData<Heatmap>(heatmapKeys.detail(heatmapId));
  if (detail) return detail.name;
  for (const [, lists] of queryClient.getQueriesData<InfiniteData<Page<HeatmapSummary>>>({ queryKey: heatmapKeys.lists })) {
    const found = lists?.pages.flatMap((page) => page.items).find((heatmap) => heatmap.id === heatmapId);
    if (found) return found.name;
  }
  for (const [, media] of queryClient.getQueriesData<MediaHeatmap>({ queryKey: heatmapKeys.medias })) {
    if (media?.heatmap?.id === heatmapId) return media.heatmap.name;
  }
  return undefined;
}

/**
 * Toasts a finished item, naming its heatmap from a cache when one holds it (at once), else from
 * the server (the answer stays in the cache for the next item); "unnamed" only when neither can tell.
 */
function toastFinished(queryClient: QueryClient, event: HeatmapItemEvent) {
  const failed = event.status === 'failed';
  const show = (name: string) =>
    toast(i18n.t(failed ? 'toast.heatmapFailed' : 'toast.heatmapDone', { name: name || i18n.t('toast.heatmapUnnamed') }), {
      id: `heatmap-${event.heatmap_id}`,
      variant: failed ? 'error' : 'success',
    });
  const cached = cachedHeatmapName(queryClient, event.heatmap_id);
  if (cached) {
    show(cached);
    return;
  }
  void queryClient.fetchQuery(heatmapQueryOptions(event.heatmap_id)).then(
    (heatmap) => show(heatmap.name),
    () => show(''),
  );
}

export function applyHeatmapEvent(queryClient: QueryClient, event: LiveEvent) {
  if (event.type === 'ready') {
    void queryClient.invalidateQueries({ queryKey: heatmapKeys.all });
    return;
  }
  if (event.type !== 'heatmap_item') return;
  const data = event.data;
  const finished = isFinished(data.status);
  // Named before the caches below are refreshed, while they still hold the heatmap.
  if (finished) toastFinished(queryClient, data);

  const detailKey = heatmapKeys.detail(data.heatmap_id);
  queryClient.setQueryData<Heatmap>(detailKey, (heatmap) =>
    heatmap ? patchSummary({ ...heatmap, items: heatmap.items.map((item) => patchItem(item, data)) }, data) : heatmap,
  );
  refresh(queryClient, detailKey, finished);

  let listed = false;
  queryClient.setQueriesData<InfiniteData<Page<HeatmapSummary>>>({ queryKey: heatmapKeys.lists }, (lists) => {
    if (!lists) return lists;
    return {
      ...lists,
      pages: lists.pages.map((page) => ({
        ...page,
        items: page.items.map((heatmap) => {
          if (heatmap.id !== data.heatmap_id) return heatmap;
          listed = true;
          return patchSummary(heatmap, data);
        }),
      })),
    };
  });
  // Finished work changes counts and scores; an unknown heatmap was made in another tab.
  refresh(queryClient, heatmapKeys.lists, finished || !listed, false);

  for (const [key, media] of queryClient.getQueriesData<MediaHeatmap>({ queryKey: heatmapKeys.medias })) {
    if (media?.item?.id !== data.item_id) continue;
    queryClient.setQueryData<MediaHeatmap>(key, { ...media, item: patchItem(media.item, data) });
    refresh(queryClient, key, finished);
  }
}

/** Applies live events to the heatmap caches for as long as the caller is mounted (the app shell). */
export function useHeatmapLiveUpdates() {
  const queryClient = useQueryClient();
  useLiveEventListener((event) => applyHeatmapEvent(queryClient, event));
}

/** Holds the live connection open: heatmap pages show work in progress. */
export function useHeatmapLiveConnection() {
  useLiveConnection();
}
