//! Two questions in one: "Combien ai-je d'emplacements et lesquels sont à Paris ?" is cut at its
//! coordinating conjunction into clauses that each ask something on their own; each clause is
//! answered as a question of its own, and the answers are joined into one reply. A clause with
//! no kind of item of its own ("lesquels sont à Paris ?") is about the kind of the clause before
//! it.
//!
//! A question is cut only where both sides parse as a question with an intent, so that the
//! conjunctions inside names and comparisons ("compare Summer Sale and Winter Promo",
//! "Pain et chocolat") never cut one.

use crate::assistant::intent::{self, Intent, Parsed};
use crate::assistant::{Link, Reply};

/// Most clauses a question is cut into: beyond that, a message is no longer a question.
const MAX_CLAUSES: usize = 3;

/// The clauses of `text`, in order; the whole text when it asks one thing.
pub(super) fn split(text: &str) -> Vec<&str> {
    let mut clauses = Vec::new();
    let mut rest = text;
    // The last cut first: in "compare A and B and list my creatives", only the second "and"
    // leaves a question on each side.
    while clauses.len() + 1 < MAX_CLAUSES {
        let Some((left, right)) = last_cut(rest) else {
            break;
        };
        clauses.push(right);
        rest = left;
    }
    clauses.push(rest);
    clauses.reverse();
    clauses
}

/// The rightmost cut of `text` with a question on each side.
fn last_cut(text: &str) -> Option<(&str, &str)> {
    cuts(text).into_iter().rev().find_map(|(start, end)| {
        let (left, right) = (text[..start].trim(), text[end..].trim());
        (asks(left) && asks(right)).then_some((left, right))
    })
}

/// Where `text` may be cut, as byte ranges to drop: the words "et" and "and", and a ";" or a
/// "?" (a question mark followed by more text ends a first question).
fn cuts(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut word_start: Option<usize> = None;
    let end = std::iter::once((text.len(), ' '));
    for (i, c) in text.char_indices().chain(end) {
        if c.is_whitespace() {
            if let Some(start) = word_start.take()
                && is_conjunction(&text[start..i])
            {
                out.push((start, i));
            }
        } else if word_start.is_none() {
            word_start = Some(i);
        }
        if matches!(c, ';' | '?') {
            out.push((i, i + c.len_utf8()));
        }
    }
    out.sort_unstable();
    out
}

fn is_conjunction(word: &str) -> bool {
    word.eq_ignore_ascii_case("et") || word.eq_ignore_ascii_case("and")
}

/// Whether a clause asks something on its own: an intent, and more than one word. A greeting
/// ("… and thanks") is courtesy, not a second question.
fn asks(clause: &str) -> bool {
    let parsed = intent::parse(clause);
    parsed.words.len() >= 2 && parsed.intent.is_some_and(|i| i != Intent::Greeting)
}

/// "… et lesquels sont à Paris ?": a clause that names no kind of item is about the kind of
/// the clause before it, and ranks by its measure when it names none.
pub(super) fn inherit_subject(parsed: &mut Parsed, before: &Parsed) {
    if parsed.kinds.is_empty() {
        parsed.kinds = before.kinds.clone();
        parsed.plural = before.plural;
    }
    if parsed.metric.is_none() {
        parsed.metric = before.metric;
    }
}

