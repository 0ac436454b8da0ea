//! How a plan's figures read: counts grouped as the language writes them, seconds with one decimal,
//! days as the language writes them (probabilities as the simulation page writes them).
import { dateLocale } from '@/lib/dates';

/** `196 000` in French, `196,000` in English. */
export function formatCount(value: number, language: string): string {
  return value.toLocaleString(dateLocale(language), { maximumFractionDigits: 0 });
}

export function formatSeconds(value: number, language: string): string {
  return value.toLocaleString(dateLocale(language), { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

/** A `YYYY-MM-DD` day as the language writes it (07/01/2027, 1/7/2027). */
export function formatDay(text: string, language: string): string {
  const ms = Date.parse(`${text}T00:00:00Z`);
  if (Number.isNaN(ms)) return text;
  return new Date(ms).toLocaleDateString(dateLocale(language), { timeZone: 'UTC', day: '2-digit', month: '2-digit', year: 'numeric' });
}
