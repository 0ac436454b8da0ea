//! What happens when the server refuses the session: one mechanism for every caller.
//!
//! auth-js keeps a stored session until something asks the server, and when a
//! refresh fails while the stored access token is still unexpired it keeps the
//! session too. Yet our server rejects at once an access token whose session was
//! ended (a sign-out "everywhere" on another device, reuse detection). So a 401
//! from `/api/v1` (fetch, upload or the events stream) comes here:
//!
//! - `renewAfterUnauthorized(token)` refreshes once (parallel callers share that
//!   refresh, and a caller whose token was already replaced gets the new one);
//! - if the server says the session is gone, the session is ended *locally*
//!   (`signOut({ scope: 'local' })`): auth-js announces SIGNED_OUT and the app
//!   shows the login screen with the "session ended" notice (`useSessionEnded`),
//!   at the address the user was on, so signing in again brings them back;
//! - uploads under way are cancelled then, and counted in the notice.
//!
//! A refresh that fails for a passing reason (network, 5xx, rate limit) ends
//! nothing: the request fails with its own error and the user can retry.
import { isAuthRefreshDiscardedError, isAuthRetryableFetchError } from '@supabase/auth-js';
import { useSyncExternalStore } from 'react';

import { authClient } from '@/lib/auth';

/** The outcome of a renewal: a fresh token, the session ended, or no answer for now. */
export type Renewal = { status: 'renewed'; token: string } | { status: 'ended' } | { status: 'unavailable' };

/** Why the login screen is shown: the session ended by itself (not by the user's sign-out). */
export type SessionEnd = { interruptedUploads: number };

let renewal: Promise<Renewal> | null = null;
let ended: SessionEnd | null = null;
const endListeners = new Set<() => void>();
const uploads = new Set<() => void>();

/** The stored session's access token, or null (auth-js refreshes first when it is about to expire). */
async function storedToken(): Promise<string | null> {
  try {
    const { data } = await authClient.getSession();
    return data.session?.access_token ?? null;
  } catch {
    return null;
  }
}

function errorStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('status' in error)) return undefined;
  return typeof error.status === 'number' ? error.status : undefined;
}

/** A refresh error that says nothing about the session (it may well still exist). */
function isPassing(error: unknown): boolean {
  if (isAuthRetryableFetchError(error)) return true;
  const status = errorStatus(error);
  return status === 429 || (status !== undefined && status >= 500);
}

/**
 * Called after the server answered 401 to a request sent with `rejected`.
 * Refreshes the session once for all callers; ends it when the server no longer knows it.
 */
export function renewAfterUnauthorized(rejected: string): Promise<Renewal> {
  renewal ??= renew(rejected).finally(() => {
    renewal = null;
  });
  return renewal;
}

async function renew(rejected: string): Promise<Renewal> {
  const current = await storedToken();
  // Signed out meanwhile (by the user or by auth-js): nothing to renew, nothing more to announce.
  if (current === null) return { status: 'ended' };
  // Someone already refreshed since this request was sent: use that token.
  if (current !== rejected) return { status: 'renewed', token: current };

  let error: unknown;
  try {
    const result = await authClient.refreshSession();
    const token = result.data.session?.access_token;
    if (token) return { status: 'renewed', token };
    error = result.error;
  } catch (thrown) {
    error = thrown;
  }
  if (isAuthRefreshDiscardedError(error)) {
    // Storage changed during the refresh (another tab refreshed, or a sign-out): take what is there now.
    const now = await storedToken();
    return now ? { status: 'renewed', token: now } : { status: 'ended' };
  }
  if (isPassing(error)) return { status: 'unavailable' };
  await endSession();
  return { status: 'ended' };
}

/** Ends the session on this device after the server refused it, with the notice for the login screen. */
async function endSession() {
  const interruptedUploads = uploads.size;
  for (const cancel of [...uploads]) cancel();
  uploads.clear();
  setEnded({ interruptedUploads });
  try {
    const { error } = await authClient.signOut({ scope: 'local' });
    if (error) console.error('Local sign-out after the session ended failed', error);
  } catch (error) {
    console.error('Local sign-out after the session ended failed', error);
  }
}

// ---------- Uploads under way ----------

/** Registers an upload under way; `cancel` is called if the session ends. Returns the unregister function. */
export function trackUpload(cancel: () => void): () => void {
  uploads.add(cancel);
  return () => {
    uploads.delete(cancel);
  };
}

// ---------- The notice ----------

function setEnded(value: SessionEnd | null) {
  if (value === ended) return;
  ended = value;
  for (const notify of [...endListeners]) notify();
}

/** Forgets the notice (a new session began, or the user dismissed it). */
export function clearSessionEnded() {
  setEnded(null);
}

export function getSessionEnded(): SessionEnd | null {
  return ended;
}

function subscribeEnded(notify: () => void) {
  endListeners.add(notify);
  return () => {
    endListeners.delete(notify);
  };
}

/** Non-null while the login screen should say that the session ended by itself. */
export function useSessionEnded(): SessionEnd | null {
  return useSyncExternalStore(subscribeEnded, getSessionEnded, getSessionEnded);
}