/// One reply from the replies of the clauses, in order: the answers one after the other, each
/// link once, and the first clause's intent (the API's `intent` names one). A clause the engine
/// could not answer is left out when another was answered.
pub(super) fn join(mut replies: Vec<Reply>) -> Reply {
    if replies.len() == 1
        && let Some(reply) = replies.pop()
    {
        return reply;
    }
    let unknown = Intent::Unknown.code();
    let answered: Vec<Reply> = if replies.iter().any(|r| r.intent != unknown) {
        replies
            .into_iter()
            .filter(|r| r.intent != unknown)
            .collect()
    } else {
        replies.into_iter().take(1).collect()
    };
    let mut links: Vec<Link> = Vec::new();
    for link in answered.iter().flat_map(|r| r.links.iter()) {
        if !links.iter().any(|l| l.href == link.href) {
            links.push(link.clone());
        }
    }
    let answer = answered
        .iter()
        .map(|r| r.answer.trim_end())
        .collect::<Vec<_>>()
        .join("\n\n");
    let intent = answered
        .first()
        .map_or_else(|| unknown.to_owned(), |r| r.intent.clone());
    Reply {
        answer,
        links,
        intent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assistant::data::Kind;

    #[test]
    fn questions_are_cut_where_each_side_asks_something() {
        let cases: &[(&str, &[&str])] = &[
            (
                "Combien ai-je d'emplacements et lesquels sont à Paris ?",
                &["Combien ai-je d'emplacements", "lesquels sont à Paris ?"],
            ),
            (
                "How many locations do I have and which are in Paris?",
                &["How many locations do I have", "which are in Paris?"],
            ),
            (
                "Combien de créations ? Lesquelles sont de la marque Moka ?",
                &[
                    "Combien de créations",
                    "Lesquelles sont de la marque Moka ?",
                ],
            ),
            (
                "which creative scored best; which scored worst?",
                &["which creative scored best", "which scored worst?"],
            ),
            (
                "How do I create a heatmap and how do I share it?",
                &["How do I create a heatmap", "how do I share it?"],
            ),
            // Only the last "and" leaves a question on each side.
            (
                "compare Summer Sale and Winter Promo and list my creatives",
                &["compare Summer Sale and Winter Promo", "list my creatives"],
            ),
            // Three clauses at most: the first ones stay together.
            (
                "how many creatives and which are Moka? and which heatmaps failed? and is my heatmap finished?",
                &[
                    "how many creatives and which are Moka?",
                    "which heatmaps failed?",
                    "is my heatmap finished?",
                ],
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(split(text), *expected, "{text}");
        }
    }

    #[test]
    fn conjunctions_inside_one_question_do_not_cut_it() {
        for text in [
            "compare Summer Sale and Winter Promo",
            "Différence entre Moka Intense et Moka Déca ?",
            "Compare les simulations Summer Sale à Part-Dieu et Moka Intense à Bellecour",
            "Combien d'emplacements à Lyon et à Paris ?",
            "Comment exporter le rapport PDF et le partager ?",
            "Combien de simulations pour Pain et chocolat ?",
            // A greeting after a question is not a second question.
            "how many creatives do I have and thanks",
            "Combien de créations ?",
            "Where is Lyon and?",
        ] {
            assert_eq!(split(text), [text], "{text}");
        }
    }

    #[test]
    fn cuts_are_conjunctions_and_question_marks() {
        let text = "a et b; c? d AND e";
        let cut: Vec<&str> = cuts(text).iter().map(|&(s, e)| &text[s..e]).collect();
        assert_eq!(cut, ["et", ";", "?", "AND"]);
        // Words that merely contain the conjunction are no cut.
        assert!(cuts("Sandwich et-cetera").is_empty());
    }

    #[test]
    fn a_clause_without_a_kind_takes_the_one_before_it() {
        let check = |first: &str, second: &str, kinds: &[Kind]| {
            let before = intent::parse(first);
            let mut parsed = intent::parse(second);
            inherit_subject(&mut parsed, &before);
            assert_eq!(parsed.kinds, kinds, "{second} after {first}");
        };
        check(
            "Combien ai-je d'emplacements",
            "lesquels sont à Paris ?",
            &[Kind::Location],
        );
        check(
            "which creative scored best",
            "which scored worst?",
            &[Kind::Creative],
        );
        // Its own kind wins.
        check(
            "how many creatives",
            "which heatmaps failed?",
            &[Kind::Heatmap],
        );
    }

    fn reply(answer: &str, hrefs: &[&str], intent: Intent) -> Reply {
        Reply {
            answer: answer.to_owned(),
            links: hrefs
                .iter()
                .map(|h| Link {
                    label: h.to_string(),
                    href: h.to_string(),
                })
                .collect(),
            intent: intent.code().to_owned(),
        }
    }

    #[test]
    fn replies_are_joined_in_order_with_each_link_once() {
        let joined = join(vec![
            reply("You have 8 locations.", &["/locations"], Intent::Count),
            reply(
                "Your 3 locations in Paris: A, B and C.",
                &["/locations/a", "/locations"],
                Intent::List,
            ),
        ]);
        assert_eq!(
            joined.answer,
            "You have 8 locations.\n\nYour 3 locations in Paris: A, B and C."
        );
        let hrefs: Vec<&str> = joined.links.iter().map(|l| l.href.as_str()).collect();
        assert_eq!(hrefs, ["/locations", "/locations/a"]);
        assert_eq!(joined.intent, "count");
    }

    #[test]
    fn an_unanswered_clause_is_left_out() {
        let joined = join(vec![
            reply("I don't know.", &["/help"], Intent::Unknown),
            reply("You have 8 creatives.", &["/creatives"], Intent::Count),
        ]);
        assert_eq!(joined.answer, "You have 8 creatives.");
        assert_eq!(joined.intent, "count");
        let joined = join(vec![
            reply("I don't know.", &["/help"], Intent::Unknown),
            reply("I don't know either.", &["/help"], Intent::Unknown),
        ]);
        assert_eq!(joined.answer, "I don't know.");
        assert_eq!(joined.intent, "unknown");
    }
}
