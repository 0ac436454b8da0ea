//! The ranking's pure parts: how many items an answer names, their order, and how the
//! sentences read in both languages.

use super::collect::{panel_text, score_text};
use super::*;
use Locale::{En, Fr};

fn words(question: &str) -> Vec<String> {
    crate::assistant::matching::words(question)
}

#[test]
fn the_first_number_of_the_question_says_how_many() {
    let check = |question: &str, ranked: usize, expected: usize| {
        assert_eq!(top_n(&words(question), ranked), expected, "{question}");
    };
    check("which creative scored best?", 8, 1);
    check("top 3 creatives by score", 8, 3);
    check("mes 10 meilleures créations", 20, 10);
    // Never more than there are.
    check("top 5 heatmaps", 2, 2);
    // One, or more than ten, is not a "top N".
    check("best 1 creative", 8, 1);
    check("top 20 creatives", 30, 1);
    // The first number counts, even when it is not a count.
    check("best creative of 2026, top 3", 8, 1);
}

fn ranked(values: &[f64]) -> Vec<Ranked> {
    values
        .iter()
        .enumerate()
        .map(|(index, &value)| Ranked {
            kind: Kind::Creative,
            index,
            value,
            text: String::new(),
            source: None,
        })
        .collect()
}

fn ordered(values: &[f64], best: bool) -> Vec<usize> {
    let mut list = ranked(values);
    order(&mut list, best);
    list.iter().map(|r| r.index).collect()
}

#[test]
fn best_first_or_worst_first_with_ties_in_list_order() {
    assert_eq!(ordered(&[50.0, 80.0, 65.0], true), [1, 2, 0]);
    assert_eq!(ordered(&[50.0, 80.0, 65.0], false), [0, 2, 1]);
    assert_eq!(ordered(&[70.0, 90.0, 70.0, 40.0], true), [1, 0, 2, 3]);
    assert_eq!(ordered(&[70.0, 90.0, 70.0, 40.0], false), [3, 0, 2, 1]);
    assert_eq!(ordered(&[], true), Vec::<usize>::new());
}

#[test]
fn renders_rank_simulations_and_locations_by_default() {
    assert_eq!(default_metric(Kind::Simulation), Metric::PanelShare);
    assert_eq!(default_metric(Kind::Location), Metric::PanelShare);
    assert_eq!(default_metric(Kind::Creative), Metric::Score);
    assert_eq!(default_metric(Kind::Heatmap), Metric::Score);
}

const PANEL: Panel = Panel {
    share: 0.25,
    area_share: 0.08,
    visibility: 3.125,
    first_second: None,
    glance_share: None,
};

fn ranking(kind: Kind, metric: Metric, best: bool, locale: Locale) -> Ranking {
    Ranking {
        kind,
        metric,
        best,
        locale,
    }
}

#[test]
fn a_panel_is_compared_by_its_share_or_its_visibility() {
    let check = |metric: Metric, expected: f64| {
        let r = ranking(Kind::Simulation, metric, true, En);
        assert_eq!(r.panel_value(&PANEL), expected, "{metric:?}");
    };
    check(Metric::PanelShare, 0.25);
    check(Metric::Visibility, 3.125);
    assert!(ranking(Kind::Simulation, Metric::Visibility, true, En).by_panel());
    assert!(!ranking(Kind::Simulation, Metric::Score, true, En).by_panel());
}

#[test]
fn figures_read_in_both_languages() {
    assert_eq!(
        panel_text(&PANEL, En),
        // Shares under 10% get one decimal, dropped when it is zero.
        "25% of the attention on the panel for 8% of the area (visibility 3.1×)"
    );
    assert_eq!(
        panel_text(&PANEL, Fr),
        "25\u{a0}% de l'attention sur le panneau pour 8\u{a0}% de la surface (visibilité 3,1×)"
    );
    assert_eq!(score_text(71.6, En), "attention score 72/100");
    assert_eq!(score_text(71.4, Fr), "score d'attention 71/100");
}

