//! Browser storage keys and form limits shared across the app.

/** localStorage key of the theme preference (zustand persist format). Required by the spec. */
export const THEME_STORAGE_KEY = 'theme-storage';

/** localStorage key of the interface language ('fr' or 'en'). */
export const LANGUAGE_STORAGE_KEY = 'regard-language';

/** localStorage key under which auth-js keeps the session. */
export const AUTH_STORAGE_KEY = 'regard-auth-token';

/** Minimum password length enforced by the login/register form (and by the server). */
export const MIN_PASSWORD_LENGTH = 6;
