/**
 * Photo statistics of rendering.md §5 for auto match and grain: on a ≤ 256 px area-averaged
 * linear copy, the photo's white point (its cells outside the quad) gives the exposure (99th
 * percentile of luminance, over 0.8) and the colour cast (mean of its brightest 3 %); the
 * Immerkær noise σ is measured on the full-size grey photo in the ring (the quad ×1.5). Also a
 * small throttled cache so a dragged corner recomputes at most every 100 ms (and once after the
 * drag).
 */
import { SRGB8_TO_LINEAR, luminance } from './srgb';
import type { QuadPx, Vec2 } from './homography';

export interface PhotoStats {
  exposure: number;
  cast: [number, number, number];
  noise: number;
}

export const DEFAULT_STATS: PhotoStats = { exposure: 1, cast: [1, 1, 1], noise: 0 };

/** What the statistics need from an image (ImageData fits). */
export interface RgbaImage {
  width: number;
  height: number;
  data: ArrayLike<number>;
}

/** Longer side of the statistics copy. */
export const STATS_SIZE = 256;

/** The percentile of the cells' luminance that stands for the photo's white (as the Rust renderer's). */
export const WHITE_PERCENTILE = 0.99;

/** The cells that give the light's colour: at or above this percentile of luminance. */
export const CAST_PERCENTILE = 0.97;

/** Sampling step inside a cell of the statistics copy (as the Rust renderer's `cell_step`). */
export function cellStep(width: number, height: number): number {
  return Math.max(1, Math.floor(Math.max(width, height) / (4 * STATS_SIZE)));
}

/** Size of the statistics copy: longer side 256 (rounded aspect), or unchanged when smaller. */
export function statsSize(width: number, height: number): [number, number] {
  if (Math.max(width, height) <= STATS_SIZE) return [width, height];
  if (width >= height) return [STATS_SIZE, Math.max(1, Math.round((height * STATS_SIZE) / width))];
  return [Math.max(1, Math.round((width * STATS_SIZE) / height)), STATS_SIZE];
}

/** Source intervals [a, b) of each output cell (as the vision crate's area resize). */
function boxes(src: number, dst: number): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < dst; i++) {
    const a = Math.min(Math.floor((i * src) / dst), src - 1);
    const b = Math.min(Math.max(Math.floor(((i + 1) * src) / dst), a + 1), src);
    out.push([a, b]);
  }
  return out;
}

/** A photo prepared once for statistics: its linear ≤ 256 px copy and its full-size grey. */
export interface StatsImage {
  width: number;
  height: number;
  small: { width: number; height: number; rgb: Float32Array };
  grey: Float32Array;
}

/** Area average in linear light to ≤ 256 px, and the 8-bit grey (Rec. 709 weights on sRGB codes). */
export function prepareStatsImage(photo: RgbaImage): StatsImage {
  const { width: W, height: H, data } = photo;
  const [w, h] = statsSize(W, H);
  const xs = boxes(W, w);
  const ys = boxes(H, h);
  const step = cellStep(W, H);
  const rgb = new Float32Array(w * h * 3);
  const acc = new Float64Array(w * 3);
  const count = new Float64Array(w);
  for (let oy = 0; oy < h; oy++) {
    acc.fill(0);
    count.fill(0);
    const [y0, y1] = ys[oy];
    for (let yy = y0; yy < y1; yy += step) {
      for (let ox = 0; ox < w; ox++) {
        const [x0, x1] = xs[ox];
        for (let xx = x0; xx < x1; xx += step) {
          const i = (yy * W + xx) * 4;
          acc[ox * 3] += SRGB8_TO_LINEAR[data[i]];
          acc[ox * 3 + 1] += SRGB8_TO_LINEAR[data[i + 1]];
          acc[ox * 3 + 2] += SRGB8_TO_LINEAR[data[i + 2]];
          count[ox]++;
        }
      }
    }
    for (let ox = 0; ox < w; ox++) {
      for (let c = 0; c < 3; c++) rgb[(oy * w + ox) * 3 + c] = acc[ox * 3 + c] / count[ox];
    }
  }
  const grey = new Float32Array(W * H);
  for (let i = 0; i < W * H; i++) grey[i] = 0.2126 * data[i * 4] + 0.7152 * data[i * 4 + 1] + 0.0722 * data[i * 4 + 2];
  return { width: W, height: H, small: { width: w, height: h, rgb }, grey };
}

