//! A plan's totals while it is being made, before the server answers: the same rules as
//! `crates/server/src/plans.rs` (days both ends counted; contacts = daily contacts × days, sites
//! without contacts counting none), so the figures move as sites are added.

/** Days from `start` to `end` (`YYYY-MM-DD`), both counted; `null` when a date is missing or the end is before the start. */
export function planDays(start: string, end: string): number | null {
  const day = (text: string) => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
    const ms = Date.parse(`${text}T00:00:00Z`);
    return Number.isNaN(ms) ? null : ms / 86_400_000;
  };
  const [a, b] = [day(start), day(end)];
  if (a === null || b === null || b < a) return null;
  return b - a + 1;
}

export type DraftTotals = {
  locations: number;
  days: number | null;
  /** Sum of daily contacts × days over the sites that have contacts; `null` without days. */
  contacts: number | null;
  /** Sites whose contacts are unknown. */
  withoutContacts: number;
};

/** The totals of a plan being made from its sites' daily contacts and its dates. */
export function draftTotals(sites: ReadonlyArray<{ daily_contacts?: number | null }>, start: string, end: string): DraftTotals {
  const days = planDays(start, end);
  const known = sites.filter((site) => site.daily_contacts !== null && site.daily_contacts !== undefined);
  const daily = known.reduce((sum, site) => sum + (site.daily_contacts ?? 0), 0);
  return {
    locations: sites.length,
    days,
    contacts: days === null ? null : daily * days,
    withoutContacts: sites.length - known.length,
  };
}
