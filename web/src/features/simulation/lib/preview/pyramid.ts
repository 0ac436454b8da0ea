/**
 * The creative's linear-light pyramid and its sampling (rendering.md §2): level sizes
 * (floor halving, odd last row/column dropped), 2×2 box averaging, bilinear sampling with
 * clamped edges, and the anisotropic trilinear footprint filter (tap count n, level λ). The
 * WebGL2 path uploads these same levels (RGBA16F) and samples them with textureLod.
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

/**
 * Bilinear sample of a level at continuous texel coordinates (x, y) (texel centres at
 * i + 0.5), clamped to the edge texels; adds `weight ×` the RGB to `out`.
 */
export function bilinearAdd(level: Level, x: number, y: number, weight: number, out: Float64Array): void {
  const { width: w, height: h, data } = level;
  let px = x - 0.5;
  let py = y - 0.5;
  px = px < 0 ? 0 : px > w - 1 ? w - 1 : px;
  py = py < 0 ? 0 : py > h - 1 ? h - 1 : py;
  const x0 = Math.floor(px);
  const y0 = Math.floor(py);
  const x1 = Math.min(x0 + 1, w - 1);
  const y1 = Math.min(y0 + 1, h - 1);
  const fx = px - x0;
  const fy = py - y0;
  const w00 = (1 - fx) * (1 - fy) * weight;
  const w10 = fx * (1 - fy) * weight;
  const w01 = (1 - fx) * fy * weight;
  const w11 = fx * fy * weight;
  const i00 = (y0 * w + x0) * 4;
  const i10 = (y0 * w + x1) * 4;
  const i01 = (y1 * w + x0) * 4;
  const i11 = (y1 * w + x1) * 4;
  for (let c = 0; c < 3; c++) {
    out[c] += w00 * data[i00 + c] + w10 * data[i10 + c] + w01 * data[i01 + c] + w11 * data[i11 + c];
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
 * The footprint filter: n anisotropic taps along the major axis, each trilinear at λ.
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
  const wc = levels[0].width;
  const hc = levels[0].height;
  const l0 = levels[k0];
  const l1 = levels[k1];
  for (let i = 0; i < n; i++) {
    const o = (i + 0.5) / n - 0.5;
    const pu = u + major[0] * o;
    const pv = v + major[1] * o;
    bilinearAdd(l0, (pu * l0.width) / wc, (pv * l0.height) / hc, (1 - f) / n, out);
    if (f > 0) bilinearAdd(l1, (pu * l1.width) / wc, (pv * l1.height) / hc, f / n, out);
  }
}
