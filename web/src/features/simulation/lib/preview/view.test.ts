/** Tests of the view from there (rendering.md §2, "View from a distance"): the eye's blur and the widened footprint. */
import { describe, expect, it } from 'vitest';

import { DEFAULT_ADJUSTMENTS, type Adjustments, type Site } from '../types';
import { compositeCpu } from './cpu';
import type { QuadPx, Vec2 } from './homography';
import { buildPyramid, linearLevel } from './pyramid';
import { DEFAULT_STATS } from './stats';
import { ACUITY_SIGMA_PER_M, viewCovariance, widen } from './view';

const SITE: Site = { width_m: 4, height_m: 3, passing_m: 10 };

/** S = jx·jxᵀ + jy·jyᵀ as [a, b, c]. */
function outer(jx: Vec2, jy: Vec2): [number, number, number] {
  return [jx[0] * jx[0] + jy[0] * jy[0], jx[0] * jx[1] + jy[0] * jy[1], jx[1] * jx[1] + jy[1] * jy[1]];
}

describe('viewCovariance', () => {
  it('is zero when the view is off or the site unknown', () => {
    expect(viewCovariance(null, SITE, 400, 300)).toEqual([0, 0]);
    expect(viewCovariance({ distance_m: 30, speed_kmh: 50 }, null, 400, 300)).toEqual([0, 0]);
    expect(viewCovariance({ distance_m: 30, speed_kmh: 50 }, { ...SITE, width_m: 0 }, 400, 300)).toEqual([0, 0]);
  });

  it('gives the hand-computed blur at 30 m and 50 km/h, passing at 10 m', () => {
    // σ_m = 30 · 1.454441e-4 = 4.36332e-3 m; L_m = 0.01 · (50 / 3.6) · 10 / 30 = 0.0462963 m.
    expect(30 * ACUITY_SIGMA_PER_M).toBeCloseTo(4.363e-3, 6);
    // Stretch of 400 × 300 creative pixels on a 4 × 3 m panel: 100 px a metre both ways.
    // σu = σv = 0.436332 px, Lu = 4.62963 px: C = (2 · 0.436332² + 4.62963², 2 · 0.436332²).
    const [cu, cv] = viewCovariance({ distance_m: 30, speed_kmh: 50 }, SITE, 400, 300);
    expect(cu).toBeCloseTo(21.81424, 4);
    expect(cv).toBeCloseTo(0.380771, 5);
  });

  it('passes at most at the viewing distance (p′ = min(p, d))', () => {
    const near = viewCovariance({ distance_m: 5, speed_kmh: 36 }, SITE, 400, 300);
    // σ_m = 7.2722e-4 m → 0.072722 px; L_m = 0.01 · 10 · 5 / 5 = 0.1 m → 10 px.
    expect(near[0]).toBeCloseTo(2 * 0.072722 ** 2 + 100, 5);
    expect(near[1]).toBeCloseTo(2 * 0.072722 ** 2, 5);
  });

  it('is isotropic at speed 0 on a square stretch', () => {
    const [cu, cv] = viewCovariance({ distance_m: 80, speed_kmh: 0 }, { width_m: 3, height_m: 3, passing_m: 5 }, 600, 600);
    expect(cu).toBeGreaterThan(0);
    expect(cu).toBeCloseTo(cv, 12);
  });
});

