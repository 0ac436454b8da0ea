//! Status answers ("is my heatmap finished?", "is the render of Summer Sale ready?"): the
//! heatmap or simulation named, else the one on the page, else the latest; and the phrases
//! that say a heatmap's or a simulation's state, which the latest and details answers use too.

use super::super::data::{Heatmap, Kind, Simulation};
use super::super::format::{self, quoted};
use super::super::intent::{Intent, Page};
use super::super::{Link, Locale, Reply};
use super::Ctx;
use super::question::item_of_path;
use super::shared::{href, kind_name, link, none_noun, page_link, reply};
use super::targets::item_id;
use crate::db::DbError;

/// Says where the heatmap or simulation the question is about stands.
pub(super) async fn status(ctx: &Ctx<'_, '_>) -> Result<Reply, DbError> {
    let locale = ctx.locale;
    let named = ctx
        .items()
        .find(|(k, _)| matches!(k, Kind::Heatmap | Kind::Simulation));
    let target = match named {
        Some((kind, i)) => Some((kind, item_id(ctx.data, kind, i).await?)),
        None => unnamed_target(ctx).await?,
    };
    let Some((kind, id)) = target else {
        let kind = asked_kind(ctx);
        let page = if kind == Kind::Heatmap {
            Page::NewHeatmap
        } else {
            Page::Simulation
        };
        return reply(
            Intent::Status,
            nothing_yet(kind, locale),
            vec![page_link(page, locale)],
        );
    };
    let answer = match kind {
        Kind::Simulation => simulation_status(ctx, &id).await?,
        _ => heatmap_status(ctx, &id, named.is_none()).await?,
    };
    let Some((mut answer, links)) = answer else {
        let (text, page) = match kind {
            Kind::Simulation => (
                ctx.l(
                    "Je ne trouve pas cette simulation.",
                    "I cannot find that simulation.",
                ),
                Page::Simulation,
            ),
            _ => (
                ctx.l(
                    "Je ne trouve pas cette heatmap.",
                    "I cannot find that heatmap.",
                ),
                Page::Heatmaps,
            ),
        };
        return reply(
            Intent::Status,
            text.to_owned(),
            vec![page_link(page, locale)],
        );
    };
    if let Some(first) = answer.get(..1) {
        answer = first.to_uppercase() + &answer[1..];
    }
    reply(Intent::Status, answer, links)
}

/// The kind a status question without a name is about: simulations when it says so, else
/// heatmaps.
fn asked_kind(ctx: &Ctx<'_, '_>) -> Kind {
    match ctx.parsed.kinds.first() {
        Some(Kind::Simulation) => Kind::Simulation,
        _ => Kind::Heatmap,
    }
}

/// The heatmap or simulation of the page the user is on (when the question's kind words allow
/// it), else the latest of the kind asked about.
async fn unnamed_target(ctx: &Ctx<'_, '_>) -> Result<Option<(Kind, String)>, DbError> {
    if let Some((kind, id)) = ctx
        .path
        .as_deref()
        .and_then(item_of_path)
        .filter(|(k, _)| matches!(k, Kind::Heatmap | Kind::Simulation))
        .filter(|(k, _)| ctx.parsed.kinds.is_empty() || ctx.parsed.kinds.contains(k))
    {
        return Ok(Some((kind, id.to_owned())));
    }
    let kind = asked_kind(ctx);
    let id = match kind {
        Kind::Simulation => ctx.data.simulations().await?.first().map(|s| s.id.clone()),
        _ => ctx.data.heatmaps().await?.first().map(|h| h.id.clone()),
    };
    Ok(id.map(|id| (kind, id)))
}

/// "You have no heatmap yet."
fn nothing_yet(kind: Kind, locale: Locale) -> String {
    let none = none_noun(kind, locale);
    match locale {
        Locale::Fr => format!("Vous n'avez encore aucune {none}."),
        Locale::En => format!("You have no {none} yet."),
    }
}

/// The status sentence of the simulation `id` and its link; `None` when there is no such
/// simulation.
async fn simulation_status(
    ctx: &Ctx<'_, '_>,
    id: &str,
) -> Result<Option<(String, Vec<Link>)>, DbError> {
    let locale = ctx.locale;
    let Some(s) = ctx.data.simulations().await?.iter().find(|s| s.id == id) else {
        return Ok(None);
    };
    let links = vec![link(s.name.clone(), href(Kind::Simulation, &s.id))];
    let text = format!(
        "{}{} {} : {}.",
        simulation_lead(&s.status, locale),
        kind_name(Kind::Simulation, locale),
        quoted(&s.name, locale),
        simulation_status_text(s, locale)
    )
    // English drops the space before every colon of the sentence, the name's included.
    .replace(" : ", ctx.l(" : ", ": "));
    Ok(Some((text, links)))
}

