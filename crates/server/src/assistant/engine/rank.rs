//! Best and worst answers: "which creative scored best?", "top 3 simulations by visibility",
//! "what is my weakest location?". Items are ranked by their attention score (a heatmap's
//! image) or by their panel's share of attention or visibility (an analysed render), and the
//! answer names the first one, or the first few when the question asks for a number.

mod collect;

use super::Ctx;
use super::select::select;
use super::shared::{
    LINKS_MAX, feminine_e, help_link, href, link, none_noun, one_noun, page_link, page_of, reply,
};
use super::targets::{item_id, item_name};
use crate::assistant::data::{Kind, Panel};
use crate::assistant::format::{self, quoted};
use crate::assistant::intent::{Intent, Metric, Page};
use crate::assistant::{Link, Locale, Reply};
use crate::db::DbError;

/// What a ranking compares, and in which direction.
#[derive(Debug, Clone, Copy)]
struct Ranking {
    kind: Kind,
    metric: Metric,
    /// Best first (else worst first).
    best: bool,
    locale: Locale,
}

impl Ranking {
    /// Whether the ranking reads an analysed render's panel (else an attention score).
    fn by_panel(self) -> bool {
        matches!(self.metric, Metric::PanelShare | Metric::Visibility)
    }

    /// The figure of a panel that this ranking compares.
    fn panel_value(self, p: &Panel) -> f64 {
        match self.metric {
            Metric::Visibility => p.visibility,
            _ => p.share,
        }
    }
}

/// A ranked value: what is compared and how it reads.
struct Ranked {
    kind: Kind,
    /// The item's index in the user's list of its kind.
    index: usize,
    value: f64,
    text: String,
    /// The heatmap (or simulation) the figure comes from.
    source: Option<Link>,
}

/// Ranks the items of the kind the question is about.
pub(super) async fn rank(ctx: &Ctx<'_, '_>, best: bool) -> Result<Reply, DbError> {
    let locale = ctx.locale;
    let kind = ctx.kind().unwrap_or(Kind::Creative);
    let ranking = Ranking {
        kind,
        metric: ctx.parsed.metric.unwrap_or(default_metric(kind)),
        best,
        locale,
    };
    let intent = if best { Intent::Best } else { Intent::Worst };
    let sel = select(ctx, kind).await?;
    let mut ranked = collect::collect(ctx, ranking, &sel).await?;
    if ranked.is_empty() {
        let (answer, links) = nothing_ranked(kind, ranking.by_panel(), sel.len(kind), locale);
        return reply(intent, answer, links);
    }
    order(&mut ranked, best);
    let top_n = top_n(&ctx.parsed.words, ranked.len());
    let mut links = Vec::new();
    let mut parts = Vec::new();
    for r in &ranked[..top_n] {
        let name = item_name(ctx.data, r.kind, r.index).await?;
        let id = item_id(ctx.data, r.kind, r.index).await?;
        links.push(link(name.clone(), href(r.kind, &id)));
        if let Some(source) = &r.source {
            links.push(source.clone());
        }
        parts.push(format!("{} ({})", quoted(&name, locale), r.text));
    }
    let answer = if top_n == 1 {
        let first = &ranked[0];
        let name = quoted(&item_name(ctx.data, first.kind, first.index).await?, locale);
        one_sentence(ranking, &sel.described, &name, &first.text)
    } else {
        many_sentence(ranking, &sel.described, &parts)
    };
    links.truncate(LINKS_MAX);
    reply(intent, answer, links)
}

/// What a kind is ranked by when the question does not say: a render's panel for simulations
/// and locations, the attention score for creatives and heatmaps.
fn default_metric(kind: Kind) -> Metric {
    match kind {
        Kind::Simulation | Kind::Location => Metric::PanelShare,
        _ => Metric::Score,
    }
}

/// Sorts best first (or worst first); equal and incomparable values keep their order.
fn order(ranked: &mut [Ranked], best: bool) {
    ranked.sort_by(|a, b| {
        let order = b
            .value
            .partial_cmp(&a.value)
            .unwrap_or(std::cmp::Ordering::Equal);
        if best { order } else { order.reverse() }
    });
}

