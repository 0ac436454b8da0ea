//! Browser storage keys and form limits shared across the app.

/** localStorage key of the theme preference (zustand persist format). Required by the spec. */
export const THEME_STORAGE_KEY = 'theme-storage';

/** localStorage key of the interface language ('fr' or 'en'). */
export const LANGUAGE_STORAGE_KEY = 'regard-language';

/** localStorage key under which auth-js keeps the session. */
export const AUTH_STORAGE_KEY = 'regard-auth-token';

/** Minimum password length enforced by the login/register form (and by the server). */
export const MIN_PASSWORD_LENGTH = 6;

/**
 * Seconds before a recovery mail may be asked for again from the code screen: the server's
 * default `REGARD_MAIL_MAX_FREQUENCY`. Within it the server sends nothing and still answers
 * "sent", so the screen would otherwise announce a mail that never comes.
 */
export const MAIL_RESEND_SECONDS = 60;

/**
 * sessionStorage key of the workspace this tab works in (zustand persist format): per tab, so
 * two tabs can work in two workspaces. Absent: the personal workspace.
 */
export const WORKSPACE_STORAGE_KEY = 'regard-workspace';