/// The status sentence of the heatmap `id` and its link; `None` when there is no such heatmap.
/// When the question named no heatmap (`unnamed`), the answer also counts the others still
/// processing.
async fn heatmap_status(
    ctx: &Ctx<'_, '_>,
    id: &str,
    unnamed: bool,
) -> Result<Option<(String, Vec<Link>)>, DbError> {
    let locale = ctx.locale;
    let heatmaps = ctx.data.heatmaps().await?;
    let Some(h) = heatmaps.iter().find(|h| h.id == id) else {
        return Ok(None);
    };
    let links = vec![link(h.name.clone(), href(Kind::Heatmap, &h.id))];
    let subject = match locale {
        Locale::Fr => kind_name(Kind::Heatmap, locale),
        Locale::En => "the heatmap",
    };
    let mut text = format!(
        "{}{subject} {} {} {}.",
        heatmap_lead(h.status, locale),
        quoted(&h.name, locale),
        ctx.l("est", "is"),
        heatmap_status_text(h, locale)
    );
    let others = heatmaps
        .iter()
        .filter(|o| o.id != h.id && matches!(o.status, "queued" | "processing"))
        .count();
    if unnamed && others > 0 {
        text.push_str(&match locale {
            Locale::Fr => format!(
                " {} encore en cours.",
                format::count(others, "autre heatmap est", "autres heatmaps sont", locale)
            ),
            Locale::En => format!(
                " {} still processing.",
                format::count(others, "other heatmap is", "other heatmaps are", locale)
            ),
        });
    }
    if matches!(h.status, "failed" | "partial") {
        text.push_str(ctx.l(
            " Ouvrez-la pour relancer les images en échec.",
            " Open it to retry the failed images.",
        ));
    }
    Ok(Some((text, links)))
}

/// How a status answer about a simulation starts: yes when it is rendered, not yet while it
/// renders.
fn simulation_lead(status: &str, locale: Locale) -> &'static str {
    let pending = matches!(status, "queued" | "rendering");
    match (status == "done", locale) {
        (true, Locale::Fr) => "Oui : ",
        (true, Locale::En) => "Yes: ",
        (false, Locale::Fr) if pending => "Pas encore : ",
        (false, Locale::En) if pending => "Not yet: ",
        _ => "",
    }
}

/// How a status answer about a heatmap starts: yes once finished (even partly), not yet while
/// it runs.
fn heatmap_lead(status: &str, locale: Locale) -> &'static str {
    match (status, locale) {
        ("done" | "partial", Locale::Fr) => "Oui : ",
        ("done" | "partial", Locale::En) => "Yes: ",
        ("queued" | "processing", Locale::Fr) => "Pas encore : ",
        ("queued" | "processing", Locale::En) => "Not yet: ",
        _ => "",
    }
}

/// Where a heatmap stands: `terminée, 3 images analysées, score moyen 71/100`.
pub(super) fn heatmap_status_text(h: &Heatmap, locale: Locale) -> String {
    let images = format::count(h.total as usize, "image", "images", locale);
    let score = h.score.map(|s| format::score(s, locale));
    match (h.status, locale) {
        ("done", Locale::Fr) => format!(
            "terminée, {images} analysée{}, score moyen {}",
            if h.total > 1 { "s" } else { "" },
            score.unwrap_or_default()
        ),
        ("done", Locale::En) => format!(
            "finished, {images} analysed, mean score {}",
            score.unwrap_or_default()
        ),
        ("partial", Locale::Fr) => format!(
            "terminée, mais {} sur {} en échec{}",
            h.failed,
            images,
            score
                .map(|s| format!(", score moyen {s}"))
                .unwrap_or_default()
        ),
        ("partial", Locale::En) => format!(
            "finished, but {} of {images} failed{}",
            h.failed,
            score
                .map(|s| format!(", mean score {s}"))
                .unwrap_or_default()
        ),
        ("failed", Locale::Fr) => format!("en échec : aucune de ses {images} n'a pu être analysée"),
        ("failed", Locale::En) => format!("failed: none of its {images} could be analysed"),
        ("queued", Locale::Fr) => format!("en attente, {images} à analyser"),
        ("queued", Locale::En) => format!("queued, {images} to analyse"),
        (_, Locale::Fr) => format!(
            "en cours, {} sur {images} terminée{}",
            h.done,
            if h.done > 1 { "s" } else { "" }
        ),
        (_, Locale::En) => format!("still processing, {} of {images} done", h.done),
    }
}

