//! The items of one kind that pass the question's filters (brand, campaign, city, format,
//! creative, location, night, status), newest first, with the words that say those filters in
//! the answer (" in Lyon", " de la marque Moka").

use super::Ctx;
use super::shared::{format_label, href, same};
use crate::assistant::Locale;
use crate::assistant::data::{Creative, Heatmap, Kind, Location, Simulation};
use crate::assistant::intent::StatusWord;
use crate::db::DbError;

/// The items of one kind that pass the question's filters, newest first.
#[derive(Default)]
pub(super) struct Selection<'d> {
    pub(super) creatives: Vec<&'d Creative>,
    pub(super) locations: Vec<&'d Location>,
    pub(super) simulations: Vec<&'d Simulation>,
    pub(super) heatmaps: Vec<&'d Heatmap>,
    /// How the filters read in the answer (" in Lyon", " de la marque Moka").
    pub(super) described: String,
}

impl Selection<'_> {
    /// How many items of `kind` passed.
    pub(super) fn len(&self, kind: Kind) -> usize {
        match kind {
            Kind::Creative => self.creatives.len(),
            Kind::Location => self.locations.len(),
            Kind::Simulation => self.simulations.len(),
            Kind::Heatmap => self.heatmaps.len(),
        }
    }

    /// The name and address of each item of `kind` that passed.
    pub(super) fn named(&self, kind: Kind) -> Vec<(String, String)> {
        match kind {
            Kind::Creative => self
                .creatives
                .iter()
                .map(|c| (c.name.clone(), href(kind, &c.id)))
                .collect(),
            Kind::Location => self
                .locations
                .iter()
                .map(|c| (c.name.clone(), href(kind, &c.id)))
                .collect(),
            Kind::Simulation => self
                .simulations
                .iter()
                .map(|c| (c.name.clone(), href(kind, &c.id)))
                .collect(),
            Kind::Heatmap => self
                .heatmaps
                .iter()
                .map(|c| (c.name.clone(), href(kind, &c.id)))
                .collect(),
        }
    }
}

/// The items of `kind` that pass the question's filters.
pub(super) async fn select<'d>(ctx: &'d Ctx<'_, '_>, kind: Kind) -> Result<Selection<'d>, DbError> {
    match kind {
        Kind::Creative => select_creatives(ctx).await,
        Kind::Location => select_locations(ctx).await,
        Kind::Simulation => select_simulations(ctx).await,
        Kind::Heatmap => select_heatmaps(ctx).await,
    }
}

/// The city a list is filtered by: one of the user's, else the place the question names.
fn city(ctx: &Ctx<'_, '_>) -> Option<String> {
    ctx.city().cloned().or_else(|| ctx.unknown_place.clone())
}

async fn select_creatives<'d>(ctx: &'d Ctx<'_, '_>) -> Result<Selection<'d>, DbError> {
    let mut described = String::new();
    let brand = ctx.brand();
    let campaign = ctx.campaign();
    if let Some(b) = brand {
        described.push_str(&format!(
            "{}{b}",
            ctx.l(" de la marque ", " for the brand ")
        ));
    }
    if let Some(c) = campaign {
        described.push_str(&format!(
            "{}{c}",
            ctx.l(" de la campagne ", " of the campaign ")
        ));
    }
    let creatives = ctx
        .data
        .creatives()
        .await?
        .iter()
        .filter(|c| brand.is_none_or(|b| c.brand.as_deref().is_some_and(|x| same(x, b))))
        .filter(|c| campaign.is_none_or(|b| c.campaign.as_deref().is_some_and(|x| same(x, b))))
        .collect();
    Ok(Selection {
        creatives,
        described,
        ..Selection::default()
    })
}

async fn select_locations<'d>(ctx: &'d Ctx<'_, '_>) -> Result<Selection<'d>, DbError> {
    let mut described = String::new();
    let city = city(ctx);
    if let Some(format) = ctx.parsed.format {
        described.push_str(&format!(" ({})", format_label(format, ctx.locale)));
    }
    if let Some(c) = &city {
        described.push_str(&format!("{}{c}", ctx.l(" à ", " in ")));
    }
    let locations = ctx
        .data
        .locations()
        .await?
        .iter()
        .filter(|l| {
            city.as_ref()
                .is_none_or(|c| l.city.as_deref().is_some_and(|x| same(x, c)))
        })
        .filter(|l| ctx.parsed.format.is_none_or(|f| l.format == f))
        .collect();
    Ok(Selection {
        locations,
        described,
        ..Selection::default()
    })
}

