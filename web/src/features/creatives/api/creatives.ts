//! Creatives (`/api/v1/creatives`): query factories and mutations. Every
//! mutation invalidates the `['creatives']` prefix (list and details).
import { infiniteQueryOptions, type InfiniteData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { apiFetch, queryString, type Media, type Page } from '@/lib/api';

export type Creative = {
  id: string;
  name: string;
  brand: string | null;
  campaign: string | null;
  notes: string | null;
  media: Media;
  created_at: string;
  updated_at: string;
  /** On GET/POST/PATCH of one creative: simulations its deletion would also delete. */
  simulation_count?: number;
};

export type CreativePatch = Partial<Pick<Creative, 'name' | 'brand' | 'campaign' | 'notes'>>;

export const creativeKeys = {
  all: ['creatives'] as const,
  list: (q = '') => ['creatives', 'list', q] as const,
  detail: (id: string) => ['creatives', 'detail', id] as const,
};

export function creativeQueryOptions(id: string) {
  return queryOptions({
    queryKey: creativeKeys.detail(id),
    queryFn: ({ signal }) => apiFetch<Creative>(`/creatives/${encodeURIComponent(id)}`, { signal }),
  });
}

export function createCreative(mediaId: string) {
  return apiFetch<Creative>('/creatives', { method: 'POST', body: { media_id: mediaId } });
}

export function useUpdateCreative(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (patch: CreativePatch) =>
      apiFetch<Creative>(`/creatives/${encodeURIComponent(id)}`, { method: 'PATCH', body: patch }),
    onSuccess: (creative) => {
      queryClient.setQueryData(creativeKeys.detail(id), creative);
      return queryClient.invalidateQueries({ queryKey: creativeKeys.all });
    },
  });
}

export function useDeleteCreative() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiFetch<void>(`/creatives/${encodeURIComponent(id)}`, { method: 'DELETE' }),
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

export function creativesInfiniteQueryOptions(q = '') {
  return infiniteQueryOptions({
    queryKey: creativeKeys.list(q),
    initialPageParam: null as string | null,
    queryFn: ({ signal, pageParam }) =>
      apiFetch<Page<Creative>>(`/creatives${queryString({ limit: 60, q, cursor: pageParam })}`, { signal }),
    getNextPageParam: (last) => last.next_cursor,
  });
}
