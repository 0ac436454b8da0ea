//! Status answers ("is my heatmap finished?", "is the render of Summer Sale ready?"): the
//! heatmap or simulation named, else the one on the page, else the latest, with its state
//! ([`super::states`]) after a yes or a not yet.

use super::Ctx;
use super::question::item_of_path;
use super::shared::{href, kind_name, link, none_noun, page_link, reply};
use super::states::{heatmap_status_text, simulation_status_text};
use super::targets::item_id;
use crate::assistant::data::Kind;
use crate::assistant::format::{self, quoted};
use crate::assistant::intent::{Intent, Page};
use crate::assistant::{Link, Locale, Reply};
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

#[cfg(test)]
mod tests {
    use super::*;
    use Locale::{En, Fr};

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
