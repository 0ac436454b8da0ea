//! Comparison answers: "compare Summer Sale and Winter Promo", "which is better, A or B?".
//! Two named items are compared by their best analysed render's panel when the question asks
//! about the panel or a score is missing, else by their attention score.

use super::Ctx;
use super::help::help_answer;
use super::shared::{help_link, href, link, reply};
use crate::assistant::data::{Kind, Panel};
use crate::assistant::format::{self, quoted};
use crate::assistant::intent::{Intent, Metric};
use crate::assistant::{Locale, Reply};
use crate::db::DbError;

/// The figures an item can be compared by.
struct Figures {
    name: String,
    href: String,
    score: Option<f64>,
    panel: Option<Panel>,
}

/// Compares the first two items the question (`text`) names.
pub(super) async fn compare(ctx: &Ctx<'_, '_>, text: &str) -> Result<Reply, DbError> {
    let locale = ctx.locale;
    let items = two_items(ctx);
    if items.len() < 2 {
        return too_few_items(ctx, text);
    }
    let a = figures(ctx, items[0].0, items[0].1).await?;
    let b = figures(ctx, items[1].0, items[1].1).await?;
    let links = vec![
        link(a.name.clone(), a.href.clone()),
        link(b.name.clone(), b.href.clone()),
    ];
    let by_panel = matches!(
        ctx.parsed.metric,
        Some(Metric::PanelShare | Metric::Visibility)
    );
    reply(Intent::Compare, comparison(&a, &b, by_panel, locale), links)
}

/// A comparison that names fewer than two items. With no name at all it asks how to compare
/// ("compare two heatmaps"): the help articles answer it when they can. Otherwise the answer
/// asks for the names.
fn too_few_items(ctx: &Ctx<'_, '_>, text: &str) -> Result<Reply, DbError> {
    if ctx.targets.is_empty() {
        let howto = help_answer(text, ctx.locale, true);
        if howto.intent == Intent::Help.code() {
            return Ok(howto);
        }
    }
    let answer = ctx.l(
        "Donnez-moi les noms des deux éléments à comparer, par exemple : « compare Soldes d'été et Promo d'hiver ».",
        "Tell me the names of the two items to compare, for example: “compare Summer Sale and Winter Promo”.",
    );
    reply(
        Intent::Compare,
        answer.to_owned(),
        vec![help_link("assistant", ctx.locale)],
    )
}

/// The distinct items the question names, two of the same kind when the names are shared
/// across kinds and the question says the kind.
fn two_items(ctx: &Ctx<'_, '_>) -> Vec<(Kind, usize)> {
    let mut items: Vec<(Kind, usize)> = ctx.items().collect();
    if let Some(kind) = ctx.parsed.kinds.first() {
        let same: Vec<_> = items.iter().copied().filter(|(k, _)| k == kind).collect();
        if same.len() >= 2 {
            items = same;
        }
    }
    let mut distinct: Vec<(Kind, usize)> = Vec::new();
    for item in items {
        if !distinct.contains(&item) {
            distinct.push(item);
        }
    }
    distinct
}

/// The figures of the item at index `i` of the user's list of `kind`: a creative's or a
/// location's best render, a simulation's own.
async fn figures(ctx: &Ctx<'_, '_>, kind: Kind, i: usize) -> Result<Figures, DbError> {
    let data = ctx.data;
    Ok(match kind {
        Kind::Creative => {
            let c = &data.creatives().await?[i];
            let sims = data.simulations().await?;
            let panels = sims
                .iter()
                .filter(|s| s.creative_id == c.id)
                .filter_map(|s| s.panel);
            Figures {
                name: c.name.clone(),
                href: href(kind, &c.id),
                score: data.scores().await?.get(&c.media_id).map(|s| s.score),
                panel: best_render(panels),
            }
        }
        Kind::Location => {
            let l = &data.locations().await?[i];
            let sims = data.simulations().await?;
            let panels = sims
                .iter()
                .filter(|s| s.location_id == l.id)
                .filter_map(|s| s.panel);
            let score = match &l.photo_media_id {
                Some(m) => data.scores().await?.get(m).map(|s| s.score),
                None => None,
            };
            Figures {
                name: l.name.clone(),
                href: href(kind, &l.id),
                score,
                panel: best_render(panels),
            }
        }
        Kind::Simulation => {
            let s = &data.simulations().await?[i];
            Figures {
                name: s.name.clone(),
                href: href(kind, &s.id),
                score: s.attention_score,
                panel: s.panel,
            }
        }
        Kind::Heatmap => {
            let h = &data.heatmaps().await?[i];
            Figures {
                name: h.name.clone(),
                href: href(kind, &h.id),
                score: h.score,
                panel: None,
            }
        }
    })
}

/// The panel with the largest share of attention among an item's renders.
fn best_render(panels: impl Iterator<Item = Panel>) -> Option<Panel> {
    panels.max_by(|a, b| a.share.total_cmp(&b.share))
}

