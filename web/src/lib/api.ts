//! The client of the Regard domain API (`/api/v1`, docs/architecture/api.md).
//!
//! `api` is an `openapi-fetch` client typed by the server's OpenAPI document (`src/api/`):
//! its paths, path and query parameters, bodies and answers are checked by TypeScript, and
//! `answer()` turns what it resolves with into the data or a thrown `ApiError` built from
//! the server's `{code, message, details}`. Every call goes through `sendWithSession`:
//! `Authorization: Bearer <access token>` from the auth session, and on a 401 one refresh and
//! a retry through `renewAfterUnauthorized` (lib/session.ts), or the session ends and the
//! request fails with `session_ended`. `publicApi` reads a share link's page without a token.
//! `postForm` posts a multipart form with XMLHttpRequest, the only browser API that reports
//! upload progress (`uploadMedia`, the inventory import); `authorizedFetch` fetches the files
//! made on the server (PNG, PDF). While a shared workspace is current (lib/workspace.ts), every
//! one of these requests names it in `X-Workspace-Id`; `/auth/v1` (auth-js) never gets it.
import createClient from 'openapi-fetch';

import type { components, paths } from '@/api/schema';
import { authClient } from '@/lib/auth';
import en from '@/locales/en.json';
import { renewAfterUnauthorized, trackUpload } from '@/lib/session';
import { workspaceHeaders } from '@/lib/workspace';

export const API_BASE = '/api/v1';

/** The API's absolute address: `Request` takes no relative one outside a browser (the tests). */
const API_URL = new URL(API_BASE, window.location.href).href;

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

// ---------- Shapes (generated from the server's OpenAPI document: src/api/) ----------

export type Schemas = components['schemas'];
export type MediaUrls = Schemas['MediaUrls'];
export type Media = Schemas['Media'];
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

/** The ApiError a refused answer carries (its `{code, message, details}` body, or its status). */
export async function errorOf(response: Response): Promise<ApiError> {
  return errorFromBody(response.status, parseJson(await response.text()));
}

/** `fetch`, a network failure becoming `ApiError(0, 'network')` (an abort stays an abort). */
async function send(request: Request): Promise<Response> {
  try {
    return await fetch(request);
  } catch (error) {
    if (request.signal.aborted) throw error;
    throw new ApiError(0, 'network', error instanceof Error ? error.message : 'network error');
  }
}

/**
 * Sends a request to the API with the session's access token and returns the response, whatever
 * its status. A token refused (expired while the computer slept, or its session ended elsewhere)
 * is refreshed once and the request sent again, or the session has ended and the login screen
 * replaces the page. A network failure becomes `ApiError(0, 'network')`.
 */
export async function sendWithSession(request: Request): Promise<Response> {
  const attempt = (token: string | null) => {
    // A copy each time: a body can be read only once, and a retry sends it again.
    const copy = request.clone();
    if (token) copy.headers.set('Authorization', `Bearer ${token}`);
    // Read at sending time: a request sent after a switch acts in the new workspace.
    for (const [name, value] of Object.entries(workspaceHeaders())) copy.headers.set(name, value);
    return send(copy);
  };
  const token = await accessToken();
  const response = await attempt(token);
  if (response.status !== 401 || !token) return response;
  const renewal = await renewAfterUnauthorized(token);
  if (renewal.status === 'ended') throw sessionEndedError();
  return renewal.status === 'renewed' ? attempt(renewal.token) : response;
}

/** A query string from the defined, non-empty values (no parameter of the API is a list or an object). */
export function queryString(params: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new TypeError(`query parameter ${key}: not a string, number or boolean`);
    }
    search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

const clientOptions = {
  baseUrl: API_URL,
  headers: { Accept: 'application/json' },
  // Values left undefined, null or empty are not sent.
  querySerializer: queryString,
};

/** The `/api/v1` client (typed by `src/api/schema.d.ts`); wrap its calls in `answer()`. */
export const api = createClient<paths>({ ...clientOptions, fetch: sendWithSession });

/** The paths a share link's page reads, without an account. */
type PublicPaths = Pick<paths, '/shared/{token}'>;

/** The client of the public pages: no token is sent. */
export const publicApi = createClient<PublicPaths>({ ...clientOptions, fetch: send });

/** The data of a successful answer, out of what an `api` call resolves with (openapi-fetch's `FetchResponse`). */
type DataOf<R> = R extends { data: infer D; error?: never } ? D : never;

/**
 * The data of an `api` (or `publicApi`) call, or its ApiError thrown: the server's
 * `{code, message, details}`, or its status. A 204 resolves with undefined.
 */
export async function answer<R extends { data?: unknown; error?: unknown; response: Response }>(call: Promise<R>): Promise<DataOf<R>> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorFromBody(response.status, error);
  return data as DataOf<R>;
}

/**
 * Fetches `/api/v1{path}` with the session's token (`sendWithSession`) and returns the response,
 * whatever its status: for the files made on the server (PNG exports, PDF reports).
 */
export function authorizedFetch(path: string, init?: RequestInit): Promise<Response> {
  return sendWithSession(new Request(`${API_URL}${path}`, init));
}

