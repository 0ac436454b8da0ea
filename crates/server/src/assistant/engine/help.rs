//! How-to answers from the help articles ([`crate::assistant::help`]): the section that answers
//! best, quoted with a link to its article, or, when none does, "I don't know" with what the
//! assistant can do.

use super::shared::{help_link, link, page_link};
use crate::assistant::format::quoted;
use crate::assistant::help::{self, Hit};
use crate::assistant::intent::{Intent, Page};
use crate::assistant::matching;
use crate::assistant::{Locale, Reply};

/// Lowest BM25 score of a help section that counts as an answer (below it the assistant says
/// it does not know). Chosen on the question set (docs/assistant.md).
const HELP_THRESHOLD: f32 = 4.0;
/// Longest quote of a help section in an answer, in characters (whole lines).
const EXCERPT_MAX: usize = 450;

/// Whether the help articles answer `question` clearly, as a how-to would be answered even
/// though it was not phrased as one (the best section scores half again the threshold).
pub(super) fn answers_well(question: &str, locale: Locale) -> bool {
    best_help(question, locale, false)
        .0
        .is_some_and(|h| h.score >= HELP_THRESHOLD * 1.5)
}

/// The bar a section must pass: its BM25 score and the share of the question's words it
/// holds. A question phrased as a how-to (`asked`) lowers both.
fn bar(asked: bool) -> (f32, f32) {
    if asked {
        (HELP_THRESHOLD * 0.5, 0.34)
    } else {
        (HELP_THRESHOLD, 0.5)
    }
}

/// The help section that answers best, and every section that holds enough of the question's
/// words (best first: BM25 score weighted by the square of that share). For "how do I …?" the
/// steps rather than the article's introduction, when they score nearly as well.
fn best_help(question: &str, locale: Locale, asked: bool) -> (Option<Hit>, Vec<Hit>) {
    let hits = help::search(question, locale, 5);
    let (threshold, coverage) = bar(asked);
    let mut passing: Vec<(f32, Hit)> = hits
        .into_iter()
        .filter_map(|h| {
            let c = h.coverage(question, locale);
            (h.score >= threshold && c >= coverage).then_some((h.score * c * c, h))
        })
        .collect();
    passing.sort_by(|a, b| b.0.total_cmp(&a.0));
    let passing: Vec<Hit> = passing.into_iter().map(|(_, h)| h).collect();
    let steps = asked
        && matching::words(question)
            .iter()
            .any(|w| w == "how" || w == "comment");
    let chosen = passing.first().map(|best| {
        if steps {
            steps_of(best, &passing, question, locale)
        } else {
            *best
        }
    });
    (chosen, passing)
}

