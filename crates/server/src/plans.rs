//! Campaign plans: one creative on a set of sites between two dates, in the planner's currency
//! (docs/architecture/plans.md). What a plan answers is computed here from each site's facts,
//! without I/O: contacts are a site's daily contacts times the plan's days (both ends
//! counted); noticed contacts are its rendered simulation's noticed contacts a day (daily
//! contacts × the calibrated probability of a look within the first second) times the days.

use chrono::NaiveDate;

wire_enum! {
    /// Where a plan's sites are.
    pub enum PlanStatus {
        /// A site's simulation is still being rendered or its attention analysed.
        Rendering = "rendering";
        /// Every site is rendered and analysed.
        Ready = "ready";
        /// A site's render or analysis failed (or its simulation was deleted): open the site's
        /// simulation to render it again.
        Failed = "failed";
    }
}

/// A plan's date, `YYYY-MM-DD` exactly.
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    let bytes = text.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return None;
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()
}

/// The days a plan runs, both ends counted (a plan from the 1st to the 14th runs 14 days).
pub fn days(start: NaiveDate, end: NaiveDate) -> i64 {
    (end - start).num_days() + 1
}

/// Where a site's simulation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SiteState {
    /// Rendered and its render's attention analysed.
    Ready,
    /// Rendering, or its attention being analysed.
    Pending,
    /// Failed, or no simulation any more.
    Failed,
}

/// What a plan needs to know of one site.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SiteFacts {
    pub daily_contacts: Option<i64>,
    /// Daily contacts who look at the panel within the first second (once analysed).
    pub noticed_per_day: Option<i64>,
    pub state: SiteState,
}

/// A site's figures over the plan's days.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SiteFigures {
    /// `daily_contacts × days`; `None` without daily contacts.
    pub contacts: Option<i64>,
    /// `noticed_per_day × days`; `None` until the site is rendered and analysed, or without
    /// daily contacts.
    pub noticed: Option<i64>,
}

/// The plan's totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    pub locations: i64,
    pub days: i64,
    /// The sites' contacts (those with daily contacts).
    pub contacts: i64,
    /// The sites' noticed contacts; `None` until every site with contacts has them.
    pub noticed: Option<i64>,
}

/// A site's figures over `days`.
pub fn site_figures(site: &SiteFacts, days: i64) -> SiteFigures {
    SiteFigures {
        contacts: site.daily_contacts.map(|c| c.saturating_mul(days)),
        noticed: site
            .daily_contacts
            .and(site.noticed_per_day)
            .map(|n| n.saturating_mul(days)),
    }
}

/// The totals of the sites over `days`.
pub fn totals(sites: &[SiteFacts], days: i64) -> Totals {
    let figures: Vec<SiteFigures> = sites.iter().map(|s| site_figures(s, days)).collect();
    let contacts = figures
        .iter()
        .filter_map(|f| f.contacts)
        .fold(0i64, i64::saturating_add);
    let noticed = figures
        .iter()
        .filter(|f| f.contacts.is_some())
        .map(|f| f.noticed)
        .try_fold(0i64, |sum, n| n.map(|n| sum.saturating_add(n)));
    Totals {
        locations: sites.len() as i64,
        days,
        contacts,
        noticed,
    }
}

/// The plan's status from its sites': failed when one failed, else rendering while one is
/// pending, else ready.
pub fn status(sites: &[SiteFacts]) -> PlanStatus {
    if sites.iter().any(|s| s.state == SiteState::Failed) {
        PlanStatus::Failed
    } else if sites.iter().any(|s| s.state == SiteState::Pending) {
        PlanStatus::Rendering
    } else {
        PlanStatus::Ready
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(daily: Option<i64>, noticed: Option<i64>, state: SiteState) -> SiteFacts {
        SiteFacts {
            daily_contacts: daily,
            noticed_per_day: noticed,
            state,
        }
    }

    #[test]
    fn dates_are_iso_days_and_both_ends_count() {
        let (a, b) = (
            parse_date("2027-03-01").unwrap(),
            parse_date("2027-03-14").unwrap(),
        );
        assert_eq!(days(a, b), 14);
        assert_eq!(days(a, a), 1);
        // Across February of a leap year.
        assert_eq!(
            days(
                parse_date("2028-02-27").unwrap(),
                parse_date("2028-03-01").unwrap()
            ),
            4
        );
        for bad in [
            "2027-3-1",
            "01/03/2027",
            "2027-02-30",
            "2027-03-01T00:00",
            "",
            "20270301",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn two_sites_over_fourteen_days() {
        // The check: 10,000 and 4,000 contacts a day for 14 days are 196,000 contacts.
        let pending = [
            site(Some(10_000), None, SiteState::Pending),
            site(Some(4_000), None, SiteState::Pending),
        ];
        let t = totals(&pending, 14);
        assert_eq!(
            (t.locations, t.days, t.contacts, t.noticed),
            (2, 14, 196_000, None)
        );
        assert_eq!(status(&pending), PlanStatus::Rendering);
        let rendered = [
            site(Some(10_000), Some(4_200), SiteState::Ready),
            site(Some(4_000), Some(1_000), SiteState::Ready),
        ];
        let t = totals(&rendered, 14);
        assert_eq!(t.noticed, Some(4_200 * 14 + 1_000 * 14));
        assert!(t.noticed.unwrap() > 0 && t.noticed.unwrap() <= t.contacts);
        assert_eq!(status(&rendered), PlanStatus::Ready);
    }

    #[test]
    fn a_site_without_contacts_counts_nothing_and_waits_for_nothing() {
        let sites = [
            site(Some(1_000), Some(300), SiteState::Ready),
            site(None, None, SiteState::Pending),
        ];
        let t = totals(&sites, 7);
        assert_eq!((t.contacts, t.noticed), (7_000, Some(2_100)));
        assert_eq!(
            site_figures(&sites[1], 7),
            SiteFigures {
                contacts: None,
                noticed: None
            }
        );
        assert_eq!(status(&sites), PlanStatus::Rendering);
        // One site still to analyse keeps the total noticed unknown.
        let sites = [
            site(Some(1_000), Some(300), SiteState::Ready),
            site(Some(500), None, SiteState::Pending),
        ];
        assert_eq!(totals(&sites, 7).noticed, None);
        let failed = [site(Some(1), None, SiteState::Failed), sites[0]];
        assert_eq!(status(&failed), PlanStatus::Failed);
    }
}