/** Is (x, y) inside the convex quad (either winding)? */
function insideQuad(q: readonly Vec2[], x: number, y: number): boolean {
  let pos = false;
  let neg = false;
  for (let i = 0; i < 4; i++) {
    const a = q[i];
    const b = q[(i + 1) % 4];
    const c = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
    if (c > 0) pos = true;
    else if (c < 0) neg = true;
  }
  return !(pos && neg);
}

/** The quad scaled by `k` about its centroid (mean of the corners). */
export function scaleQuad(q: readonly Vec2[], k: number): QuadPx {
  const cx = (q[0][0] + q[1][0] + q[2][0] + q[3][0]) / 4;
  const cy = (q[0][1] + q[1][1] + q[2][1] + q[3][1]) / 4;
  return q.map((p) => [cx + (p[0] - cx) * k, cy + (p[1] - cy) * k]) as QuadPx;
}

/** Is the pixel centre (x + ½, y + ½) in the ring of `q` (`outer` = q scaled ×1.5)? */
function inRing(q: readonly Vec2[], outer: readonly Vec2[], x: number, y: number): boolean {
  return insideQuad(outer, x + 0.5, y + 0.5) && !insideQuad(q, x + 0.5, y + 0.5);
}

function bounds(q: readonly Vec2[], w: number, h: number): [number, number, number, number] {
  const xs = q.map((p) => p[0]);
  const ys = q.map((p) => p[1]);
  return [
    Math.max(0, Math.floor(Math.min(...xs))),
    Math.min(w - 1, Math.ceil(Math.max(...xs))),
    Math.max(0, Math.floor(Math.min(...ys))),
    Math.min(h - 1, Math.ceil(Math.max(...ys))),
  ];
}

/** Statistics of a prepared photo for a quad in full-size photo pixels. */
export function statsFromPrepared(img: StatsImage, quadPx: readonly Vec2[]): PhotoStats {
  const { small } = img;
  const sx = small.width / img.width;
  const sy = small.height / img.height;
  // Exposure and cast on the small copy, from every cell outside the quad: a printed poster
  // reflects what the scene's white surfaces reflect, wherever they are in the photo.
  const q = quadPx.map((p) => [p[0] * sx, p[1] * sy] as Vec2);
  const cells: { y: number; r: number; g: number; b: number }[] = [];
  for (let y = 0; y < small.height; y++) {
    for (let x = 0; x < small.width; x++) {
      if (insideQuad(q, x + 0.5, y + 0.5)) continue;
      const i = (y * small.width + x) * 3;
      const r = small.rgb[i];
      const g = small.rgb[i + 1];
      const b = small.rgb[i + 2];
      cells.push({ y: luminance(r, g, b), r, g, b });
    }
  }
  let exposure = 1;
  let cast: [number, number, number] = [1, 1, 1];
  if (cells.length > 0) {
    cells.sort((a, b) => a.y - b.y);
    const at = (p: number) => cells[Math.min(cells.length, Math.max(1, Math.ceil(p * cells.length))) - 1].y;
    exposure = Math.min(1, Math.max(0.3, at(WHITE_PERCENTILE) / 0.8));
    // The brightest cells: the likeliest to be neutral surfaces showing the light's colour (a
    // brick wall's colour is its own, not the light's).
    const threshold = at(CAST_PERCENTILE);
    const m = [0, 0, 0];
    let n = 0;
    for (const c of cells) {
      if (c.y < threshold) continue;
      m[0] += c.r;
      m[1] += c.g;
      m[2] += c.b;
      n++;
    }
    const [mr, mg, mb] = [m[0] / n, m[1] / n, m[2] / n];
    const ym = luminance(mr, mg, mb);
    if (ym > 0) {
      const k = [mr, mg, mb].map((c) => Math.min(1.1, Math.max(0.9, Math.sqrt(c / ym))));
      const yk = luminance(k[0], k[1], k[2]);
      cast = [k[0] / yk, k[1] / yk, k[2] / yk];
    }
  }
  return { exposure, cast, noise: noiseSigma(img.grey, img.width, img.height, quadPx) };
}

