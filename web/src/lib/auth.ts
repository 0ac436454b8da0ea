//! The one auth-js client of the app, talking to the Regard server's
//! GoTrue-compatible API under /auth/v1 on the same origin.
//!
//! Token refresh: with `autoRefreshToken`, auth-js itself listens to
//! `visibilitychange` in a browser and starts the refresh ticker when the tab
//! is visible and stops it when hidden. Calling startAutoRefresh/stopAutoRefresh
//! by hand would *remove* that managed listener, so we deliberately don't.
//! PKCE flow: provider sign-ins and e-mail links (password recovery, e-mail
//! change) come back with `?code=`, which auth-js exchanges itself on load
//! (`detectSessionInUrl`); errors come back in the URL and surface through
//! `initialize()`.
//!
//! Mails (recovery, sign-in links, confirmations) are written in the language of the request:
//! every auth request carries the interface's language as `Accept-Language`, kept up to date
//! when the user switches (auth-js reads this headers object on each request).
//!
//! Tests replace this module with a mock (`vi.mock('@/lib/auth')`).
import { AuthClient } from '@supabase/auth-js';

import { AUTH_STORAGE_KEY } from '@/config/constants';
import { i18n } from '@/lib/i18n';

const headers: Record<string, string> = { 'Accept-Language': i18n.language };
i18n.on('languageChanged', (language: string) => {
  headers['Accept-Language'] = language;
});

export const authClient = new AuthClient({
  url: `${window.location.origin}/auth/v1`,
  storageKey: AUTH_STORAGE_KEY,
  autoRefreshToken: true,
  persistSession: true,
  detectSessionInUrl: true,
  flowType: 'pkce',
  headers,
});

export type { AuthError, Factor, Session, User, UserIdentity } from '@supabase/auth-js';
