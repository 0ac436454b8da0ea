//! Panel quad maths (shared by the location editor and the simulation page), pure: four points normalised to the photo (0..1, y
//! downwards), clockwise on screen from the top-left corner. The checks mirror
//! the server's (`crates/server/src/http/api/locations.rs`, `check_quad`), so the
//! editor can warn before saving.

export type Point = { x: number; y: number };
export type Quad = [Point, Point, Point, Point];
export type QuadProblem = 'self_intersecting' | 'not_convex' | 'not_clockwise';
export type Size = { width: number; height: number };

export const CORNERS = ['topLeft', 'topRight', 'bottomRight', 'bottomLeft'] as const;
export type Corner = (typeof CORNERS)[number];

/** Keyboard steps, as a fraction of the photo: arrows, and Shift + arrows. */
export const NUDGE_STEP = 0.002;
export const NUDGE_STEP_LARGE = 0.02;

export const clamp01 = (value: number) => Math.min(1, Math.max(0, value));

export function clampPoint(point: Point): Point {
  return { x: clamp01(point.x), y: clamp01(point.y) };
}

/** A centred rectangle covering `fraction` of each side (the default quad). */
export function defaultQuad(fraction = 0.5): Quad {
  const m = (1 - fraction) / 2;
  return [
    { x: m, y: m },
    { x: 1 - m, y: m },
    { x: 1 - m, y: 1 - m },
    { x: m, y: 1 - m },
  ];
}

/** `(b - a) × (c - a)`: positive when a → b → c turns clockwise on screen (y downwards). */
export function cross(a: Point, b: Point, c: Point): number {
  return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
}

function segmentsCross(a: Point, b: Point, c: Point, d: Point): boolean {
  const d1 = cross(a, b, c);
  const d2 = cross(a, b, d);
  const d3 = cross(c, d, a);
  const d4 = cross(c, d, b);
  return d1 * d2 < 0 && d3 * d4 < 0;
}

const EPS = 1e-9;

/** What the server would refuse about this quad, or null when it is fine. */
export function quadProblem(p: Quad): QuadProblem | null {
  if (segmentsCross(p[0], p[1], p[2], p[3]) || segmentsCross(p[1], p[2], p[3], p[0])) return 'self_intersecting';
  const turns = [0, 1, 2, 3].map((i) => cross(p[i], p[(i + 1) % 4], p[(i + 2) % 4]));
  if (turns.every((turn) => turn > EPS)) return null;
  if (turns.every((turn) => turn < -EPS)) return 'not_clockwise';
  return 'not_convex';
}

export function isValidQuad(quad: Quad): boolean {
  return quadProblem(quad) === null;
}

/** Normalised point → pixels in an element of `size`. */
export function toPixels(point: Point, size: Size): Point {
  return { x: point.x * size.width, y: point.y * size.height };
}

/** Pixels in an element of `size` → normalised point, clamped to the photo. */
export function toNormalised(point: Point, size: Size): Point {
  if (size.width <= 0 || size.height <= 0) return { x: 0, y: 0 };
  return clampPoint({ x: point.x / size.width, y: point.y / size.height });
}

/** Replaces one corner (clamped); the others stay as they are. */
export function moveCorner(quad: Quad, index: number, to: Point): Quad {
  const next = [...quad] as Quad;
  next[index] = clampPoint(to);
  return next;
}

const ARROWS: Record<string, Point> = {
  ArrowLeft: { x: -1, y: 0 },
  ArrowRight: { x: 1, y: 0 },
  ArrowUp: { x: 0, y: -1 },
  ArrowDown: { x: 0, y: 1 },
};

/** Moves a corner for an arrow key (null for any other key). Shift takes bigger steps. */
export function nudge(quad: Quad, index: number, key: string, large = false): Quad | null {
  const direction = ARROWS[key];
  if (!direction) return null;
  const step = large ? NUDGE_STEP_LARGE : NUDGE_STEP;
  const point = quad[index];
  return moveCorner(quad, index, { x: point.x + direction.x * step, y: point.y + direction.y * step });
}

