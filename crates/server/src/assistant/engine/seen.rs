//! "Will my panel be seen?": the simulation named, else the one on the page, else the latest
//! with an analysed panel (else the latest): the probability that a passer-by looks at its
//! panel within the first second, then its share of three seconds' attention.

use super::Ctx;
use super::question::item_of_path;
use super::shared::{href, link, page_link, reply};
use super::targets::item_id;
use crate::assistant::data::{Kind, Panel, Simulation};
use crate::assistant::format;
use crate::assistant::intent::{Intent, Page};
use crate::assistant::{Locale, Reply};
use crate::db::DbError;

/// Says whether the panel of the simulation the question is about is seen.
pub(super) async fn seen(ctx: &Ctx<'_, '_>) -> Result<Reply, DbError> {
    let locale = ctx.locale;
    let Some(s) = chosen(ctx).await? else {
        return reply(
            Intent::Seen,
            ctx.l(
                "Vous n'avez encore aucune simulation : placez une création sur un emplacement, faites le rendu puis analysez l'attention pour savoir si le panneau sera vu dans la première seconde.",
                "You have no simulation yet: place a creative on a location, render it, then analyse its attention to learn whether the panel is seen within the first second.",
            )
            .to_owned(),
            vec![page_link(Page::Simulation, locale)],
        );
    };
    let name = format::quoted(&s.name, locale);
    reply(
        Intent::Seen,
        seen_text(&name, s.panel.as_ref(), locale),
        vec![link(s.name.clone(), href(Kind::Simulation, &s.id))],
    )
}

/// The simulation the question is about: the one it names, else the one on the page, else
/// the latest with an analysed panel, else the latest.
async fn chosen<'d>(ctx: &'d Ctx<'_, '_>) -> Result<Option<&'d Simulation>, DbError> {
    let simulations = ctx.data.simulations().await?;
    let named = ctx.items().find(|(k, _)| *k == Kind::Simulation);
    let id = match named {
        Some((kind, i)) => Some(item_id(ctx.data, kind, i).await?),
        None => ctx
            .path
            .as_deref()
            .and_then(item_of_path)
            .filter(|(k, _)| *k == Kind::Simulation)
            .map(|(_, id)| id.to_owned()),
    };
    Ok(match id {
        Some(id) => simulations.iter().find(|s| s.id == id),
        None => simulations
            .iter()
            .find(|s| s.panel.is_some())
            .or_else(|| simulations.first()),
    })
}

/// The answer about the simulation `name` (quoted) and its analysed `panel`, if any.
fn seen_text(name: &str, panel: Option<&Panel>, locale: Locale) -> String {
    let Some(p) = panel else {
        return match locale {
            Locale::Fr => format!(
                "Le rendu de la simulation {name} n'a pas encore d'analyse d'attention : lancez « Analyser l'attention » sur sa page pour savoir si le panneau sera vu dans la première seconde."
            ),
            Locale::En => format!(
                "The render of the simulation {name} has no attention analysis yet: run “Analyse attention” on its page to learn whether the panel is seen within the first second."
            ),
        };
    };
    let pct = |v: f64| format::percent(v, locale);
    let exploration = match locale {
        Locale::Fr => format!(
            "Sur trois secondes, il reçoit {} de l'attention pour {} de la surface (visibilité {}).",
            pct(p.share),
            pct(p.area_share),
            format::ratio(p.visibility, locale)
        ),
        Locale::En => format!(
            "Over three seconds it gets {} of the attention for {} of the area (visibility {}).",
            pct(p.share),
            pct(p.area_share),
            format::ratio(p.visibility, locale)
        ),
    };
    match (p.first_second, locale) {
        (Some(f), Locale::Fr) => format!(
            "Dans la simulation {name}, environ {} des passants regardent le panneau dans la première seconde ({} du premier regard). {exploration}",
            pct(f),
            pct(p.glance_share.unwrap_or(0.0))
        ),
        (Some(f), Locale::En) => format!(
            "In the simulation {name}, about {} of passers-by look at the panel within the first second ({} of the first glance). {exploration}",
            pct(f),
            pct(p.glance_share.unwrap_or(0.0))
        ),
        (None, Locale::Fr) => format!(
            "La simulation {name} a été analysée avant le modèle du premier regard : relancez l'analyse pour la probabilité d'être vu dans la première seconde. {exploration}"
        ),
        (None, Locale::En) => format!(
            "The simulation {name} was analysed before the first-glance model: analyse it again for the probability of being seen within the first second. {exploration}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::super::samples;
    use super::*;

    #[test]
    fn the_first_second_comes_first_when_the_analysis_has_it() {
        let check = |panel: Option<Panel>, locale: Locale, expected: &str| {
            assert_eq!(seen_text("“Gare”", panel.as_ref(), locale), expected);
        };
        check(
            Some(samples::panel(0.3, 0.1, Some(0.42))),
            Locale::En,
            "In the simulation “Gare”, about 42% of passers-by look at the panel within the first second (21% of the first glance). Over three seconds it gets 30% of the attention for 10% of the area (visibility 3×).",
        );
        check(
            Some(samples::panel(0.05, 0.02, Some(0.6))),
            Locale::Fr,
            "Dans la simulation “Gare”, environ 60\u{a0}% des passants regardent le panneau dans la première seconde (30\u{a0}% du premier regard). Sur trois secondes, il reçoit 5\u{a0}% de l'attention pour 2\u{a0}% de la surface (visibilité 2,5×).",
        );
        // An analysis older than the first-glance model: the three seconds only.
        check(
            Some(samples::panel(0.3, 0.1, None)),
            Locale::En,
            "The simulation “Gare” was analysed before the first-glance model: analyse it again for the probability of being seen within the first second. Over three seconds it gets 30% of the attention for 10% of the area (visibility 3×).",
        );
    }

    #[test]
    fn an_unanalysed_render_says_how_to_analyse_it() {
        let fr = seen_text("«\u{a0}Gare\u{a0}»", None, Locale::Fr);
        assert!(
            fr.starts_with("Le rendu de la simulation «\u{a0}Gare\u{a0}» n'a pas"),
            "{fr}"
        );
        assert!(fr.contains("« Analyser l'attention »"), "{fr}");
        let en = seen_text("“Gare”", None, Locale::En);
        assert!(en.contains("run “Analyse attention” on its page"), "{en}");
    }
}
