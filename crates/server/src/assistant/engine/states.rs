//! How a heatmap's or a simulation's state reads (`terminée, 3 images analysées, score moyen
//! 71/100`, `rendered, 18% of the attention on the panel`): the status, latest and details
//! answers all say it the same way.

use crate::assistant::Locale;
use crate::assistant::data::{Heatmap, Simulation};
use crate::assistant::format;

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
}