/// Where a simulation stands, with its panel's attention once analysed: `rendue, 18 % de
/// l'attention sur le panneau (visibilité 2,3×)`.
pub(super) fn simulation_status_text(s: &Simulation, locale: Locale) -> String {
    let base = match (s.status.as_str(), locale) {
        ("draft", Locale::Fr) => "brouillon, pas encore rendue",
        ("draft", Locale::En) => "draft, not rendered yet",
        ("queued", Locale::Fr) => "en attente de rendu",
        ("queued", Locale::En) => "waiting to render",
        ("rendering", Locale::Fr) => "rendu en cours",
        ("rendering", Locale::En) => "rendering",
        ("done", Locale::Fr) => "rendue",
        ("done", Locale::En) => "rendered",
        (_, Locale::Fr) => "rendu en échec",
        (_, Locale::En) => "render failed",
    };
    let Some(p) = &s.panel else {
        return base.to_owned();
    };
    let first = p
        .first_second
        .map(|f| match locale {
            Locale::Fr => format!(
                ", vu dans la 1re seconde par {}",
                format::percent(f, locale)
            ),
            Locale::En => format!(
                ", seen within the first second by {}",
                format::percent(f, locale)
            ),
        })
        .unwrap_or_default();
    match locale {
        Locale::Fr => format!(
            "{base}, {} de l'attention sur le panneau (visibilité {}){first}",
            format::percent(p.share, locale),
            format::ratio(p.visibility, locale),
        ),
        Locale::En => format!(
            "{base}, {} of the attention on the panel (visibility {}){first}",
            format::percent(p.share, locale),
            format::ratio(p.visibility, locale),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::super::samples;
    use super::*;
    use Locale::{En, Fr};

    #[test]
    fn heatmap_states_read_in_both_languages() {
        let check = |h: Heatmap, locale: Locale, expected: &str| {
            assert_eq!(heatmap_status_text(&h, locale), expected, "{h:?}");
        };
        let scored = |mut h: Heatmap| {
            h.score = Some(70.6);
            h
        };
        check(
            scored(samples::heatmap("done", 3, 3, 0)),
            Fr,
            "terminée, 3 images analysées, score moyen 71/100",
        );
        // One image: the singular, in both words.
        check(
            scored(samples::heatmap("done", 1, 1, 0)),
            Fr,
            "terminée, 1 image analysée, score moyen 71/100",
        );
        check(
            scored(samples::heatmap("done", 1, 1, 0)),
            En,
            "finished, 1 image analysed, mean score 71/100",
        );
        check(
            scored(samples::heatmap("partial", 4, 3, 1)),
            En,
            "finished, but 1 of 4 images failed, mean score 71/100",
        );
        // No score yet: the clause is left out.
        check(
            samples::heatmap("partial", 4, 3, 1),
            Fr,
            "terminée, mais 1 sur 4 images en échec",
        );
        check(
            samples::heatmap("failed", 2, 0, 2),
            Fr,
            "en échec : aucune de ses 2 images n'a pu être analysée",
        );
        check(
            samples::heatmap("queued", 5, 0, 0),
            En,
            "queued, 5 images to analyse",
        );
        check(
            samples::heatmap("processing", 5, 1, 0),
            Fr,
            "en cours, 1 sur 5 images terminée",
        );
        check(
            samples::heatmap("processing", 5, 2, 0),
            Fr,
            "en cours, 2 sur 5 images terminées",
        );
        check(
            samples::heatmap("processing", 5, 2, 0),
            En,
            "still processing, 2 of 5 images done",
        );
    }

    #[test]
    fn simulation_states_add_the_panel_once_analysed() {
        let check = |status: &str, panel, locale: Locale, expected: &str| {
            let s = samples::simulation(status, panel);
            assert_eq!(simulation_status_text(&s, locale), expected, "{status}");
        };
        check("draft", None, Fr, "brouillon, pas encore rendue");
        check("queued", None, En, "waiting to render");
        check("rendering", None, Fr, "rendu en cours");
        check("failed", None, En, "render failed");
        // Any status the engine does not know reads as a failure.
        check("cancelled", None, Fr, "rendu en échec");
        check(
            "done",
            Some(samples::panel(0.2, 0.1, None)),
            En,
            "rendered, 20% of the attention on the panel (visibility 2×)",
        );
        check(
            "done",
            Some(samples::panel(0.2, 0.08, Some(0.46))),
            Fr,
            "rendue, 20\u{a0}% de l'attention sur le panneau (visibilité 2,5×), vu dans la 1re seconde par 46\u{a0}%",
        );
    }

    #[test]
    fn status_answers_start_with_yes_or_not_yet() {
        let check = |status: &str, simulation: &str, heatmap: &str| {
            assert_eq!(simulation_lead(status, En), simulation, "{status}");
            assert_eq!(heatmap_lead(status, En), heatmap, "{status}");
        };
        check("done", "Yes: ", "Yes: ");
        // A partly failed heatmap is finished; a simulation has no such state.
        check("partial", "", "Yes: ");
        check("queued", "Not yet: ", "Not yet: ");
        check("rendering", "Not yet: ", "");
        check("processing", "", "Not yet: ");
        check("failed", "", "");
        check("draft", "", "");
        assert_eq!(simulation_lead("done", Fr), "Oui : ");
        assert_eq!(heatmap_lead("queued", Fr), "Pas encore : ");
    }

    #[test]
    fn nothing_yet_names_the_kind() {
        assert_eq!(
            nothing_yet(Kind::Heatmap, Fr),
            "Vous n'avez encore aucune heatmap."
        );
        assert_eq!(
            nothing_yet(Kind::Simulation, En),
            "You have no simulations yet."
        );
    }
}
