//! What the engine reads of a question beyond its own words ([`crate::assistant::intent`]): the
//! intent it inherits from the previous question ("and in Paris?"), the kind and the item of
//! the page the user is on, and a place it names that none of the user's locations has.

use crate::assistant::Question;
use crate::assistant::data::Kind;
use crate::assistant::intent::{self, Intent, Parsed};
use crate::db::search::normalize;

/// "And in Paris?": a short question with no intent of its own takes the previous question's.
pub(super) fn follow_up(parsed: &mut Parsed, question: &Question) {
    if parsed.intent.is_some() || parsed.howto {
        return;
    }
    let short = parsed.words.len() <= 5;
    let linked = matches!(
        parsed.words.first().map(String::as_str),
        Some("and" | "et" | "what" | "how" | "pour" | "for" | "in" | "a" | "and?")
    );
    if !(short || linked) {
        return;
    }
    let Some(previous) = question.earlier().next().map(intent::parse) else {
        return;
    };
    if let Some(
        intent @ (Intent::Count
        | Intent::List
        | Intent::Best
        | Intent::Worst
        | Intent::Latest
        | Intent::Status),
    ) = previous.intent
    {
        parsed.intent = Some(intent);
        if parsed.kinds.is_empty() {
            parsed.kinds = previous.kinds;
        }
        parsed.metric = parsed.metric.or(previous.metric);
    }
}

/// "How many do I have?" on the locations page: a count, list, ranking or latest question that
/// names no kind is about the kind of the page.
pub(super) fn kind_from_page(parsed: &mut Parsed, path: Option<&str>) {
    if parsed.kinds.is_empty()
        && matches!(
            parsed.intent,
            Some(Intent::Count | Intent::List | Intent::Best | Intent::Worst | Intent::Latest)
        )
        && let Some(kind) = path.and_then(kind_of_path)
    {
        parsed.kinds.push(kind);
    }
}

/// The kind of the page at `path` (`/locations/…` → locations).
fn kind_of_path(path: &str) -> Option<Kind> {
    let first = path.trim_start_matches('/').split('/').next()?;
    match first {
        "creatives" => Some(Kind::Creative),
        "locations" => Some(Kind::Location),
        "simulation" => Some(Kind::Simulation),
        "heatmap" => Some(Kind::Heatmap),
        _ => None,
    }
}

/// The item the page at `path` shows, if any (`/heatmap/results/<id>`, `/simulation/<id>`, …).
pub(super) fn item_of_path(path: &str) -> Option<(Kind, &str)> {
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match parts.as_slice() {
        ["creatives", id] => Some((Kind::Creative, id)),
        ["locations", id] if *id != "new" => Some((Kind::Location, id)),
        ["simulation", id] => Some((Kind::Simulation, id)),
        ["heatmap", "results", id] => Some((Kind::Heatmap, id)),
        _ => None,
    }
}

/// A capitalised place after "in", "à", "at" that is not one of the user's cities.
pub(super) fn unknown_place(text: &str) -> Option<String> {
    let tokens: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == '\'' || c == '’')
        .filter(|t| !t.is_empty())
        .collect();
    for (i, token) in tokens.iter().enumerate() {
        let lower = token.to_lowercase();
        if !matches!(
            lower.as_str(),
            "in" | "à" | "a" | "at" | "en" | "dans" | "near"
        ) {
            continue;
        }
        let place = place_after(&tokens[i + 1..]);
        if !place.is_empty() {
            return Some(place.join(" "));
        }
    }
    None
}

