//! Heatmaps (`/api/v1/heatmaps`, `/api/v1/media/{id}/heatmap`;
//! docs/architecture/heatmaps.md): shapes, query factories and mutations.
//! Keys live under `['heatmaps']`: every mutation and every `ready` of the
//! live stream invalidates that prefix; item events patch the caches in
//! place (api/live-updates.ts).
import {
  infiniteQueryOptions,
  type InfiniteData,
  type Query,
  queryOptions,
  useMutation,
  useQueryClient,
} from '@tanstack/react-query';

import { answer, api, publicApi, type Page, type Schemas } from '@/lib/api';
import { getLiveStatus } from '@/lib/events';

import type { Benchmarks } from './benchmarks';

// ---------- Shapes ----------

// Generated from the API document (src/api/): the server's own types.
export type HeatmapStatus = Schemas['HeatmapStatus'];
export type ItemStatus = Schemas['ItemStatus'];

/** A rectangle relative to the image (0..1). */
export type Rect = Schemas['Rect'];
/** A hotspot in predicted viewing order (rank 1 = looked at first). */
export type Hotspot = Schemas['Hotspot'];
/** A face or a text-like region found in the image. */
export type Region = Schemas['RegionShare'];
/** The attention map at long side 64, row-major, values 0..=65535. */
export type AttentionGrid = Schemas['AttentionGrid'];
/** The analysis of one image as answered: the full map's figures, the first glance's, and signed links to their images. */
export type HeatmapResult = Schemas['AnsweredResult'];
/** The figures of one map (the full map's are the result's own; the first glance's are `glance`). */
export type MapAnalysis = Schemas['MapAnalysis'];
export type PanelShare = Schemas['PanelShare'];
/** A point relative to the image (0..1). */
export type AoiPoint = Schemas['Point'];
/** What an area of interest receives of its image's attention (docs/architecture/heatmaps.md). */
export type AoiAttention = Schemas['AoiAttention'];
/** A named area of interest saved on an item. */
export type Aoi = Schemas['Aoi'];

/** The most areas one image holds (`409 too_many_aois` above). */
export const MAX_AOIS = 30;
/** The longest area name the server accepts. */
export const MAX_AOI_NAME = 80;

export type ItemError = Schemas['ItemError'];
/** What a source image is: the creative, location (photo) or simulation (render) it belongs to. */
export type SourceLabel = Schemas['SourceLabel'];
export type HeatmapItem = Schemas['HeatmapItem'];
export type HeatmapSummary = Schemas['HeatmapSummary'];
export type Heatmap = Schemas['Heatmap'];
/** `GET /media/{id}/heatmap`: the latest item made from a media, if any. */
export type MediaHeatmap = Schemas['MediaHeatmap'];

/** The most images one heatmap takes (`fields.media_ids: too_many` above). */
export const MAX_IMAGES = 20;
/** The longest name the server accepts. */
export const MAX_NAME_LENGTH = 200;

export function isFinished(status: ItemStatus): boolean {
  return status === 'done' || status === 'failed';
}

// ---------- Queries ----------

export const heatmapKeys = {
  all: ['heatmaps'] as const,
  lists: ['heatmaps', 'list'] as const,
  list: (q = '', sort: HeatmapSort = 'newest') => ['heatmaps', 'list', q, sort] as const,
  detail: (id: string) => ['heatmaps', 'detail', id] as const,
  medias: ['heatmaps', 'media'] as const,
  media: (mediaId: string) => ['heatmaps', 'media', mediaId] as const,
};

/**
 * While items are still running, poll as a safety net: slowly when the live
 * stream is open (it brings every change), quickly when it is not (a proxy
 * that buffers event streams, a server restarting).
 */
function pollWhileRunning(items: Array<{ status: ItemStatus }>): number | false {
  if (items.every((item) => isFinished(item.status))) return false;
  return getLiveStatus() === 'open' ? 30_000 : 5_000;
}

/** The orders of the heatmaps list (the API's `sort`). */
export const HEATMAP_SORTS = ['newest', 'oldest', 'name', 'name_desc'] as const;
export type HeatmapSort = (typeof HEATMAP_SORTS)[number];

export function heatmapsInfiniteQueryOptions(q = '', sort: HeatmapSort = 'newest') {
  return infiniteQueryOptions({
    queryKey: heatmapKeys.list(q, sort),
    initialPageParam: null as string | null,
    queryFn: ({ signal, pageParam }) =>
      answer(
        api.GET('/heatmaps', {
          params: { query: { limit: 30, q: q || undefined, sort: sort === 'newest' ? undefined : sort, cursor: pageParam ?? undefined } },
          signal,
        }),
      ),
    getNextPageParam: (last) => last.next_cursor,
  });
}

