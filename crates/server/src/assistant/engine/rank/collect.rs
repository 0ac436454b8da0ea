//! What a ranking reads of each selected item: a simulation's panel or score, a creative's
//! or a location's best (or worst) analysed render or its image's latest score, a heatmap's
//! mean score, each with the words that say it.

use std::collections::HashMap;

use super::super::Ctx;
use super::super::select::Selection;
use super::super::shared::{href, index_in, link};
use super::{Ranked, Ranking};
use crate::assistant::Locale;
use crate::assistant::data::{Kind, Panel, Simulation};
use crate::assistant::format::{self, quoted};
use crate::db::DbError;

/// The selected items that have the figure the ranking compares, unordered.
pub(super) async fn collect(
    ctx: &Ctx<'_, '_>,
    ranking: Ranking,
    sel: &Selection<'_>,
) -> Result<Vec<Ranked>, DbError> {
    match (ranking.kind, ranking.by_panel()) {
        (Kind::Simulation, true) => simulations_by_panel(ctx, ranking, sel).await,
        (Kind::Simulation, false) => simulations_by_score(ctx, ranking, sel).await,
        (Kind::Creative | Kind::Location, true) => items_by_best_render(ctx, ranking, sel).await,
        (Kind::Creative | Kind::Location, false) => items_by_score(ctx, ranking, sel).await,
        (Kind::Heatmap, _) => heatmaps_by_score(ctx, ranking, sel).await,
    }
}

/// Simulations by their analysed panel.
async fn simulations_by_panel(
    ctx: &Ctx<'_, '_>,
    ranking: Ranking,
    sel: &Selection<'_>,
) -> Result<Vec<Ranked>, DbError> {
    let all = ctx.data.simulations().await?;
    Ok(sel
        .simulations
        .iter()
        .filter_map(|s| {
            let p = s.panel.as_ref()?;
            Some(Ranked {
                kind: Kind::Simulation,
                index: index_in(all, s).unwrap_or(0),
                value: ranking.panel_value(p),
                text: panel_text(p, ranking.locale),
                source: None,
            })
        })
        .collect())
}

/// Simulations by the attention score of their render.
async fn simulations_by_score(
    ctx: &Ctx<'_, '_>,
    ranking: Ranking,
    sel: &Selection<'_>,
) -> Result<Vec<Ranked>, DbError> {
    let all = ctx.data.simulations().await?;
    Ok(sel
        .simulations
        .iter()
        .filter_map(|s| {
            let score = s.attention_score?;
            Some(Ranked {
                kind: Kind::Simulation,
                index: index_in(all, s).unwrap_or(0),
                value: score,
                text: score_text(score, ranking.locale),
                source: None,
            })
        })
        .collect())
}

/// Creatives or locations by their best (or worst) analysed render.
async fn items_by_best_render(
    ctx: &Ctx<'_, '_>,
    ranking: Ranking,
    sel: &Selection<'_>,
) -> Result<Vec<Ranked>, DbError> {
    let (kind, locale) = (ranking.kind, ranking.locale);
    let sims = ctx.data.simulations().await?;
    let (all, allowed): (Vec<&str>, Vec<&str>) = match kind {
        Kind::Creative => (
            ctx.data
                .creatives()
                .await?
                .iter()
                .map(|c| c.id.as_str())
                .collect(),
            sel.creatives.iter().map(|c| c.id.as_str()).collect(),
        ),
        _ => (
            ctx.data
                .locations()
                .await?
                .iter()
                .map(|l| l.id.as_str())
                .collect(),
            sel.locations.iter().map(|l| l.id.as_str()).collect(),
        ),
    };
    let mut per_item: HashMap<&str, (&Simulation, &Panel)> = HashMap::new();
    for s in sims {
        let Some(p) = &s.panel else { continue };
        let owner = if kind == Kind::Creative {
            s.creative_id.as_str()
        } else {
            s.location_id.as_str()
        };
        if !allowed.contains(&owner) {
            continue;
        }
        let better = per_item
            .get(owner)
            .is_none_or(|(_, q)| (ranking.panel_value(p) > ranking.panel_value(q)) == ranking.best);
        if better {
            per_item.insert(owner, (s, p));
        }
    }
    Ok(per_item
        .into_iter()
        .map(|(owner, (s, p))| Ranked {
            kind,
            index: all.iter().position(|id| *id == owner).unwrap_or(0),
            value: ranking.panel_value(p),
            text: format!(
                "{}{}",
                panel_text(p, locale),
                match locale {
                    Locale::Fr => format!(" dans la simulation {}", quoted(&s.name, locale)),
                    Locale::En => format!(" in the simulation {}", quoted(&s.name, locale)),
                }
            ),
            source: Some(link(s.name.clone(), href(Kind::Simulation, &s.id))),
        })
        .collect())
}