/// The capitalised words at the start of `tokens` that are not the engine's own vocabulary, up
/// to the end of the clause.
fn place_after(tokens: &[&str]) -> Vec<String> {
    let mut place: Vec<String> = Vec::new();
    for next in tokens {
        let clean: String = next
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '-')
            .to_owned();
        let capital = clean.chars().next().is_some_and(char::is_uppercase);
        if !capital || intent::is_vocabulary(&normalize(&clean)) {
            break;
        }
        place.push(clean);
        if next.ends_with(['?', '!', '.', ',']) {
            break;
        }
    }
    place
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assistant::{Locale, Message, Role};

    #[test]
    fn pages_give_their_kind_and_item() {
        let check = |path: &str, kind: Option<Kind>, item: Option<(Kind, &str)>| {
            assert_eq!(kind_of_path(path), kind, "{path}");
            assert_eq!(item_of_path(path), item, "{path}");
        };
        check("/locations", Some(Kind::Location), None);
        check("/locations/new", Some(Kind::Location), None);
        check(
            "/locations/l1",
            Some(Kind::Location),
            Some((Kind::Location, "l1")),
        );
        check(
            "/creatives/c1",
            Some(Kind::Creative),
            Some((Kind::Creative, "c1")),
        );
        check(
            "/simulation/s1",
            Some(Kind::Simulation),
            Some((Kind::Simulation, "s1")),
        );
        check(
            "/heatmap/results/h1",
            Some(Kind::Heatmap),
            Some((Kind::Heatmap, "h1")),
        );
        // The heatmap list and the new heatmap page show no one heatmap.
        check("/heatmap/new", Some(Kind::Heatmap), None);
        check("/heatmap/h1", Some(Kind::Heatmap), None);
        check("/account", None, None);
        check("/", None, None);
    }

    #[test]
    fn unknown_places_are_capitalised_words_after_a_preposition() {
        let check = |text: &str, expected: Option<&str>| {
            assert_eq!(unknown_place(text).as_deref(), expected, "{text}");
        };
        check("How many locations in Marseille?", Some("Marseille"));
        check(
            "Combien d'emplacements à Aix-en-Provence ?",
            Some("Aix-en-Provence"),
        );
        check("locations in Saint Tropez, please", Some("Saint Tropez"));
        // "new" is one of the engine's words (the new location page): it ends the place.
        check("locations in New York", None);
        check(
            "Combien d'abribus dans Clermont-Ferrand ?",
            Some("Clermont-Ferrand"),
        );
        // A lowercase word is no place, nor is one of the engine's own words.
        check("how many locations in paris?", None);
        check("how many locations in Lyon or nearby?", Some("Lyon"));
        check("what is in progress?", None);
        check("How many creatives do I have?", None);
    }

    /// A question `text` asked after the user's `earlier` ones (oldest first).
    fn after(earlier: &[&str], text: &str) -> Parsed {
        let mut messages: Vec<Message> = earlier
            .iter()
            .map(|e| Message {
                role: Role::User,
                content: (*e).to_owned(),
            })
            .collect();
        messages.push(Message {
            role: Role::User,
            content: text.to_owned(),
        });
        let question = Question {
            messages,
            locale: Locale::En,
            path: None,
        };
        let mut parsed = intent::parse(text);
        follow_up(&mut parsed, &question);
        parsed
    }

    #[test]
    fn follow_ups_take_the_previous_intent() {
        let check = |earlier: &[&str], text: &str, intent: Option<Intent>, kinds: &[Kind]| {
            let parsed = after(earlier, text);
            assert_eq!(parsed.intent, intent, "{text} after {earlier:?}");
            assert_eq!(parsed.kinds, kinds, "{text} after {earlier:?}");
        };
        check(
            &["Combien d'emplacements à Lyon ?"],
            "Et à Paris ?",
            Some(Intent::Count),
            &[Kind::Location],
        );
        // The question's own kind replaces the previous one.
        check(
            &["how many creatives do I have?"],
            "and heatmaps?",
            Some(Intent::Count),
            &[Kind::Heatmap],
        );
        // The latest earlier question counts, not the first.
        check(
            &["how many creatives do I have?", "which heatmaps failed?"],
            "and in Lyon?",
            Some(Intent::List),
            &[Kind::Heatmap],
        );
        // Nothing to follow: a first question, or one after a comparison.
        check(&[], "and in Paris?", None, &[]);
        check(
            &["compare Summer Sale and Winter Promo"],
            "and Moka?",
            None,
            &[],
        );
        // A long question that does not start like a follow-up stands alone.
        check(
            &["how many creatives do I have?"],
            "tell me everything you know about Summer Sale please",
            None,
            &[],
        );
    }

    #[test]
    fn the_page_gives_its_kind_only_to_listing_questions() {
        let check = |text: &str, path: &str, kinds: &[Kind]| {
            let mut parsed = intent::parse(text);
            kind_from_page(&mut parsed, Some(path));
            assert_eq!(parsed.kinds, kinds, "{text} on {path}");
        };
        check("how many do I have?", "/heatmap", &[Kind::Heatmap]);
        check("combien en ai-je ?", "/locations/l1", &[Kind::Location]);
        // A kind in the question wins over the page's.
        check("how many creatives?", "/heatmap", &[Kind::Creative]);
        // A greeting is about no kind, whatever the page.
        check("hello", "/heatmap", &[]);
    }
}