/** Reads a quad from the API (`[{x, y}] × 4`), or null when it is not one. */
export function parseQuad(value: unknown): Quad | null {
  if (!Array.isArray(value) || value.length !== 4) return null;
  const points: Point[] = [];
  for (const item of value as unknown[]) {
    if (typeof item !== 'object' || item === null) return null;
    const { x, y } = item as { x?: unknown; y?: unknown };
    if (typeof x !== 'number' || typeof y !== 'number') return null;
    points.push({ x, y });
  }
  return points as Quad;
}

/** SVG `points` attribute in an element of `size`. */
export function svgPoints(quad: Quad, size: Size): string {
  return quad.map((point) => {
    const { x, y } = toPixels(point, size);
    return `${x},${y}`;
  }).join(' ');
}

/** Rounds coordinates for storage (1e-6 of the photo is far below a pixel). */
export function roundQuad(quad: Quad): Quad {
  return quad.map((p) => ({ x: Math.round(p.x * 1e6) / 1e6, y: Math.round(p.y * 1e6) / 1e6 })) as Quad;
}

/**
 * Where the loupe goes (its top-left corner, pixels in the frame) for a corner at (x, y): beside
 * the corner on the side with more room, clear of the cursor; for a finger, which hides what is
 * under and around it, well above the corner (or, at the top of the photo, on the far side of
 * it), never under the finger. Always inside the frame.
 */
export function loupePlacement(at: Point, frame: Size, size: number, touch: boolean): Point {
  const fit = (value: number, room: number) => Math.max(0, Math.min(room - size, value));
  if (!touch) {
    const left = at.x > frame.width / 2 ? at.x - size - 24 : at.x + 24;
    const top = at.y > frame.height / 2 ? at.y - size - 24 : at.y + 24;
    return { x: fit(left, frame.width), y: fit(top, frame.height) };
  }
  const gap = 56;
  if (at.y - gap - size >= 0) return { x: fit(at.x - size / 2, frame.width), y: at.y - gap - size };
  // No room above: beside the finger, on the side with more room, level with the corner.
  const left = at.x > frame.width / 2 ? at.x - gap - size : at.x + gap;
  return { x: fit(left, frame.width), y: fit(at.y - size / 2, frame.height) };
}

/** What the loupe draws: a square of the source image, onto a canvas of `canvas` device pixels. */
export type LoupeView = { sx: number; sy: number; sw: number; sh: number; canvas: number; smoothing: boolean };

/**
 * The loupe's view of `natural` (the source image's pixel size, full resolution when loaded)
 * around `at` (normalised), for a loupe `size` CSS pixels wide that magnifies the photo as shown
 * in `frame` `zoom` times, on a screen of `dpr` device pixels per CSS pixel. The canvas is drawn
 * at device resolution, so nothing is upscaled twice. Smoothing is for a magnifier: off once a
 * source pixel spans 2 device pixels or more (the photo's pixels show as crisp squares, so a corner
 * is placed on a real edge, not on a blur), high-quality resampling below that.
 *
 * Worked example: a 4000 px wide photo shown 800 px wide, a 120 px loupe at 3×, dpr 2: the loupe
 * shows 120 / (800 × 3) × 4000 = 200 source pixels on 240 device pixels: 1.2 device pixels per
 * source pixel, smoothed.
 */
export function loupeView(at: Point, frame: Size, natural: Size, size: number, zoom: number, dpr: number): LoupeView {
  const canvas = Math.max(1, Math.round(size * dpr));
  const sw = (size / (frame.width * zoom)) * natural.width;
  const sh = (size / (frame.height * zoom)) * natural.height;
  return {
    sx: at.x * natural.width - sw / 2,
    sy: at.y * natural.height - sh / 2,
    sw,
    sh,
    canvas,
    smoothing: canvas / sw < 2,
  };
}
