/** Tests of the sRGB transfer functions. */
import { describe, expect, it } from 'vitest';

import { hexToLinear, linearToSrgb8, parseHex, SRGB8_TO_LINEAR, srgbToLinear } from './srgb';

describe('sRGB', () => {
  it('round-trips all 256 levels', () => {
    for (let i = 0; i < 256; i++) expect(linearToSrgb8(SRGB8_TO_LINEAR[i])).toBe(i);
  });

  it('uses the exact IEC 61966-2-1 curve', () => {
    expect(srgbToLinear(0.04045)).toBeCloseTo(0.04045 / 12.92, 12);
    expect(srgbToLinear(0.5)).toBeCloseTo(0.21404114, 7);
    expect(linearToSrgb8(-1)).toBe(0);
    expect(linearToSrgb8(2)).toBe(255);
  });

  it('parses background colours', () => {
    expect(parseHex('#ff8000')).toEqual([255, 128, 0]);
    expect(parseHex('#fff')).toEqual([255, 255, 255]);
    expect(parseHex('nope')).toEqual([0, 0, 0]);
    expect(hexToLinear('#ffffff')).toEqual([1, 1, 1]);
  });
});
