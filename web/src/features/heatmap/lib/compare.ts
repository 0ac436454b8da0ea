//! The comparison of a heatmap's images, as numbers: one row per measure
//! (score, focus, clarity, then each area of interest by name), one value per
//! image, the difference with the first image (the reference), and which
//! image wins. Areas line up by name (lib/aoi.ts `nameKey`), as the server
//! copies them.
import type { HeatmapItem, HeatmapResult } from '../api/heatmaps';

import { nameKey } from './aoi';

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
  /** value − the reference's value, null for the reference itself or a missing value. */
  deltas: Array<number | null>;
  /** Index of the variant with the highest value; null on a tie (within `TIE`) or with fewer than two values. */
  winner: number | null;
};

/** Differences smaller than this are a tie: half a score point, or 0.5 % of the attention. */
const TIE = { score: 0.5, share: 0.005 };

function row(kind: MeasureKind, values: Array<number | null>, name?: string, ranks?: Array<number | null>): Row {
  const reference = values[0];
  const deltas = values.map((value, index) =>
    index === 0 || value === null || reference === null ? null : value - reference,
  );
  const present = values.map((value, index) => ({ value, index })).filter((v): v is { value: number; index: number } => v.value !== null);
  let winner: number | null = null;
  if (present.length >= 2) {
    const sorted = [...present].sort((a, b) => b.value - a.value);
    const tie = kind === 'aoi' ? TIE.share : TIE.score;
    if (sorted[0].value - sorted[1].value >= tie) winner = sorted[0].index;
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
