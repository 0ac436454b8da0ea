//! Campaign plans (`/api/v1/plans`): query factories, mutations and the exports' paths
//! (docs/architecture/plans.md). Every mutation invalidates the `['plans']` prefix.
import { infiniteQueryOptions, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { answer, api, queryString, type Schemas } from '@/lib/api';

/** A plan, its sites and totals (generated from the API document). */
export type Plan = Schemas['Plan'];
export type PlanSite = Schemas['PlanSite'];
export type PlanStatus = Schemas['PlanStatus'];
/** The body of `POST /plans`. */
export type NewPlan = Schemas['NewPlan'];
/** The body of `PATCH /plans/{id}`. */
export type PlanChanges = Schemas['PlanChanges'];

export const planKeys = {
  all: ['plans'] as const,
  list: (q: string) => ['plans', 'list', q] as const,
  detail: (id: string) => ['plans', 'detail', id] as const,
};

export function plansQueryOptions(q = '') {
  return infiniteQueryOptions({
    queryKey: planKeys.list(q),
    initialPageParam: null as string | null,
    queryFn: ({ signal, pageParam }) =>
      answer(api.GET('/plans', { params: { query: { limit: 30, q: q || undefined, cursor: pageParam ?? undefined } }, signal })),
    getNextPageParam: (last) => last.next_cursor,
  });
}

/** One plan; refetched every two seconds while its sites are being rendered and analysed. */
export function planQueryOptions(id: string) {
  return queryOptions({
    queryKey: planKeys.detail(id),
    queryFn: ({ signal }) => answer(api.GET('/plans/{id}', { params: { path: { id } }, signal })),
    refetchInterval: (query) => (query.state.data?.status === 'rendering' ? 2000 : false),
  });
}

export function useCreatePlan() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NewPlan) => answer(api.POST('/plans', { body })),
    onSuccess: (plan) => {
      queryClient.setQueryData(planKeys.detail(plan.id), plan);
      return queryClient.invalidateQueries({ queryKey: planKeys.all });
    },
  });
}

export function useUpdatePlan(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: PlanChanges) => answer(api.PATCH('/plans/{id}', { params: { path: { id } }, body })),
    onSuccess: (plan) => {
      queryClient.setQueryData(planKeys.detail(plan.id), plan);
      return queryClient.invalidateQueries({ queryKey: planKeys.all });
    },
  });
}

export function useDeletePlan() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => answer(api.DELETE('/plans/{id}', { params: { path: { id } } })),
    onSuccess: (_data, id) => {
      queryClient.removeQueries({ queryKey: planKeys.detail(id) });
      return queryClient.invalidateQueries({ queryKey: planKeys.all });
    },
  });
}

/** `GET /plans/{id}/export.xlsx` or `export.pdf`, in the interface's language. */
export function planExportPath(id: string, kind: 'xlsx' | 'pdf', language: string): string {
  return `/plans/${encodeURIComponent(id)}/export.${kind}${queryString({ lang: language.startsWith('en') ? 'en' : undefined })}`;
}