async fn select_simulations<'d>(ctx: &'d Ctx<'_, '_>) -> Result<Selection<'d>, DbError> {
    let mut described = String::new();
    let city = city(ctx);
    let creative = match ctx.item_of(Kind::Creative) {
        Some(i) => Some(&ctx.data.creatives().await?[i]),
        None => None,
    };
    let location = match ctx.item_of(Kind::Location) {
        Some(i) => Some(&ctx.data.locations().await?[i]),
        None => None,
    };
    if let Some(c) = creative {
        described.push_str(&format!(
            "{}{}",
            ctx.l(" avec la création ", " with the creative "),
            ctx.q(&c.name)
        ));
    }
    if let Some(l) = location {
        described.push_str(&format!(
            "{}{}",
            ctx.l(" sur l'emplacement ", " on the location "),
            ctx.q(&l.name)
        ));
    }
    if let Some(c) = &city {
        described.push_str(&format!("{}{c}", ctx.l(" à ", " in ")));
    }
    if ctx.parsed.night {
        described.push_str(ctx.l(" de nuit", " at night"));
    }
    if let Some(word) = ctx.parsed.status {
        described.push_str(status_phrase(word, Kind::Simulation, ctx.locale));
    }
    let simulations = ctx
        .data
        .simulations()
        .await?
        .iter()
        .filter(|s| creative.is_none_or(|c| s.creative_id == c.id))
        .filter(|s| location.is_none_or(|l| s.location_id == l.id))
        .filter(|s| {
            city.as_ref()
                .is_none_or(|c| s.city.as_deref().is_some_and(|x| same(x, c)))
        })
        .filter(|s| !ctx.parsed.night || s.night.is_some())
        .filter(|s| {
            ctx.parsed
                .status
                .is_none_or(|w| status_matches(w, &s.status))
        })
        .collect();
    Ok(Selection {
        simulations,
        described,
        ..Selection::default()
    })
}

async fn select_heatmaps<'d>(ctx: &'d Ctx<'_, '_>) -> Result<Selection<'d>, DbError> {
    let mut described = String::new();
    if let Some(word) = ctx.parsed.status {
        described.push_str(status_phrase(word, Kind::Heatmap, ctx.locale));
    }
    let heatmaps = ctx
        .data
        .heatmaps()
        .await?
        .iter()
        .filter(|h| {
            ctx.parsed
                .status
                .is_none_or(|w| status_matches(w, h.status))
        })
        .collect();
    Ok(Selection {
        heatmaps,
        described,
        ..Selection::default()
    })
}

/// Whether an item in `status` (a heatmap's or a simulation's) is what `word` asks for.
fn status_matches(word: StatusWord, status: &str) -> bool {
    match word {
        StatusWord::Done => matches!(status, "done" | "partial"),
        StatusWord::Failed => matches!(status, "failed" | "partial"),
        StatusWord::InProgress => matches!(status, "queued" | "processing" | "rendering"),
        StatusWord::Draft => status == "draft",
    }
}

/// How a status filter reads after the kind's noun (" terminées", " that failed").
fn status_phrase(word: StatusWord, kind: Kind, locale: Locale) -> &'static str {
    let feminine = kind != Kind::Location;
    match (word, locale) {
        (StatusWord::Done, Locale::Fr) if feminine => " terminées",
        (StatusWord::Done, Locale::Fr) => " terminés",
        (StatusWord::Failed, Locale::Fr) => " en échec",
        (StatusWord::InProgress, Locale::Fr) => " en cours",
        (StatusWord::Draft, Locale::Fr) => " en brouillon",
        (StatusWord::Done, Locale::En) => " that are done",
        (StatusWord::Failed, Locale::En) => " that failed",
        (StatusWord::InProgress, Locale::En) => " in progress",
        (StatusWord::Draft, Locale::En) => " still in draft",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use StatusWord::{Done, Draft, Failed, InProgress};

    #[test]
    fn status_words_match_the_stored_statuses() {
        let statuses = [
            "draft",
            "queued",
            "processing",
            "rendering",
            "done",
            "partial",
            "failed",
        ];
        let check = |word: StatusWord, expected: &[&str]| {
            let matching: Vec<&str> = statuses
                .into_iter()
                .filter(|s| status_matches(word, s))
                .collect();
            assert_eq!(matching, expected, "{word:?}");
        };
        // A partly failed heatmap is both done (it has a score) and failed (images to retry).
        check(Done, &["done", "partial"]);
        check(Failed, &["partial", "failed"]);
        check(InProgress, &["queued", "processing", "rendering"]);
        check(Draft, &["draft"]);
    }

    #[test]
    fn status_phrases_agree_with_the_noun() {
        let check = |word: StatusWord, kind: Kind, locale: Locale, expected: &str| {
            assert_eq!(
                status_phrase(word, kind, locale),
                expected,
                "{word:?} {kind:?}"
            );
        };
        check(Done, Kind::Simulation, Locale::Fr, " terminées");
        check(Done, Kind::Heatmap, Locale::Fr, " terminées");
        check(Done, Kind::Location, Locale::Fr, " terminés");
        check(Done, Kind::Location, Locale::En, " that are done");
        check(Failed, Kind::Heatmap, Locale::Fr, " en échec");
        check(Failed, Kind::Heatmap, Locale::En, " that failed");
        check(InProgress, Kind::Simulation, Locale::En, " in progress");
        check(Draft, Kind::Simulation, Locale::Fr, " en brouillon");
        // Every phrase follows a noun: it starts with a space.
        for word in [Done, Failed, InProgress, Draft] {
            for locale in [Locale::Fr, Locale::En] {
                assert!(status_phrase(word, Kind::Heatmap, locale).starts_with(' '));
            }
        }
    }
}