describe('widen', () => {
  it('leaves the footprint as it is when C is zero', () => {
    const jx: Vec2 = [1.3, 0.2];
    const jy: Vec2 = [-0.1, 0.9];
    const [x, y] = widen(jx, jy, [0, 0]);
    expect(x).toBe(jx);
    expect(y).toBe(jy);
  });

  it('adds an isotropic blur to an isotropic footprint', () => {
    const [x, y] = widen([2, 0], [0, 2], [5, 5]);
    expect(Math.hypot(...x)).toBeCloseTo(3, 12);
    expect(Math.hypot(...y)).toBeCloseTo(3, 12);
    expect(x[0] * y[0] + x[1] * y[1]).toBeCloseTo(0, 12);
  });

  it('keeps a square stretch isotropic at speed 0', () => {
    const c = viewCovariance({ distance_m: 120, speed_kmh: 0 }, { width_m: 3, height_m: 3, passing_m: 5 }, 600, 600);
    const [x, y] = widen([0.5, 0], [0, 0.5], c);
    expect(Math.hypot(...x)).toBeCloseTo(Math.hypot(...y), 9);
    expect(Math.hypot(...x) ** 2).toBeCloseTo(0.25 + c[0], 9);
  });

  it('puts the major axis along the creative’s width when moving', () => {
    const c = viewCovariance({ distance_m: 30, speed_kmh: 50 }, SITE, 400, 300);
    // A footprint in perspective, a little rotated, smaller than the blur.
    const [x, y] = widen([0.8, 0.15], [-0.1, 0.7], c);
    expect(Math.hypot(...x)).toBeGreaterThan(2 * Math.hypot(...y));
    expect(Math.abs(x[1] / x[0])).toBeLessThan(0.05);
  });

  it('is the principal axes of S = jx·jxᵀ + jy·jyᵀ + C', () => {
    const jx: Vec2 = [1.7, -0.6];
    const jy: Vec2 = [0.4, 2.3];
    const c: [number, number] = [3.1, 0.7];
    const [x, y] = widen(jx, jy, c);
    const s = outer(jx, jy);
    const w = outer(x, y);
    expect(w[0]).toBeCloseTo(s[0] + c[0], 10);
    expect(w[1]).toBeCloseTo(s[1], 10);
    expect(w[2]).toBeCloseTo(s[2] + c[1], 10);
    expect(Math.hypot(...x)).toBeGreaterThanOrEqual(Math.hypot(...y));
    expect(x[0] * y[0] + x[1] * y[1]).toBeCloseTo(0, 10);
  });

  it('handles a vertical major axis (a < c, b = 0)', () => {
    const [x, y] = widen([1, 0], [0, 1], [0, 8]);
    expect(Math.abs(x[1])).toBeCloseTo(3, 12);
    expect(Math.abs(x[0])).toBeLessThan(1e-12);
    expect(Math.hypot(...y)).toBeCloseTo(1, 12);
  });
});

describe('the CPU composite with the view', () => {
  const W = 40;
  const H = 30;
  const quad: QuadPx = [
    [4, 3],
    [36, 4],
    [35, 27],
    [5, 26],
  ];
  // 4-px vertical stripes, 32 × 24: about 1:1 on the panel, so sharp without the view.
  const cw = 32;
  const ch = 24;
  const stripes = new Uint8ClampedArray(cw * ch * 4);
  for (let y = 0; y < ch; y++) for (let x = 0; x < cw; x++) stripes.set((x >> 2) % 2 ? [0, 0, 0, 255] : [255, 255, 255, 255], (y * cw + x) * 4);
  const levels = buildPyramid(linearLevel(stripes, cw, ch));
  const photo = { width: W, height: H, data: new Uint8ClampedArray(W * H * 4).fill(128) };
  const render = (adjustments: Adjustments, site: Site | null) =>
    compositeCpu({ photo, levels, mask: null, quadPx: quad, fit: 'stretch', background: '#000000', panelAspect: null, adjustments, site, stats: DEFAULT_STATS });
  /** The spread of one channel over the panel's inner pixels. */
  const contrast = (px: Uint8ClampedArray) => {
    let lo = 255;
    let hi = 0;
    for (let y = 8; y < 22; y++) {
      for (let x = 10; x < 30; x++) {
        lo = Math.min(lo, px[(y * W + x) * 4]);
        hi = Math.max(hi, px[(y * W + x) * 4]);
      }
    }
    return hi - lo;
  };
  const plain: Adjustments = { ...DEFAULT_ADJUSTMENTS, auto_match: false };
  // A small poster: 0.4 × 0.3 m, 80 creative pixels a metre.
  const site: Site = { width_m: 0.4, height_m: 0.3, passing_m: 5 };

  it('changes nothing when off, or without a site', () => {
    const off = render(plain, site);
    expect(render(plain, null)).toEqual(off);
    expect(render({ ...plain, view: { distance_m: 100, speed_kmh: 50 } }, null)).toEqual(off);
  });

  it('blurs the stripes away from afar, and more when moving', () => {
    const sharp = contrast(render(plain, site));
    const near = contrast(render({ ...plain, view: { distance_m: 2, speed_kmh: 0 } }, site));
    const far = contrast(render({ ...plain, view: { distance_m: 300, speed_kmh: 0 } }, site));
    expect(sharp).toBeGreaterThan(100);
    expect(near).toBeGreaterThan(sharp - 30);
    expect(far).toBeLessThan(sharp / 4);
    // At 10 m the eye still resolves the stripes (σ 0.12 px); passing at 100 km/h smears them
    // over 0.28 m (22 px).
    const passing: Site = { ...site, passing_m: 10 };
    const still = contrast(render({ ...plain, view: { distance_m: 10, speed_kmh: 0 } }, passing));
    const moving = contrast(render({ ...plain, view: { distance_m: 10, speed_kmh: 100 } }, passing));
    expect(still).toBeGreaterThan(sharp - 30);
    expect(moving).toBeLessThan(still / 4);
  });
});
