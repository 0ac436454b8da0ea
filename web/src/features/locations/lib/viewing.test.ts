import { describe, expect, it } from 'vitest';

import { comfortableDistanceM, legibleDistanceM, locationViewing, mmPerMetre, requiredLetterMm, timeInViewS } from './viewing';

// The same hand-computed cases as the server's (src/ooh.rs).
describe('viewing rules', () => {
  it('reads a letter at ten minutes of arc', () => {
    expect(mmPerMetre()).toBeCloseTo(2.9089, 3);
    expect(legibleDistanceM(300)).toBeCloseTo(103.13, 2);
    expect(requiredLetterMm(13)).toBeCloseTo(37.8, 1);
  });

  it('reads comfortably at twenty minutes of arc (ISO 9241-3): 5.82 mm a metre', () => {
    expect(300 / comfortableDistanceM(300)).toBeCloseTo(5.818, 3);
    expect(comfortableDistanceM(300)).toBeCloseTo(51.57, 2);
  });

  it('counts the readable part of a straight path passing the panel', () => {
    const window = (p: number, r: number, v: number) => (Math.sqrt(r * r - p * p) - p / Math.sqrt(3)) / (v / 3.6);
    expect(timeInViewS(10, 150, 103.13, 50)).toBeCloseTo(window(10, 103.13, 50), 9);
    expect(timeInViewS(10, 150, 103.13, 50)).toBeCloseTo(6.97, 2);
    expect(timeInViewS(2, 20, 60, 5)).toBeCloseTo(window(2, 20, 5), 9);
    // Legible only until the panel leaves the 60° cone: nothing.
    expect(timeInViewS(10, 150, 11, 50)).toBe(0);
    expect(timeInViewS(20, 80, 12, 50)).toBe(0);
    expect(timeInViewS(10, 5, 100, 50)).toBe(0);
  });

  it('takes the audience’s speed when none is given, and needs every figure', () => {
    const road = { panelHeightCm: 300, audience: 'road' as const, minM: 10, maxM: 150, speedKmh: null };
    const viewing = locationViewing(road);
    expect(viewing?.speedKmh).toBe(50);
    expect(viewing?.letterMm).toBe(300);
    expect(viewing?.timeInViewS).toBeCloseTo(6.975, 2);
    expect(viewing?.comfortableDistanceM).toBeCloseTo(51.57, 2);
    expect(locationViewing({ ...road, speedKmh: 90 })?.speedKmh).toBe(90);
    expect(locationViewing({ ...road, audience: null })).toBeNull();
    expect(locationViewing({ ...road, maxM: null })).toBeNull();
    expect(locationViewing({ ...road, panelHeightCm: null })).toBeNull();
  });
});
