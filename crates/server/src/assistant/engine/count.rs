//! Count and list answers: "how many locations in Lyon?", "list my creatives for the brand
//! Moka", and "how many do I have?" with no kind (everything, in one sentence).

use super::Ctx;
use super::help::help_answer;
use super::select::select;
use super::shared::{LINKS_MAX, feminine_e, link, none_noun, noun, page_link, page_of, reply};
use crate::assistant::data::Kind;
use crate::assistant::intent::{Intent, Page};
use crate::assistant::{Link, Locale, Reply, format};
use crate::db::DbError;

/// Most items named in a list answer.
const LIST_MAX: usize = 10;
/// Most items a count names: above it, a count gives the number alone.
const COUNT_NAMES_MAX: usize = 5;

/// Counts or lists the items of the kind the question is about.
pub(super) async fn count_or_list(ctx: &Ctx<'_, '_>, intent: Intent) -> Result<Reply, DbError> {
    let locale = ctx.locale;
    let Some(kind) = ctx.kind() else {
        if intent == Intent::List {
            return Ok(help_answer(&ctx.parsed.words.join(" "), locale, false));
        }
        return count_everything(ctx).await;
    };
    let sel = select(ctx, kind).await?;
    let named = sel.named(kind);
    let shown = if intent == Intent::List {
        LINKS_MAX
    } else {
        COUNT_NAMES_MAX.min(LINKS_MAX)
    };
    let mut links: Vec<Link> = named
        .iter()
        .take(shown)
        .map(|(name, href)| link(name.clone(), href.clone()))
        .collect();
    let page = page_of(kind);
    let city = if kind == Kind::Location {
        ctx.city()
    } else {
        None
    };
    links.push(link(page.label(locale), list_page_href(page, city)));
    let names: Vec<String> = named.into_iter().map(|(name, _)| name).collect();
    let answer = sentence(intent, kind, &names, &sel.described, locale);
    reply(intent, answer, links)
}

/// "How many do I have?": every kind, in one sentence.
async fn count_everything(ctx: &Ctx<'_, '_>) -> Result<Reply, DbError> {
    let locale = ctx.locale;
    let counts = [
        noun(Kind::Creative, ctx.data.creatives().await?.len(), locale),
        noun(Kind::Location, ctx.data.locations().await?.len(), locale),
        noun(
            Kind::Simulation,
            ctx.data.simulations().await?.len(),
            locale,
        ),
        noun(Kind::Heatmap, ctx.data.heatmaps().await?.len(), locale),
    ];
    let answer = format!(
        "{} {}.",
        ctx.l("Vous avez", "You have"),
        format::join(&counts, locale)
    );
    let links = [
        Page::Creatives,
        Page::Locations,
        Page::Simulation,
        Page::Heatmaps,
    ]
    .into_iter()
    .map(|p| page_link(p, locale))
    .collect();
    reply(Intent::Count, answer, links)
}

/// The list page's address; the locations page opens searched for the city asked about.
fn list_page_href(page: Page, city: Option<&String>) -> String {
    match city {
        Some(city) => format!(
            "/locations?q={}",
            url::form_urlencoded::byte_serialize(city.as_bytes()).collect::<String>()
        ),
        None => page.href().to_owned(),
    }
}

/// The names of a list answer: at most [`LIST_MAX`], then how many more there are.
fn list_text(names: &[String], locale: Locale) -> String {
    let more = names.len().saturating_sub(LIST_MAX);
    if more > 0 {
        format!(
            "{}{}",
            names[..LIST_MAX].join(", "),
            match locale {
                Locale::Fr => format!(" et {more} autres"),
                Locale::En => format!(" and {more} more"),
            }
        )
    } else {
        format::join(names, locale)
    }
}

