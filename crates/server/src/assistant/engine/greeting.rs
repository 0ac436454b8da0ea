//! Greetings and thanks: "bonjour" gets what the assistant can do, with examples; "thanks"
//! gets a short reply.

use super::Ctx;
use super::shared::help_link;
use crate::assistant::intent::Intent;
use crate::assistant::{Locale, Reply};

/// Answers a greeting or a thank-you.
pub(super) fn greeting(ctx: &Ctx<'_, '_>) -> Reply {
    Reply {
        answer: greeting_text(&ctx.parsed.words, ctx.locale).to_owned(),
        links: vec![help_link("assistant", ctx.locale)],
        intent: Intent::Greeting.code().to_owned(),
    }
}

/// The answer to a greeting whose normalised words are `words`.
fn greeting_text(words: &[String], locale: Locale) -> &'static str {
    let thanks = words
        .iter()
        .any(|w| matches!(w.as_str(), "merci" | "thanks" | "thank"));
    if thanks {
        locale.pick(
            "Avec plaisir ! Autre chose ?",
            "You're welcome! Anything else?",
        )
    } else {
        locale.pick(
            "Bonjour ! Je réponds aux questions pratiques et aux questions sur vos créations, emplacements, simulations et heatmaps. Par exemple : « combien d'emplacements à Lyon ? » ou « comment faire un rendu de nuit ? ».",
            "Hello! I answer how-to questions and questions about your creatives, locations, simulations and heatmaps. For example: “how many locations in Lyon?” or “how do I make a night render?”.",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assistant::matching::words;

    #[test]
    fn thanks_get_a_short_reply_and_greetings_the_examples() {
        let check = |question: &str, locale: Locale, starts: &str| {
            let answer = greeting_text(&words(question), locale);
            assert!(answer.starts_with(starts), "{question}: {answer}");
        };
        check("Merci !", Locale::Fr, "Avec plaisir !");
        check("thanks!", Locale::En, "You're welcome!");
        check("thank you so much", Locale::En, "You're welcome!");
        // The thanks are found whatever the answer's language.
        check("merci", Locale::En, "You're welcome!");
        check("Bonjour", Locale::Fr, "Bonjour ! Je réponds");
        check("hello there", Locale::En, "Hello! I answer");
        // "thankful" is not a thank-you.
        check("hi, thankful user here", Locale::En, "Hello!");
    }
}
