//! The client of the Regard domain API (`/api/v1`, docs/architecture/api.md).
//!
//! `apiFetch` adds `Authorization: Bearer <access token>` from the auth session,
//! sends and reads JSON, and throws an `ApiError` built from the server's
//! `{code, message, details}`. `uploadMedia` posts a file with XMLHttpRequest,
//! the only browser API that reports upload progress. A 401 goes through
//! `renewAfterUnauthorized` (lib/session.ts): one refresh and a retry, or the
//! session ends and the request fails with `session_ended`.
import { authClient } from '@/lib/auth';
import { renewAfterUnauthorized, trackUpload } from '@/lib/session';

export const API_BASE = '/api/v1';

/** An error answered by the server (or `network` when no answer came). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown>;

  constructor(status: number, code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }

  /** `details.fields` of a `validation_failed` answer: field name → code. */
  get fields(): Record<string, string> {
    const fields = this.details.fields;
    if (typeof fields !== 'object' || fields === null) return {};
    return Object.fromEntries(
      Object.entries(fields as Record<string, unknown>).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

// ---------- Shapes (docs/architecture/api.md) ----------

export type MediaUrls = { original: string; preview: string; thumbnail: string };

export type Media = {
  id: string;
  kind: 'upload' | 'render' | 'heatmap';
  mime: string;
  width: number;
  height: number;
  bytes: number;
  sha256: string;
  original_name: string | null;
  gps: { latitude: number; longitude: number } | null;
  urls: MediaUrls;
  urls_expire_at: string;
  created_at: string;
};

export type Page<T> = { items: T[]; next_cursor: string | null };

// ---------- Requests ----------

/** The current access token (auth-js refreshes it first when it is about to expire), or null. */
export async function accessToken(): Promise<string | null> {
  try {
    const { data } = await authClient.getSession();
    return data.session?.access_token ?? null;
  } catch {
    return null;
  }
}

/** Builds an ApiError from a response body (JSON `{code, message, details}` or anything else). */
export function errorFromBody(status: number, body: unknown): ApiError {
  if (typeof body === 'object' && body !== null && 'code' in body && typeof body.code === 'string') {
    const message = 'message' in body && typeof body.message === 'string' ? body.message : body.code;
    const details =
      'details' in body && typeof body.details === 'object' && body.details !== null
        ? (body.details as Record<string, unknown>)
        : {};
    return new ApiError(status, body.code, message, details);
  }
  return new ApiError(status, status >= 500 ? 'internal' : 'unknown', `HTTP ${status}`);
}

function parseJson(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export type ApiRequest = {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
};

/** Calls `/api/v1{path}`; resolves with the parsed JSON (undefined for 204). */
export async function apiFetch<T>(path: string, { method = 'GET', body, signal }: ApiRequest = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await authorizedFetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  return readAnswer<T>(response);
}

/** The ApiError a refused answer carries (its `{code, message, details}` body, or its status). */
export async function errorOf(response: Response): Promise<ApiError> {
  return errorFromBody(response.status, parseJson(await response.text()));
}

/** An answer's JSON (undefined for 204), or its ApiError thrown. */
async function readAnswer<T>(response: Response): Promise<T> {
  if (!response.ok) throw await errorOf(response);
  return (response.status === 204 ? undefined : parseJson(await response.text())) as T;
}

/** Calls a public `/api/v1{path}` without any token (a share link's page); resolves with the JSON. */
export async function publicFetch<T>(path: string, { signal }: { signal?: AbortSignal } = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}`, { headers: { Accept: 'application/json' }, signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(0, 'network', error instanceof Error ? error.message : 'network error');
  }
  return readAnswer<T>(response);
}

export type AuthorizedInit = {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
};

/**
 * Sends `/api/v1{path}` with the session's access token and returns the response, whatever its
 * status. A token refused (expired while the computer slept, or its session ended elsewhere) is
 * refreshed once and the request retried, or the session has ended and the login screen
 * replaces the page. A network failure becomes `ApiError(0, 'network')`.
 */
export async function authorizedFetch(path: string, { headers = {}, signal, ...init }: AuthorizedInit = {}): Promise<Response> {
  const send = async (token: string | null) => {
    const all = token ? { ...headers, Authorization: `Bearer ${token}` } : headers;
    try {
      return await fetch(`${API_BASE}${path}`, { ...init, headers: all, signal });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ApiError(0, 'network', error instanceof Error ? error.message : 'network error');
    }
  };
  const token = await accessToken();
  const response = await send(token);
  if (response.status !== 401 || !token) return response;
  const renewal = await renewAfterUnauthorized(token);
  if (renewal.status === 'ended') throw sessionEndedError();
  return renewal.status === 'renewed' ? send(renewal.token) : response;
}

/** What a request fails with when the session ended under it (the login screen says why). */
export function sessionEndedError(): ApiError {
  return new ApiError(401, 'session_ended', 'the session has ended');
}

/** A query string from the defined, non-empty values. */
export function queryString(params: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

export type UploadOptions = {
  /** Called with the bytes sent so far and the total. */
  onProgress?: (loaded: number, total: number) => void;
  signal?: AbortSignal;
};

/**
 * `POST /api/v1/media` (multipart field `file`) with progress events. A 401 renews the session
 * and sends the file again once; if the session ends meanwhile (here or through another request)
 * the upload stops and fails with `session_ended`.
 */
export async function uploadMedia(file: File, { onProgress, signal }: UploadOptions = {}): Promise<Media> {
  const session = new AbortController();
  const untrack = trackUpload(() => session.abort());
  try {
    const token = await accessToken();
    try {
      return await sendFile(file, token, { onProgress, signal }, session.signal);
    } catch (error) {
      if (session.signal.aborted) throw sessionEndedError();
      if (!(isApiError(error) && error.status === 401 && token)) throw error;
      const renewal = await renewAfterUnauthorized(token);
      if (renewal.status === 'ended' || session.signal.aborted) throw sessionEndedError();
      if (renewal.status === 'unavailable') throw error;
      return await sendFile(file, renewal.token, { onProgress, signal }, session.signal);
    }
  } finally {
    untrack();
  }
}

/** One XMLHttpRequest upload; `ended` aborts it when the session ends. */
function sendFile(file: File, token: string | null, { onProgress, signal }: UploadOptions, ended: AbortSignal): Promise<Media> {
  return new Promise<Media>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${API_BASE}/media`);
    xhr.setRequestHeader('Accept', 'application/json');
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress?.(event.loaded, event.total);
    };
    xhr.onload = () => {
      const json = parseJson(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300) resolve(json as Media);
      else reject(errorFromBody(xhr.status, json));
    };
    xhr.onerror = () => reject(new ApiError(0, 'network', 'network error'));
    xhr.onabort = () => reject(ended.aborted ? sessionEndedError() : new ApiError(0, 'aborted', 'upload aborted'));
    if (signal?.aborted || ended.aborted) {
      reject(ended.aborted ? sessionEndedError() : new ApiError(0, 'aborted', 'upload aborted'));
      return;
    }
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    ended.addEventListener('abort', () => xhr.abort(), { once: true });
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

// ---------- Error messages ----------

export type ApiErrorKey =
  | 'apiErrors.unsupported_media_type'
  | 'apiErrors.file_too_large'
  | 'apiErrors.image_too_large'
  | 'apiErrors.invalid_image'
  | 'apiErrors.validation_failed'
  | 'apiErrors.not_found'
  | 'apiErrors.unauthorized'
  | 'apiErrors.session_ended'
  | 'apiErrors.network'
  | 'apiErrors.not_rendered'
  | 'apiErrors.already_rendering'
  | 'apiErrors.source_missing'
  | 'apiErrors.too_many_aois'
  | 'apiErrors.share_expired'
  | 'apiErrors.not_done'
  | 'apiErrors.generic';

const ERROR_KEYS: Record<string, ApiErrorKey> = {
  unsupported_media_type: 'apiErrors.unsupported_media_type',
  file_too_large: 'apiErrors.file_too_large',
  payload_too_large: 'apiErrors.file_too_large',
  image_too_large: 'apiErrors.image_too_large',
  invalid_image: 'apiErrors.invalid_image',
  validation_failed: 'apiErrors.validation_failed',
  not_found: 'apiErrors.not_found',
  unauthorized: 'apiErrors.unauthorized',
  session_ended: 'apiErrors.session_ended',
  network: 'apiErrors.network',
  not_rendered: 'apiErrors.not_rendered',
  already_rendering: 'apiErrors.already_rendering',
  source_missing: 'apiErrors.source_missing',
  too_many_aois: 'apiErrors.too_many_aois',
  share_expired: 'apiErrors.share_expired',
  not_done: 'apiErrors.not_done',
};

/** The translation key of an error code (anything unknown → the generic message). */
export function apiErrorKey(codeOrError: unknown): ApiErrorKey {
  const code = isApiError(codeOrError) ? codeOrError.code : codeOrError;
  return (typeof code === 'string' && ERROR_KEYS[code]) || 'apiErrors.generic';
}

export type FieldErrorKey =
  | 'fieldErrors.required'
  | 'fieldErrors.invalid_type'
  | 'fieldErrors.too_long'
  | 'fieldErrors.invalid_characters'
  | 'fieldErrors.invalid_value'
  | 'fieldErrors.out_of_range'
  | 'fieldErrors.not_found'
  | 'fieldErrors.unknown_field'
  | 'fieldErrors.invalid_shape'
  | 'fieldErrors.self_intersecting'
  | 'fieldErrors.not_convex'
  | 'fieldErrors.not_clockwise'
  | 'fieldErrors.requires_photo'
  | 'fieldErrors.too_small'
  | 'fieldErrors.too_many'
  | 'fieldErrors.taken'
  | 'fieldErrors.invalid';

const FIELD_CODES = new Set([
  'required',
  'invalid_type',
  'too_long',
  'invalid_characters',
  'invalid_value',
  'out_of_range',
  'not_found',
  'unknown_field',
  'invalid_shape',
  'self_intersecting',
  'not_convex',
  'not_clockwise',
  'requires_photo',
  'too_small',
  'too_many',
  'taken',
]);

/** The translation key of a `details.fields` code. */
export function fieldErrorKey(code: string): FieldErrorKey {
  return FIELD_CODES.has(code) ? (`fieldErrors.${code}` as FieldErrorKey) : 'fieldErrors.invalid';
}
