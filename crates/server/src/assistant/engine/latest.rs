//! Latest and first answers: "open my last heatmap", "what is my first creative?", "what did I
//! create last?" (every kind): the item, its date and a short word on its state.

use super::Ctx;
use super::select::{Selection, select};
use super::shared::{feminine_e, href, link, none_noun, one_noun, page_link, page_of, reply};
use super::states::{heatmap_status_text, simulation_status_text};
use crate::assistant::data::Kind;
use crate::assistant::format::{self, quoted};
use crate::assistant::intent::Intent;
use crate::assistant::{Locale, Reply};
use crate::db::DbError;

/// The newest (or oldest) item found: when it was created, its kind, id and name.
struct Found {
    at: i64,
    kind: Kind,
    id: String,
    name: String,
    /// How the question's filters read ([`Selection::described`]).
    described: String,
}

/// Names the newest (or, asked for the first, the oldest) item of the kind asked about, or
/// of every kind.
pub(super) async fn latest(ctx: &Ctx<'_, '_>) -> Result<Reply, DbError> {
    let locale = ctx.locale;
    let oldest = ctx.parsed.oldest;
    let kinds: Vec<Kind> = match ctx.kind() {
        Some(kind) => vec![kind],
        None => Kind::ALL.to_vec(),
    };
    let mut found: Option<Found> = None;
    for kind in kinds {
        let sel = select(ctx, kind).await?;
        let Some((at, id, name)) = end_of(&sel, kind, oldest) else {
            continue;
        };
        let better = found
            .as_ref()
            .is_none_or(|f| if oldest { at < f.at } else { at > f.at });
        if better {
            found = Some(Found {
                at,
                kind,
                id,
                name,
                described: sel.described.clone(),
            });
        }
    }
    let Some(f) = found else {
        let kind = ctx.kind();
        let links = vec![page_link(page_of(kind.unwrap_or(Kind::Creative)), locale)];
        return reply(Intent::Latest, nothing_yet(kind, locale), links);
    };
    let extra = describe_short(ctx, f.kind, &f.id).await?;
    let answer = sentence(&f, oldest, &extra, locale);
    reply(
        Intent::Latest,
        answer,
        vec![
            link(f.name, href(f.kind, &f.id)),
            page_link(page_of(f.kind), locale),
        ],
    )
}

/// The newest (or oldest) selected item of `kind`: (created at, id, name).
fn end_of(sel: &Selection<'_>, kind: Kind, oldest: bool) -> Option<(i64, String, String)> {
    let candidates: Vec<(i64, &String, &String)> = match kind {
        Kind::Creative => sel
            .creatives
            .iter()
            .map(|c| (c.created_at, &c.id, &c.name))
            .collect(),
        Kind::Location => sel
            .locations
            .iter()
            .map(|c| (c.created_at, &c.id, &c.name))
            .collect(),
        Kind::Simulation => sel
            .simulations
            .iter()
            .map(|c| (c.created_at, &c.id, &c.name))
            .collect(),
        Kind::Heatmap => sel
            .heatmaps
            .iter()
            .map(|c| (c.created_at, &c.id, &c.name))
            .collect(),
    };
    // Lists are newest first.
    let pick = if oldest {
        candidates.last()
    } else {
        candidates.first()
    };
    pick.map(|(at, id, name)| (*at, (*id).clone(), (*name).clone()))
}

/// "You have no heatmaps yet", or "you have not created anything yet" when no kind was asked.
fn nothing_yet(kind: Option<Kind>, locale: Locale) -> String {
    match (kind, locale) {
        (Some(k), Locale::Fr) => format!(
            "Vous n'avez encore aucun{} {}.",
            feminine_e(k),
            none_noun(k, locale)
        ),
        (Some(k), Locale::En) => format!("You have no {} yet.", none_noun(k, locale)),
        (None, _) => locale
            .pick(
                "Vous n'avez encore rien créé.",
                "You have not created anything yet.",
            )
            .to_owned(),
    }
}

/// "Your latest", "Votre première": how the answer names the end of the list it picked.
fn which(kind: Kind, oldest: bool, locale: Locale) -> &'static str {
    let masculine = kind == Kind::Location;
    match (locale, oldest) {
        (Locale::Fr, false) if masculine => "Votre dernier",
        (Locale::Fr, false) => "Votre dernière",
        (Locale::Fr, true) if masculine => "Votre premier",
        (Locale::Fr, true) => "Votre première",
        (Locale::En, false) => "Your latest",
        (Locale::En, true) => "Your first",
    }
}

