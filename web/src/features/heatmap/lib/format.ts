//! Number formatting for the heatmap pages, in the interface language (Intl): "31 %" in French,
//! "31%" in English. Dates are lib/dates.ts's.

/**
 * A share (0..1) as a percentage: one decimal under 10 % (4.5 %), whole above. A share that is
 * not zero never prints as "0 %": below 0.05 % it prints "< 0,1 %".
 */
export function formatPercent(share: number, language: string): string {
  const format = (value: number) =>
    new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: percentDigits(share) }).format(value);
  return share > 0 && share < 0.0005 ? `< ${format(0.001)}` : format(share);
}

/** The decimals `formatPercent` gives a share's percentage. */
function percentDigits(share: number): number {
  return share > 0 && share < 0.1 ? 1 : 0;
}

/**
 * A number as Intl rounds it for display (half away from zero, on the exact decimal value of the
 * double), read back: what the page shows, so that differences are taken between shown values.
 */
function rounded(value: number, options: Intl.NumberFormatOptions): number {
  const text = new Intl.NumberFormat('en-US', { ...options, useGrouping: false }).format(value);
  return Number(text.replace('%', ''));
}

/**
 * A share (0..1) as `formatPercent` shows it, in percent: 0.0449 → 4.5, 0.123 → 12. A share
 * shown "< 0,1 %" counts as 0.
 */
export function shownPercent(share: number): number {
  return rounded(share, { style: 'percent', maximumFractionDigits: percentDigits(share) });
}

/** A ratio such as "relative to size": 2.9, 0.5 (one decimal at most). */
export function formatRatio(value: number, language: string): string {
  return new Intl.NumberFormat(language, { maximumFractionDigits: 1, minimumFractionDigits: 0 }).format(value);
}

/** A 0..100 score, rounded. */
export function formatScore(value: number, language: string): string {
  return new Intl.NumberFormat(language, { maximumFractionDigits: 0 }).format(value);
}

/** A score as `formatScore` shows it: 47.5 → 48, 39.4 → 39. */
export function shownScore(value: number): number {
  return rounded(value, { maximumFractionDigits: 0 });
}

/** A 0..1 index with two decimals (entropy). */
export function formatIndex(value: number, language: string): string {
  return new Intl.NumberFormat(language, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value);
}

/** A file name without its extension ("affiche-ete.png" → "affiche-ete"); empty when nothing is left. */
export function baseName(fileName: string | null | undefined): string {
  if (!fileName) return '';
  const name = fileName.replace(/^.*[\\/]/, '').trim();
  const dot = name.lastIndexOf('.');
  return (dot > 0 ? name.slice(0, dot) : name).trim();
}
