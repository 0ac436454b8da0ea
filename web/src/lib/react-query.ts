//! TanStack Query defaults. Features add their own `queryOptions` factories
//! (features/<feature>/api) and invalidate by key prefix after mutations.
import { QueryClient } from '@tanstack/react-query';

export function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 30_000, retry: 1, refetchOnWindowFocus: true },
    },
  });
}