/// How many items the answer names: the first number of the question when it is 2 to 10
/// ("top 3"), else one; never more than were ranked.
fn top_n(words: &[String], ranked: usize) -> usize {
    words
        .iter()
        .find_map(|w| w.parse::<usize>().ok())
        .filter(|n| (2..=10).contains(n))
        .unwrap_or(1)
        .min(ranked)
}

/// What the ranking is by, as the answer says it.
fn measure(metric: Metric, locale: Locale) -> &'static str {
    match (metric, locale) {
        (Metric::Visibility, Locale::Fr) => "la visibilité du panneau",
        (Metric::Visibility, Locale::En) => "panel visibility",
        (Metric::PanelShare, Locale::Fr) => "la part d'attention sur le panneau",
        (Metric::PanelShare, Locale::En) => "share of attention on the panel",
        (Metric::Score, Locale::Fr) => "le score d'attention",
        (Metric::Score, Locale::En) => "attention score",
    }
}

/// The answer naming one item, `name` (quoted), with its figure `text`.
fn one_sentence(ranking: Ranking, described: &str, name: &str, text: &str) -> String {
    let Ranking {
        kind,
        metric,
        best,
        locale,
    } = ranking;
    let noun = one_noun(kind, locale);
    let measure = measure(metric, locale);
    match locale {
        Locale::Fr => {
            let adj = match (best, kind != Kind::Location) {
                (true, true) => "meilleure",
                (true, false) => "meilleur",
                (false, true) => "moins bonne",
                (false, false) => "moins bon",
            };
            format!("Votre {adj} {noun}{described} pour {measure} est {name} : {text}.")
        }
        Locale::En => {
            let adj = if best { "best" } else { "weakest" };
            format!("Your {adj} {noun}{described} by {measure} is {name}: {text}.")
        }
    }
}

/// The answer naming several items, each `parts` a quoted name with its figure.
fn many_sentence(ranking: Ranking, described: &str, parts: &[String]) -> String {
    let Ranking {
        metric,
        best,
        locale,
        ..
    } = ranking;
    let n = parts.len();
    let measure = measure(metric, locale);
    let list = format::join(parts, locale);
    match locale {
        Locale::Fr => {
            let which = if best {
                "Vos meilleurs"
            } else {
                "Vos moins bons"
            };
            format!("{which} {n} pour {measure}{described} : {list}.")
        }
        Locale::En => {
            let adj = if best { "best" } else { "weakest" };
            format!("Your {n} {adj} by {measure}{described}: {list}.")
        }
    }
}

/// Why nothing can be ranked, and what to do about it: there are no such items (`count` is
/// 0), or none has the figure (no analysed render, no heatmap of its image).
fn nothing_ranked(kind: Kind, panel: bool, count: usize, locale: Locale) -> (String, Vec<Link>) {
    if count == 0 {
        let none = none_noun(kind, locale);
        let answer = match locale {
            Locale::Fr => format!(
                "Vous n'avez encore aucun{} {none} à classer.",
                feminine_e(kind)
            ),
            Locale::En => format!("You have no {none} to rank yet."),
        };
        return (answer, vec![page_link(page_of(kind), locale)]);
    }
    if panel || kind == Kind::Simulation {
        (
            locale.pick(
                "Aucune de vos simulations n'a encore d'analyse d'attention : ouvrez une simulation rendue et choisissez « Analyser l'attention ».",
                "None of your simulations has an attention analysis yet: open a rendered simulation and choose “Analyse attention”.",
            )
            .to_owned(),
            vec![page_link(Page::Simulation, locale), help_link("simulations", locale)],
        )
    } else {
        (
            locale.pick(
                "Aucun score d'attention pour l'instant : créez une heatmap avec ces images pour en obtenir un.",
                "No attention score yet: create a heatmap with these images to get one.",
            )
            .to_owned(),
            vec![page_link(Page::NewHeatmap, locale), help_link("heatmaps", locale)],
        )
    }
}

#[cfg(test)]
mod tests;