export function heatmapQueryOptions(id: string) {
  return queryOptions({
    queryKey: heatmapKeys.detail(id),
    queryFn: ({ signal }) => answer(api.GET('/heatmaps/{id}', { params: { path: { id } }, signal })),
    refetchInterval: (query: Query<Heatmap>) => (query.state.data ? pollWhileRunning(query.state.data.items) : false),
  });
}

export function mediaHeatmapQueryOptions(mediaId: string) {
  return queryOptions({
    queryKey: heatmapKeys.media(mediaId),
    queryFn: ({ signal }) => answer(api.GET('/media/{id}/heatmap', { params: { path: { id: mediaId } }, signal })),
    refetchInterval: (query: Query<MediaHeatmap>) => {
      const item = query.state.data?.item;
      return item ? pollWhileRunning([item]) : false;
    },
  });
}

// ---------- Mutations ----------

/** The body of `POST /heatmaps`. */
export type NewHeatmap = Schemas['NewHeatmap'];

export function useCreateHeatmap() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: NewHeatmap) => answer(api.POST('/heatmaps', { body: input })),
    onSuccess: (heatmap) => {
      // The results page shows it at once, without asking again.
      queryClient.setQueryData(heatmapKeys.detail(heatmap.id), heatmap);
      void queryClient.invalidateQueries({ queryKey: heatmapKeys.lists });
      void queryClient.invalidateQueries({ queryKey: heatmapKeys.medias });
    },
  });
}

export function useDeleteHeatmap() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => answer(api.DELETE('/heatmaps/{id}', { params: { path: { id } } })),
    onSuccess: (_data, id) => {
      queryClient.removeQueries({ queryKey: heatmapKeys.detail(id) });
      // Cached lists drop it at once, so the card disappears without waiting for the refetch.
      queryClient.setQueriesData<InfiniteData<Page<HeatmapSummary>>>({ queryKey: heatmapKeys.lists }, (data) =>
        data ? { ...data, pages: data.pages.map((page) => ({ ...page, items: page.items.filter((item) => item.id !== id) })) } : data,
      );
      return queryClient.invalidateQueries({ queryKey: heatmapKeys.all });
    },
  });
}

/** Replaces one item in a heatmap (by id), leaving the rest as it is. */
export function withItem(heatmap: Heatmap, item: HeatmapItem): Heatmap {
  return { ...heatmap, items: heatmap.items.map((current) => (current.id === item.id ? item : current)) };
}

export function useRetryItem() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ heatmapId, itemId }: { heatmapId: string; itemId: string }) =>
      answer(api.POST('/heatmaps/{id}/items/{item_id}/retry', { params: { path: { id: heatmapId, item_id: itemId } } })),
    onSuccess: (item, { heatmapId }) => {
      // The item shows its progress again at once; the heatmap's derived status follows with the refetch.
      queryClient.setQueryData<Heatmap>(heatmapKeys.detail(heatmapId), (heatmap) => (heatmap ? withItem(heatmap, item) : heatmap));
      queryClient.setQueriesData<MediaHeatmap>({ queryKey: heatmapKeys.medias }, (data) =>
        data?.item?.id === item.id ? { ...data, item } : data,
      );
      return queryClient.invalidateQueries({ queryKey: heatmapKeys.all });
    },
  });
}

// ---------- Areas of interest ----------

type AoiInput = Schemas['NewAoi'];

/** A shape for an area (of the body of `POST …/aois`): a rectangle, or a polygon's points. */
export type AoiShape = { rect: NonNullable<AoiInput['rect']> } | { points: NonNullable<AoiInput['points']> };

type AoiTarget = { heatmapId: string; itemId: string };

/** The path parameters of an item's areas. */
const itemPath = ({ heatmapId, itemId }: AoiTarget) => ({ id: heatmapId, item_id: itemId });

/** Puts a changed area into every cache that shows its item (a heatmap, the media page). */
function patchAois(queryClient: ReturnType<typeof useQueryClient>, heatmapId: string, itemId: string, change: (aois: Aoi[]) => Aoi[]) {
  const patchItem = (item: HeatmapItem) => (item.id === itemId ? { ...item, aois: change(item.aois ?? []) } : item);
  queryClient.setQueryData<Heatmap>(heatmapKeys.detail(heatmapId), (heatmap) =>
    heatmap ? { ...heatmap, items: heatmap.items.map(patchItem) } : heatmap,
  );
  queryClient.setQueriesData<MediaHeatmap>({ queryKey: heatmapKeys.medias }, (data) =>
    data?.item?.id === itemId ? { ...data, item: patchItem(data.item) } : data,
  );
}

