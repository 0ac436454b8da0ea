//! Creatives (`/api/v1/creatives`): query factories and mutations. Every
//! mutation invalidates the `['creatives']` prefix (list and details).
import { infiniteQueryOptions, type InfiniteData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import type { operations } from '@/api/schema';
import { answer, api, type Page, type Schemas } from '@/lib/api';

/** A creative (generated from the API document). */
export type Creative = Schemas['Creative'];

/** The body of `PATCH /creatives/{id}`. */
export type CreativePatch = Schemas['CreativeChanges'];

export const creativeKeys = {
  all: ['creatives'] as const,
  list: (q = '') => ['creatives', 'list', q] as const,
  detail: (id: string) => ['creatives', 'detail', id] as const,
};

export function creativeQueryOptions(id: string) {
  return queryOptions({
    queryKey: creativeKeys.detail(id),
    queryFn: ({ signal }) => answer(api.GET('/creatives/{id}', { params: { path: { id } }, signal })),
  });
}

export function createCreative(mediaId: string) {
  return answer(api.POST('/creatives', { body: { media_id: mediaId } }));
}

export function useUpdateCreative(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (patch: CreativePatch) => answer(api.PATCH('/creatives/{id}', { params: { path: { id } }, body: patch })),
    onSuccess: (creative) => {
      queryClient.setQueryData(creativeKeys.detail(id), creative);
      return queryClient.invalidateQueries({ queryKey: creativeKeys.all });
    },
  });
}

export function useDeleteCreative() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => answer(api.DELETE('/creatives/{id}', { params: { path: { id } } })),
    onSuccess: (_data, id) => {
      queryClient.removeQueries({ queryKey: creativeKeys.detail(id) });
      // Cached lists drop it at once, so going back to a list never shows it again.
      queryClient.setQueriesData<InfiniteData<Page<Creative>>>({ queryKey: [...creativeKeys.all, 'list'] }, (data) =>
        data ? { ...data, pages: data.pages.map((page) => ({ ...page, items: page.items.filter((item) => item.id !== id) })) } : data,
      );
      return queryClient.invalidateQueries({ queryKey: creativeKeys.all });
    },
  });
}

/** The library's orders (`GET /creatives?sort=`). */
export type CreativeSort = NonNullable<NonNullable<operations['creatives_list']['parameters']['query']>['sort']>;
export const CREATIVE_SORTS = ['newest', 'oldest', 'name', 'name_desc', 'largest', 'smallest'] as const satisfies readonly CreativeSort[];

/** What the library shows: search text, brand and campaign filters, order. */
export type CreativeFilters = { q: string; brand: string; campaign: string; sort: CreativeSort };

export const NO_FILTERS: CreativeFilters = { q: '', brand: '', campaign: '', sort: 'newest' };

export function creativesInfiniteQueryOptions(filters: CreativeFilters = NO_FILTERS) {
  const { q, brand, campaign, sort } = filters;
  return infiniteQueryOptions({
    queryKey: [...creativeKeys.list(q), brand, campaign, sort] as const,
    initialPageParam: null as string | null,
    queryFn: ({ signal, pageParam }) =>
      answer(
        api.GET('/creatives', {
          params: {
            query: { limit: 60, q, brand, campaign, sort: sort === 'newest' ? undefined : sort, cursor: pageParam ?? undefined },
          },
          signal,
        }),
      ),
    getNextPageParam: (last) => last.next_cursor,
  });
}

export type Facet = Schemas['Facet'];

/** The brands and campaigns of the user's creatives, for the filters. */
export function creativeFacetsQueryOptions() {
  return queryOptions({
    queryKey: [...creativeKeys.all, 'facets'] as const,
    queryFn: ({ signal }) => answer(api.GET('/creatives/facets', { signal })),
  });
}
