//! The user's names in a question: which of their items, brands, campaigns and cities it names
//! ([`Target`]), found tolerantly by [`crate::assistant::matching`] among the kinds the question
//! may be about, and the name and id of an item once found.

use std::collections::HashSet;

use super::Ctx;
use crate::assistant::data::{Data, Kind};
use crate::assistant::intent::{self, Intent, Parsed};
use crate::assistant::matching::{self, Candidate, Found};
use crate::db::DbError;
use crate::db::search::normalize;

/// What a name in the question stands for.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Target {
    /// An item: its kind and its index in the user's list of that kind.
    Item(Kind, usize),
    Brand(String),
    Campaign(String),
    City(String),
}

/// The names found in the question, in the order it says them.
pub(super) async fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Target>, DbError> {
    let kinds = kinds_to_match(&ctx.parsed);
    let candidates = candidates(ctx.data, &kinds).await?;
    let targets = pick(&ctx.parsed.words, &candidates);
    // A name shared by a brand and creatives: in a count or list of creatives, it is the brand.
    let listing = matches!(
        ctx.parsed.intent,
        Some(Intent::Count | Intent::List | Intent::Best | Intent::Worst | Intent::Latest) | None
    );
    if listing {
        drop_shadowed(ctx.data, targets).await
    } else {
        Ok(targets)
    }
}

/// Which kinds' names the question may contain.
fn kinds_to_match(parsed: &Parsed) -> Vec<Kind> {
    match parsed.intent {
        Some(Intent::Compare | Intent::Navigate) | None => Kind::ALL.to_vec(),
        _ if parsed.kinds.is_empty() => Kind::ALL.to_vec(),
        _ => {
            let mut kinds = parsed.kinds.clone();
            // Simulations are filtered by their creative or location; status questions may
            // name a heatmap or a simulation whatever kind word they use.
            if kinds.contains(&Kind::Simulation) {
                kinds.extend([Kind::Creative, Kind::Location]);
            }
            if matches!(parsed.intent, Some(Intent::Status | Intent::Seen)) {
                kinds.extend([Kind::Heatmap, Kind::Simulation]);
            }
            kinds
        }
    }
}

/// The names to look for, in a stable order (items, then their brand, campaign or city, list
/// by list), each brand, campaign and city once.
#[derive(Default)]
struct Candidates {
    list: Vec<Candidate<Target>>,
    /// The values already listed, by kind of value and normalised spelling.
    values: HashSet<(u8, String)>,
}

impl Candidates {
    fn item(&mut self, name: &str, kind: Kind, i: usize) {
        self.list
            .extend(Candidate::new(name, Target::Item(kind, i)));
    }

    fn value(&mut self, target: Target) {
        let (tag, value) = match &target {
            Target::Brand(v) => (0, v),
            Target::Campaign(v) => (1, v),
            Target::City(v) => (2, v),
            Target::Item(..) => return,
        };
        if self.values.insert((tag, normalize(value))) {
            let name = value.clone();
            self.list.extend(Candidate::new(&name, target));
        }
    }
}

/// Every name of `kinds` the user has.
async fn candidates(data: &Data<'_>, kinds: &[Kind]) -> Result<Vec<Candidate<Target>>, DbError> {
    let mut out = Candidates::default();
    if kinds.contains(&Kind::Creative) {
        for (i, c) in data.creatives().await?.iter().enumerate() {
            out.item(&c.name, Kind::Creative, i);
            if let Some(brand) = &c.brand {
                out.value(Target::Brand(brand.clone()));
            }
            if let Some(campaign) = &c.campaign {
                out.value(Target::Campaign(campaign.clone()));
            }
        }
    }
    if kinds.contains(&Kind::Location) || kinds.contains(&Kind::Simulation) {
        for (i, l) in data.locations().await?.iter().enumerate() {
            if kinds.contains(&Kind::Location) {
                out.item(&l.name, Kind::Location, i);
            }
            if let Some(city) = &l.city {
                out.value(Target::City(city.clone()));
            }
        }
    }
    if kinds.contains(&Kind::Simulation) {
        for (i, s) in data.simulations().await?.iter().enumerate() {
            out.item(&s.name, Kind::Simulation, i);
        }
    }
    if kinds.contains(&Kind::Heatmap) {
        for (i, h) in data.heatmaps().await?.iter().enumerate() {
            out.item(&h.name, Kind::Heatmap, i);
        }
    }
    Ok(out.list)
}

/// The targets of the candidates found in `words`, each once, in the order the question says
/// them.
fn pick(words: &[String], candidates: &[Candidate<Target>]) -> Vec<Target> {
    let found = matching::find(words, candidates, &intent::is_vocabulary);
    let mut targets: Vec<Target> = Vec::new();
    for f in &found {
        let target = f.candidate.target.clone();
        if keeps(words, &found, f) && !targets.contains(&target) {
            targets.push(target);
        }
    }
    targets
}

