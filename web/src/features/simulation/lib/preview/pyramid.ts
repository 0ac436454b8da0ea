/**
 * The creative's linear-light pyramid and its sampling (rendering.md §2): level sizes
 * (floor halving, odd last row/column dropped), 2×2 box averaging, each level read through its
 * 3×3 kernel with clamped edges (level 0: bilinear turning into a quadratic B-spline as the
 * creative is shrunk; the levels above: the mean of bilinear taps half a texel around the
 * point, blind to the level's Nyquist frequency), and the anisotropic trilinear footprint
 * filter (tap count n, level λ). The WebGL2 path uploads these same levels (RGBA16F) and reads
 * them with the same kernels through texelFetch.
 */
import { SRGB8_TO_LINEAR } from './srgb';
import type { Vec2 } from './homography';

/** One level: RGBA floats (alpha unused, 1), row by row, top row first. */
export interface Level {
  width: number;
  height: number;
  data: Float32Array;
}

/** Sizes of every level down to 1×1. */
export function pyramidSizes(width: number, height: number): [number, number][] {
  const sizes: [number, number][] = [[width, height]];
  let w = width;
  let h = height;
  while (w > 1 || h > 1) {
    w = Math.max(1, Math.floor(w / 2));
    h = Math.max(1, Math.floor(h / 2));
    sizes.push([w, h]);
  }
  return sizes;
}

/** Level 0 from 8-bit sRGB RGBA bytes (alpha ignored). */
export function linearLevel(rgba: ArrayLike<number>, width: number, height: number): Level {
  const n = width * height;
  const data = new Float32Array(n * 4);
  for (let i = 0; i < n; i++) {
    data[i * 4] = SRGB8_TO_LINEAR[rgba[i * 4]];
    data[i * 4 + 1] = SRGB8_TO_LINEAR[rgba[i * 4 + 1]];
    data[i * 4 + 2] = SRGB8_TO_LINEAR[rgba[i * 4 + 2]];
    data[i * 4 + 3] = 1;
  }
  return { width, height, data };
}

/** Next level: each texel the mean of the 2×2 texels it covers (a 1-wide axis stays 1). */
export function downsample(src: Level): Level {
  const w = Math.max(1, Math.floor(src.width / 2));
  const h = Math.max(1, Math.floor(src.height / 2));
  const fx = src.width > 1 ? 2 : 1;
  const fy = src.height > 1 ? 2 : 1;
  const k = 1 / (fx * fy);
  const data = new Float32Array(w * h * 4);
  const sw = src.width;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      for (let c = 0; c < 4; c++) {
        let s = 0;
        for (let dy = 0; dy < fy; dy++) {
          for (let dx = 0; dx < fx; dx++) s += src.data[((y * fy + dy) * sw + x * fx + dx) * 4 + c];
        }
        data[(y * w + x) * 4 + c] = s * k;
      }
    }
  }
  return { width: w, height: h, data };
}

/** Every level from level 0 down to 1×1. */
export function buildPyramid(level0: Level): Level[] {
  const levels = [level0];
  while (levels[levels.length - 1].width > 1 || levels[levels.length - 1].height > 1) {
    levels.push(downsample(levels[levels.length - 1]));
  }
  return levels;
}

/** Level 0's B-spline share at level of detail λ: min(1, 2λ) (bilinear at 1:1 and beyond). */
export function level0Share(lod: number): number {
  return Math.min(1, 2 * lod);
}

/**
 * Weights of texels c − 1, c, c + 1 along one axis, g = x − c the offset from the nearest
 * texel c (in [−½, ½]): level 0's bilinear weights moved by `beta` towards the quadratic
 * B-spline, or (`level0` false) the comb of the levels above, the mean of bilinear taps at
 * x ± ½. Written to `out[0..3]`.
 */
export function axisWeights(g: number, level0: boolean, beta: number, out: Float64Array): void {
  if (level0) {
    const b0 = Math.max(-g, 0);
    const b1 = 1 - Math.abs(g);
    const b2 = Math.max(g, 0);
    out[0] = b0 + (0.5 * (0.5 - g) * (0.5 - g) - b0) * beta;
    out[1] = b1 + (0.75 - g * g - b1) * beta;
    out[2] = b2 + (0.5 * (0.5 + g) * (0.5 + g) - b2) * beta;
  } else {
    out[0] = (0.5 - g) * 0.5;
    out[1] = 0.5;
    out[2] = (0.5 + g) * 0.5;
  }
}

