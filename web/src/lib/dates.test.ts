import { describe, expect, it } from 'vitest';

import { dateLocale, formatDate, formatDateTime } from './dates';

// Noon UTC: the same day in every time zone the tests may run in.
const NOON = '2026-11-26T12:00:00.000Z';

describe('dates', () => {
  it('formats in the region of the interface language: day before month in English too', () => {
    expect(dateLocale('en')).toBe('en-GB');
    expect(dateLocale('fr')).toBe('fr-FR');
    expect(formatDate(new Date(NOON), 'en')).toBe('26 Nov 2026');
    expect(formatDate(new Date(NOON), 'fr')).toBe('26 nov. 2026');
    expect(formatDateTime(NOON, 'en')).toMatch(/^26 Nov 2026, \d{2}:\d{2}$/);
    expect(formatDateTime(NOON, 'fr')).toMatch(/^26 nov\. 2026,? (à )?\d{2}:\d{2}$/);
    // Never the United States' order, which a bare "en" gives.
    expect(formatDateTime(NOON, 'en')).not.toMatch(/Nov 26|11\/26|AM|PM/);
  });

  it('keeps a string that is not a date as it is', () => {
    expect(formatDateTime('soon', 'en')).toBe('soon');
  });
});
