import { describe, expect, it } from 'vitest';

import { formatPercent } from './format';

describe('formatPercent', () => {
  it('gives one decimal under 10 % and whole percentages above, in the language', () => {
    expect(formatPercent(0.045, 'fr')).toBe('4,5\u00a0%');
    expect(formatPercent(0.31, 'fr')).toBe('31\u00a0%');
    expect(formatPercent(0.31, 'en')).toBe('31%');
    expect(formatPercent(0.006, 'en')).toBe('0.6%');
  });

  it('never prints a share that is not zero as 0 %', () => {
    expect(formatPercent(0.0004, 'fr')).toBe('< 0,1\u00a0%');
    expect(formatPercent(0.00001, 'en')).toBe('< 0.1%');
    expect(formatPercent(0, 'en')).toBe('0%');
  });
});