#[test]
fn one_item_answers_agree_with_the_noun() {
    let check = |kind: Kind, metric: Metric, best: bool, locale: Locale, expected: &str| {
        let r = ranking(kind, metric, best, locale);
        assert_eq!(one_sentence(r, " in Lyon", "“X”", "fig"), expected);
    };
    check(
        Kind::Creative,
        Metric::Score,
        true,
        Fr,
        "Votre meilleure création in Lyon pour le score d'attention est “X” : fig.",
    );
    check(
        Kind::Location,
        Metric::Visibility,
        true,
        Fr,
        "Votre meilleur emplacement in Lyon pour la visibilité du panneau est “X” : fig.",
    );
    check(
        Kind::Simulation,
        Metric::PanelShare,
        false,
        Fr,
        "Votre moins bonne simulation in Lyon pour la part d'attention sur le panneau est “X” : fig.",
    );
    check(
        Kind::Location,
        Metric::Score,
        false,
        Fr,
        "Votre moins bon emplacement in Lyon pour le score d'attention est “X” : fig.",
    );
    check(
        Kind::Heatmap,
        Metric::Score,
        true,
        En,
        "Your best heatmap in Lyon by attention score is “X”: fig.",
    );
    check(
        Kind::Simulation,
        Metric::Visibility,
        false,
        En,
        "Your weakest simulation in Lyon by panel visibility is “X”: fig.",
    );
}

#[test]
fn several_item_answers_count_and_join_them() {
    let parts = vec!["A (1)".to_owned(), "B (2)".to_owned(), "C (3)".to_owned()];
    let check = |best: bool, locale: Locale, expected: &str| {
        let r = ranking(Kind::Creative, Metric::Score, best, locale);
        assert_eq!(many_sentence(r, "", &parts), expected);
    };
    check(
        true,
        Fr,
        "Vos meilleurs 3 pour le score d'attention : A (1), B (2) et C (3).",
    );
    check(
        false,
        Fr,
        "Vos moins bons 3 pour le score d'attention : A (1), B (2) et C (3).",
    );
    check(
        true,
        En,
        "Your 3 best by attention score: A (1), B (2) and C (3).",
    );
    check(
        false,
        En,
        "Your 3 weakest by attention score: A (1), B (2) and C (3).",
    );
}

#[test]
fn nothing_to_rank_says_what_is_missing() {
    let hrefs = |links: &[Link]| links.iter().map(|l| l.href.clone()).collect::<Vec<_>>();
    // No items at all: the kind's page.
    let (answer, links) = nothing_ranked(Kind::Creative, false, 0, Fr);
    assert_eq!(answer, "Vous n'avez encore aucune création à classer.");
    assert_eq!(hrefs(&links), ["/creatives"]);
    let (answer, links) = nothing_ranked(Kind::Location, true, 0, En);
    assert_eq!(answer, "You have no locations to rank yet.");
    assert_eq!(hrefs(&links), ["/locations"]);
    let (answer, _) = nothing_ranked(Kind::Location, true, 0, Fr);
    assert_eq!(answer, "Vous n'avez encore aucun emplacement à classer.");
    // Items without renders analysed: the rendering page and its help.
    let (answer, links) = nothing_ranked(Kind::Location, true, 3, En);
    assert!(answer.starts_with("None of your simulations"), "{answer}");
    assert_eq!(hrefs(&links), ["/simulation", "/help/simulations"]);
    let (_, links) = nothing_ranked(Kind::Simulation, false, 3, En);
    assert_eq!(hrefs(&links), ["/simulation", "/help/simulations"]);
    // Images without a heatmap: a new heatmap and its help.
    let (answer, links) = nothing_ranked(Kind::Creative, false, 3, Fr);
    assert!(answer.starts_with("Aucun score d'attention"), "{answer}");
    assert_eq!(hrefs(&links), ["/heatmap/new", "/help/heatmaps"]);
}