export function useCreateAoi() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ name, shape, ...target }: AoiTarget & { name: string; shape: AoiShape }) =>
      answer(api.POST('/heatmaps/{id}/items/{item_id}/aois', { params: { path: itemPath(target) }, body: { name, ...shape } })),
    onSuccess: (aoi, { heatmapId, itemId }) => patchAois(queryClient, heatmapId, itemId, (aois) => [...aois, aoi]),
  });
}

export function useUpdateAoi() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ aoiId, name, ...target }: AoiTarget & { aoiId: string; name: string }) =>
      answer(
        api.PATCH('/heatmaps/{id}/items/{item_id}/aois/{aoi_id}', {
          params: { path: { ...itemPath(target), aoi_id: aoiId } },
          body: { name },
        }),
      ),
    onSuccess: (aoi, { heatmapId, itemId }) =>
      patchAois(queryClient, heatmapId, itemId, (aois) => aois.map((current) => (current.id === aoi.id ? aoi : current))),
  });
}

export function useDeleteAoi() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ aoiId, ...target }: AoiTarget & { aoiId: string }) =>
      answer(
        api.DELETE('/heatmaps/{id}/items/{item_id}/aois/{aoi_id}', { params: { path: { ...itemPath(target), aoi_id: aoiId } } }),
      ),
    onSuccess: (_data, { heatmapId, itemId, aoiId }) =>
      patchAois(queryClient, heatmapId, itemId, (aois) => aois.filter((aoi) => aoi.id !== aoiId)),
  });
}

/** Copies an item's areas onto the heatmap's other images (`POST /heatmaps/{id}/aois/copy`). */
export function useCopyAois() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ heatmapId, itemId }: AoiTarget) =>
      answer(api.POST('/heatmaps/{id}/aois/copy', { params: { path: { id: heatmapId } }, body: { from_item_id: itemId } })),
    onSuccess: (heatmap) => {
      queryClient.setQueryData(heatmapKeys.detail(heatmap.id), heatmap);
      return queryClient.invalidateQueries({ queryKey: heatmapKeys.medias });
    },
  });
}

// ---------- Share links ----------

/** A read-only link to a heatmap (its token only in the answer that made it). */
export type Share = Schemas['Share'];
export type NewShare = Schemas['NewShare'];
/** What a share link opens. */
export type SharedHeatmap = Omit<Schemas['SharedHeatmap'], 'benchmarks'> & { benchmarks: Benchmarks };

export const SHARE_DAYS = [7, 30, 90] as const;

export function sharesQueryOptions(heatmapId: string) {
  return queryOptions({
    queryKey: ['heatmaps', 'shares', heatmapId] as const,
    queryFn: ({ signal }) => answer(api.GET('/heatmaps/{id}/shares', { params: { path: { id: heatmapId } }, signal })),
  });
}

/** How often the shared page renews its image links (they last at least 225 s). */
const SHARED_REFRESH_MS = 3 * 60_000;

/** `GET /shared/{token}/report.pdf`: the shared heatmap's PDF report, for a visitor (no account). */
export function sharedReportPath(token: string, language: string): string {
  const lang = language.startsWith('en') ? 'en' : 'fr';
  return `/api/v1/shared/${encodeURIComponent(token)}/report.pdf?lang=${lang}`;
}

export function sharedHeatmapQueryOptions(token: string) {
  return queryOptions({
    queryKey: ['shared', token] as const,
    queryFn: ({ signal }): Promise<SharedHeatmap> =>
      answer(publicApi.GET('/shared/{token}', { params: { path: { token } }, signal })),
    retry: false,
    // A share's image links live about 4 to 5 minutes: fetch fresh ones before they end.
    refetchInterval: SHARED_REFRESH_MS,
  });
}

export function useCreateShare(heatmapId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (days: number) =>
      answer(api.POST('/heatmaps/{id}/shares', { params: { path: { id: heatmapId } }, body: { expires_in_days: days } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['heatmaps', 'shares', heatmapId] }),
  });
}

export function useRevokeShare(heatmapId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (shareId: string) =>
      answer(api.DELETE('/heatmaps/{id}/shares/{share_id}', { params: { path: { id: heatmapId, share_id: shareId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['heatmaps', 'shares', heatmapId] }),
  });
}

