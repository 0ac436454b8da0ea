//! Drawing a polygon area by clicks: each click adds a corner; a click on the first corner, a
//! double-click or Enter closes it (three corners at least); Backspace removes the last corner;
//! Escape gives up. The API takes 3 to 32 corners (docs/architecture/heatmaps.md).
import type { AoiPoint } from '../api/heatmaps';

export const MIN_CORNERS = 3;
export const MAX_CORNERS = 32;
/** How near the first corner (relative to the stage's size) a click closes the polygon. */
export const CLOSE_DISTANCE = 0.02;

export type PolygonStep =
  /** The polygon goes on with these corners. */
  | { kind: 'open'; points: AoiPoint[] }
  /** The polygon is done: save these corners. */
  | { kind: 'closed'; points: AoiPoint[] };

const clamp = (v: number) => Math.min(1, Math.max(0, v));

/** What a click at `point` does to the corners so far. */
export function clickCorner(points: AoiPoint[], point: AoiPoint): PolygonStep {
  const p = { x: clamp(point.x), y: clamp(point.y) };
  const first = points[0];
  if (first && points.length >= MIN_CORNERS && Math.hypot(p.x - first.x, p.y - first.y) <= CLOSE_DISTANCE) {
    return { kind: 'closed', points };
  }
  const last = points[points.length - 1];
  // A second click on the same spot (the two clicks of a double-click) adds nothing.
  if (last && Math.hypot(p.x - last.x, p.y - last.y) < 0.002) return { kind: 'open', points };
  const next = [...points, p];
  return next.length >= MAX_CORNERS ? { kind: 'closed', points: next } : { kind: 'open', points: next };
}

/** Closing by double-click or Enter: done with three corners or more, else nothing happens. */
export function closePolygon(points: AoiPoint[]): PolygonStep {
  return points.length >= MIN_CORNERS ? { kind: 'closed', points } : { kind: 'open', points };
}

/** Backspace: the last corner removed. */
export function removeCorner(points: AoiPoint[]): AoiPoint[] {
  return points.slice(0, -1);
}