/** What a request fails with when the session ended under it (the login screen says why). */
export function sessionEndedError(): ApiError {
  return new ApiError(401, 'session_ended', 'the session has ended');
}

export type UploadOptions = {
  /** Called with the bytes sent so far and the total. */
  onProgress?: (loaded: number, total: number) => void;
  signal?: AbortSignal;
};

/** What a form posted with `postForm` was answered: its status, JSON body and headers. */
export type FormAnswer = { status: number; body: unknown; header: (name: string) => string | null };

export type FormOptions = UploadOptions & {
  /** Statuses besides 2xx that resolve (with their body) instead of rejecting. */
  resolveStatuses?: readonly number[];
};

/**
 * `POST /api/v1{path}` of a multipart form with progress events (XMLHttpRequest: `fetch`
 * reports no upload progress). `form` builds the body, once per try. A 401 renews the session
 * and sends the form again once; if the session ends meanwhile (here or through another
 * request) the upload stops and fails with `session_ended`. Other refusals reject with their
 * ApiError, unless their status is in `resolveStatuses`.
 */
export async function postForm(path: string, form: () => FormData, { onProgress, signal, resolveStatuses = [] }: FormOptions = {}): Promise<FormAnswer> {
  const session = new AbortController();
  const untrack = trackUpload(() => session.abort());
  const options = { onProgress, signal, resolveStatuses };
  try {
    const token = await accessToken();
    try {
      return await sendForm(path, form(), token, options, session.signal);
    } catch (error) {
      if (session.signal.aborted) throw sessionEndedError();
      if (!(isApiError(error) && error.status === 401 && token)) throw error;
      const renewal = await renewAfterUnauthorized(token);
      if (renewal.status === 'ended' || session.signal.aborted) throw sessionEndedError();
      if (renewal.status === 'unavailable') throw error;
      return await sendForm(path, form(), renewal.token, options, session.signal);
    }
  } finally {
    untrack();
  }
}

/**
 * `POST /api/v1/media` (multipart field `file`) with progress events; see `postForm`.
 */
export async function uploadMedia(file: File, options: UploadOptions = {}): Promise<Media> {
  const answer = await postForm(
    '/media',
    () => {
      const form = new FormData();
      form.append('file', file, file.name);
      return form;
    },
    options,
  );
  return answer.body as Media;
}

/** One XMLHttpRequest; `ended` aborts it when the session ends. */
function sendForm(path: string, body: FormData, token: string | null, options: FormOptions, ended: AbortSignal): Promise<FormAnswer> {
  const { onProgress, signal, resolveStatuses = [] } = options;
  return new Promise<FormAnswer>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${API_BASE}${path}`);
    xhr.setRequestHeader('Accept', 'application/json');
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    for (const [name, value] of Object.entries(workspaceHeaders())) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress?.(event.loaded, event.total);
    };
    xhr.onload = () => {
      const json = parseJson(xhr.responseText);
      if ((xhr.status >= 200 && xhr.status < 300) || resolveStatuses.includes(xhr.status)) {
        resolve({ status: xhr.status, body: json, header: (name) => xhr.getResponseHeader(name) });
      } else reject(errorFromBody(xhr.status, json));
    };
    xhr.onerror = () => reject(new ApiError(0, 'network', 'network error'));
    xhr.onabort = () => reject(ended.aborted ? sessionEndedError() : new ApiError(0, 'aborted', 'upload aborted'));
    if (signal?.aborted || ended.aborted) {
      reject(ended.aborted ? sessionEndedError() : new ApiError(0, 'aborted', 'upload aborted'));
      return;
    }
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    ended.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(body);
  });
}

// ---------- Error messages ----------

/** The codes of `/api/v1` errors, of failed jobs and of validation problems (generated). */
export type ErrorCode = components['schemas']['ErrorCode'];
export type JobErrorCode = components['schemas']['JobErrorCode'];
export type FieldCode = components['schemas']['FieldCode'];

/** Codes this client gives to failures that never got an answer from the server. */
type ClientErrorCode = 'network' | 'session_ended' | 'generic';

export type ApiErrorKey = `apiErrors.${ErrorCode | JobErrorCode | ClientErrorCode}`;
export type FieldErrorKey = `fieldErrors.${FieldCode}`;

// Every server code has a message (src/api/codes.test.ts checks both locales), so a code
// without one is newer than this build: it gets the generic message.
const API_ERROR_CODES = new Set(Object.keys(en.apiErrors));
const FIELD_CODES = new Set(Object.keys(en.fieldErrors));

/** The translation key of an error code (anything unknown → the generic message). */
export function apiErrorKey(codeOrError: unknown): ApiErrorKey {
  const code = isApiError(codeOrError) ? codeOrError.code : codeOrError;
  return typeof code === 'string' && API_ERROR_CODES.has(code) ? (`apiErrors.${code}` as ApiErrorKey) : 'apiErrors.generic';
}

/** The translation key of a `details.fields` code. */
export function fieldErrorKey(code: string): FieldErrorKey {
  return FIELD_CODES.has(code) ? (`fieldErrors.${code}` as FieldErrorKey) : 'fieldErrors.invalid';
}