/// Whether the name found at `f` keeps its meaning: "brand Moka", "marque Moka" mean the
/// value, even if a creative has that name too.
fn keeps(words: &[String], found: &[Found<'_, Target>], f: &Found<'_, Target>) -> bool {
    let before = f
        .start
        .checked_sub(1)
        .and_then(|i| words.get(i))
        .map(String::as_str);
    let said_brand = matches!(before, Some("brand" | "marque"));
    let said_campaign = matches!(before, Some("campaign" | "campagne"));
    match &f.candidate.target {
        Target::Brand(_) => !said_campaign,
        Target::Campaign(_) => !said_brand,
        Target::Item(..) => {
            !(said_brand || said_campaign)
                || !found
                    .iter()
                    .any(|g| g.start == f.start && !matches!(g.candidate.target, Target::Item(..)))
        }
        Target::City(_) => true,
    }
}

/// `targets` without the items whose name is also a brand, campaign or city named.
async fn drop_shadowed(data: &Data<'_>, targets: Vec<Target>) -> Result<Vec<Target>, DbError> {
    let values: Vec<String> = targets
        .iter()
        .filter_map(|t| match t {
            Target::Brand(v) | Target::Campaign(v) | Target::City(v) => Some(normalize(v)),
            Target::Item(..) => None,
        })
        .collect();
    let mut kept = Vec::with_capacity(targets.len());
    for t in targets {
        let shadowed = match &t {
            Target::Item(kind, i) => {
                let name = item_name(data, *kind, *i).await?;
                values.contains(&normalize(&name))
            }
            _ => false,
        };
        if !shadowed {
            kept.push(t);
        }
    }
    Ok(kept)
}

/// The name of the item at index `i` of the user's list of `kind`.
pub(super) async fn item_name(data: &Data<'_>, kind: Kind, i: usize) -> Result<String, DbError> {
    Ok(match kind {
        Kind::Creative => data.creatives().await?[i].name.clone(),
        Kind::Location => data.locations().await?[i].name.clone(),
        Kind::Simulation => data.simulations().await?[i].name.clone(),
        Kind::Heatmap => data.heatmaps().await?[i].name.clone(),
    })
}

/// The id of the item at index `i` of the user's list of `kind`.
pub(super) async fn item_id(data: &Data<'_>, kind: Kind, i: usize) -> Result<String, DbError> {
    Ok(match kind {
        Kind::Creative => data.creatives().await?[i].id.clone(),
        Kind::Location => data.locations().await?[i].id.clone(),
        Kind::Simulation => data.simulations().await?[i].id.clone(),
        Kind::Heatmap => data.heatmaps().await?[i].id.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_intent_narrows_the_kinds_to_match() {
        use Kind::*;
        let check = |question: &str, expected: &[Kind]| {
            assert_eq!(
                kinds_to_match(&intent::parse(question)),
                expected,
                "{question}"
            );
        };
        check("how many creatives do I have", &[Creative]);
        check("how many locations in Lyon", &[Location]);
        // Simulations are named by their creative or location too.
        check(
            "how many simulations with Summer Sale",
            &[Simulation, Creative, Location],
        );
        // A status question may name a heatmap or a simulation whatever its kind word.
        check("is my creative finished?", &[Creative, Heatmap, Simulation]);
        // Comparisons, navigation, questions with no intent and no kind: every kind.
        check("compare the creatives A and B", &Kind::ALL);
        check("take me to my creatives", &Kind::ALL);
        check("Summer Sale", &Kind::ALL);
        check("how many do I have", &Kind::ALL);
    }

    /// The targets `pick` finds in `question` among the demo-like names below.
    fn picked(question: &str) -> Vec<Target> {
        let mut names = Candidates::default();
        names.item("Moka", Kind::Creative, 0);
        names.value(Target::Brand("Moka".into()));
        names.value(Target::Campaign("Été 2026".into()));
        names.item("Summer Sale", Kind::Creative, 1);
        names.value(Target::Brand("Nordwind".into()));
        names.value(Target::Campaign("Moka".into()));
        // Listed twice (two creatives of the brand), kept once.
        names.value(Target::Brand("MOKA".into()));
        names.item("Lyon Part-Dieu", Kind::Location, 0);
        names.value(Target::City("Lyon".into()));
        pick(&matching::words(question), &names.list)
    }

    #[test]
    fn brand_and_campaign_words_choose_the_meaning_of_a_shared_name() {
        let creative = Target::Item(Kind::Creative, 0);
        let brand = Target::Brand("Moka".into());
        let campaign = Target::Campaign("Moka".into());
        // Unqualified, a shared name keeps every meaning, in the order of the list.
        assert_eq!(
            picked("how many Moka?"),
            [creative.clone(), brand.clone(), campaign.clone()]
        );
        assert_eq!(picked("creatives of the brand Moka"), [brand]);
        assert_eq!(picked("la campagne Moka"), [campaign]);
        assert_eq!(
            picked("Summer Sale and Nordwind"),
            [
                Target::Item(Kind::Creative, 1),
                Target::Brand("Nordwind".into())
            ]
        );
    }

    #[test]
    fn the_longest_name_wins() {
        assert_eq!(
            picked("simulations on Lyon Part-Dieu"),
            [Target::Item(Kind::Location, 0)]
        );
        assert_eq!(picked("simulations in Lyon"), [Target::City("Lyon".into())]);
        assert_eq!(
            picked("campagne ete 2026"),
            [Target::Campaign("Été 2026".into())]
        );
        assert!(picked("nothing of mine").is_empty());
    }
}