/// Creatives (their image) or locations (their photo) by the latest attention score of that
/// image, with the heatmap it comes from.
async fn items_by_score(
    ctx: &Ctx<'_, '_>,
    ranking: Ranking,
    sel: &Selection<'_>,
) -> Result<Vec<Ranked>, DbError> {
    let scores = ctx.data.scores().await?;
    let all_c = ctx.data.creatives().await?;
    let all_l = ctx.data.locations().await?;
    let heatmaps = ctx.data.heatmaps().await?;
    let media: Vec<(usize, &str)> = match ranking.kind {
        Kind::Creative => sel
            .creatives
            .iter()
            .filter_map(|c| Some((index_in(all_c, c)?, c.media_id.as_str())))
            .collect(),
        _ => sel
            .locations
            .iter()
            .filter_map(|l| Some((index_in(all_l, l)?, l.photo_media_id.as_deref()?)))
            .collect(),
    };
    Ok(media
        .into_iter()
        .filter_map(|(index, media_id)| {
            let s = scores.get(media_id)?;
            let source = heatmaps
                .iter()
                .find(|h| h.id == s.heatmap_id)
                .map(|h| link(h.name.clone(), href(Kind::Heatmap, &h.id)));
            Some(Ranked {
                kind: ranking.kind,
                index,
                value: s.score,
                text: score_text(s.score, ranking.locale),
                source,
            })
        })
        .collect())
}

/// Heatmaps by their mean score.
async fn heatmaps_by_score(
    ctx: &Ctx<'_, '_>,
    ranking: Ranking,
    sel: &Selection<'_>,
) -> Result<Vec<Ranked>, DbError> {
    let locale = ranking.locale;
    let all = ctx.data.heatmaps().await?;
    Ok(sel
        .heatmaps
        .iter()
        .filter_map(|h| {
            let score = h.score?;
            Some(Ranked {
                kind: Kind::Heatmap,
                index: index_in(all, h).unwrap_or(0),
                value: score,
                text: format!(
                    "{} {}",
                    locale.pick("score moyen", "mean score"),
                    format::score(score, locale)
                ),
                source: None,
            })
        })
        .collect())
}

/// A panel's figures: its share of attention against its share of the area, and visibility.
pub(super) fn panel_text(p: &Panel, locale: Locale) -> String {
    match locale {
        Locale::Fr => format!(
            "{} de l'attention sur le panneau pour {} de la surface (visibilité {})",
            format::percent(p.share, locale),
            format::percent(p.area_share, locale),
            format::ratio(p.visibility, locale)
        ),
        Locale::En => format!(
            "{} of the attention on the panel for {} of the area (visibility {})",
            format::percent(p.share, locale),
            format::percent(p.area_share, locale),
            format::ratio(p.visibility, locale)
        ),
    }
}

/// An attention score: `attention score 72/100`.
pub(super) fn score_text(score: f64, locale: Locale) -> String {
    format!(
        "{} {}",
        locale.pick("score d'attention", "attention score"),
        format::score(score, locale)
    )
}
