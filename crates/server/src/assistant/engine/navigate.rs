//! Navigation answers: "open Summer Sale" (the item named) and "take me to the locations page"
//! (a page of the app), each with the button that goes there.

use super::Ctx;
use super::help::help_answer;
use super::shared::{href, kind_name, link, page_link, reply};
use super::targets::{item_id, item_name};
use crate::assistant::data::Kind;
use crate::assistant::format::quoted;
use crate::assistant::intent::{Intent, Page};
use crate::assistant::{Locale, Reply};
use crate::db::DbError;

/// Links the item the question names, else the page it names.
pub(super) async fn navigate(ctx: &Ctx<'_, '_>) -> Result<Reply, DbError> {
    let locale = ctx.locale;
    let opens_item = !ctx.parsed.words.iter().any(|w| w == "page");
    if opens_item && let Some((kind, i)) = ctx.items().next() {
        let name = item_name(ctx.data, kind, i).await?;
        let id = item_id(ctx.data, kind, i).await?;
        let answer = item_sentence(kind, &name, locale);
        return reply(Intent::Navigate, answer, vec![link(name, href(kind, &id))]);
    }
    let Some(page) = ctx.parsed.page else {
        return Ok(help_answer(&ctx.parsed.words.join(" "), locale, false));
    };
    reply(
        Intent::Navigate,
        page_sentence(page, locale),
        vec![page_link(page, locale)],
    )
}

/// "Here is the creative “Summer Sale”: open it with the button below."
fn item_sentence(kind: Kind, name: &str, locale: Locale) -> String {
    let what = kind_name(kind, locale);
    let name = quoted(name, locale);
    match locale {
        Locale::Fr => {
            let text = format!("Voici {what} {name} : ouvrez-la avec le bouton ci-dessous.");
            // The pronoun agrees with the noun: "ouvrez-le" for an emplacement.
            if kind == Kind::Location {
                text.replace(
                    "ouvrez-la avec le bouton ci-dessous",
                    "ouvrez-le avec le bouton ci-dessous",
                )
            } else {
                text
            }
        }
        Locale::En => format!("Here is {what} {name}: open it with the button below."),
    }
}

/// "Here is the Locations page: the button below takes you there."
fn page_sentence(page: Page, locale: Locale) -> String {
    match locale {
        Locale::Fr => format!(
            "Voici la page {} : le bouton ci-dessous vous y emmène.",
            quoted(page.label(locale), locale)
        ),
        Locale::En => format!(
            "Here is the {} page: the button below takes you there.",
            page.label(locale)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Locale::{En, Fr};

    #[test]
    fn items_are_opened_with_the_right_pronoun() {
        let check = |kind: Kind, locale: Locale, expected: &str| {
            assert_eq!(item_sentence(kind, "Gare", locale), expected, "{kind:?}");
        };
        check(
            Kind::Location,
            Fr,
            "Voici l'emplacement «\u{a0}Gare\u{a0}» : ouvrez-le avec le bouton ci-dessous.",
        );
        check(
            Kind::Creative,
            Fr,
            "Voici la création «\u{a0}Gare\u{a0}» : ouvrez-la avec le bouton ci-dessous.",
        );
        check(
            Kind::Heatmap,
            Fr,
            "Voici la heatmap «\u{a0}Gare\u{a0}» : ouvrez-la avec le bouton ci-dessous.",
        );
        check(
            Kind::Simulation,
            En,
            "Here is the simulation “Gare”: open it with the button below.",
        );
    }

    #[test]
    fn pages_are_named_as_in_the_navigation() {
        assert_eq!(
            page_sentence(Page::Locations, Fr),
            "Voici la page «\u{a0}Emplacements\u{a0}» : le bouton ci-dessous vous y emmène."
        );
        assert_eq!(
            page_sentence(Page::NewHeatmap, En),
            "Here is the New heatmap page: the button below takes you there."
        );
    }
}
