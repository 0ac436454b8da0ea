//! Simulations (`/api/v1/simulations`, docs/architecture/simulations.md): shapes, query
//! factories and mutations, plus the creatives and locations lists the pickers need (the
//! feature reads those endpoints itself: features do not import each other). Keys live
//! under `['simulations']`; every mutation invalidates that prefix, live events patch or
//! invalidate it (api/live-updates.ts).
import {
  infiniteQueryOptions,
  type InfiniteData,
  queryOptions,
  useMutation,
  useQueryClient,
} from '@tanstack/react-query';

import { answer, api, type Page, type Schemas } from '@/lib/api';
import type { SimulationStatus } from '@/lib/events';

export type { SimulationStatus } from '@/lib/events';

// ---------- Shapes ----------

// Generated from the API document (src/api/): the server's own types.
export type SimulationCreative = Schemas['SimulationCreative'];
export type SimulationLocation = Schemas['SimulationLocation'];
export type SimulationAttention = Schemas['SimulationAttention'];
export type SimulationError = Schemas['RenderError'];
export type Simulation = Schemas['Simulation'];
/** A simulation as `GET /simulations` lists it (the document leaves its nullable fields optional there). */
export type ListedSimulation = Schemas['Paged_Simulation']['items'][number];

/** The body of POST (and PATCH) /simulations (`quad: null` in a PATCH goes back to the location's corners). */
/** A body both `POST /simulations` and `PATCH /simulations/{id}` take. */
export type SimulationInput = Schemas['NewSimulationFields'] & Schemas['SimulationChanges'];

export type SimulationFilters = { q?: string; creative_id?: string; location_id?: string };

/** A creative as the picker shows it (what `GET /creatives` lists, and a simulation says of its creative). */
export type CreativeOption = Schemas['SimulationCreative'];

/** A location as listed by `GET /locations` (what the picker needs). */
export type LocationOption = Pick<
  Schemas['Paged_Location']['items'][number],
  | 'id'
  | 'name'
  | 'city'
  | 'postal_code'
  | 'illumination'
  | 'panel_width_cm'
  | 'panel_height_cm'
  | 'photo'
  | 'panel_quad'
  | 'audience'
  | 'speed_kmh'
  | 'viewing_distance_min_m'
  | 'viewing_distance_max_m'
>;

export const isRunning = (status: SimulationStatus) => status === 'queued' || status === 'rendering';

// ---------- Queries ----------

export const simulationKeys = {
  all: ['simulations'] as const,
  lists: ['simulations', 'list'] as const,
  list: (filters: SimulationFilters = {}) => ['simulations', 'list', filters] as const,
  detail: (id: string) => ['simulations', 'detail', id] as const,
  creatives: (q = '') => ['simulations', 'creatives', q] as const,
  locations: (q = '') => ['simulations', 'locations', q] as const,
  creative: (id: string) => ['simulations', 'creative', id] as const,
  location: (id: string) => ['simulations', 'location', id] as const,
};

export function simulationsQueryOptions(filters: SimulationFilters = {}) {
  return infiniteQueryOptions({
    queryKey: simulationKeys.list(filters),
    initialPageParam: null as string | null,
    queryFn: ({ signal, pageParam }) =>
      answer(api.GET('/simulations', { params: { query: { limit: 60, ...filters, cursor: pageParam ?? undefined } }, signal })),
    getNextPageParam: (last) => last.next_cursor,
  });
}

export function simulationQueryOptions(id: string) {
  return queryOptions({
    queryKey: simulationKeys.detail(id),
    queryFn: ({ signal }) => answer(api.GET('/simulations/{id}', { params: { path: { id } }, signal })),
    // Safety net while a render or an analysis runs (the live stream normally arrives first).
    refetchInterval: (query) => {
      const data = query.state.data;
      if (!data) return false;
      const attentionRunning = data.attention && (data.attention.status === 'queued' || data.attention.status === 'processing');
      return isRunning(data.status) || attentionRunning ? 10_000 : false;
    },
  });
}

/** The creatives of the picker (`GET /creatives?q=`), 60 at a time. */
export function creativeOptionsQueryOptions(q = '') {
  return infiniteQueryOptions({
    queryKey: simulationKeys.creatives(q),
    initialPageParam: null as string | null,
    queryFn: ({ signal, pageParam }) =>
      answer(api.GET('/creatives', { params: { query: { limit: 60, q, cursor: pageParam ?? undefined } }, signal })),
    getNextPageParam: (last) => last.next_cursor,
  });
}

