import { describe, expect, it } from 'vitest';

import type { AttentionGrid, Rect } from '../api/heatmaps';

import { areaShare, clampRect, nearEdge, positionOf, rectFromPoints, scoreBand } from './attention';

const grid = (width: number, height: number, values: number[]): AttentionGrid => ({ width, height, values });

describe('areaShare', () => {
  it('on a flat map, a rectangle gets attention in proportion to its size', () => {
    const flat = grid(4, 2, Array<number>(8).fill(100));
    const result = areaShare(flat, { x: 0.1, y: 0.2, width: 0.3, height: 0.5 });
    expect(result.share).toBeCloseTo(0.15, 10);
    expect(result.area).toBeCloseTo(0.15, 10);
    expect(result.relative).toBeCloseTo(1, 10);
  });

  it('counts a partly covered cell for the covered fraction', () => {
    // All attention in the top-left cell of a 2 × 2 grid; the rectangle covers a quarter of that cell.
    const peak = grid(2, 2, [65535, 0, 0, 0]);
    const result = areaShare(peak, { x: 0, y: 0, width: 0.25, height: 0.25 });
    expect(result.share).toBeCloseTo(0.25, 10);
    expect(result.area).toBeCloseTo(0.0625, 10);
    expect(result.relative).toBeCloseTo(4, 10);
  });

  it('gives 100 % for the whole image and 0 for an empty or outside rectangle', () => {
    const map = grid(3, 2, [1, 2, 3, 4, 5, 6]);
    expect(areaShare(map, { x: 0, y: 0, width: 1, height: 1 }).share).toBeCloseTo(1, 10);
    expect(areaShare(map, { x: 0.5, y: 0.5, width: 0, height: 0.3 })).toEqual({ share: 0, area: 0, relative: 0 });
    expect(areaShare(map, { x: 1.2, y: 0, width: 0.5, height: 1 })).toEqual({ share: 0, area: 0, relative: 0 });
  });

  it('clips a rectangle that goes past the image', () => {
    const map = grid(2, 1, [3, 1]);
    const result = areaShare(map, { x: -0.5, y: -1, width: 1, height: 3 });
    expect(result.share).toBeCloseTo(0.75, 10);
    expect(result.area).toBeCloseTo(0.5, 10);
  });

  it('a flat zero map counts as even attention', () => {
    expect(areaShare(grid(2, 2, [0, 0, 0, 0]), { x: 0, y: 0, width: 0.5, height: 1 })).toEqual({ share: 0.5, area: 0.5, relative: 1 });
  });

  it('matches a brute-force integration on a 64 × 36 map', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const map = grid(64, 36, Array.from({ length: 64 * 36 }, () => Math.floor(random() * 65536)));
    const total = map.values.reduce((a, b) => a + b, 0);
    const rect = { x: 0.137, y: 0.261, width: 0.402, height: 0.318 };
    // Sample the rectangle on a fine lattice: each sample takes the value of the cell it falls in.
    const steps = 800;
    let sum = 0;
    for (let i = 0; i < steps; i++) {
      for (let j = 0; j < steps; j++) {
        const x = rect.x + ((i + 0.5) / steps) * rect.width;
        const y = rect.y + ((j + 0.5) / steps) * rect.height;
        sum += map.values[Math.floor(y * 36) * 64 + Math.floor(x * 64)];
      }
    }
    // Each sample stands for an area of (width × height) / steps², a cell for 1 / (64 × 36) of the image.
    const expected = (sum * ((rect.width * rect.height) / steps ** 2) * 64 * 36) / total;
    expect(areaShare(map, rect).share).toBeCloseTo(expected, 3);
  });
});

describe('rectangles', () => {
  const rounded = (rect: Rect) => Object.fromEntries(Object.entries(rect).map(([key, value]) => [key, Math.round(value * 1e9) / 1e9]));

  it('spans two corners in any order, clamped to the image', () => {
    expect(rounded(rectFromPoints({ x: 0.8, y: 0.6 }, { x: 0.2, y: 0.1 }))).toEqual({ x: 0.2, y: 0.1, width: 0.6, height: 0.5 });
    expect(rounded(rectFromPoints({ x: -0.2, y: 0.5 }, { x: 0.5, y: 1.4 }))).toEqual({ x: 0, y: 0.5, width: 0.5, height: 0.5 });
    expect(rounded(clampRect({ x: 0.9, y: -0.1, width: 0.3, height: 0.3 }))).toEqual({ x: 0.9, y: 0, width: 0.1, height: 0.2 });
  });
});

describe('words for numbers and places', () => {
  it('puts scores in bands: ≥ 70 strong, 40–70 moderate, < 40 scattered', () => {
    expect([100, 70, 69.9, 40, 39.9, 0].map(scoreBand)).toEqual(['strong', 'strong', 'moderate', 'moderate', 'scattered', 'scattered']);
  });

  it('names the third of the image a point is in', () => {
    expect(positionOf(0.1, 0.1)).toBe('topLeft');
    expect(positionOf(0.5, 0.2)).toBe('top');
    expect(positionOf(0.9, 0.3)).toBe('topRight');
    expect(positionOf(0.2, 0.5)).toBe('left');
    expect(positionOf(0.5, 0.5)).toBe('center');
    expect(positionOf(0.7, 0.6)).toBe('right');
    expect(positionOf(0, 1)).toBe('bottomLeft');
    expect(positionOf(0.5, 0.99)).toBe('bottom');
    expect(positionOf(1, 1)).toBe('bottomRight');
  });

  it('tells when a point is near an edge', () => {
    expect(nearEdge(0.05, 0.5)).toBe(true);
    expect(nearEdge(0.5, 0.95)).toBe(true);
    expect(nearEdge(0.5, 0.5)).toBe(false);
  });
});
