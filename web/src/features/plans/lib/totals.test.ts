import { describe, expect, it } from 'vitest';

import { draftTotals, planDays } from './totals';

describe('planDays', () => {
  it('counts both ends', () => {
    expect(planDays('2027-01-07', '2027-01-20')).toBe(14);
    expect(planDays('2027-01-07', '2027-01-07')).toBe(1);
    expect(planDays('2028-02-27', '2028-03-01')).toBe(4);
  });
  it('has no days for a missing, malformed or reversed period', () => {
    expect(planDays('', '2027-01-07')).toBeNull();
    expect(planDays('07/01/2027', '2027-01-20')).toBeNull();
    expect(planDays('2027-01-20', '2027-01-07')).toBeNull();
  });
});

describe('draftTotals', () => {
  it('sums the contacts of the sites that have them over the days', () => {
    const totals = draftTotals([{ daily_contacts: 10_000 }, { daily_contacts: 4_000 }, { daily_contacts: null }], '2027-01-07', '2027-01-20');
    expect(totals).toEqual({ locations: 3, days: 14, contacts: 196_000, withoutContacts: 1 });
  });
  it('moves as sites are added', () => {
    const one = draftTotals([{ daily_contacts: 10_000 }], '2027-01-07', '2027-01-20');
    const two = draftTotals([{ daily_contacts: 10_000 }, { daily_contacts: 4_000 }], '2027-01-07', '2027-01-20');
    expect(two.contacts! - one.contacts!).toBe(56_000);
  });
});