/** The locations of the picker (`GET /locations?q=`), 60 at a time. */
export function locationOptionsQueryOptions(q = '') {
  return infiniteQueryOptions({
    queryKey: simulationKeys.locations(q),
    initialPageParam: null as string | null,
    queryFn: ({ signal, pageParam }) =>
      answer(api.GET('/locations', { params: { query: { limit: 60, q, cursor: pageParam ?? undefined } }, signal })),
    getNextPageParam: (last) => last.next_cursor,
  });
}

/** One creative (a deep link may name one that is not in the first page of the picker). */
export function creativeOptionQueryOptions(id: string) {
  return queryOptions({
    queryKey: simulationKeys.creative(id),
    queryFn: ({ signal }) => answer(api.GET('/creatives/{id}', { params: { path: { id } }, signal })),
  });
}

export function locationOptionQueryOptions(id: string) {
  return queryOptions({
    queryKey: simulationKeys.location(id),
    queryFn: ({ signal }) => answer(api.GET('/locations/{id}', { params: { path: { id } }, signal })),
  });
}

// ---------- Mutations ----------

function useInvalidateAll() {
  const queryClient = useQueryClient();
  return {
    queryClient,
    invalidate: () => queryClient.invalidateQueries({ queryKey: simulationKeys.all }),
    store: (simulation: Simulation) => queryClient.setQueryData(simulationKeys.detail(simulation.id), simulation),
  };
}

/** Creates (no id) or updates (id) a simulation. */
export function useSaveSimulation() {
  const { invalidate, store } = useInvalidateAll();
  return useMutation({
    mutationFn: ({ id, input }: { id?: string; input: SimulationInput }) =>
      id
        ? answer(api.PATCH('/simulations/{id}', { params: { path: { id } }, body: input }))
        : answer(api.POST('/simulations', { body: input })),
    onSuccess: (simulation) => {
      store(simulation);
      return invalidate();
    },
  });
}

export function useDeleteSimulation() {
  const { queryClient, invalidate } = useInvalidateAll();
  return useMutation({
    mutationFn: (id: string) => answer(api.DELETE('/simulations/{id}', { params: { path: { id } } })),
    onSuccess: (_data, id) => {
      queryClient.removeQueries({ queryKey: simulationKeys.detail(id) });
      // Cached lists drop it at once, so it never flashes back.
      queryClient.setQueriesData<InfiniteData<Page<Simulation>>>({ queryKey: simulationKeys.lists }, (data) =>
        data ? { ...data, pages: data.pages.map((page) => ({ ...page, items: page.items.filter((item) => item.id !== id) })) } : data,
      );
      return invalidate();
    },
  });
}

/** The body of POST /simulations/batch. */
export type BatchInput = Schemas['BatchFields'];

/**
 * Creates one simulation per location. Each answer item is stored as its detail, so the batch's
 * progress (the list's notice) follows the same caches the live events patch, without a request.
 */
export function useBatchSimulations() {
  const { invalidate, store } = useInvalidateAll();
  return useMutation({
    mutationFn: (input: BatchInput) => answer(api.POST('/simulations/batch', { body: input })),
    onSuccess: async (answer) => {
      await invalidate();
      // Stored after the invalidation, so that they are fresh: following 50 of them costs nothing.
      answer.items.forEach(store);
    },
  });
}

/** Renders again (after a failure). */
export function useRenderSimulation() {
  const { invalidate, store } = useInvalidateAll();
  return useMutation({
    mutationFn: (id: string) => answer(api.POST('/simulations/{id}/render', { params: { path: { id } } })),
    onSuccess: (simulation) => {
      store(simulation);
      return invalidate();
    },
  });
}

/** "Analyse attention": a heatmap of the output with the panel as its area of interest. */
export function useAnalyseSimulation() {
  const { invalidate } = useInvalidateAll();
  return useMutation({
    mutationFn: (id: string) => answer(api.POST('/simulations/{id}/attention', { params: { path: { id } } })),
    onSuccess: () => invalidate(),
  });
}

/** `POST /simulations/renders.zip`: the renders of these simulations (those rendered), in one ZIP. */
export function rendersZipRequest(simulationIds: string[]): { path: string; init: RequestInit } {
  return {
    path: '/simulations/renders.zip',
    init: { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ids: simulationIds }) },
  };
}
