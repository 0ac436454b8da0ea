/** Tests of the CPU composite (the 2-D fallback and reference) on tiny images. */
import { describe, expect, it } from 'vitest';

import { DEFAULT_ADJUSTMENTS, type Adjustments } from '../types';
import { quadEdges, squareCoverage } from './coverage';
import { compositeCpu } from './cpu';
import { buildPyramid, linearLevel } from './pyramid';
import { DEFAULT_STATS } from './stats';
import type { QuadPx } from './homography';

const plain: Adjustments = { ...DEFAULT_ADJUSTMENTS, auto_match: false };

function flat(w: number, h: number, rgb: [number, number, number]): Uint8ClampedArray {
  const d = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) d.set([...rgb, 255], i * 4);
  return d;
}

describe('coverage', () => {
  const q: QuadPx = [
    [2, 2],
    [6.5, 2],
    [6.5, 5],
    [2, 5],
  ];
  const e = quadEdges(q);
  it('is 1 inside, 0 outside, the clipped area on edges', () => {
    expect(squareCoverage(e, 3, 3)).toBe(1);
    expect(squareCoverage(e, 8, 3)).toBe(0);
    expect(squareCoverage(e, 6, 3)).toBeCloseTo(0.5, 12);
    expect(squareCoverage(e, 6, 4.5)).toBeCloseTo(0.25, 12);
  });

  it('integrates to the quad area over a diagonal edge', () => {
    const tri: QuadPx = [
      [1, 1],
      [9.3, 2.2],
      [8.1, 7.7],
      [0.5, 9],
    ];
    const edges = quadEdges(tri);
    let sum = 0;
    for (let y = 0; y < 11; y++) for (let x = 0; x < 11; x++) sum += squareCoverage(edges, x, y);
    const area = 0.5 * Math.abs(tri.reduce((a, p, i) => a + p[0] * tri[(i + 1) % 4][1] - tri[(i + 1) % 4][0] * p[1], 0));
    expect(sum).toBeCloseTo(area, 9);
  });
});

describe('compositeCpu', () => {
  const W = 10;
  const H = 8;
  const photo = { width: W, height: H, data: flat(W, H, [0, 0, 0]) };
  const creative = buildPyramid(linearLevel(flat(4, 4, [255, 128, 0]), 4, 4));
  // Axis-aligned quad covering x ∈ [2, 6.5), y ∈ [2, 6): column 6 is half covered.
  const quadPx: QuadPx = [
    [2, 2],
    [6.5, 2],
    [6.5, 6],
    [2, 6],
  ];
  const base = { photo, levels: creative, mask: null, quadPx, fit: 'stretch' as const, background: '#000000', panelAspect: null, adjustments: plain, stats: DEFAULT_STATS };
  const px = (d: Uint8ClampedArray, x: number, y: number) => Array.from(d.slice((y * W + x) * 4, (y * W + x) * 4 + 3));

  it('draws the flat creative inside, the photo outside, partial coverage on the edge', () => {
    const out = compositeCpu(base);
    expect(px(out, 3, 3)).toEqual([255, 128, 0]);
    expect(px(out, 5, 5)).toEqual([255, 128, 0]);
    expect(px(out, 1, 3)).toEqual([0, 0, 0]);
    expect(px(out, 3, 6)).toEqual([0, 0, 0]);
    expect(px(out, 7, 3)).toEqual([0, 0, 0]);
    // Half coverage in linear light: 0.5 → sRGB 188; 0.5·lin(128) = 0.1078 → 92.
    expect(px(out, 6, 3)).toEqual([188, 92, 0]);
    expect(out[3]).toBe(255);
  });

  it('keeps the photo where the mask is 255, and shows it alone in before view', () => {
    const mask = { width: 1, height: 1, data: [255], channels: 1 };
    expect(px(compositeCpu({ ...base, mask }), 3, 3)).toEqual([0, 0, 0]);
    expect(px(compositeCpu({ ...base, view: 'before' }), 3, 3)).toEqual([0, 0, 0]);
  });

  it('applies brightness in linear light and darkens the photo at night', () => {
    const grey = { width: W, height: H, data: flat(W, H, [200, 200, 200]) };
    const out = compositeCpu({ ...base, photo: grey, adjustments: { ...plain, brightness: -1 / 1.5 } });
    // 2^(−1) halves the linear red: lin 1.0 → 0.5 → 188.
    expect(px(out, 3, 3)[0]).toBe(188);
    const night = compositeCpu({ ...base, photo: grey, adjustments: { ...plain, night: 'led' } });
    expect(px(night, 0, 0)[0]).toBeLessThan(90);
    // Bloom spills some light next to the panel (the photo far away is just darkened).
    const bw = 200;
    const bh = 100;
    const wide = { width: bw, height: bh, data: flat(bw, bh, [200, 200, 200]) };
    const lit = compositeCpu({ ...base, photo: wide, quadPx: [[20, 20], [120, 20], [120, 80], [20, 80]], adjustments: { ...plain, night: 'led' } });
    const red = (x: number, y: number) => lit[(y * bw + x) * 4];
    expect(red(125, 50)).toBeGreaterThan(red(190, 50) + 10);
    expect(red(190, 50)).toBe(night[0]);
  });

  it('draws the contain background around a wide creative', () => {
    const wide = buildPyramid(linearLevel(flat(8, 2, [255, 255, 255]), 8, 2));
    const big = { width: 40, height: 40, data: flat(40, 40, [0, 0, 0]) };
    const q: QuadPx = [
      [0, 0],
      [40, 0],
      [40, 40],
      [0, 40],
    ];
    const out = compositeCpu({ ...base, photo: big, levels: wide, quadPx: q, fit: 'contain', background: '#ff0000' });
    const at = (x: number, y: number) => Array.from(out.slice((y * 40 + x) * 4, (y * 40 + x) * 4 + 3));
    expect(at(20, 2)).toEqual([255, 0, 0]);
    expect(at(20, 20)).toEqual([255, 255, 255]);
    expect(at(20, 37)).toEqual([255, 0, 0]);
  });
});
