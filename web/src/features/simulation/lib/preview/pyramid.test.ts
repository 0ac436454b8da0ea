/** Tests of the creative pyramid: level sizes, 2×2 box averaging, the level kernels, level choice. */
import { describe, expect, it } from 'vitest';

import { anisotropy, buildPyramid, levelSampleAdd, lodLevel, pyramidSizes, sampleFootprint, type Level } from './pyramid';

function level(width: number, height: number, f: (x: number, y: number) => number): Level {
  const data = new Float32Array(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const v = f(x, y);
      data.set([v, v, v, 1], (y * width + x) * 4);
    }
  return { width, height, data };
}

describe('pyramid', () => {
  it('halves sizes with floor down to 1×1', () => {
    expect(pyramidSizes(5, 3)).toEqual([
      [5, 3],
      [2, 1],
      [1, 1],
    ]);
    expect(pyramidSizes(8, 1)).toEqual([
      [8, 1],
      [4, 1],
      [2, 1],
      [1, 1],
    ]);
    expect(pyramidSizes(1600, 900).length).toBe(11);
  });

  it('averages 2×2 blocks and drops the last odd row and column', () => {
    // 3×3 with values x + 10·y: level 1 is 1×1 = mean of (0,1,10,11) = 5.5, ignoring x=2 / y=2.
    const l = buildPyramid(level(3, 3, (x, y) => x + 10 * y));
    expect(l.map((v) => [v.width, v.height])).toEqual([
      [3, 3],
      [1, 1],
    ]);
    expect(l[1].data[0]).toBeCloseTo(5.5, 6);
    // 4×2 → 2×1: means of columns pairs.
    const m = buildPyramid(level(4, 2, (x, y) => x + 4 * y));
    expect(m[1].data[0]).toBeCloseTo((0 + 1 + 4 + 5) / 4, 6);
    expect(m[1].data[4]).toBeCloseTo((2 + 3 + 6 + 7) / 4, 6);
    // A 1-wide axis stays 1 and averages along the other axis only.
    const n = buildPyramid(level(1, 4, (_x, y) => y));
    expect(n[1].height).toBe(2);
    expect(n[1].data[0]).toBeCloseTo(0.5, 6);
  });

  it('reads level 0 bilinearly at 1:1, clamped at the edges, and as a B-spline when shrunk', () => {
    const levels = [level(2, 1, (x) => x)];
    const at = (u: number, beta: number) => {
      const out = new Float64Array(3);
      levelSampleAdd(levels, 0, u, 0.5, beta, 1, out);
      return out[0];
    };
    expect(at(1, 0)).toBeCloseTo(0.5, 12);
    expect(at(0.75, 0)).toBeCloseTo(0.25, 12);
    expect(at(-3, 0)).toBe(0);
    expect(at(9, 0)).toBe(1);
    // Quadratic B-spline at a texel centre: 1/8, 3/4, 1/8 (texel 0 clamped on the left).
    const three = [level(3, 1, (x) => [0, 1, 0][x])];
    const out = new Float64Array(3);
    levelSampleAdd(three, 0, 1.5, 0.5, 1, 1, out);
    expect(out[0]).toBeCloseTo(0.75, 12);
    out.fill(0);
    levelSampleAdd(three, 0, 0.5, 0.5, 1, 1, out);
    expect(out[0]).toBeCloseTo(0.125, 12);
  });

  it('reads the levels above 0 blind to their Nyquist frequency', () => {
    // 2-px stripes: level 1 alternates 1, 0 at full contrast; its kernel reads the mean.
    const levels = buildPyramid(level(64, 8, (x) => ((x >> 1) & 1 ? 0 : 1)));
    expect(levels[1].data[0]).toBe(1);
    expect(levels[1].data[4]).toBe(0);
    for (let i = 0; i < 50; i++) {
      const out = new Float64Array(3);
      levelSampleAdd(levels, 1, 3 + i * 0.377, 4, 0, 1, out);
      expect(out[0]).toBeCloseTo(0.5, 12);
    }
  });

  it('chooses taps and the trilinear level from the footprint', () => {
    // Isotropic shrink by 4: one tap at level 2.
    let a = anisotropy([4, 0], [0, 4]);
    expect(a.n).toBe(1);
    expect(lodLevel(a.lmax, a.lmin, a.n, 0, 10)).toBeCloseTo(2, 12);
    // 8 × 2 footprint: 4 taps along x at level log2(8/4) = 1.
    a = anisotropy([8, 0], [0, 2]);
    expect(a.n).toBe(4);
    expect(a.major).toEqual([8, 0]);
    expect(lodLevel(a.lmax, a.lmin, a.n, 0, 10)).toBeCloseTo(1, 12);
    // Nearly isotropic (ratio 1.1 → rounded to 1 tap): the level follows the major extent.
    a = anisotropy([4.4, 0], [0, 4]);
    expect(a.n).toBe(1);
    expect(lodLevel(a.lmax, a.lmin, a.n, 0, 10)).toBeCloseTo(Math.log2(4.4), 12);
    // Ratio 1.6 → 2 taps: the per-tap extent 3.2 is below the minor one, so log2(4).
    a = anisotropy([6.4, 0], [0, 4]);
    expect(a.n).toBe(2);
    expect(lodLevel(a.lmax, a.lmin, a.n, 0, 10)).toBeCloseTo(2, 12);
    // Anisotropy above 4 is capped at 4 taps: log2(100 / 4); magnification stays at level 0.
    a = anisotropy([0, 1], [100, 0]);
    expect(a.n).toBe(4);
    expect(a.major).toEqual([100, 0]);
    expect(lodLevel(a.lmax, a.lmin, a.n, 0, 10)).toBeCloseTo(Math.log2(25), 12);
    expect(lodLevel(0.5, 0.5, 1, 0, 10)).toBe(0);
    expect(lodLevel(0.5, 0.5, 1, 1.5, 10)).toBe(1.5);
    expect(lodLevel(4096, 4096, 1, 0, 5)).toBe(4);
  });

  it('filters a fine checkerboard to its mean when shrunk', () => {
    const levels = buildPyramid(level(64, 64, (x, y) => ((x + y) & 1 ? 1 : 0)));
    const out = new Float64Array(3);
    sampleFootprint(levels, 32.3, 31.7, [8, 0], [0, 8], 0, out);
    expect(out[0]).toBeCloseTo(0.5, 5);
  });
});