/// The answer naming the item found, its date and `extra` (a short word on its state).
fn sentence(f: &Found, oldest: bool, extra: &str, locale: Locale) -> String {
    let which = which(f.kind, oldest, locale);
    let noun = one_noun(f.kind, locale);
    let name = quoted(&f.name, locale);
    let date = format::date(f.at, locale);
    let described = &f.described;
    match locale {
        Locale::Fr => format!(
            "{which} {noun}{described} est {name}, créé{} le {date}{extra}.",
            feminine_e(f.kind)
        ),
        Locale::En => format!("{which} {noun}{described} is {name}, created on {date}{extra}."),
    }
}

/// A short clause about an item's state: ` ; terminée, score moyen 71/100` for a heatmap, its
/// render for a simulation, its score for a creative, its city for a location.
async fn describe_short(ctx: &Ctx<'_, '_>, kind: Kind, id: &str) -> Result<String, DbError> {
    let locale = ctx.locale;
    let data = ctx.data;
    Ok(match kind {
        Kind::Heatmap => match data.heatmaps().await?.iter().find(|h| h.id == id) {
            Some(h) => format!("{}{}", ctx.l(" ; ", "; "), heatmap_status_text(h, locale)),
            None => String::new(),
        },
        Kind::Simulation => match data.simulations().await?.iter().find(|s| s.id == id) {
            Some(s) => format!(
                "{}{}",
                ctx.l(" ; ", "; "),
                simulation_status_text(s, locale)
            ),
            None => String::new(),
        },
        Kind::Creative => {
            let c = data.creatives().await?.iter().find(|c| c.id == id);
            let scores = data.scores().await?;
            match c.and_then(|c| scores.get(&c.media_id).map(|s| s.score)) {
                Some(score) => format!(
                    "{}{}",
                    ctx.l(", score d'attention ", ", attention score "),
                    format::score(score, locale)
                ),
                None => String::new(),
            }
        }
        Kind::Location => {
            let l = data.locations().await?.iter().find(|l| l.id == id);
            match l.and_then(|l| l.city.as_ref()) {
                Some(city) => format!("{}{city}", ctx.l(", à ", ", in ")),
                None => String::new(),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Locale::{En, Fr};

    #[test]
    fn the_end_of_the_list_agrees_with_the_noun() {
        let check = |kind: Kind, oldest: bool, locale: Locale, expected: &str| {
            assert_eq!(which(kind, oldest, locale), expected, "{kind:?} {oldest}");
        };
        check(Kind::Location, false, Fr, "Votre dernier");
        check(Kind::Creative, false, Fr, "Votre dernière");
        check(Kind::Location, true, Fr, "Votre premier");
        check(Kind::Heatmap, true, Fr, "Votre première");
        check(Kind::Simulation, false, En, "Your latest");
        check(Kind::Location, true, En, "Your first");
    }

    #[test]
    fn nothing_yet_names_the_kind_asked_about() {
        let check = |kind: Option<Kind>, locale: Locale, expected: &str| {
            assert_eq!(nothing_yet(kind, locale), expected, "{kind:?}");
        };
        check(
            Some(Kind::Location),
            Fr,
            "Vous n'avez encore aucun emplacement.",
        );
        check(
            Some(Kind::Heatmap),
            Fr,
            "Vous n'avez encore aucune heatmap.",
        );
        check(Some(Kind::Creative), En, "You have no creatives yet.");
        check(None, Fr, "Vous n'avez encore rien créé.");
        check(None, En, "You have not created anything yet.");
    }

    #[test]
    fn the_answer_gives_the_date_and_the_state() {
        let found = |kind: Kind| Found {
            at: 1_773_316_800_000,
            kind,
            id: "x".into(),
            name: "Bellecour".into(),
            described: " in Lyon".into(),
        };
        assert_eq!(
            sentence(&found(Kind::Location), false, ", à Lyon", Fr),
            "Votre dernier emplacement in Lyon est «\u{a0}Bellecour\u{a0}», créé le 12 mars 2026, à Lyon."
        );
        assert_eq!(
            sentence(&found(Kind::Heatmap), true, "; queued", En),
            "Your first heatmap in Lyon is “Bellecour”, created on 12 March 2026; queued."
        );
        assert_eq!(
            sentence(&found(Kind::Creative), false, "", Fr),
            "Votre dernière création in Lyon est «\u{a0}Bellecour\u{a0}», créée le 12 mars 2026."
        );
    }
}
