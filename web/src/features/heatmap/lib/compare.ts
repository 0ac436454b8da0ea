//! The comparison of a heatmap's images, as numbers: one row per measure
//! (score, focus, clarity, then each area of interest by name), one value per
//! image, the difference with the first image (the reference), and which
//! image wins. Areas line up by name (lib/aoi.ts `nameKey`), as the server
//! copies them. Differences and winners are worked out from the values as the
//! page shows them (rounded by lib/format.ts), so that 48 beside 39 reads +9.
import type { HeatmapItem, HeatmapResult } from '../api/heatmaps';

import { nameKey } from './aoi';
import { shownPercent, shownScore } from './format';

/** A done image taking part in the comparison. */
export type Variant = { item: HeatmapItem; result: HeatmapResult };

export type MeasureKind = 'score' | 'focus' | 'clarity' | 'aoi';

export type Row = {
  kind: MeasureKind;
  /** The area's name (as written on the first image that has it), for `aoi` rows. */
  name?: string;
  /** One value per variant, null when an image has no such area. Scores 0..100, shares 0..1. */
  values: Array<number | null>;
  /** The area's place in each image's viewing order (`aoi` rows). */
  ranks?: Array<number | null>;
  /**
   * The shown value − the reference's shown value, null for the reference itself or a missing
   * value: score points, or percentage points for `aoi` rows (12 % beside 8 % gives 4).
   */
  deltas: Array<number | null>;
  /** Index of the variant with the highest shown value; null on a tie (within `TIE`) or with fewer than two values. */
  winner: number | null;
};

/** Shown values closer than this are a tie: half a score point, or half a percentage point of the attention. */
const TIE = 0.5;

function row(kind: MeasureKind, values: Array<number | null>, name?: string, ranks?: Array<number | null>): Row {
  // Scores show whole, shares as percentages with at most one decimal: rounding the difference
  // to a tenth drops the floating-point noise of the subtraction (4.6 − 4.5 = 0.0999…).
  const shown = values.map((value) => (value === null ? null : kind === 'aoi' ? shownPercent(value) : shownScore(value)));
  const reference = shown[0];
  const deltas = shown.map((value, index) =>
    index === 0 || value === null || reference === null ? null : Math.round((value - reference) * 10) / 10,
  );
  const present = shown.map((value, index) => ({ value, index })).filter((v): v is { value: number; index: number } => v.value !== null);
  let winner: number | null = null;
  if (present.length >= 2) {
    const sorted = [...present].sort((a, b) => b.value - a.value);
    if (sorted[0].value - sorted[1].value >= TIE) winner = sorted[0].index;
  }
  return { kind, name, values, ranks, deltas, winner };
}

/** The rows of the comparison of these variants (at least two). */
export function compareVariants(variants: Variant[]): Row[] {
  const rows: Row[] = [
    row('score', variants.map((v) => v.result.score)),
    row('focus', variants.map((v) => v.result.focus)),
    row('clarity', variants.map((v) => v.result.clarity)),
  ];
  // Area names in order of first appearance, across the variants.
  const names = new Map<string, string>();
  for (const { item } of variants) {
    for (const aoi of item.aois) {
      const key = nameKey(aoi.name);
      if (!names.has(key)) names.set(key, aoi.name);
    }
  }
  for (const [key, name] of names) {
    const found = variants.map((v) => v.item.aois.find((aoi) => nameKey(aoi.name) === key)?.attention ?? null);
    rows.push(
      row(
        'aoi',
        found.map((attention) => attention?.share ?? null),
        name,
        found.map((attention) => attention?.seen_rank ?? null),
      ),
    );
  }
  return rows;
}