/** Rows of the ring that `noiseSigma` reads (as the Rust renderer's `NOISE_ROW_STEP`). */
export const NOISE_ROW_STEP = 4;

/** Immerkær noise σ (8-bit units) over the ring's pixels at full size, every fourth row. */
export function noiseSigma(grey: Float32Array, W: number, H: number, quadPx: readonly Vec2[]): number {
  const outer = scaleQuad(quadPx, 1.5);
  const [bx0, bx1, by0, by1] = bounds(outer, W, H);
  let sum = 0;
  let n = 0;
  const y0 = Math.max(1, Math.ceil(by0 / NOISE_ROW_STEP) * NOISE_ROW_STEP);
  for (let y = y0; y <= Math.min(H - 2, by1); y += NOISE_ROW_STEP) {
    for (let x = Math.max(1, bx0); x <= Math.min(W - 2, bx1); x++) {
      if (!inRing(quadPx, outer, x, y)) continue;
      const i = y * W + x;
      const a = grey[i - W - 1] + grey[i - W + 1] + grey[i + W - 1] + grey[i + W + 1];
      const b = grey[i - W] + grey[i - 1] + grey[i + 1] + grey[i + W];
      sum += Math.abs(a - 2 * b + 4 * grey[i]);
      n++;
    }
  }
  return n > 0 ? (Math.sqrt(Math.PI / 2) * (sum / n)) / 6 : 0;
}

/** rendering.md §5 in one call: the photo at full size, the quad in its pixels. */
export function computePhotoStats(photo: ImageData | RgbaImage, quadPx: [number, number][]): PhotoStats {
  return statsFromPrepared(prepareStatsImage(photo), quadPx);
}

/** Quad key for the cache (1/8 px is close enough). */
function quadKey(q: readonly Vec2[]): string {
  return q.map((p) => `${Math.round(p[0] * 8)},${Math.round(p[1] * 8)}`).join(';');
}

/**
 * Statistics for the current quad, recomputed at most every `intervalMs` while the quad moves;
 * when a change is held back, `onLate` is called once the fresh statistics are ready.
 */
export class StatsCache {
  private key = '';
  private value: PhotoStats = DEFAULT_STATS;
  private last = -Infinity;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private pending: Vec2[] | null = null;

  constructor(
    private image: StatsImage | null,
    private readonly onLate: () => void,
    private readonly intervalMs = 100,
  ) {}

  setImage(image: StatsImage | null): void {
    this.image = image;
    this.key = '';
    this.last = -Infinity;
    this.cancel();
  }

  get(quadPx: readonly Vec2[]): PhotoStats {
    if (!this.image) return DEFAULT_STATS;
    const key = quadKey(quadPx);
    if (key === this.key) return this.value;
    const now = performance.now();
    if (now - this.last >= this.intervalMs) {
      this.compute(quadPx, key, now);
      return this.value;
    }
    // Throttled: keep the previous statistics, compute the latest quad a little later.
    this.pending = quadPx.map((p) => [p[0], p[1]] as Vec2);
    this.timer ??= setTimeout(() => {
      this.timer = null;
      const q = this.pending;
      this.pending = null;
      if (q && this.image) {
        this.compute(q, quadKey(q), performance.now());
        this.onLate();
      }
    }, this.intervalMs - (now - this.last));
    return this.value;
  }

  private compute(quadPx: readonly Vec2[], key: string, now: number): void {
    if (!this.image) return;
    this.value = statsFromPrepared(this.image, quadPx);
    this.key = key;
    this.last = now;
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = null;
  }
}
