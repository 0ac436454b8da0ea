/** Tests of the panel geometry: homography, inverse, Jacobian, aspect and fit mappings. */
import { describe, expect, it } from 'vitest';

import { applyH, fitMap, footprint, invert3, panelAspect, squareToQuad, type QuadPx } from './homography';

const quad: QuadPx = [
  [120.5, 80.25],
  [410, 130],
  [395.75, 300],
  [100, 340.5],
];

describe('homography', () => {
  it('maps the unit square corners exactly onto the quad', () => {
    const h = squareToQuad(quad);
    const corners: [number, number][] = [
      [0, 0],
      [1, 0],
      [1, 1],
      [0, 1],
    ];
    corners.forEach(([s, t], i) => {
      const [x, y] = applyH(h, s, t);
      expect(x).toBeCloseTo(quad[i][0], 9);
      expect(y).toBeCloseTo(quad[i][1], 9);
    });
  });

  it('handles a parallelogram (affine case)', () => {
    const p: QuadPx = [
      [10, 10],
      [50, 20],
      [60, 70],
      [20, 60],
    ];
    const h = squareToQuad(p);
    expect(applyH(h, 1, 1)[0]).toBeCloseTo(60, 12);
    expect(applyH(h, 1, 1)[1]).toBeCloseTo(70, 12);
  });

  it('inverts: photo → (s, t) → photo round trip', () => {
    const h = squareToQuad(quad);
    const hi = invert3(h);
    for (const [x, y] of [
      [200, 200],
      [130, 90],
      [390, 290],
      [0, 0],
    ]) {
      const [s, t] = applyH(hi, x, y);
      const [x2, y2] = applyH(h, s, t);
      expect(x2).toBeCloseTo(x, 8);
      expect(y2).toBeCloseTo(y, 8);
    }
    const [s, t] = applyH(hi, quad[2][0], quad[2][1]);
    expect(s).toBeCloseTo(1, 10);
    expect(t).toBeCloseTo(1, 10);
  });

  it('has an analytic Jacobian that matches finite differences', () => {
    const hi = invert3(squareToQuad(quad));
    const fm = fitMap('cover', 1920, 1080, 1.7);
    const eps = 1e-4;
    for (const [x, y] of [
      [150, 120],
      [300, 250],
      [380, 290.5],
    ]) {
      const f = footprint(hi, fm, x, y);
      const fx = footprint(hi, fm, x + eps, y);
      const fy = footprint(hi, fm, x, y + eps);
      expect(f.jx[0]).toBeCloseTo((fx.u - f.u) / eps, 3);
      expect(f.jx[1]).toBeCloseTo((fx.v - f.v) / eps, 3);
      expect(f.jy[0]).toBeCloseTo((fy.u - f.u) / eps, 3);
      expect(f.jy[1]).toBeCloseTo((fy.v - f.v) / eps, 3);
    }
  });

  it('estimates the panel aspect from the quad unless given', () => {
    const rect: QuadPx = [
      [0, 0],
      [300, 0],
      [300, 100],
      [0, 100],
    ];
    expect(panelAspect(rect, null)).toBeCloseTo(3, 12);
    expect(panelAspect(rect, 1.5)).toBe(1.5);
  });
});

describe('fit mappings', () => {
  // (s, t) → (u, v) through the affine map.
  const map = (fm: ReturnType<typeof fitMap>, s: number, t: number) => [fm.su * s + fm.u0, fm.sv * t + fm.v0];

  it('stretch maps the unit square onto the whole creative', () => {
    const fm = fitMap('stretch', 400, 100, 1);
    expect(map(fm, 0, 0)).toEqual([0, 0]);
    expect(map(fm, 1, 1)).toEqual([400, 100]);
  });

  it('cover crops a wide creative horizontally (a > A)', () => {
    // a = 4, A = 2: w = Hc·A = 200, u = 100 + s·200.
    const fm = fitMap('cover', 400, 100, 2);
    expect(map(fm, 0, 0)).toEqual([100, 0]);
    expect(map(fm, 1, 1)).toEqual([300, 100]);
  });

  it('cover crops a tall creative vertically (a ≤ A)', () => {
    // a = 0.5, A = 2: h = Wc/A = 50, v = (200 − 50)/2 + t·50.
    const fm = fitMap('cover', 100, 200, 2);
    expect(map(fm, 0, 0)).toEqual([0, 75]);
    expect(map(fm, 1, 1)).toEqual([100, 125]);
  });

  it('contain letterboxes a wide creative (a > A)', () => {
    // a = 4, A = 2: t0 = (1 − 0.5)/2 = 0.25; v = (t − 0.25)/0.5·Hc.
    const fm = fitMap('contain', 400, 100, 2);
    const [u0, v0] = map(fm, 0, 0.25);
    const [u1, v1] = map(fm, 1, 0.75);
    expect(u0).toBeCloseTo(0, 12);
    expect(v0).toBeCloseTo(0, 12);
    expect(u1).toBeCloseTo(400, 12);
    expect(v1).toBeCloseTo(100, 12);
    expect(map(fm, 0.5, 0.5)[1]).toBeCloseTo(50, 12);
  });

  it('contain pillarboxes a tall creative (a ≤ A)', () => {
    // a = 0.5, A = 2: s0 = (1 − 0.25)/2 = 0.375; u = (s − 0.375)/0.25·Wc.
    const fm = fitMap('contain', 100, 200, 2);
    expect(map(fm, 0.375, 0)[0]).toBeCloseTo(0, 12);
    expect(map(fm, 0.625, 1)[0]).toBeCloseTo(100, 12);
    expect(map(fm, 0.625, 1)[1]).toBeCloseTo(200, 12);
  });
});
