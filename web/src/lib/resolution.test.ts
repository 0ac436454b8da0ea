import { describe, expect, it } from 'vitest';

import { isLowResolution, MIN_SHORT_SIDE } from './resolution';

describe('isLowResolution', () => {
  it('flags an image whose shorter side is under 1,080 px, whatever its orientation', () => {
    expect(MIN_SHORT_SIDE).toBe(1080);
    expect(isLowResolution({ width: 40, height: 40 })).toBe(true);
    expect(isLowResolution({ width: 4000, height: 1079 })).toBe(true);
    expect(isLowResolution({ width: 1079, height: 4000 })).toBe(true);
  });

  it('leaves Full HD, in landscape or portrait, and anything larger alone', () => {
    expect(isLowResolution({ width: 1920, height: 1080 })).toBe(false);
    expect(isLowResolution({ width: 1080, height: 1920 })).toBe(false);
    expect(isLowResolution({ width: 6000, height: 4000 })).toBe(false);
  });
});
