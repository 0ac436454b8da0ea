//! Dates in the interface language, written the way its region writes them: French as in France
//! (26 nov. 2026), English as in the United Kingdom (26 Nov 2026, 26/11/2026), never the United
//! States' month-first order that a bare `en` gives. Every date the app shows goes through here.

/** The region each interface language formats dates in. */
const REGIONS: Record<string, string> = { fr: 'fr-FR', en: 'en-GB' };

/** The `Intl` locale for an interface language (`en` → `en-GB`); other tags pass unchanged. */
export function dateLocale(language: string): string {
  return REGIONS[language.toLowerCase().split('-')[0]] ?? language;
}

/** A day: "26 nov. 2026", "26 Nov 2026". */
export function formatDate(date: Date, language: string): string {
  return new Intl.DateTimeFormat(dateLocale(language), { dateStyle: 'medium' }).format(date);
}

/** A day and a time from an RFC 3339 string: "26 Nov 2026, 14:05"; the string itself when it is not a date. */
export function formatDateTime(iso: string, language: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(dateLocale(language), { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

/** The local day of an RFC 3339 string, as `YYYY-MM-DD` (for grouping by day); the string itself when it is not a date. */
export function dayKey(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** A day written out: "jeudi 26 novembre 2026", "Thursday 26 November 2026". */
export function formatLongDate(date: Date, language: string): string {
  return new Intl.DateTimeFormat(dateLocale(language), { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }).format(date);
}

/** The time of an RFC 3339 string: "14:05"; the string itself when it is not a date. */
export function formatTime(iso: string, language: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(dateLocale(language), { timeStyle: 'short' }).format(date);
}