/// The answer to a count or a list of `names` (the items that passed the filters that
/// `described` says).
fn sentence(
    intent: Intent,
    kind: Kind,
    names: &[String],
    described: &str,
    locale: Locale,
) -> String {
    let n = names.len();
    let have = locale.pick("Vous avez", "You have");
    if n == 0 {
        let none = format!("{}{described}", none_noun(kind, locale));
        return match locale {
            Locale::Fr => format!("Vous n'avez aucun{} {none}.", feminine_e(kind)),
            Locale::En => format!("You have no {none}."),
        };
    }
    let what = format!("{}{described}", noun(kind, n, locale));
    if intent == Intent::Count && n > COUNT_NAMES_MAX {
        return format!("{have} {what}.");
    }
    let list = list_text(names, locale);
    match (intent, locale) {
        // English drops the space before every colon of the sentence, the names' included. A
        // list of one reads as a count: "you have 1 heatmap that failed", not "your 1 heatmap".
        _ if intent == Intent::Count || n == 1 => {
            format!("{have} {what} : {list}.").replace(" : ", locale.pick(" : ", ": "))
        }
        (_, Locale::Fr) => format!("Vos {what} : {list}."),
        (_, Locale::En) => format!("Your {what}: {list}."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("N{i}")).collect()
    }

    #[test]
    fn lists_name_ten_items_then_say_how_many_more() {
        let check = |n: usize, locale: Locale, expected: &str| {
            assert_eq!(list_text(&names(n), locale), expected, "{n}");
        };
        check(1, Locale::En, "N1");
        check(2, Locale::Fr, "N1 et N2");
        check(3, Locale::En, "N1, N2 and N3");
        check(10, Locale::En, "N1, N2, N3, N4, N5, N6, N7, N8, N9 and N10");
        check(
            11,
            Locale::En,
            "N1, N2, N3, N4, N5, N6, N7, N8, N9, N10 and 1 more",
        );
        check(
            13,
            Locale::Fr,
            "N1, N2, N3, N4, N5, N6, N7, N8, N9, N10 et 3 autres",
        );
    }

    #[test]
    fn counts_and_lists_read_in_both_languages() {
        use Intent::{Count, List};
        use Kind::{Creative, Heatmap, Location};
        let check = |intent: Intent, kind: Kind, n: usize, locale: Locale, expected: &str| {
            let text = sentence(intent, kind, &names(n), " in Lyon", locale);
            assert_eq!(text, expected, "{intent:?} {kind:?} {n} {locale:?}");
        };
        // None: the noun agrees in gender in French, and goes plural in English.
        check(
            Count,
            Location,
            0,
            Locale::Fr,
            "Vous n'avez aucun emplacement in Lyon.",
        );
        check(
            List,
            Creative,
            0,
            Locale::Fr,
            "Vous n'avez aucune création in Lyon.",
        );
        check(
            Count,
            Heatmap,
            0,
            Locale::En,
            "You have no heatmaps in Lyon.",
        );
        // A small count names the items; French puts a space before the colon.
        check(
            Count,
            Location,
            2,
            Locale::Fr,
            "Vous avez 2 emplacements in Lyon : N1 et N2.",
        );
        check(
            Count,
            Location,
            1,
            Locale::En,
            "You have 1 location in Lyon: N1.",
        );
        check(
            Count,
            Location,
            5,
            Locale::En,
            "You have 5 locations in Lyon: N1, N2, N3, N4 and N5.",
        );
        // Above five, a count is the number alone; a list still names them.
        check(
            Count,
            Location,
            6,
            Locale::En,
            "You have 6 locations in Lyon.",
        );
        check(
            List,
            Location,
            6,
            Locale::En,
            "Your 6 locations in Lyon: N1, N2, N3, N4, N5 and N6.",
        );
        // A list of one is said as a count.
        check(
            List,
            Heatmap,
            1,
            Locale::Fr,
            "Vous avez 1 heatmap in Lyon : N1.",
        );
    }

    #[test]
    fn the_locations_page_opens_on_the_city() {
        let city = "Saint-Étienne & co".to_owned();
        assert_eq!(
            list_page_href(Page::Locations, Some(&city)),
            "/locations?q=Saint-%C3%89tienne+%26+co"
        );
        assert_eq!(list_page_href(Page::Locations, None), "/locations");
        assert_eq!(list_page_href(Page::Heatmaps, None), "/heatmap");
    }
}
