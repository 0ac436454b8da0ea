//! Files fetched from the API with the session's token and saved by the browser: PNG exports,
//! PDF reports, ZIP archives of renders.
import { useMutation } from '@tanstack/react-query';

import { authorizedFetch, errorOf } from '@/lib/api';

/** A name file systems accept: without `\ / : * ? " < > |`, or `regard` when nothing is left. */
export function safeFileName(name: string): string {
  return name.replace(/[\\/:*?"<>|]+/g, '-').trim() || 'regard';
}

/**
 * Fetches a file from the API (with the session's token) and saves it under `fileName`; `init`
 * for a file made from a request body (`POST /simulations/renders.zip`).
 */
export function useDownloadFile() {
  return useMutation({
    mutationFn: async ({ path, init }: { path: string; fileName: string; init?: RequestInit }) => {
      const response = await authorizedFetch(path, init);
      if (!response.ok) throw await errorOf(response);
      return response.blob();
    },
    onSuccess: (blob, { fileName }) => {
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = fileName;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    },
  });
}