/// The comparison of `a` and `b`: by their panels when both have one and the question asks
/// about the panel (`by_panel`) or a score is missing, else by their scores, else what is
/// missing.
fn comparison(a: &Figures, b: &Figures, by_panel: bool, locale: Locale) -> String {
    let (qa, qb) = (quoted(&a.name, locale), quoted(&b.name, locale));
    let prefer_panel = by_panel || a.score.is_none() || b.score.is_none();
    if let (true, Some(pa), Some(pb)) = (prefer_panel, a.panel, b.panel) {
        let (win, lose) = if pa.share >= pb.share {
            (&qa, &qb)
        } else {
            (&qb, &qa)
        };
        return match locale {
            Locale::Fr => format!(
                "Sur le panneau, {qa} obtient {} de l'attention (visibilité {}) et {qb} {} (visibilité {}) : {win} attire davantage l'attention que {lose}.",
                format::percent(pa.share, locale),
                format::ratio(pa.visibility, locale),
                format::percent(pb.share, locale),
                format::ratio(pb.visibility, locale)
            ),
            Locale::En => format!(
                "On the panel, {qa} gets {} of the attention (visibility {}) and {qb} {} (visibility {}): {win} draws more attention than {lose}.",
                format::percent(pa.share, locale),
                format::ratio(pa.visibility, locale),
                format::percent(pb.share, locale),
                format::ratio(pb.visibility, locale)
            ),
        };
    }
    if let (Some(sa), Some(sb)) = (a.score, b.score) {
        let tail = score_gap(sa, sb, &qa, &qb, locale);
        return match locale {
            Locale::Fr => format!(
                "{qa} a un score d'attention de {} et {qb} de {} : {tail}.",
                format::score(sa, locale),
                format::score(sb, locale)
            ),
            Locale::En => format!(
                "{qa} has an attention score of {} and {qb} {}: {tail}.",
                format::score(sa, locale),
                format::score(sb, locale)
            ),
        };
    }
    let missing: Vec<String> = [(a, &qa), (b, &qb)]
        .iter()
        .filter(|(f, _)| f.score.is_none() && f.panel.is_none())
        .map(|(_, q)| (*q).clone())
        .collect();
    match locale {
        Locale::Fr => format!(
            "Je ne peux pas encore comparer {qa} et {qb} : {} n'{} pas de score d'attention. Créez une heatmap avec leurs images pour en obtenir.",
            format::join(&missing, locale),
            if missing.len() > 1 { "ont" } else { "a" }
        ),
        Locale::En => format!(
            "I cannot compare {qa} and {qb} yet: {} {} no attention score. Create a heatmap with their images to get one.",
            format::join(&missing, locale),
            if missing.len() > 1 { "have" } else { "has" }
        ),
    }
}

/// Who leads and by how many points, on the scores as shown (rounded); level when they round
/// to the same figure.
fn score_gap(sa: f64, sb: f64, qa: &str, qb: &str, locale: Locale) -> String {
    let diff = (sa.round() - sb.round()).abs();
    let (win, lose) = if sa >= sb { (qa, qb) } else { (qb, qa) };
    if diff == 0.0 {
        return locale
            .pick("ils sont à égalité", "they are level")
            .to_owned();
    }
    let s = if diff > 1.0 { "s" } else { "" };
    match locale {
        Locale::Fr => format!("{win} devance {lose} de {diff} point{s}"),
        Locale::En => format!("{win} is ahead of {lose} by {diff} point{s}"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::samples;
    use super::*;
    use Locale::{En, Fr};

    fn item(name: &str, score: Option<f64>, panel: Option<Panel>) -> Figures {
        Figures {
            name: name.into(),
            href: String::new(),
            score,
            panel,
        }
    }

    #[test]
    fn scores_are_compared_as_shown() {
        let check = |sa: f64, sb: f64, locale: Locale, expected: &str| {
            assert_eq!(score_gap(sa, sb, "A", "B", locale), expected, "{sa} {sb}");
        };
        check(72.0, 60.0, En, "A is ahead of B by 12 points");
        check(60.0, 72.0, Fr, "B devance A de 12 points");
        check(71.0, 70.0, En, "A is ahead of B by 1 point");
        // 70.4 and 69.6 both show as 70/100: level, though one is higher.
        check(70.4, 69.6, Fr, "ils sont à égalité");
        check(70.4, 69.6, En, "they are level");
    }

    #[test]
    fn panels_win_when_asked_for_or_when_a_score_is_missing() {
        let strong = Some(samples::panel(0.3, 0.1, None));
        let weak = Some(samples::panel(0.1, 0.1, None));
        let by_score = comparison(
            &item("A", Some(50.0), weak),
            &item("B", Some(80.0), strong),
            false,
            En,
        );
        assert_eq!(
            by_score,
            "“A” has an attention score of 50/100 and “B” 80/100: “B” is ahead of “A” by 30 points."
        );
        let by_panel = comparison(
            &item("A", Some(50.0), strong),
            &item("B", Some(80.0), weak),
            true,
            En,
        );
        assert_eq!(
            by_panel,
            "On the panel, “A” gets 30% of the attention (visibility 3×) and “B” 10% (visibility 1×): “A” draws more attention than “B”."
        );
        let no_score = comparison(
            &item("A", None, weak),
            &item("B", Some(80.0), strong),
            false,
            Fr,
        );
        assert!(
            no_score.ends_with("«\u{a0}B\u{a0}» attire davantage l'attention que «\u{a0}A\u{a0}»."),
            "{no_score}"
        );
    }

    #[test]
    fn missing_figures_are_named() {
        let fr = comparison(
            &item("A", None, None),
            &item("B", Some(80.0), None),
            false,
            Fr,
        );
        assert_eq!(
            fr,
            "Je ne peux pas encore comparer «\u{a0}A\u{a0}» et «\u{a0}B\u{a0}» : «\u{a0}A\u{a0}» n'a pas de score d'attention. Créez une heatmap avec leurs images pour en obtenir."
        );
        let en = comparison(&item("A", None, None), &item("B", None, None), false, En);
        assert_eq!(
            en,
            "I cannot compare “A” and “B” yet: “A” and “B” have no attention score. Create a heatmap with their images to get one."
        );
    }
}
