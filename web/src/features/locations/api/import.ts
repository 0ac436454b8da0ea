//! The inventory import (`POST /api/v1/locations/import`, docs/architecture/api.md): a CSV or
//! XLSX file and an optional ZIP of photos, checked (`dryRun`) or imported, all or nothing.
//! Sent with `postForm` for its upload progress; an import's success invalidates the
//! `['locations']` prefix.
import { useMutation, useQueryClient } from '@tanstack/react-query';

import { errorFromBody, postForm, type Schemas, type UploadOptions } from '@/lib/api';

import { locationKeys } from './locations';

export type ImportError = Schemas['ImportError'];
export type ImportColumn = Schemas['ImportColumn'];

/** What the server said of a file: the locations created and the rows refused. */
export type ImportOutcome = {
  /** A check (nothing written) or an import. */
  dryRun: boolean;
  /** The location rows the file has (`X-Import-Rows`). */
  rows: number;
  /** The ids created, in the file's order: none in a check, none when a row is refused. */
  created: string[];
  /** The rows refused, by row then column. */
  errors: ImportError[];
};

export type ImportRequest = { file: File; photos: File | null; dryRun: boolean };

/**
 * Checks or imports a file. Refused rows resolve (a check's 200, an import's 422, both with
 * `errors`); a refusal of the request itself (no file, unreadable, too large...) rejects with
 * its ApiError, whose `details.fields` names `file`, `name`, `photos` or `dry_run`.
 */
export async function importInventory({ file, photos, dryRun }: ImportRequest, options: UploadOptions = {}): Promise<ImportOutcome> {
  const answer = await postForm(
    '/locations/import',
    () => {
      const form = new FormData();
      form.append('file', file, file.name);
      if (photos) form.append('photos', photos, photos.name);
      form.append('dry_run', String(dryRun));
      return form;
    },
    { ...options, resolveStatuses: [422] },
  );
  const body = answer.body as Partial<Schemas['ImportRefused']> | null;
  const errors = body?.errors ?? [];
  if (answer.status === 422 && errors.length === 0) throw errorFromBody(answer.status, body);
  const rows = Number(answer.header('x-import-rows') ?? NaN);
  return { dryRun, rows: Number.isFinite(rows) ? rows : 0, created: body?.created ?? [], errors };
}

/** `importInventory` as a mutation; a real import that created locations refreshes every list. */
export function useImportInventory() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ request, onProgress }: { request: ImportRequest; onProgress?: UploadOptions['onProgress'] }) =>
      importInventory(request, { onProgress }),
    onSuccess: (outcome) => (outcome.created.length > 0 ? queryClient.invalidateQueries({ queryKey: locationKeys.all }) : undefined),
  });
}
