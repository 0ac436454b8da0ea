//! i18next set-up: French by default, English as fallback, the choice kept in
//! localStorage and mirrored on `<html lang>`. With no choice kept, the first visit follows
//! the browser's preferred languages (`navigator.languages`): the first one the app speaks.
//! Resources are bundled (two small JSON files), so initialisation is synchronous and nothing
//! flashes untranslated.
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';

import { LANGUAGE_STORAGE_KEY } from '@/config/constants';
import en from '@/locales/en.json';
import fr from '@/locales/fr.json';

export const SUPPORTED_LANGUAGES = ['fr', 'en'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'fr';
export const FALLBACK_LANGUAGE: Language = 'en';

export const resources = {
  fr: { translation: fr },
  en: { translation: en },
} as const;

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (SUPPORTED_LANGUAGES as readonly string[]).includes(value);
}

/** The language the user chose (kept in localStorage), or null when none (or an unknown one) is kept. */
export function readStoredLanguage(): Language | null {
  try {
    const stored = window.localStorage.getItem(LANGUAGE_STORAGE_KEY);
    return isLanguage(stored) ? stored : null;
  } catch {
    // Storage can be unavailable (privacy mode, sandboxed iframe): no choice kept.
    return null;
  }
}

/**
 * The first of the browser's preferred languages (`en-GB`, `fr-CA`, `en`…) that the app speaks,
 * by its primary subtag; French when none is.
 */
export function browserLanguage(preferred: readonly string[]): Language {
  for (const tag of preferred) {
    const primary = tag.toLowerCase().split('-')[0];
    if (isLanguage(primary)) return primary;
  }
  return DEFAULT_LANGUAGE;
}

/** The language to start in: the one the user chose, else the browser's. */
export function initialLanguage(): Language {
  const preferred = typeof navigator === 'undefined' ? [] : navigator.languages?.length ? navigator.languages : [navigator.language];
  return readStoredLanguage() ?? browserLanguage(preferred.filter(Boolean));
}

function persistLanguage(language: string) {
  document.documentElement.lang = language;
  try {
    window.localStorage.setItem(LANGUAGE_STORAGE_KEY, language);
  } catch {
    // Not persisting is acceptable; the language still applies to this tab.
  }
}

void i18n.use(initReactI18next).init({
  resources,
  lng: initialLanguage(),
  fallbackLng: FALLBACK_LANGUAGE,
  supportedLngs: SUPPORTED_LANGUAGES,
  interpolation: { escapeValue: false }, // React escapes already.
  initAsync: false,
  returnNull: false,
});

document.documentElement.lang = i18n.language;
i18n.on('languageChanged', persistLanguage);

/** Switches the interface language and remembers the choice. */
export function changeLanguage(language: Language) {
  return i18n.changeLanguage(language);
}

export { i18n };
