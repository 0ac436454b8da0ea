/**
 * Panel colour of rendering.md §3 and the night/bloom constants of §4: turns the user's
 * Adjustments (plus the photo statistics of §5) into the handful of numbers both renderers use
 * (LOD bias, unsharp amount, gains, gamma …) and applies the ordered adjustments to one linear
 * RGB sample on the CPU. The GLSL in shaders.ts mirrors {@link adjustColor} line for line.
 */
import type { Adjustments } from '../types';
import type { PhotoStats } from './stats';

/** Photo multiplier of a night scene (§4): darkened and cooled. */
export const NIGHT_PHOTO: readonly [number, number, number] = [0.12 * 0.8, 0.12 * 0.9, 0.12 * 1.15];
/** Backlit light box colour (§3 step 7). */
export const BACKLIT: readonly [number, number, number] = [0.85, 0.85 * 0.93, 0.85 * 0.8];
/** Bloom strength s_b (§4). */
export const BLOOM_LED = 0.35;
export const BLOOM_BACKLIT = 0.15;
/** Bloom σ as a fraction of the quad's longer diagonal. */
export const BLOOM_SIGMA = 0.03;

/** Adjustments reduced to what the per-pixel code needs. */
export interface PanelParams {
  /** LOD bias of the main sample (blur when sharpness < 0). */
  bias: number;
  /** Unsharp amount 1.5·h (0 when h ≤ 0); the blurred sample uses bias + 1.5. */
  sharpen: number;
  /** Brightness gain 2^(1.5·b). */
  bright: number;
  /** Contrast exponent 2^(0.75·k). */
  gamma: number;
  /** 1 + σ. */
  sat: number;
  /** Warmth × match/lighting, per channel. */
  gain: [number, number, number];
  /** 0.6·glare. */
  glare: number;
  /** Photo multiplier (1 by day, NIGHT_PHOTO at night). */
  photoGain: [number, number, number];
  /** Bloom strength (0 by day). */
  bloom: number;
  /** Grain amplitude in 8-bit units: n · max(σ_photo, 1). */
  grain: number;
}

const clamp = (v: number, lo: number, hi: number) => (v < lo ? lo : v > hi ? hi : v);
const num = (v: number) => (Number.isFinite(v) ? v : 0);

export function panelParams(adj: Adjustments, stats: PhotoStats): PanelParams {
  const h = clamp(num(adj.sharpness), -1, 1);
  const b = clamp(num(adj.brightness), -1, 1);
  const k = clamp(num(adj.contrast), -1, 1);
  const s = clamp(num(adj.saturation), -1, 1);
  const w = clamp(num(adj.warmth), -1, 1);
  const warm: [number, number, number] = [1 + 0.12 * w, 1, 1 - 0.12 * w];
  let light: [number, number, number] = [1, 1, 1];
  if (adj.night === 'backlit') light = [...BACKLIT];
  else if (adj.night === 'led') light = [1, 1, 1];
  else if (adj.auto_match) light = [stats.exposure * stats.cast[0], stats.exposure * stats.cast[1], stats.exposure * stats.cast[2]];
  return {
    bias: h < 0 ? -2.5 * h : 0,
    sharpen: h > 0 ? 1.5 * h : 0,
    bright: Math.pow(2, 1.5 * b),
    gamma: Math.pow(2, 0.75 * k),
    sat: 1 + s,
    gain: [warm[0] * light[0], warm[1] * light[1], warm[2] * light[2]],
    glare: 0.6 * clamp(num(adj.glare), 0, 1),
    photoGain: adj.night ? [...NIGHT_PHOTO] : [1, 1, 1],
    bloom: adj.night === 'led' ? BLOOM_LED : adj.night === 'backlit' ? BLOOM_BACKLIT : 0,
    grain: clamp(num(adj.grain), 0, 1) * Math.max(stats.noise, 1),
  };
}

/**
 * §3 steps 1–9 on the filtered sample `c` (and its blurred twin `cb` when sharpening), at panel
 * coordinates (s, t). Writes the result (0..1) back into `c`.
 */
export function adjustColor(c: Float64Array, cb: Float64Array | null, s: number, t: number, p: PanelParams): void {
  // 1. Sharpness (the blur side is in the LOD bias).
  if (p.sharpen > 0 && cb) {
    for (let i = 0; i < 3; i++) c[i] = c[i] + p.sharpen * (c[i] - cb[i]);
  }
  // 2. Brightness, 3. contrast around 0.18.
  for (let i = 0; i < 3; i++) {
    let v = Math.max(0, c[i]) * p.bright;
    if (p.gamma !== 1) v = 0.18 * Math.pow(v / 0.18, p.gamma);
    c[i] = v;
  }
  // 4. Saturation.
  const y = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  for (let i = 0; i < 3; i++) c[i] = Math.max(0, y + (c[i] - y) * p.sat);
  // 5. Warmth, 6. auto match / 7. lighting (one gain per channel).
  for (let i = 0; i < 3; i++) c[i] *= p.gain[i];
  // 8. Glare.
  if (p.glare > 0) {
    const z = (0.8 * s + 0.6 * t - 0.45) / 0.12;
    const g = p.glare * Math.exp(-z * z);
    for (let i = 0; i < 3; i++) c[i] = c[i] + (1 - Math.min(c[i], 1)) * g;
  }
  // 9. Clamp.
  for (let i = 0; i < 3; i++) c[i] = clamp(c[i], 0, 1);
}

/** Deterministic grain value of mean 0 and variance 1 from integer pixel coordinates. */
export function grainZ(x: number, y: number): number {
  let h = (Math.imul(x | 0, 0x27d4eb2d) ^ Math.imul(y | 0, 0x165667b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  // Uniform on [−√3, √3): variance 1.
  return ((h >>> 8) / 16777216 - 0.5) * 3.4641016151377544;
}
