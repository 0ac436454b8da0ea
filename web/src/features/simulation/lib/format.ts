//! Numbers of the simulation page in the interface language (Intl): "23 %" in French.

/** A share (0..1) as a percentage: one decimal under 10 %, whole above. */
export function formatPercent(share: number, language: string): string {
  const digits = share > 0 && share < 0.1 ? 1 : 0;
  return new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: digits }).format(share);
}

/** A ratio such as the visibility (2.1). */
export function formatRatio(value: number, language: string): string {
  return new Intl.NumberFormat(language, { maximumFractionDigits: 1, minimumFractionDigits: 0 }).format(value);
}

/** A panel or creative shape (width / height) as "1.33:1" ("1,33:1" in French). */
export function formatAspect(value: number, language: string): string {
  return `${new Intl.NumberFormat(language, { maximumFractionDigits: 2, minimumFractionDigits: 0 }).format(value)}:1`;
}
