//! Locations (`/api/v1/locations`): query factories and mutations. Every
//! mutation invalidates the `['locations']` prefix (lists and details).
import { infiniteQueryOptions, type InfiniteData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { answer, api, type Page, type Schemas } from '@/lib/api';

export type LocationFormat = Schemas['PanelFormat'];
/** A format with its standard size (`GET /locations/formats`). */
export type FormatInfo = Schemas['FormatInfo'];
export type FormatRegion = Schemas['FormatRegion'];

/**
 * The formats as the server lists them, with their sizes: fetched once (they change only with
 * the server). Each panel size has one value (the server reads `12m2`, `8 m²` and former values
 * such as `billboard_12m2` as theirs, and lists only the one).
 */
export function formatsQueryOptions() {
  return queryOptions({
    queryKey: ['locations', 'formats'] as const,
    queryFn: ({ signal }) => answer(api.GET('/locations/formats', { signal })),
    staleTime: Infinity,
  });
}

/** The formats the form offers, grouped by region in the server's order. */
export function offeredFormats(formats: readonly FormatInfo[]): Array<[FormatRegion, FormatInfo[]]> {
  const groups = new Map<FormatRegion, FormatInfo[]>();
  for (const info of formats) {
    groups.set(info.region, [...(groups.get(info.region) ?? []), info]);
  }
  return [...groups];
}

export type Audience = Schemas['Audience'];
export const AUDIENCES = ['pedestrian', 'road'] as const satisfies readonly Audience[];

export type Illumination = Schemas['Illumination'];
export const ILLUMINATIONS = ['none', 'front', 'back', 'digital'] as const satisfies readonly Illumination[];

/** A location (generated from the API document). */
export type Location = Schemas['Location'];

/** The writable fields (POST body; PATCH sends the same, null clearing a field). */
/** A body both `POST /locations` and `PATCH /locations/{id}` take. */
export type LocationInput = Schemas['NewLocation'] & Schemas['LocationChanges'];

export const LOCATION_SORTS = ['newest', 'oldest', 'name', 'name_desc', 'city', 'format'] as const;
export type LocationSort = (typeof LOCATION_SORTS)[number];

/** What the locations page shows: the search, the filters (blank: none), the order and the view. */
export type LocationFilters = {
  q: string;
  format: string;
  city: string;
  audience: string;
  sort: LocationSort;
};

/** The filters as query parameters (blank ones left out). */
function filterQuery(filters: Partial<LocationFilters>) {
  return {
    q: filters.q || undefined,
    format: (filters.format || undefined) as LocationFormat | undefined,
    city: filters.city || undefined,
    audience: (filters.audience || undefined) as Audience | undefined,
  };
}

export const locationKeys = {
  all: ['locations'] as const,
  list: (filters: Partial<LocationFilters> = {}) => ['locations', 'list', filters] as const,
  positions: (filters: Partial<LocationFilters> = {}) => ['locations', 'positions', filters] as const,
  detail: (id: string) => ['locations', 'detail', id] as const,
};

export function locationsQueryOptions(filters: Partial<LocationFilters> = {}) {
  return infiniteQueryOptions({
    queryKey: locationKeys.list(filters),
    initialPageParam: null as string | null,
    queryFn: ({ signal, pageParam }) =>
      answer(
        api.GET('/locations', {
          params: {
            query: {
              limit: 60,
              ...filterQuery(filters),
              sort: filters.sort && filters.sort !== 'newest' ? filters.sort : undefined,
              cursor: pageParam ?? undefined,
            },
          },
          signal,
        }),
      ),
    getNextPageParam: (last) => last.next_cursor,
  });
}

/** Every positioned location matching the filters (the map's markers). */
export function locationPositionsQueryOptions(filters: Partial<LocationFilters> = {}) {
  return queryOptions({
    queryKey: locationKeys.positions(filters),
    queryFn: ({ signal }) => answer(api.GET('/locations/positions', { params: { query: filterQuery(filters) }, signal })),
  });
}

/** The cities and formats in use, for the filters. */
export function locationFacetsQueryOptions() {
  return queryOptions({
    queryKey: ['locations', 'facets'] as const,
    queryFn: ({ signal }) => answer(api.GET('/locations/facets', { signal })),
  });
}

/** The map's tiles and their attribution (the server's configuration). */
export function mapSettingsQueryOptions() {
  return queryOptions({
    queryKey: ['map'] as const,
    queryFn: ({ signal }) => answer(api.GET('/map', { signal })),
    staleTime: Infinity,
  });
}

export function locationQueryOptions(id: string) {
  return queryOptions({
    queryKey: locationKeys.detail(id),
    queryFn: ({ signal }) => answer(api.GET('/locations/{id}', { params: { path: { id } }, signal })),
  });
}

/** Creates (no id) or replaces the fields of (id) a location. */
export function useSaveLocation(id?: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: LocationInput) =>
      id
        ? answer(api.PATCH('/locations/{id}', { params: { path: { id } }, body: input }))
        : answer(api.POST('/locations', { body: input })),
    onSuccess: (location) => {
      queryClient.setQueryData(locationKeys.detail(location.id), location);
      return queryClient.invalidateQueries({ queryKey: locationKeys.all });
    },
  });
}

export function useDeleteLocation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => answer(api.DELETE('/locations/{id}', { params: { path: { id } } })),
    onSuccess: (_data, id) => {
      queryClient.removeQueries({ queryKey: locationKeys.detail(id) });
      // Cached lists drop it at once, so going back to a list never shows it again.
      queryClient.setQueriesData<InfiniteData<Page<Location>>>({ queryKey: [...locationKeys.all, 'list'] }, (data) =>
        data ? { ...data, pages: data.pages.map((page) => ({ ...page, items: page.items.filter((item) => item.id !== id) })) } : data,
      );
      return queryClient.invalidateQueries({ queryKey: locationKeys.all });
    },
  });
}
