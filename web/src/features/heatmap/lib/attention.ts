//! Pure attention maths on a heatmap result (docs/attention.md,
//! docs/architecture/heatmaps.md): the share of attention in a rectangle drawn
//! by the user, read from `result.grid` in the browser (instant, no request),
//! plus the small classifications the page puts into words (score bands,
//! position of a point in the image).
import type { AttentionGrid, Rect } from '../api/heatmaps';

export type AreaShare = {
  /** Fraction of all attention inside the rectangle (0..1). */
  share: number;
  /** Fraction of the image the rectangle covers (0..1). */
  area: number;
  /** share / area: 1 = attention in proportion to size, 2 = twice as much. 0 for an empty rectangle. */
  relative: number;
};

const clamp01 = (value: number) => Math.min(1, Math.max(0, value));

/** The part of a rectangle inside the image (0..1 on both axes). */
export function clampRect(rect: Rect): Rect {
  const x = clamp01(rect.x);
  const y = clamp01(rect.y);
  return { x, y, width: clamp01(rect.x + rect.width) - x, height: clamp01(rect.y + rect.height) - y };
}

/** The rectangle spanned by two corners (in any order), clamped to the image. */
export function rectFromPoints(a: { x: number; y: number }, b: { x: number; y: number }): Rect {
  const x1 = clamp01(Math.min(a.x, b.x));
  const y1 = clamp01(Math.min(a.y, b.y));
  const x2 = clamp01(Math.max(a.x, b.x));
  const y2 = clamp01(Math.max(a.y, b.y));
  return { x: x1, y: y1, width: x2 - x1, height: y2 - y1 };
}

/** Length of the overlap of [a1, a2] and [b1, b2]. */
function overlap(a1: number, a2: number, b1: number, b2: number): number {
  return Math.max(0, Math.min(a2, b2) - Math.max(a1, b1));
}

/**
 * Share of attention in `rect`: the sum of the grid cells it covers, a cell
 * cut by its edge counting for the covered fraction of the cell, over the sum
 * of all cells. Its size share is its area; relative = share / area.
 */
export function areaShare(grid: AttentionGrid, rect: Rect): AreaShare {
  const { width: columns, height: rows, values } = grid;
  const box = clampRect(rect);
  const area = box.width * box.height;
  if (columns <= 0 || rows <= 0 || area <= 0) return { share: 0, area: Math.max(0, area), relative: 0 };

  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i];
  if (total <= 0) return { share: area, area, relative: 1 }; // a flat map: attention in proportion to size

  // Only the cells the rectangle touches are visited.
  const x2 = box.x + box.width;
  const y2 = box.y + box.height;
  const firstColumn = Math.floor(box.x * columns);
  const lastColumn = Math.min(columns - 1, Math.ceil(x2 * columns) - 1);
  const firstRow = Math.floor(box.y * rows);
  const lastRow = Math.min(rows - 1, Math.ceil(y2 * rows) - 1);
  let inside = 0;
  for (let row = firstRow; row <= lastRow; row++) {
    // Fraction of the cell's height covered, as a share of the cell (the overlap in cell units).
    const fy = overlap(box.y, y2, row / rows, (row + 1) / rows) * rows;
    if (fy <= 0) continue;
    for (let column = firstColumn; column <= lastColumn; column++) {
      const fx = overlap(box.x, x2, column / columns, (column + 1) / columns) * columns;
      if (fx > 0) inside += (values[row * columns + column] ?? 0) * fx * fy;
    }
  }
  const share = clamp01(inside / total);
  return { share, area, relative: share / area };
}

export type ScoreBand = 'strong' | 'moderate' | 'scattered';

/** ≥ 70: the image leads the eye; 40–70: a few areas compete; < 40: attention wanders. */
export function scoreBand(score: number): ScoreBand {
  if (score >= 70) return 'strong';
  if (score >= 40) return 'moderate';
  return 'scattered';
}

export type Position =
  | 'topLeft'
  | 'top'
  | 'topRight'
  | 'left'
  | 'center'
  | 'right'
  | 'bottomLeft'
  | 'bottom'
  | 'bottomRight';

const POSITIONS: Position[][] = [
  ['topLeft', 'top', 'topRight'],
  ['left', 'center', 'right'],
  ['bottomLeft', 'bottom', 'bottomRight'],
];

/** Where a point (0..1) is, in thirds of the image: the words of the analysis. */
export function positionOf(x: number, y: number): Position {
  const third = (value: number) => Math.min(2, Math.max(0, Math.floor(value * 3)));
  return POSITIONS[third(y)][third(x)];
}

/** Whether a point is within `margin` of an edge of the image. */
export function nearEdge(x: number, y: number, margin = 0.1): boolean {
  return x < margin || y < margin || x > 1 - margin || y > 1 - margin;
}
