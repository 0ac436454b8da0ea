/** Tests of the photo statistics (rendering.md §5) on synthetic images. */
import { describe, expect, it, vi } from 'vitest';

import { computePhotoStats, prepareStatsImage, StatsCache, type RgbaImage } from './stats';
import { luminance } from './srgb';

function image(w: number, h: number, f: (x: number, y: number) => [number, number, number]): RgbaImage {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) data.set([...f(x, y), 255], (y * w + x) * 4);
  return { width: w, height: h, data };
}

const quad: [number, number][] = [
  [60, 60],
  [140, 60],
  [140, 140],
  [60, 140],
];

describe('computePhotoStats', () => {
  it('clamps the exposure of a dark ring to 0.3', () => {
    const s = computePhotoStats(image(200, 200, () => [20, 20, 20]), quad);
    expect(s.exposure).toBe(0.3);
    expect(s.cast[0]).toBeCloseTo(1, 6);
  });

  it('gives full exposure to a bright ring', () => {
    const s = computePhotoStats(image(200, 200, () => [250, 250, 250]), quad);
    expect(s.exposure).toBe(1);
  });

  it('reads a blue cast that keeps luminance', () => {
    const s = computePhotoStats(image(200, 200, () => [90, 120, 200]), quad);
    expect(s.cast[2]).toBeGreaterThan(s.cast[0]);
    expect(luminance(...s.cast)).toBeCloseTo(1, 9);
    for (const c of s.cast) {
      expect(c).toBeGreaterThan(0.7);
      expect(c).toBeLessThan(1.4);
    }
  });

  it('reads the whole photo outside the quad, not the quad itself', () => {
    // Inside the quad: red (the site's old poster); everywhere else: grey, with a white sign
    // far from the panel (beyond the quad ×3 that auto match used to read).
    const near: [number, number][] = [
      [160, 160],
      [240, 160],
      [240, 240],
      [160, 240],
    ];
    const img = image(400, 400, (x, y) => {
      if (x >= 160 && x < 240 && y >= 160 && y < 240) return [255, 0, 0];
      if (x >= 4 && x < 64 && y >= 4 && y < 64) return [235, 235, 235];
      return [90, 90, 90];
    });
    const s = computePhotoStats(img, near);
    for (const c of s.cast) expect(c).toBeCloseTo(1, 2);
    expect(s.exposure).toBe(1);
  });

  it('reads the cast from the brightest cells: a red wall with a white sign stays neutral', () => {
    const img = image(200, 150, (x, y) =>
      x >= 30 && x < 70 && y >= 40 && y < 100 ? [235, 235, 235] : [150, 70, 50],
    );
    const s = computePhotoStats(img, [
      [80, 60],
      [120, 60],
      [120, 90],
      [80, 90],
    ]);
    for (const c of s.cast) expect(Math.abs(c - 1)).toBeLessThan(0.02);
    expect(s.exposure).toBe(1);
  });

  it('falls back to defaults with an empty ring', () => {
    const s = computePhotoStats(image(100, 80, () => [10, 200, 30]), [
      [0, 0],
      [100, 0],
      [100, 80],
      [0, 80],
    ]);
    expect(s.exposure).toBe(1);
    expect(s.cast).toEqual([1, 1, 1]);
  });

  it('estimates no noise on a flat image', () => {
    expect(computePhotoStats(image(200, 200, () => [128, 128, 128]), quad).noise).toBe(0);
  });

  it('estimates the σ of Gaussian noise', () => {
    let seed = 12345;
    const rand = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
    const img = image(400, 400, () => {
      const v = Math.round(128 + 6 * gauss());
      return [v, v, v];
    });
    const big: [number, number][] = quad.map(([x, y]) => [x * 2, y * 2]);
    const s = computePhotoStats(img, big);
    expect(s.noise).toBeGreaterThan(5.6);
    expect(s.noise).toBeLessThan(6.4);
  });
});

describe('StatsCache', () => {
  it('recomputes at most every interval while the quad moves, then once more', () => {
    vi.useFakeTimers();
    try {
      // Dark, but for a bright patch that the right quad covers (and so does not count).
      const img = prepareStatsImage(image(200, 100, (x, y) => (x >= 120 && x < 160 && y >= 30 && y < 70 ? [250, 250, 250] : [10, 10, 10])));
      let late = 0;
      const cache = new StatsCache(img, () => late++, 100);
      const left: [number, number][] = [
        [20, 30],
        [60, 30],
        [60, 70],
        [20, 70],
      ];
      const right = left.map(([x, y]) => [x + 100, y] as [number, number]);
      expect(cache.get(left).exposure).toBe(1);
      // Within 100 ms: the previous statistics, the new quad scheduled.
      expect(cache.get(right).exposure).toBe(1);
      expect(late).toBe(0);
      vi.advanceTimersByTime(150);
      expect(late).toBe(1);
      expect(cache.get(right).exposure).toBe(0.3);
      cache.cancel();
    } finally {
      vi.useRealTimers();
    }
  });
});
