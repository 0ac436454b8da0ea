//! The offline engine: reads the question ([`intent`]), finds the user's names in it
//! ([`matching`]), reads the data it needs ([`data`], owner-scoped), and writes a short answer
//! in the question's language with links to the items and pages it mentions. How-to questions
//! are answered from the help articles ([`super::help`]). Everything runs inside `regard`.
//!
//! This module owns the route from a question to one intent's answer: it reads the question
//! (`question`), finds the names it holds (`targets`), settles the intent, and hands the
//! context (`Ctx`) to the private module that answers that intent: `count` (count and list),
//! `rank` (best and worst), `latest`, `status`, `seen`, `compare`, `navigate`, `details`,
//! `greeting` and `help` (how-to answers and "I don't know"). The items that pass the
//! question's filters come from `select`; how a heatmap's or a simulation's state reads from
//! `states`; words, links and labels shared by several answers from `shared`.
//!
//! [`intent`]: super::intent
//! [`matching`]: super::matching
//! [`data`]: super::data

mod clauses;
mod compare;
mod count;
mod details;
mod greeting;
mod help;
mod latest;
mod navigate;
mod question;
mod rank;
#[cfg(test)]
mod samples;
mod seen;
mod select;
mod shared;
mod states;
mod status;
mod targets;

use std::ops::Deref;

pub use help::help_answer;

use super::data::{Data, Kind};
use super::format::quoted;
use super::intent::{self, Intent, Metric, Parsed};
use super::{Locale, Question, Reply};
use crate::db::DbError;
use crate::db::search::normalize;
use targets::Target;

/// The language of the answer: the question's own when its words say it clearly, otherwise
/// the app's.
pub fn reply_locale(question: &Question) -> Locale {
    intent::parse(question.text())
        .language
        .unwrap_or(question.locale)
}

/// What the engine has read of a question, apart from the data: kept separate from [`Ctx`] so
/// that the reading can be built, and tested, without a database.
struct Asked {
    locale: Locale,
    parsed: Parsed,
    path: Option<String>,
    targets: Vec<Target>,
    /// A place named in the question that none of the user's locations has ("à Marseille").
    unknown_place: Option<String>,
}

/// Everything the answer is built from: the reading of the question and the user's data.
struct Ctx<'d, 'a> {
    data: &'d Data<'a>,
    asked: Asked,
}

/// The answers read the question through their context as if its fields were the context's
/// own (`ctx.locale`, `ctx.parsed`): the data is the only other thing they need.
impl Deref for Ctx<'_, '_> {
    type Target = Asked;

    fn deref(&self) -> &Asked {
        &self.asked
    }
}

/// Answers a question offline: each of its clauses (usually one; "how many locations do I have
/// and which are in Paris?" has two), joined into one reply.
pub async fn answer(data: &Data<'_>, question: &Question) -> Result<Reply, DbError> {
    // The whole question says the language: a clause alone ("lesquels sont à Paris ?") may not.
    let locale = reply_locale(question);
    let mut replies = Vec::new();
    let mut before: Option<Parsed> = None;
    for clause in clauses::split(question.text()) {
        let parsed = read_clause(clause, question, before.as_ref());
        replies.push(answer_clause(data, question, clause, parsed.clone(), locale).await?);
        before = Some(parsed);
    }
    Ok(clauses::join(replies))
}

/// Reads one clause: the first takes what the conversation and the page say, a later one the
/// subject of the clause before it.
fn read_clause(clause: &str, question: &Question, before: Option<&Parsed>) -> Parsed {
    let mut parsed = intent::parse(clause);
    match before {
        None => question::follow_up(&mut parsed, question),
        Some(before) => clauses::inherit_subject(&mut parsed, before),
    }
    question::kind_from_page(&mut parsed, question.path.as_deref());
    parsed
}

/// Answers one clause `text` of the question, read as `parsed`.
async fn answer_clause(
    data: &Data<'_>,
    question: &Question,
    text: &str,
    parsed: Parsed,
    locale: Locale,
) -> Result<Reply, DbError> {
    let mut ctx = Ctx {
        data,
        asked: Asked {
            locale,
            parsed,
            path: question.path.clone(),
            targets: Vec::new(),
            unknown_place: None,
        },
    };
    match ctx.parsed.intent {
        Some(Intent::Help) => return Ok(help_answer(text, locale, true)),
        Some(Intent::Greeting) => return Ok(greeting::greeting(&ctx)),
        _ => {}
    }
    if !ctx.page_only() {
        ctx.asked.targets = targets::find(&ctx).await?;
    }
    if ctx.targets.iter().all(|t| !matches!(t, Target::City(_))) {
        ctx.asked.unknown_place = question::unknown_place(text);
    }
    let named = distinct_names(&ctx).await?;
    match route(&ctx, named, text) {
        Some(intent) => dispatch(&ctx, intent, text).await,
        None => Ok(help_answer(text, locale, false)),
    }
}

