//! The storage a user fills against their quota (`GET /api/v1/usage`;
//! `REGARD_STORAGE_QUOTA_MB` on the server): shown on the account page.
import { queryOptions } from '@tanstack/react-query';

import { answer, api, type Schemas } from '@/lib/api';

export type Usage = Schemas['Usage'];

export function usageQuery() {
  return queryOptions({
    queryKey: ['usage'] as const,
    queryFn: ({ signal }) => answer(api.GET('/usage', { signal })),
  });
}

/** Bytes as decimal megabytes or gigabytes (as the quota is set), in the reader's language. */
export function formatBytes(bytes: number, language: string): string {
  const giga = bytes >= 1e9;
  return new Intl.NumberFormat(language, {
    style: 'unit',
    unit: giga ? 'gigabyte' : 'megabyte',
    unitDisplay: 'short',
    maximumFractionDigits: 1,
  }).format(bytes / (giga ? 1e9 : 1e6));
}
