//! Number formatting for the heatmap pages, in the interface language (Intl): "31 %" in French,
//! "31%" in English. Dates are lib/dates.ts's.

/**
 * A share (0..1) as a percentage: one decimal under 10 % (4.5 %), whole above. A share that is
 * not zero never prints as "0 %": below 0.05 % it prints "< 0,1 %".
 */
export function formatPercent(share: number, language: string): string {
  const digits = share > 0 && share < 0.1 ? 1 : 0;
  const format = (value: number) =>
    new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: digits }).format(value);
  return share > 0 && share < 0.0005 ? `< ${format(0.001)}` : format(share);
}

/** A ratio such as "relative to size": 2.9, 0.5 (one decimal at most). */
export function formatRatio(value: number, language: string): string {
  return new Intl.NumberFormat(language, { maximumFractionDigits: 1, minimumFractionDigits: 0 }).format(value);
}

/** A 0..100 score, rounded. */
export function formatScore(value: number, language: string): string {
  return new Intl.NumberFormat(language, { maximumFractionDigits: 0 }).format(value);
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