/// For "how do I …?" answered by an article's introduction (`best`): the section of the same
/// article that holds most of the question's words among those scoring at least 60% of it,
/// else `best`.
fn steps_of(best: &Hit, passing: &[Hit], question: &str, locale: Locale) -> Hit {
    let intro = std::ptr::eq(best.section, &best.article.sections[0]);
    let better = passing
        .iter()
        .filter(|h| {
            intro
                && h.article.slug == best.article.slug
                && !std::ptr::eq(h.section, best.section)
                && h.score >= best.score * 0.6
        })
        .max_by(|a, b| {
            let key = |h: &Hit| (h.section_coverage(question, locale), h.score);
            key(a)
                .partial_cmp(&key(b))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    *better.unwrap_or(best)
}

/// A how-to answer from the help articles, or "I don't know" with what the assistant can do.
/// `asked` is true when the question was phrased as a how-to, which lowers the bar.
pub fn help_answer(question: &str, locale: Locale, asked: bool) -> Reply {
    let (chosen, passing) = best_help(question, locale, asked);
    let Some(hit) = chosen else {
        return Reply {
            answer: locale
                .pick(
                    "Je ne sais pas répondre à cette question. Je peux expliquer comment utiliser Regard (par exemple « comment tracer les coins du panneau ? ») et répondre sur vos données : compter ou lister vos créations, emplacements, simulations et heatmaps, trouver la meilleure ou la dernière, dire si une heatmap est terminée, comparer deux éléments ou vous emmener sur une page.",
                    "I don't know how to answer that. I can explain how to use Regard (for example “how do I draw the panel's corners?”) and answer about your data: count or list your creatives, locations, simulations and heatmaps, find the best or the latest, tell whether a heatmap is finished, compare two items, or take you to a page.",
                )
                .to_owned(),
            links: vec![help_link("assistant", locale), page_link(Page::Help, locale)],
            intent: Intent::Unknown.code().to_owned(),
        };
    };
    let article = hit.article;
    let mut links = vec![link(article.title.clone(), article.href())];
    // A second article when it is nearly as relevant.
    if let Some(second) = passing.iter().find(|h| h.article.slug != article.slug)
        && second.score >= hit.score * 0.8
    {
        links.push(link(second.article.title.clone(), second.article.href()));
    }
    let mut answer = hit.excerpt(question, locale, EXCERPT_MAX);
    let see = match locale {
        Locale::Fr => format!(
            "\nPour en savoir plus : {}.",
            quoted(&article.title, locale)
        ),
        Locale::En => format!("\nMore in {}.", quoted(&article.title, locale)),
    };
    answer.push_str(&see);
    Reply {
        answer,
        links,
        intent: Intent::Help.code().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slug of the article that answers `question`, if one does.
    fn answered_by(question: &str, locale: Locale, asked: bool) -> Option<&'static str> {
        best_help(question, locale, asked).0.map(|h| h.article.slug)
    }

    #[test]
    fn how_to_questions_find_their_article() {
        let check = |question: &str, locale: Locale, slug: Option<&str>| {
            assert_eq!(answered_by(question, locale, true), slug, "{question}");
        };
        check("How do I create a heatmap?", Locale::En, Some("heatmaps"));
        check("Comment créer une heatmap ?", Locale::Fr, Some("heatmaps"));
        check(
            "How can I make a night render with a backlit panel?",
            Locale::En,
            Some("night-renders"),
        );
        check(
            "Comment activer la vérification en deux étapes ?",
            Locale::Fr,
            Some("account-security"),
        );
        // The features shipped after the first articles have theirs.
        check(
            "How do I compare two heatmaps?",
            Locale::En,
            Some("compare"),
        );
        check(
            "Comment comparer deux heatmaps ?",
            Locale::Fr,
            Some("compare"),
        );
        check("Can I export a PDF report?", Locale::En, Some("reports"));
        check(
            "Comment exporter le rapport PDF ?",
            Locale::Fr,
            Some("reports"),
        );
        check(
            "Pourquoi mon rendu paraît terne ?",
            Locale::Fr,
            Some("render-adjustments"),
        );
        check(
            "Why does my render look dull?",
            Locale::En,
            Some("render-adjustments"),
        );
        check(
            "How do I share results with a client?",
            Locale::En,
            Some("sharing"),
        );
        check(
            "Comment révoquer un lien de partage ?",
            Locale::Fr,
            Some("sharing"),
        );
        check(
            "How do I set up two-step verification?",
            Locale::En,
            Some("account-security"),
        );
        check("What's the capital of Australia?", Locale::En, None);
        check("Raconte-moi une blague", Locale::Fr, None);
    }

    #[test]
    fn a_how_to_phrasing_lowers_the_bar() {
        let (asked, unasked) = (bar(true), bar(false));
        assert!(asked.0 < unasked.0 && asked.1 < unasked.1);
        // Whatever passes the higher bar passes the lower one.
        for question in ["How do I create a heatmap?", "what does clarity mean?"] {
            let strict = best_help(question, Locale::En, false).1.len();
            let lenient = best_help(question, Locale::En, true).1.len();
            assert!(lenient >= strict, "{question}");
        }
    }

    #[test]
    fn answers_quote_the_article_and_unknowns_say_what_is_possible() {
        let reply = help_answer("How do I create a heatmap?", Locale::En, true);
        assert_eq!(reply.intent, "help");
        assert_eq!(reply.links[0].href, "/help/heatmaps");
        let last = reply.answer.lines().last().unwrap();
        assert!(last.starts_with("More in “"), "{last}");
        let reply = help_answer("Comment créer une heatmap ?", Locale::Fr, true);
        assert!(
            reply.answer.contains("\nPour en savoir plus : «\u{a0}"),
            "{}",
            reply.answer
        );
        let reply = help_answer("Who won the football match yesterday?", Locale::En, false);
        assert_eq!(reply.intent, "unknown");
        let hrefs: Vec<&str> = reply.links.iter().map(|l| l.href.as_str()).collect();
        assert_eq!(hrefs, ["/help/assistant", "/help"]);
        assert!(reply.answer.starts_with("I don't know"), "{}", reply.answer);
    }

    #[test]
    fn clear_matches_answer_questions_not_phrased_as_how_tos() {
        assert!(!answers_well(
            "write me a poem about billboards",
            Locale::En
        ));
        assert!(!answers_well("Quel temps fera-t-il demain ?", Locale::Fr));
    }
}