/// How many distinct names the question holds (a simulation and its attention heatmap share
/// one, and count once).
async fn distinct_names(ctx: &Ctx<'_, '_>) -> Result<usize, DbError> {
    let mut names: Vec<String> = Vec::new();
    for (kind, i) in ctx.items().collect::<Vec<_>>() {
        let name = normalize(&targets::item_name(ctx.data, kind, i).await?);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    Ok(names.len())
}

/// The intent to answer, given how many distinct names the question holds; `None` when the
/// help articles answer instead (a how-to, or nothing the engine understood).
fn route(asked: &Asked, named: usize, text: &str) -> Option<Intent> {
    let words = &asked.parsed.words;
    let pairs = words.iter().any(|w| {
        matches!(
            w.as_str(),
            "or" | "ou" | "better" | "mieux" | "than" | "and" | "et" | "versus" | "vs"
        )
    });
    match asked.parsed.intent {
        // "Which is better, A or B?": two names make it a comparison.
        Some(Intent::Best | Intent::Worst) | None if named >= 2 && pairs => Some(Intent::Compare),
        Some(intent) => Some(intent),
        None if asked.parsed.open && named > 0 => Some(Intent::Navigate),
        None if named > 0 => Some(Intent::Details),
        None if !asked.parsed.kinds.is_empty() || asked.parsed.format.is_some() => {
            route_kind_words(asked, text)
        }
        None => None,
    }
}

/// A question with kind words ("creatives", "abribus") but no intent and no names: a short
/// one lists the kind, a longer one is left to the help articles.
fn route_kind_words(asked: &Asked, text: &str) -> Option<Intent> {
    let words = &asked.parsed.words;
    let filtered = asked.targets.iter().any(|t| !matches!(t, Target::Item(..)));
    // A longer question with kind words but no names may well be a how-to ("are my
    // unreleased visuals sent anywhere?"): the help articles answer it if they can.
    let content = words
        .iter()
        .filter(|w| w.len() > 2 && !intent::is_vocabulary(w))
        .count();
    if !filtered && content >= 2 && help::answers_well(text, asked.locale) {
        return None;
    }
    // "my creatives", "mes emplacements": a short question naming a kind lists it; a longer
    // one without a verb the engine knows is not a list ("write me a poem about billboards").
    let short_list = words.len() <= 5 && (asked.parsed.mine || asked.parsed.plural);
    (filtered || short_list).then_some(Intent::List)
}

/// Hands the question to the module that answers `intent`.
async fn dispatch(ctx: &Ctx<'_, '_>, intent: Intent, text: &str) -> Result<Reply, DbError> {
    match intent {
        Intent::Count | Intent::List => count::count_or_list(ctx, intent).await,
        Intent::Best | Intent::Worst => rank::rank(ctx, intent == Intent::Best).await,
        Intent::Latest => latest::latest(ctx).await,
        Intent::Status => status::status(ctx).await,
        Intent::Seen => seen::seen(ctx).await,
        Intent::Compare => compare::compare(ctx, text).await,
        Intent::Navigate => navigate::navigate(ctx).await,
        Intent::Details => details::details(ctx).await,
        Intent::Help | Intent::Unknown => Ok(help_answer(text, ctx.locale, false)),
        Intent::Greeting => Ok(greeting::greeting(ctx)),
    }
}

impl Asked {
    /// "Take me to the locations page" needs no data; "open Summer Sale" does.
    fn page_only(&self) -> bool {
        self.parsed.intent == Some(Intent::Navigate)
            && self.parsed.page.is_some()
            && (self.parsed.words.iter().any(|w| w == "page") || !self.parsed.open)
    }

    /// The items the question names, as (kind, index in the user's list of that kind).
    fn items(&self) -> impl Iterator<Item = (Kind, usize)> + '_ {
        self.targets.iter().filter_map(|t| match t {
            Target::Item(k, i) => Some((*k, *i)),
            _ => None,
        })
    }

    /// The first item of `kind` the question names.
    fn item_of(&self, kind: Kind) -> Option<usize> {
        self.items().find(|(k, _)| *k == kind).map(|(_, i)| i)
    }

    fn value(&self, pick: fn(&Target) -> Option<&String>) -> Option<&String> {
        self.targets.iter().find_map(pick)
    }

    /// The brand the question names.
    fn brand(&self) -> Option<&String> {
        self.value(|t| match t {
            Target::Brand(v) => Some(v),
            _ => None,
        })
    }

    /// The campaign the question names.
    fn campaign(&self) -> Option<&String> {
        self.value(|t| match t {
            Target::Campaign(v) => Some(v),
            _ => None,
        })
    }

    /// The city (of the user's locations) the question names.
    fn city(&self) -> Option<&String> {
        self.value(|t| match t {
            Target::City(v) => Some(v),
            _ => None,
        })
    }

    /// The French or the English text, in the answer's language.
    fn l<'s>(&self, fr: &'s str, en: &'s str) -> &'s str {
        self.locale.pick(fr, en)
    }

    /// A name in the answer's quotes.
    fn q(&self, name: &str) -> String {
        quoted(name, self.locale)
    }

    /// The kind the question is about: the one it names, or the one its names imply.
    fn kind(&self) -> Option<Kind> {
        if let Some(kind) = self.parsed.kinds.first() {
            return Some(*kind);
        }
        if self.brand().is_some() || self.campaign().is_some() {
            return Some(Kind::Creative);
        }
        if self.city().is_some() || self.parsed.format.is_some() || self.unknown_place.is_some() {
            return Some(Kind::Location);
        }
        match self.parsed.metric {
            Some(Metric::PanelShare | Metric::Visibility) => Some(Kind::Simulation),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reading of `text` in English, with `targets` as the names found in it.
    fn asked(text: &str, targets: Vec<Target>) -> Asked {
        Asked {
            locale: Locale::En,
            parsed: intent::parse(text),
            path: None,
            targets,
            unknown_place: question::unknown_place(text),
        }
    }

    fn check_kind(text: &str, targets: Vec<Target>, expected: Option<Kind>) {
        assert_eq!(asked(text, targets).kind(), expected, "{text}");
    }

    #[test]
    fn the_kind_comes_from_the_words_then_the_names() {
        use Kind::*;
        check_kind("how many locations do I have", vec![], Some(Location));
        // A kind word wins over what the names imply.
        check_kind(
            "how many simulations for Moka",
            vec![Target::Brand("Moka".into())],
            Some(Simulation),
        );
        check_kind(
            "how many for Moka",
            vec![Target::Brand("Moka".into())],
            Some(Creative),
        );
        check_kind(
            "how many in the campaign Lancement",
            vec![Target::Campaign("Lancement".into())],
            Some(Creative),
        );
        check_kind(
            "how many in Lyon",
            vec![Target::City("Lyon".into())],
            Some(Location),
        );
        // A place none of the user's locations has still makes it a question about locations.
        check_kind("how many in Marseille?", vec![], Some(Location));
        check_kind("how many bus shelters?", vec![], Some(Location));
        check_kind(
            "which one has the best visibility?",
            vec![],
            Some(Simulation),
        );
        check_kind("how many do I have?", vec![], None);
    }

    fn check_route(text: &str, targets: Vec<Target>, named: usize, expected: Option<Intent>) {
        assert_eq!(
            route(&asked(text, targets), named, text),
            expected,
            "{text}"
        );
    }

    #[test]
    fn the_route_settles_the_intent() {
        let item = |i| Target::Item(Kind::Creative, i);
        check_route(
            "which is better, Summer Sale or Winter Promo?",
            vec![item(0), item(1)],
            2,
            Some(Intent::Compare),
        );
        // One name shared by two items is not a comparison: it asks about that name.
        check_route(
            "which is better, Summer Sale or Winter Promo?",
            vec![item(0), item(1)],
            1,
            Some(Intent::Details),
        );
        check_route("Summer Sale", vec![item(0)], 1, Some(Intent::Details));
        check_route("open Summer Sale", vec![item(0)], 1, Some(Intent::Navigate));
        check_route("my creatives", vec![], 0, Some(Intent::List));
        check_route(
            "creatives of the brand Moka",
            vec![Target::Brand("Moka".into())],
            0,
            Some(Intent::List),
        );
        check_route("write me a poem about billboards", vec![], 0, None);
        check_route("who won the football match yesterday?", vec![], 0, None);
    }

    #[test]
    fn only_a_page_question_skips_the_data() {
        let page_only = |text: &str| asked(text, vec![]).page_only();
        assert!(page_only("take me to the locations page"));
        assert!(page_only("go to my creatives"));
        assert!(!page_only("open Summer Sale"));
        assert!(!page_only("how many locations in Lyon?"));
    }
}