const WX = new Float64Array(3);
const WY = new Float64Array(3);

/**
 * Level k of the pyramid read through its kernel at (u, v) in level-0 creative pixels, texels
 * clamped to the edges; adds `weight ×` the RGB to `out`. `beta` is level 0's B-spline share.
 */
export function levelSampleAdd(levels: readonly Level[], k: number, u: number, v: number, beta: number, weight: number, out: Float64Array): void {
  const level = levels[k];
  const { width: w, height: h, data } = level;
  // Texel centres at whole numbers; beyond these bounds every texel read is an edge texel.
  const x = Math.min(Math.max((u * w) / levels[0].width - 0.5, -1.5), w + 0.5);
  const y = Math.min(Math.max((v * h) / levels[0].height - 0.5, -1.5), h + 0.5);
  const cx = Math.min(Math.floor(x + 0.5), w);
  const cy = Math.min(Math.floor(y + 0.5), h);
  axisWeights(x - cx, k === 0, beta, WX);
  axisWeights(y - cy, k === 0, beta, WY);
  for (let j = 0; j < 3; j++) {
    const ty = Math.min(Math.max(cy + j - 1, 0), h - 1);
    for (let i = 0; i < 3; i++) {
      const tx = Math.min(Math.max(cx + i - 1, 0), w - 1);
      const wgt = WX[i] * WY[j] * weight;
      const t = (ty * w + tx) * 4;
      out[0] += wgt * data[t];
      out[1] += wgt * data[t + 1];
      out[2] += wgt * data[t + 2];
    }
  }
}

/** Anisotropy of a footprint: tap count, major axis and longest length. */
export interface Aniso {
  n: number;
  lmax: number;
  lmin: number;
  major: Vec2;
}

export function anisotropy(jx: Vec2, jy: Vec2): Aniso {
  const lx = Math.hypot(jx[0], jx[1]);
  const ly = Math.hypot(jy[0], jy[1]);
  const lmax = Math.max(lx, ly);
  const lmin = Math.max(Math.min(lx, ly), 1e-6);
  // Rounded, not ceiled: a nearly isotropic footprint takes one tap (rendering.md §2).
  const n = Math.min(4, Math.max(1, Math.floor(lmax / lmin + 0.5)));
  return { n, lmax, lmin, major: lx >= ly ? jx : jy };
}

/**
 * Trilinear level λ = clamp(max(0, log2(max(Lmax / n, Lmin))) + bias, 0, levels − 1): the
 * per-tap extent along the major axis, but never below the minor axis's extent.
 */
export function lodLevel(lmax: number, lmin: number, n: number, bias: number, levels: number): number {
  const l = Math.max(0, Math.log2(Math.max(lmax / n, lmin))) + bias;
  return Math.min(levels - 1, Math.max(0, l));
}

/**
 * The footprint filter: n anisotropic taps along the major axis, each trilinear at λ (levels
 * ⌊λ⌋ and ⌊λ⌋ + 1 through their kernels).
 * (u, v) in level-0 creative pixels; writes linear RGB to `out`.
 */
export function sampleFootprint(
  levels: readonly Level[],
  u: number,
  v: number,
  jx: Vec2,
  jy: Vec2,
  bias: number,
  out: Float64Array,
): void {
  out[0] = out[1] = out[2] = 0;
  const { n, lmax, lmin, major } = anisotropy(jx, jy);
  const lod = lodLevel(lmax, lmin, n, bias, levels.length);
  const k0 = Math.floor(lod);
  const k1 = Math.min(k0 + 1, levels.length - 1);
  const f = lod - k0;
  const beta = level0Share(lod);
  for (let i = 0; i < n; i++) {
    const o = (i + 0.5) / n - 0.5;
    const pu = u + major[0] * o;
    const pv = v + major[1] * o;
    levelSampleAdd(levels, k0, pu, pv, beta, (1 - f) / n, out);
    if (f > 0) levelSampleAdd(levels, k1, pu, pv, beta, f / n, out);
  }
}
