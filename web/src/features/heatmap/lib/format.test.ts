import { describe, expect, it } from 'vitest';

import { formatPercent, formatScore, shownPercent, shownScore } from './format';

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

describe('shownScore and shownPercent', () => {
  it('give the numbers exactly as formatScore and formatPercent print them', () => {
    for (const score of [0, 39.4, 47.5, 48.5, 61.4, 72.49, 99.5]) {
      expect(String(shownScore(score))).toBe(formatScore(score, 'en'));
    }
    for (const share of [0.0449, 0.045, 0.0455, 0.0995, 0.123, 0.125, 0.5, 1]) {
      expect(`${shownPercent(share)}%`).toBe(formatPercent(share, 'en'));
    }
  });

  it('count a share shown "< 0.1 %" as zero', () => {
    expect(shownPercent(0.0004)).toBe(0);
  });
});
