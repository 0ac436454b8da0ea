//! The offline engine: reads the question ([`intent`]), finds the user's names in it
//! ([`matching`]), reads the data it needs ([`data`], owner-scoped), and writes a short answer
//! in the question's language with links to the items and pages it mentions. How-to questions
//! are answered from the help articles ([`help`]). Everything runs inside `regard`.

use std::collections::HashMap;

use super::data::{Creative, Data, Heatmap, Kind, Location, Panel, Simulation};
use super::format::{self, quoted};
use super::intent::{self, Intent, Metric, Page, Parsed, StatusWord};
use super::matching::{self, Candidate};
use super::{Link, Locale, Question, Reply, help};
use crate::db::DbError;
use crate::db::search::normalize;

/// Lowest BM25 score of a help section that counts as an answer (below it the assistant says
/// it does not know). Chosen on the question set (docs/assistant.md).
const HELP_THRESHOLD: f32 = 4.0;
/// Longest quote of a help section in an answer, in characters (whole lines).
const EXCERPT_MAX: usize = 450;
/// Most items named in a list answer.
const LIST_MAX: usize = 10;
/// Most item links an answer carries.
const LINKS_MAX: usize = 6;

/// What a name in the question stands for.
#[derive(Debug, Clone, PartialEq)]
enum Target {
    Item(Kind, usize),
    Brand(String),
    Campaign(String),
    City(String),
}

/// The language of the answer: the question's own when its words say it clearly, otherwise
/// the app's.
pub fn reply_locale(question: &Question) -> Locale {
    intent::parse(question.text())
        .language
        .unwrap_or(question.locale)
}

/// Everything the answer is built from.
struct Ctx<'d, 'a> {
    data: &'d Data<'a>,
    locale: Locale,
    parsed: Parsed,
    path: Option<String>,
    targets: Vec<Target>,
    /// A place named in the question that none of the user's locations has ("à Marseille").
    unknown_place: Option<String>,
}

/// Answers a question offline.
pub async fn answer(data: &Data<'_>, question: &Question) -> Result<Reply, DbError> {
    let text = question.text();
    let mut parsed = intent::parse(text);
    let locale = parsed.language.unwrap_or(question.locale);
    follow_up(&mut parsed, question);
    if parsed.kinds.is_empty()
        && matches!(
            parsed.intent,
            Some(Intent::Count | Intent::List | Intent::Best | Intent::Worst | Intent::Latest)
        )
        && let Some(kind) = question.path.as_deref().and_then(kind_of_path)
    {
        parsed.kinds.push(kind);
    }
    let mut ctx = Ctx {
        data,
        locale,
        parsed,
        path: question.path.clone(),
        targets: Vec::new(),
        unknown_place: None,
    };
    match ctx.parsed.intent {
        Some(Intent::Help) => return Ok(help_answer(text, locale, true)),
        Some(Intent::Greeting) => return Ok(greeting(&ctx)),
        _ => {}
    }
    // "Take me to the locations page" needs no data; "open Summer Sale" does.
    let page_only = ctx.parsed.intent == Some(Intent::Navigate)
        && ctx.parsed.page.is_some()
        && (ctx.parsed.words.iter().any(|w| w == "page") || !ctx.parsed.open);
    if !page_only {
        ctx.targets = find_targets(&ctx).await?;
    }
    if ctx.targets.iter().all(|t| !matches!(t, Target::City(_))) {
        ctx.unknown_place = unknown_place(text);
    }
    // Distinct names (a simulation and its attention heatmap share one).
    let mut names: Vec<String> = Vec::new();
    for (kind, i) in ctx.items().collect::<Vec<_>>() {
        let name = normalize(&item_name(data, kind, i).await?);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let named = names.len();
    let words = &ctx.parsed.words;
    let pairs = words.iter().any(|w| {
        matches!(
            w.as_str(),
            "or" | "ou" | "better" | "mieux" | "than" | "and" | "et" | "versus" | "vs"
        )
    });
    let intent = match ctx.parsed.intent {
        // "Which is better, A or B?": two names make it a comparison.
        Some(Intent::Best | Intent::Worst) | None if named >= 2 && pairs => Intent::Compare,
        Some(intent) => intent,
        None if ctx.parsed.open && named > 0 => Intent::Navigate,
        None if named > 0 => Intent::Details,
        None if !ctx.parsed.kinds.is_empty() || ctx.parsed.format.is_some() => {
            let filtered = ctx.targets.iter().any(|t| !matches!(t, Target::Item(..)));
            // A longer question with kind words but no names may well be a how-to ("are my
            // unreleased visuals sent anywhere?"): the help articles answer it if they can.
            let content = words
                .iter()
                .filter(|w| w.len() > 2 && !intent::is_vocabulary(w))
                .count();
            let helpful = best_help(text, locale, false)
                .0
                .is_some_and(|h| h.score >= HELP_THRESHOLD * 1.5);
            if !filtered && content >= 2 && helpful {
                return Ok(help_answer(text, locale, false));
            }
            // "my creatives", "mes emplacements": a short question naming a kind lists it;
            // a longer one without a verb the engine knows is not a list ("write me a poem
            // about billboards").
            if filtered || (words.len() <= 5 && (ctx.parsed.mine || ctx.parsed.plural)) {
                Intent::List
            } else {
                return Ok(help_answer(text, locale, false));
            }
        }
        None => return Ok(help_answer(text, locale, false)),
    };
    match intent {
        Intent::Count | Intent::List => count_or_list(&ctx, intent).await,
        Intent::Best | Intent::Worst => rank(&ctx, intent == Intent::Best).await,
        Intent::Latest => latest(&ctx).await,
        Intent::Status => status(&ctx).await,
        Intent::Seen => seen(&ctx).await,
        Intent::Compare => compare(&ctx).await,
        Intent::Navigate => navigate(&ctx).await,
        Intent::Details => details(&ctx).await,
        Intent::Help | Intent::Unknown => Ok(help_answer(text, locale, false)),
        Intent::Greeting => Ok(greeting(&ctx)),
    }
}

/// "And in Paris?": a short question with no intent of its own takes the previous question's.
fn follow_up(parsed: &mut Parsed, question: &Question) {
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
fn item_of_path(path: &str) -> Option<(Kind, &str)> {
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match parts.as_slice() {
        ["creatives", id] => Some((Kind::Creative, id)),
        ["locations", id] if *id != "new" => Some((Kind::Location, id)),
        ["simulation", id] => Some((Kind::Simulation, id)),
        ["heatmap", "results", id] => Some((Kind::Heatmap, id)),
        _ => None,
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

async fn find_targets(ctx: &Ctx<'_, '_>) -> Result<Vec<Target>, DbError> {
    let kinds = kinds_to_match(&ctx.parsed);
    let mut candidates: Vec<Candidate<Target>> = Vec::new();
    let mut seen: HashMap<(u8, String), ()> = HashMap::new();
    let mut add_value = |candidates: &mut Vec<Candidate<Target>>, tag: u8, value: &str| {
        let key = (tag, normalize(value));
        if seen.insert(key, ()).is_none() {
            let target = match tag {
                0 => Target::Brand(value.to_owned()),
                1 => Target::Campaign(value.to_owned()),
                _ => Target::City(value.to_owned()),
            };
            candidates.extend(Candidate::new(value, target));
        }
    };
    let data = ctx.data;
    if kinds.contains(&Kind::Creative) {
        for (i, c) in data.creatives().await?.iter().enumerate() {
            candidates.extend(Candidate::new(&c.name, Target::Item(Kind::Creative, i)));
            if let Some(brand) = &c.brand {
                add_value(&mut candidates, 0, brand);
            }
            if let Some(campaign) = &c.campaign {
                add_value(&mut candidates, 1, campaign);
            }
        }
    }
    if kinds.contains(&Kind::Location) || kinds.contains(&Kind::Simulation) {
        for (i, l) in data.locations().await?.iter().enumerate() {
            if kinds.contains(&Kind::Location) {
                candidates.extend(Candidate::new(&l.name, Target::Item(Kind::Location, i)));
            }
            if let Some(city) = &l.city {
                add_value(&mut candidates, 2, city);
            }
        }
    }
    if kinds.contains(&Kind::Simulation) {
        for (i, s) in data.simulations().await?.iter().enumerate() {
            candidates.extend(Candidate::new(&s.name, Target::Item(Kind::Simulation, i)));
        }
    }
    if kinds.contains(&Kind::Heatmap) {
        for (i, h) in data.heatmaps().await?.iter().enumerate() {
            candidates.extend(Candidate::new(&h.name, Target::Item(Kind::Heatmap, i)));
        }
    }
    let found = matching::find(&ctx.parsed.words, &candidates, &intent::is_vocabulary);
    let words = &ctx.parsed.words;
    let mut targets: Vec<Target> = Vec::new();
    for f in &found {
        let before = f
            .start
            .checked_sub(1)
            .and_then(|i| words.get(i))
            .map(String::as_str);
        let target = f.candidate.target.clone();
        // "brand Moka", "marque Moka": the value, even if a creative has that name too.
        let said_brand = matches!(before, Some("brand" | "marque"));
        let said_campaign = matches!(before, Some("campaign" | "campagne"));
        let keep = match &target {
            Target::Brand(_) => !said_campaign,
            Target::Campaign(_) => !said_brand,
            Target::Item(..) => {
                !(said_brand || said_campaign)
                    || !found.iter().any(|g| {
                        g.start == f.start && !matches!(g.candidate.target, Target::Item(..))
                    })
            }
            Target::City(_) => true,
        };
        if keep && !targets.contains(&target) {
            targets.push(target);
        }
    }
    // A name shared by a brand and creatives: in a count or list of creatives, it is the brand.
    let listing = matches!(
        ctx.parsed.intent,
        Some(Intent::Count | Intent::List | Intent::Best | Intent::Worst | Intent::Latest) | None
    );
    if listing {
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
        targets = kept;
    }
    Ok(targets)
}

async fn item_name(data: &Data<'_>, kind: Kind, i: usize) -> Result<String, DbError> {
    Ok(match kind {
        Kind::Creative => data.creatives().await?[i].name.clone(),
        Kind::Location => data.locations().await?[i].name.clone(),
        Kind::Simulation => data.simulations().await?[i].name.clone(),
        Kind::Heatmap => data.heatmaps().await?[i].name.clone(),
    })
}

/// A capitalised place after "in", "à", "at" that is not one of the user's cities.
fn unknown_place(text: &str) -> Option<String> {
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
        let mut place: Vec<String> = Vec::new();
        for next in &tokens[i + 1..] {
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
        if !place.is_empty() {
            return Some(place.join(" "));
        }
    }
    None
}

impl Ctx<'_, '_> {
    fn items(&self) -> impl Iterator<Item = (Kind, usize)> + '_ {
        self.targets.iter().filter_map(|t| match t {
            Target::Item(k, i) => Some((*k, *i)),
            _ => None,
        })
    }

    fn item_of(&self, kind: Kind) -> Option<usize> {
        self.items().find(|(k, _)| *k == kind).map(|(_, i)| i)
    }

    fn value(&self, pick: fn(&Target) -> Option<&String>) -> Option<&String> {
        self.targets.iter().find_map(pick)
    }

    fn brand(&self) -> Option<&String> {
        self.value(|t| match t {
            Target::Brand(v) => Some(v),
            _ => None,
        })
    }

    fn campaign(&self) -> Option<&String> {
        self.value(|t| match t {
            Target::Campaign(v) => Some(v),
            _ => None,
        })
    }

    fn city(&self) -> Option<&String> {
        self.value(|t| match t {
            Target::City(v) => Some(v),
            _ => None,
        })
    }

    fn l<'s>(&self, fr: &'s str, en: &'s str) -> &'s str {
        self.locale.pick(fr, en)
    }

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

fn noun(kind: Kind, n: usize, locale: Locale) -> String {
    let (fr1, frn, en1, enn) = match kind {
        Kind::Creative => ("création", "créations", "creative", "creatives"),
        Kind::Location => ("emplacement", "emplacements", "location", "locations"),
        Kind::Simulation => ("simulation", "simulations", "simulation", "simulations"),
        Kind::Heatmap => ("heatmap", "heatmaps", "heatmap", "heatmaps"),
    };
    match locale {
        Locale::Fr => format::count(n, fr1, frn, locale),
        Locale::En => format::count(n, en1, enn, locale),
    }
}

fn kind_name(kind: Kind, locale: Locale) -> &'static str {
    match kind {
        Kind::Creative => locale.pick("la création", "the creative"),
        Kind::Location => locale.pick("l'emplacement", "the location"),
        Kind::Simulation => locale.pick("la simulation", "the simulation"),
        Kind::Heatmap => locale.pick("la heatmap", "the heatmap"),
    }
}

fn page_of(kind: Kind) -> Page {
    match kind {
        Kind::Creative => Page::Creatives,
        Kind::Location => Page::Locations,
        Kind::Simulation => Page::Simulation,
        Kind::Heatmap => Page::Heatmaps,
    }
}

fn href(kind: Kind, id: &str) -> String {
    match kind {
        Kind::Creative => format!("/creatives/{id}"),
        Kind::Location => format!("/locations/{id}"),
        Kind::Simulation => format!("/simulation/{id}"),
        Kind::Heatmap => format!("/heatmap/results/{id}"),
    }
}

fn link(label: impl Into<String>, href: impl Into<String>) -> Link {
    Link {
        label: label.into(),
        href: href.into(),
    }
}

fn page_link(page: Page, locale: Locale) -> Link {
    link(page.label(locale), page.href())
}

fn reply(intent: Intent, answer: String, mut links: Vec<Link>) -> Result<Reply, DbError> {
    let mut seen = Vec::new();
    links.retain(|l| {
        let fresh = !seen.contains(&l.href);
        seen.push(l.href.clone());
        fresh
    });
    Ok(Reply {
        answer,
        links,
        intent: intent.code().to_owned(),
    })
}

fn same(a: &str, b: &str) -> bool {
    normalize(a) == normalize(b)
}

/// The items of one kind that pass the question's filters, newest first.
struct Selection<'d> {
    creatives: Vec<&'d Creative>,
    locations: Vec<&'d Location>,
    simulations: Vec<&'d Simulation>,
    heatmaps: Vec<&'d Heatmap>,
    /// How the filters read in the answer (" in Lyon", " de la marque Moka").
    described: String,
}

impl Selection<'_> {
    fn len(&self, kind: Kind) -> usize {
        match kind {
            Kind::Creative => self.creatives.len(),
            Kind::Location => self.locations.len(),
            Kind::Simulation => self.simulations.len(),
            Kind::Heatmap => self.heatmaps.len(),
        }
    }

    fn named(&self, kind: Kind) -> Vec<(String, String)> {
        match kind {
            Kind::Creative => self
                .creatives
                .iter()
                .map(|c| (c.name.clone(), href(kind, &c.id)))
                .collect(),
            Kind::Location => self
                .locations
                .iter()
                .map(|c| (c.name.clone(), href(kind, &c.id)))
                .collect(),
            Kind::Simulation => self
                .simulations
                .iter()
                .map(|c| (c.name.clone(), href(kind, &c.id)))
                .collect(),
            Kind::Heatmap => self
                .heatmaps
                .iter()
                .map(|c| (c.name.clone(), href(kind, &c.id)))
                .collect(),
        }
    }
}

fn status_matches(word: StatusWord, status: &str) -> bool {
    match word {
        StatusWord::Done => matches!(status, "done" | "partial"),
        StatusWord::Failed => matches!(status, "failed" | "partial"),
        StatusWord::InProgress => matches!(status, "queued" | "processing" | "rendering"),
        StatusWord::Draft => status == "draft",
    }
}

fn status_phrase(word: StatusWord, kind: Kind, locale: Locale) -> &'static str {
    let feminine = kind != Kind::Location;
    match (word, locale) {
        (StatusWord::Done, Locale::Fr) if feminine => " terminées",
        (StatusWord::Done, Locale::Fr) => " terminés",
        (StatusWord::Failed, Locale::Fr) => " en échec",
        (StatusWord::InProgress, Locale::Fr) => " en cours",
        (StatusWord::Draft, Locale::Fr) => " en brouillon",
        (StatusWord::Done, Locale::En) => " that are done",
        (StatusWord::Failed, Locale::En) => " that failed",
        (StatusWord::InProgress, Locale::En) => " in progress",
        (StatusWord::Draft, Locale::En) => " still in draft",
    }
}

fn format_label(format: &str, locale: Locale) -> &'static str {
    match format {
        "bus_shelter" => locale.pick("abribus", "bus shelters"),
        "mupi_2m2" => locale.pick(
            "mobilier urbain 2 m² (MUPI)",
            "2 m² street furniture (MUPI)",
        ),
        "digital_screen" => locale.pick("écrans numériques", "digital screens"),
        "billboard_4x3" => locale.pick("panneaux 4 × 3", "4 × 3 billboards"),
        "billboard_12m2" => locale.pick("panneaux 12 m²", "12 m² billboards"),
        "shop_window" => locale.pick("vitrines", "shop windows"),
        _ => locale.pick("autres formats", "other formats"),
    }
}

fn format_single(format: &str, locale: Locale) -> &'static str {
    match format {
        "bus_shelter" => locale.pick("abribus", "bus shelter"),
        "mupi_2m2" => locale.pick("mobilier urbain 2 m²", "2 m² street furniture"),
        "digital_screen" => locale.pick("écran numérique", "digital screen"),
        "billboard_4x3" => locale.pick("panneau 4 × 3", "4 × 3 billboard"),
        "billboard_12m2" => locale.pick("panneau 12 m²", "12 m² billboard"),
        "shop_window" => locale.pick("vitrine", "shop window"),
        _ => locale.pick("autre format", "other format"),
    }
}

async fn select<'d>(ctx: &'d Ctx<'_, '_>, kind: Kind) -> Result<Selection<'d>, DbError> {
    let locale = ctx.locale;
    let mut described = String::new();
    let mut sel = Selection {
        creatives: Vec::new(),
        locations: Vec::new(),
        simulations: Vec::new(),
        heatmaps: Vec::new(),
        described: String::new(),
    };
    let city = ctx.city().cloned().or_else(|| ctx.unknown_place.clone());
    match kind {
        Kind::Creative => {
            let brand = ctx.brand();
            let campaign = ctx.campaign();
            if let Some(b) = brand {
                described.push_str(&format!(
                    "{}{b}",
                    ctx.l(" de la marque ", " for the brand ")
                ));
            }
            if let Some(c) = campaign {
                described.push_str(&format!(
                    "{}{c}",
                    ctx.l(" de la campagne ", " of the campaign ")
                ));
            }
            sel.creatives = ctx
                .data
                .creatives()
                .await?
                .iter()
                .filter(|c| brand.is_none_or(|b| c.brand.as_deref().is_some_and(|x| same(x, b))))
                .filter(|c| {
                    campaign.is_none_or(|b| c.campaign.as_deref().is_some_and(|x| same(x, b)))
                })
                .collect();
        }
        Kind::Location => {
            if let Some(format) = ctx.parsed.format {
                described.push_str(&format!(" ({})", format_label(format, locale)));
            }
            if let Some(c) = &city {
                described.push_str(&format!("{}{c}", ctx.l(" à ", " in ")));
            }
            sel.locations = ctx
                .data
                .locations()
                .await?
                .iter()
                .filter(|l| {
                    city.as_ref()
                        .is_none_or(|c| l.city.as_deref().is_some_and(|x| same(x, c)))
                })
                .filter(|l| ctx.parsed.format.is_none_or(|f| l.format == f))
                .collect();
        }
        Kind::Simulation => {
            let creative = match ctx.item_of(Kind::Creative) {
                Some(i) => Some(&ctx.data.creatives().await?[i]),
                None => None,
            };
            let location = match ctx.item_of(Kind::Location) {
                Some(i) => Some(&ctx.data.locations().await?[i]),
                None => None,
            };
            if let Some(c) = creative {
                described.push_str(&format!(
                    "{}{}",
                    ctx.l(" avec la création ", " with the creative "),
                    ctx.q(&c.name)
                ));
            }
            if let Some(l) = location {
                described.push_str(&format!(
                    "{}{}",
                    ctx.l(" sur l'emplacement ", " on the location "),
                    ctx.q(&l.name)
                ));
            }
            if let Some(c) = &city {
                described.push_str(&format!("{}{c}", ctx.l(" à ", " in ")));
            }
            if ctx.parsed.night {
                described.push_str(ctx.l(" de nuit", " at night"));
            }
            if let Some(word) = ctx.parsed.status {
                described.push_str(status_phrase(word, kind, locale));
            }
            sel.simulations = ctx
                .data
                .simulations()
                .await?
                .iter()
                .filter(|s| creative.is_none_or(|c| s.creative_id == c.id))
                .filter(|s| location.is_none_or(|l| s.location_id == l.id))
                .filter(|s| {
                    city.as_ref()
                        .is_none_or(|c| s.city.as_deref().is_some_and(|x| same(x, c)))
                })
                .filter(|s| !ctx.parsed.night || s.night.is_some())
                .filter(|s| {
                    ctx.parsed
                        .status
                        .is_none_or(|w| status_matches(w, &s.status))
                })
                .collect();
        }
        Kind::Heatmap => {
            if let Some(word) = ctx.parsed.status {
                described.push_str(status_phrase(word, kind, locale));
            }
            sel.heatmaps = ctx
                .data
                .heatmaps()
                .await?
                .iter()
                .filter(|h| {
                    ctx.parsed
                        .status
                        .is_none_or(|w| status_matches(w, h.status))
                })
                .collect();
        }
    }
    sel.described = described;
    Ok(sel)
}

async fn count_or_list(ctx: &Ctx<'_, '_>, intent: Intent) -> Result<Reply, DbError> {
    let locale = ctx.locale;
    let Some(kind) = ctx.kind() else {
        if intent == Intent::List {
            return Ok(help_answer(&ctx.parsed.words.join(" "), locale, false));
        }
        // "How many do I have?": everything, in one sentence.
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
        return reply(intent, answer, links);
    };
    let sel = select(ctx, kind).await?;
    let n = sel.len(kind);
    let named = sel.named(kind);
    let mut links: Vec<Link> = named
        .iter()
        .take(if intent == Intent::List {
            LINKS_MAX
        } else {
            5.min(LINKS_MAX)
        })
        .map(|(name, href)| link(name.clone(), href.clone()))
        .collect();
    let page = page_of(kind);
    let mut page_href = page.href().to_owned();
    if kind == Kind::Location
        && let Some(city) = ctx.city()
    {
        page_href = format!(
            "/locations?q={}",
            url::form_urlencoded::byte_serialize(city.as_bytes()).collect::<String>()
        );
    }
    links.push(link(page.label(locale), page_href));
    let what = format!("{}{}", noun(kind, n, locale), sel.described);
    let names: Vec<String> = named
        .iter()
        .take(LIST_MAX)
        .map(|(name, _)| name.clone())
        .collect();
    let more = n.saturating_sub(LIST_MAX);
    let list_text = if more > 0 {
        format!(
            "{}{}",
            names.join(", "),
            match locale {
                Locale::Fr => format!(" et {more} autres"),
                Locale::En => format!(" and {more} more"),
            }
        )
    } else {
        format::join(&names, locale)
    };
    let answer = if n == 0 {
        let none = format!(
            "{}{}",
            noun(kind, 0, locale).trim_start_matches("0 "),
            sel.described
        );
        match locale {
            Locale::Fr => format!(
                "Vous n'avez aucun{} {none}.",
                if matches!(kind, Kind::Location) {
                    ""
                } else {
                    "e"
                }
            ),
            Locale::En => format!("You have no {none}."),
        }
    } else if intent == Intent::Count && n > 5 {
        format!("{} {what}.", ctx.l("Vous avez", "You have"))
    } else if intent == Intent::Count {
        format!("{} {what} : {list_text}.", ctx.l("Vous avez", "You have"))
            .replace(" : ", ctx.l(" : ", ": "))
    } else {
        match locale {
            Locale::Fr => format!("Vos {what} : {list_text}."),
            Locale::En => format!("Your {what}: {list_text}."),
        }
    };
    reply(intent, answer, links)
}

/// A ranked value: what is compared and how it reads.
struct Ranked {
    kind: Kind,
    index: usize,
    value: f64,
    text: String,
    /// The heatmap (or simulation) the figure comes from.
    source: Option<Link>,
}

async fn rank(ctx: &Ctx<'_, '_>, best: bool) -> Result<Reply, DbError> {
    let locale = ctx.locale;
    let kind = ctx.kind().unwrap_or(Kind::Creative);
    let metric = ctx.parsed.metric.unwrap_or(match kind {
        Kind::Simulation | Kind::Location => Metric::PanelShare,
        _ => Metric::Score,
    });
    let intent = if best { Intent::Best } else { Intent::Worst };
    let sel = select(ctx, kind).await?;
    let mut ranked: Vec<Ranked> = Vec::new();
    let panel_metric = matches!(metric, Metric::PanelShare | Metric::Visibility);
    let panel_value = |p: &Panel| match metric {
        Metric::Visibility => p.visibility,
        _ => p.share,
    };
    let panel_text = |p: &Panel| match locale {
        Locale::Fr => format!(
            "{} de l'attention sur le panneau pour {} de la surface (visibilité {})",
            format::percent(p.share, locale),
            format::percent(p.area_share, locale),
            format::ratio(p.visibility, locale)
        ),
        Locale::En => format!(
            "{} of the attention on the panel for {} of the area (visibility {})",
            format::percent(p.share, locale),
            format::percent(p.area_share, locale),
            format::ratio(p.visibility, locale)
        ),
    };
    let score_text = |s: f64| {
        format!(
            "{} {}",
            ctx.l("score d'attention", "attention score"),
            format::score(s, locale)
        )
    };
    match (kind, panel_metric) {
        (Kind::Simulation, true) => {
            for s in &sel.simulations {
                if let Some(p) = &s.panel {
                    let index = index_in(ctx.data.simulations().await?, s).unwrap_or(0);
                    ranked.push(Ranked {
                        kind,
                        index,
                        value: panel_value(p),
                        text: panel_text(p),
                        source: None,
                    });
                }
            }
        }
        (Kind::Simulation, false) => {
            for s in &sel.simulations {
                if let Some(score) = s.attention_score {
                    let index = index_in(ctx.data.simulations().await?, s).unwrap_or(0);
                    ranked.push(Ranked {
                        kind,
                        index,
                        value: score,
                        text: score_text(score),
                        source: None,
                    });
                }
            }
        }
        (Kind::Creative | Kind::Location, true) => {
            // An item's best (or worst) render.
            let sims = ctx.data.simulations().await?;
            let all = match kind {
                Kind::Creative => ctx
                    .data
                    .creatives()
                    .await?
                    .iter()
                    .map(|c| c.id.as_str())
                    .collect::<Vec<_>>(),
                _ => ctx
                    .data
                    .locations()
                    .await?
                    .iter()
                    .map(|c| c.id.as_str())
                    .collect::<Vec<_>>(),
            };
            let allowed: Vec<&str> = match kind {
                Kind::Creative => sel.creatives.iter().map(|c| c.id.as_str()).collect(),
                _ => sel.locations.iter().map(|c| c.id.as_str()).collect(),
            };
            let mut per_item: HashMap<&str, (&Simulation, &Panel)> = HashMap::new();
            for s in sims {
                let Some(p) = &s.panel else { continue };
                let owner = if kind == Kind::Creative {
                    s.creative_id.as_str()
                } else {
                    s.location_id.as_str()
                };
                if !allowed.contains(&owner) {
                    continue;
                }
                let better = per_item
                    .get(owner)
                    .is_none_or(|(_, q)| (panel_value(p) > panel_value(q)) == best);
                if better {
                    per_item.insert(owner, (s, p));
                }
            }
            for (owner, (s, p)) in per_item {
                let index = all.iter().position(|id| *id == owner).unwrap_or(0);
                ranked.push(Ranked {
                    kind,
                    index,
                    value: panel_value(p),
                    text: format!(
                        "{}{}",
                        panel_text(p),
                        match locale {
                            Locale::Fr =>
                                format!(" dans la simulation {}", quoted(&s.name, locale)),
                            Locale::En => format!(" in the simulation {}", quoted(&s.name, locale)),
                        }
                    ),
                    source: Some(link(s.name.clone(), href(Kind::Simulation, &s.id))),
                });
            }
        }
        (Kind::Creative | Kind::Location, false) => {
            let scores = ctx.data.scores().await?;
            let all_c = ctx.data.creatives().await?;
            let all_l = ctx.data.locations().await?;
            let heatmaps = ctx.data.heatmaps().await?;
            let media: Vec<(usize, &str)> = match kind {
                Kind::Creative => sel
                    .creatives
                    .iter()
                    .filter_map(|c| Some((index_in(all_c, c)?, c.media_id.as_str())))
                    .collect(),
                _ => sel
                    .locations
                    .iter()
                    .filter_map(|l| Some((index_in(all_l, l)?, l.photo_media_id.as_deref()?)))
                    .collect(),
            };
            for (index, media_id) in media {
                if let Some(s) = scores.get(media_id) {
                    let source = heatmaps
                        .iter()
                        .find(|h| h.id == s.heatmap_id)
                        .map(|h| link(h.name.clone(), href(Kind::Heatmap, &h.id)));
                    ranked.push(Ranked {
                        kind,
                        index,
                        value: s.score,
                        text: score_text(s.score),
                        source,
                    });
                }
            }
        }
        (Kind::Heatmap, _) => {
            let all = ctx.data.heatmaps().await?;
            for h in &sel.heatmaps {
                if let Some(score) = h.score {
                    let index = index_in(all, h).unwrap_or(0);
                    ranked.push(Ranked {
                        kind,
                        index,
                        value: score,
                        text: format!(
                            "{} {}",
                            ctx.l("score moyen", "mean score"),
                            format::score(score, locale)
                        ),
                        source: None,
                    });
                }
            }
        }
    }
    if ranked.is_empty() {
        let (answer, links) = nothing_ranked(ctx, kind, panel_metric, sel.len(kind));
        return reply(intent, answer, links);
    }
    ranked.sort_by(|a, b| {
        let order = b
            .value
            .partial_cmp(&a.value)
            .unwrap_or(std::cmp::Ordering::Equal);
        if best { order } else { order.reverse() }
    });
    let top_n = ctx
        .parsed
        .words
        .iter()
        .find_map(|w| w.parse::<usize>().ok())
        .filter(|n| (2..=10).contains(n))
        .unwrap_or(1)
        .min(ranked.len());
    let mut links = Vec::new();
    let mut parts = Vec::new();
    for r in &ranked[..top_n] {
        let name = item_name(ctx.data, r.kind, r.index).await?;
        let id = item_id(ctx.data, r.kind, r.index).await?;
        links.push(link(name.clone(), href(r.kind, &id)));
        if let Some(source) = &r.source {
            links.push(source.clone());
        }
        parts.push(format!("{} ({})", quoted(&name, locale), r.text));
    }
    let noun_s = noun(kind, 1, locale).trim_start_matches("1 ").to_owned();
    let measure = match (metric, locale) {
        (Metric::Visibility, Locale::Fr) => "la visibilité du panneau",
        (Metric::Visibility, Locale::En) => "panel visibility",
        (Metric::PanelShare, Locale::Fr) => "la part d'attention sur le panneau",
        (Metric::PanelShare, Locale::En) => "share of attention on the panel",
        (Metric::Score, Locale::Fr) => "le score d'attention",
        (Metric::Score, Locale::En) => "attention score",
    };
    let answer = if top_n == 1 {
        let r = &ranked[0];
        let name = quoted(&item_name(ctx.data, r.kind, r.index).await?, locale);
        match locale {
            Locale::Fr => {
                let fem = kind != Kind::Location;
                let adj = match (best, fem) {
                    (true, true) => "meilleure",
                    (true, false) => "meilleur",
                    (false, true) => "moins bonne",
                    (false, false) => "moins bon",
                };
                format!(
                    "Votre {adj} {noun_s}{} pour {measure} est {name} : {}.",
                    sel.described, r.text
                )
            }
            Locale::En => format!(
                "Your {} {noun_s}{} by {measure} is {name}: {}.",
                if best { "best" } else { "weakest" },
                sel.described,
                r.text
            ),
        }
    } else {
        match locale {
            Locale::Fr => format!(
                "{} {top_n} pour {measure}{} : {}.",
                if best {
                    "Vos meilleurs"
                } else {
                    "Vos moins bons"
                },
                sel.described,
                format::join(&parts, locale)
            ),
            Locale::En => format!(
                "Your {top_n} {} by {measure}{}: {}.",
                if best { "best" } else { "weakest" },
                sel.described,
                format::join(&parts, locale)
            ),
        }
    };
    links.truncate(LINKS_MAX);
    reply(intent, answer, links)
}

/// Where `item` (a reference into `all`) sits in `all`, in constant time: the selections hold
/// references into the question's lists.
fn index_in<T>(all: &[T], item: &T) -> Option<usize> {
    let size = std::mem::size_of::<T>().max(1);
    let start = all.as_ptr() as usize;
    let at = item as *const T as usize;
    (at >= start && at < start + all.len() * size).then(|| (at - start) / size)
}

async fn item_id(data: &Data<'_>, kind: Kind, i: usize) -> Result<String, DbError> {
    Ok(match kind {
        Kind::Creative => data.creatives().await?[i].id.clone(),
        Kind::Location => data.locations().await?[i].id.clone(),
        Kind::Simulation => data.simulations().await?[i].id.clone(),
        Kind::Heatmap => data.heatmaps().await?[i].id.clone(),
    })
}

/// Why nothing can be ranked, and what to do about it.
fn nothing_ranked(ctx: &Ctx<'_, '_>, kind: Kind, panel: bool, count: usize) -> (String, Vec<Link>) {
    let locale = ctx.locale;
    if count == 0 {
        let none = noun(kind, 0, locale);
        let none = none.trim_start_matches("0 ");
        return (
            match locale {
                Locale::Fr => format!(
                    "Vous n'avez encore aucun{} {none}{} à classer.",
                    if kind == Kind::Location { "" } else { "e" },
                    ""
                ),
                Locale::En => format!("You have no {none} to rank yet."),
            },
            vec![page_link(page_of(kind), locale)],
        );
    }
    if panel || kind == Kind::Simulation {
        (
            ctx.l(
                "Aucune de vos simulations n'a encore d'analyse d'attention : ouvrez une simulation rendue et choisissez « Analyser l'attention ».",
                "None of your simulations has an attention analysis yet: open a rendered simulation and choose “Analyse attention”.",
            )
            .to_owned(),
            vec![page_link(Page::Simulation, locale), help_link("simulations", locale)],
        )
    } else {
        (
            match locale {
                Locale::Fr => "Aucun score d'attention pour l'instant : créez une heatmap avec ces images pour en obtenir un.".to_owned(),
                Locale::En => "No attention score yet: create a heatmap with these images to get one.".to_owned(),
            },
            vec![page_link(Page::NewHeatmap, locale), help_link("heatmaps", locale)],
        )
    }
}

fn help_link(slug: &str, locale: Locale) -> Link {
    match help::article(slug, locale) {
        Some(a) => link(a.title.clone(), a.href()),
        None => page_link(Page::Help, locale),
    }
}

async fn latest(ctx: &Ctx<'_, '_>) -> Result<Reply, DbError> {
    let locale = ctx.locale;
    let oldest = ctx.parsed.oldest;
    let kinds: Vec<Kind> = match ctx.kind() {
        Some(kind) => vec![kind],
        None => Kind::ALL.to_vec(),
    };
    // (created_at, kind, id, name, described)
    let mut best: Option<(i64, Kind, String, String)> = None;
    let mut described = String::new();
    for kind in kinds {
        let sel = select(ctx, kind).await?;
        let candidates: Vec<(i64, String, String)> = match kind {
            Kind::Creative => sel
                .creatives
                .iter()
                .map(|c| (c.created_at, c.id.clone(), c.name.clone()))
                .collect(),
            Kind::Location => sel
                .locations
                .iter()
                .map(|c| (c.created_at, c.id.clone(), c.name.clone()))
                .collect(),
            Kind::Simulation => sel
                .simulations
                .iter()
                .map(|c| (c.created_at, c.id.clone(), c.name.clone()))
                .collect(),
            Kind::Heatmap => sel
                .heatmaps
                .iter()
                .map(|c| (c.created_at, c.id.clone(), c.name.clone()))
                .collect(),
        };
        // Lists are newest first.
        let pick = if oldest {
            candidates.last()
        } else {
            candidates.first()
        };
        if let Some((at, id, name)) = pick {
            let better = best
                .as_ref()
                .is_none_or(|(b, ..)| if oldest { at < b } else { at > b });
            if better {
                best = Some((*at, kind, id.clone(), name.clone()));
                described = sel.described.clone();
            }
        }
    }
    let Some((at, kind, id, name)) = best else {
        let kind = ctx.kind();
        let answer = match (kind, locale) {
            (Some(k), _) => match locale {
                Locale::Fr => format!(
                    "Vous n'avez encore aucun{} {}.",
                    if k == Kind::Location { "" } else { "e" },
                    noun(k, 0, locale).trim_start_matches("0 ")
                ),
                Locale::En => format!(
                    "You have no {} yet.",
                    noun(k, 0, locale).trim_start_matches("0 ")
                ),
            },
            (None, _) => ctx
                .l(
                    "Vous n'avez encore rien créé.",
                    "You have not created anything yet.",
                )
                .to_owned(),
        };
        let links = vec![page_link(page_of(kind.unwrap_or(Kind::Creative)), locale)];
        return reply(Intent::Latest, answer, links);
    };
    let extra = describe_short(ctx, kind, &id).await?;
    let which = match (locale, oldest) {
        (Locale::Fr, false) => {
            if kind == Kind::Location {
                "Votre dernier"
            } else {
                "Votre dernière"
            }
        }
        (Locale::Fr, true) => {
            if kind == Kind::Location {
                "Votre premier"
            } else {
                "Votre première"
            }
        }
        (Locale::En, false) => "Your latest",
        (Locale::En, true) => "Your first",
    };
    let answer = match locale {
        Locale::Fr => format!(
            "{which} {}{described} est {}, créé{} le {}{extra}.",
            noun(kind, 1, locale).trim_start_matches("1 "),
            quoted(&name, locale),
            if kind == Kind::Location { "" } else { "e" },
            format::date(at, locale)
        ),
        Locale::En => format!(
            "{which} {}{described} is {}, created on {}{extra}.",
            noun(kind, 1, locale).trim_start_matches("1 "),
            quoted(&name, locale),
            format::date(at, locale)
        ),
    };
    reply(
        Intent::Latest,
        answer,
        vec![
            link(name, href(kind, &id)),
            page_link(page_of(kind), locale),
        ],
    )
}

/// A short clause about an item's state: ` (terminée, score moyen 71/100)`.
async fn describe_short(ctx: &Ctx<'_, '_>, kind: Kind, id: &str) -> Result<String, DbError> {
    let locale = ctx.locale;
    Ok(match kind {
        Kind::Heatmap => {
            let h = ctx
                .data
                .heatmaps()
                .await?
                .iter()
                .find(|h| h.id == id)
                .cloned();
            match h {
                Some(h) => {
                    let mut s = format!(" ; {}", heatmap_status_text(&h, locale));
                    if locale == Locale::En {
                        s = s.replace(" ; ", "; ");
                    }
                    s
                }
                None => String::new(),
            }
        }
        Kind::Simulation => {
            let s = ctx
                .data
                .simulations()
                .await?
                .iter()
                .find(|s| s.id == id)
                .cloned();
            match s {
                Some(s) => {
                    let sep = ctx.l(" ; ", "; ");
                    format!("{sep}{}", simulation_status_text(&s, locale))
                }
                None => String::new(),
            }
        }
        Kind::Creative => {
            let c = ctx
                .data
                .creatives()
                .await?
                .iter()
                .find(|c| c.id == id)
                .cloned();
            let scores = ctx.data.scores().await?;
            match c.and_then(|c| scores.get(&c.media_id).map(|s| s.score)) {
                Some(score) => format!(
                    "{}{}",
                    ctx.l(", score d'attention ", ", attention score "),
                    format::score(score, locale)
                ),
                None => String::new(),
            }
        }
        Kind::Location => {
            let l = ctx
                .data
                .locations()
                .await?
                .iter()
                .find(|l| l.id == id)
                .cloned();
            match l.and_then(|l| l.city) {
                Some(city) => format!("{}{city}", ctx.l(", à ", ", in ")),
                None => String::new(),
            }
        }
    })
}

fn heatmap_status_text(h: &Heatmap, locale: Locale) -> String {
    let images = match locale {
        Locale::Fr => format::count(h.total as usize, "image", "images", locale),
        Locale::En => format::count(h.total as usize, "image", "images", locale),
    };
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

fn simulation_status_text(s: &Simulation, locale: Locale) -> String {
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
    match &s.panel {
        Some(p) => {
            let first = p.first_second.map(|f| match locale {
                Locale::Fr => format!(
                    ", vu dans la 1re seconde par {}",
                    format::percent(f, locale)
                ),
                Locale::En => format!(
                    ", seen within the first second by {}",
                    format::percent(f, locale)
                ),
            });
            match locale {
                Locale::Fr => format!(
                    "{base}, {} de l'attention sur le panneau (visibilité {}){}",
                    format::percent(p.share, locale),
                    format::ratio(p.visibility, locale),
                    first.unwrap_or_default()
                ),
                Locale::En => format!(
                    "{base}, {} of the attention on the panel (visibility {}){}",
                    format::percent(p.share, locale),
                    format::ratio(p.visibility, locale),
                    first.unwrap_or_default()
                ),
            }
        }
        None => base.to_owned(),
    }
}

/// "Will my panel be seen?": the simulation named, else the one on the page, else the latest
/// with an analysed panel (else the latest): the probability that a passer-by looks at its
/// panel within the first second, then its share of three seconds' attention.
async fn seen(ctx: &Ctx<'_, '_>) -> Result<Reply, DbError> {
    let locale = ctx.locale;
    let simulations = ctx.data.simulations().await?;
    let named = ctx.items().find(|(k, _)| *k == Kind::Simulation);
    let id = match named {
        Some((kind, i)) => Some(item_id(ctx.data, kind, i).await?),
        None => ctx
            .path
            .as_deref()
            .and_then(item_of_path)
            .filter(|(k, _)| *k == Kind::Simulation)
            .map(|(_, id)| id.to_owned()),
    };
    let chosen = match id {
        Some(id) => simulations.iter().find(|s| s.id == id),
        None => simulations
            .iter()
            .find(|s| s.panel.is_some())
            .or_else(|| simulations.first()),
    };
    let Some(s) = chosen else {
        return reply(
            Intent::Seen,
            ctx.l(
                "Vous n'avez encore aucune simulation : placez une création sur un emplacement, faites le rendu puis analysez l'attention pour savoir si le panneau sera vu dans la première seconde.",
                "You have no simulation yet: place a creative on a location, render it, then analyse its attention to learn whether the panel is seen within the first second.",
            )
            .to_owned(),
            vec![page_link(Page::Simulation, locale)],
        );
    };
    let name = format::quoted(&s.name, locale);
    let answer = match (&s.panel, locale) {
        (None, Locale::Fr) => format!(
            "Le rendu de la simulation {name} n'a pas encore d'analyse d'attention : lancez « Analyser l'attention » sur sa page pour savoir si le panneau sera vu dans la première seconde."
        ),
        (None, Locale::En) => format!(
            "The render of the simulation {name} has no attention analysis yet: run “Analyse attention” on its page to learn whether the panel is seen within the first second."
        ),
        (Some(p), _) => {
            let pct = |v: f64| format::percent(v, locale);
            let exploration = match locale {
                Locale::Fr => format!(
                    "Sur trois secondes, il reçoit {} de l'attention pour {} de la surface (visibilité {}).",
                    pct(p.share),
                    pct(p.area_share),
                    format::ratio(p.visibility, locale)
                ),
                Locale::En => format!(
                    "Over three seconds it gets {} of the attention for {} of the area (visibility {}).",
                    pct(p.share),
                    pct(p.area_share),
                    format::ratio(p.visibility, locale)
                ),
            };
            match (p.first_second, locale) {
                (Some(f), Locale::Fr) => format!(
                    "Dans la simulation {name}, environ {} des passants regardent le panneau dans la première seconde ({} du premier regard). {exploration}",
                    pct(f),
                    pct(p.glance_share.unwrap_or(0.0))
                ),
                (Some(f), Locale::En) => format!(
                    "In the simulation {name}, about {} of passers-by look at the panel within the first second ({} of the first glance). {exploration}",
                    pct(f),
                    pct(p.glance_share.unwrap_or(0.0))
                ),
                (None, Locale::Fr) => format!(
                    "La simulation {name} a été analysée avant le modèle du premier regard : relancez l'analyse pour la probabilité d'être vu dans la première seconde. {exploration}"
                ),
                (None, Locale::En) => format!(
                    "The simulation {name} was analysed before the first-glance model: analyse it again for the probability of being seen within the first second. {exploration}"
                ),
            }
        }
    };
    reply(
        Intent::Seen,
        answer,
        vec![link(s.name.clone(), href(Kind::Simulation, &s.id))],
    )
}

async fn status(ctx: &Ctx<'_, '_>) -> Result<Reply, DbError> {
    let locale = ctx.locale;
    // The item named, else the one on the page, else the latest of the kind asked about.
    let named = ctx
        .items()
        .find(|(k, _)| matches!(k, Kind::Heatmap | Kind::Simulation));
    let target: Option<(Kind, String)> = if let Some((kind, i)) = named {
        Some((kind, item_id(ctx.data, kind, i).await?))
    } else if let Some((kind, id)) = ctx
        .path
        .as_deref()
        .and_then(item_of_path)
        .filter(|(k, _)| matches!(k, Kind::Heatmap | Kind::Simulation))
        .filter(|(k, _)| ctx.parsed.kinds.is_empty() || ctx.parsed.kinds.contains(k))
    {
        Some((kind, id.to_owned()))
    } else {
        let kind = match ctx.parsed.kinds.first() {
            Some(Kind::Simulation) => Kind::Simulation,
            _ => Kind::Heatmap,
        };
        let id = match kind {
            Kind::Simulation => ctx.data.simulations().await?.first().map(|s| s.id.clone()),
            _ => ctx.data.heatmaps().await?.first().map(|h| h.id.clone()),
        };
        id.map(|id| (kind, id))
    };
    let Some((kind, id)) = target else {
        let kind = match ctx.parsed.kinds.first() {
            Some(Kind::Simulation) => Kind::Simulation,
            _ => Kind::Heatmap,
        };
        let answer = match locale {
            Locale::Fr => format!(
                "Vous n'avez encore aucune {}.",
                noun(kind, 0, locale).trim_start_matches("0 ")
            ),
            Locale::En => format!(
                "You have no {} yet.",
                noun(kind, 0, locale).trim_start_matches("0 ")
            ),
        };
        let page = if kind == Kind::Heatmap {
            Page::NewHeatmap
        } else {
            Page::Simulation
        };
        return reply(Intent::Status, answer, vec![page_link(page, locale)]);
    };
    let mut links = Vec::new();
    let answer = match kind {
        Kind::Simulation => {
            let Some(s) = ctx.data.simulations().await?.iter().find(|s| s.id == id) else {
                return reply(
                    Intent::Status,
                    ctx.l(
                        "Je ne trouve pas cette simulation.",
                        "I cannot find that simulation.",
                    )
                    .to_owned(),
                    vec![page_link(Page::Simulation, locale)],
                );
            };
            links.push(link(s.name.clone(), href(kind, &s.id)));
            let done = s.status == "done";
            let lead = match (done, locale) {
                (true, Locale::Fr) => "Oui : ",
                (true, Locale::En) => "Yes: ",
                (false, Locale::Fr) if matches!(s.status.as_str(), "queued" | "rendering") => {
                    "Pas encore : "
                }
                (false, Locale::En) if matches!(s.status.as_str(), "queued" | "rendering") => {
                    "Not yet: "
                }
                _ => "",
            };
            format!(
                "{lead}{} {} : {}.",
                kind_name(kind, locale),
                quoted(&s.name, locale),
                simulation_status_text(s, locale)
            )
            .replace(" : ", ctx.l(" : ", ": "))
        }
        _ => {
            let heatmaps = ctx.data.heatmaps().await?;
            let Some(h) = heatmaps.iter().find(|h| h.id == id) else {
                return reply(
                    Intent::Status,
                    ctx.l(
                        "Je ne trouve pas cette heatmap.",
                        "I cannot find that heatmap.",
                    )
                    .to_owned(),
                    vec![page_link(Page::Heatmaps, locale)],
                );
            };
            links.push(link(h.name.clone(), href(Kind::Heatmap, &h.id)));
            let lead = match (h.status, locale) {
                ("done" | "partial", Locale::Fr) => "Oui : ",
                ("done" | "partial", Locale::En) => "Yes: ",
                ("queued" | "processing", Locale::Fr) => "Pas encore : ",
                ("queued" | "processing", Locale::En) => "Not yet: ",
                _ => "",
            };
            let mut text = format!(
                "{lead}{} {} est {}.",
                kind_name(Kind::Heatmap, locale),
                quoted(&h.name, locale),
                heatmap_status_text(h, locale)
            );
            if locale == Locale::En {
                text = format!(
                    "{lead}the heatmap {} is {}.",
                    quoted(&h.name, locale),
                    heatmap_status_text(h, locale)
                );
            }
            let others = heatmaps
                .iter()
                .filter(|o| o.id != h.id && matches!(o.status, "queued" | "processing"))
                .count();
            if named.is_none() && others > 0 {
                text.push_str(&match locale {
                    Locale::Fr => format!(
                        " {} encore en cours.",
                        format::count(others, "autre heatmap est", "autres heatmaps sont", locale)
                    ),
                    Locale::En => format!(
                        " {} still processing.",
                        format::count(others, "other heatmap is", "other heatmaps are", locale)
                    ),
                });
            }
            if matches!(h.status, "failed" | "partial") {
                text.push_str(ctx.l(
                    " Ouvrez-la pour relancer les images en échec.",
                    " Open it to retry the failed images.",
                ));
            }
            text
        }
    };
    let mut answer = answer;
    if let Some(first) = answer.get(..1) {
        answer = first.to_uppercase() + &answer[1..];
    }
    reply(Intent::Status, answer, links)
}

/// The figures an item can be compared by.
struct Figures {
    name: String,
    href: String,
    score: Option<f64>,
    panel: Option<Panel>,
}

async fn figures(ctx: &Ctx<'_, '_>, kind: Kind, i: usize) -> Result<Figures, DbError> {
    let data = ctx.data;
    Ok(match kind {
        Kind::Creative => {
            let c = &data.creatives().await?[i];
            let best_panel = data
                .simulations()
                .await?
                .iter()
                .filter(|s| s.creative_id == c.id)
                .filter_map(|s| s.panel)
                .max_by(|a, b| a.share.total_cmp(&b.share));
            Figures {
                name: c.name.clone(),
                href: href(kind, &c.id),
                score: data.scores().await?.get(&c.media_id).map(|s| s.score),
                panel: best_panel,
            }
        }
        Kind::Location => {
            let l = &data.locations().await?[i];
            let best_panel = data
                .simulations()
                .await?
                .iter()
                .filter(|s| s.location_id == l.id)
                .filter_map(|s| s.panel)
                .max_by(|a, b| a.share.total_cmp(&b.share));
            let score = match &l.photo_media_id {
                Some(m) => data.scores().await?.get(m).map(|s| s.score),
                None => None,
            };
            Figures {
                name: l.name.clone(),
                href: href(kind, &l.id),
                score,
                panel: best_panel,
            }
        }
        Kind::Simulation => {
            let s = &data.simulations().await?[i];
            Figures {
                name: s.name.clone(),
                href: href(kind, &s.id),
                score: s.attention_score,
                panel: s.panel,
            }
        }
        Kind::Heatmap => {
            let h = &data.heatmaps().await?[i];
            Figures {
                name: h.name.clone(),
                href: href(kind, &h.id),
                score: h.score,
                panel: None,
            }
        }
    })
}

async fn compare(ctx: &Ctx<'_, '_>) -> Result<Reply, DbError> {
    let locale = ctx.locale;
    let mut items: Vec<(Kind, usize)> = ctx.items().collect();
    // Prefer two items of the same kind when the names are shared across kinds.
    if let Some(kind) = ctx.parsed.kinds.first() {
        let same: Vec<_> = items.iter().copied().filter(|(k, _)| k == kind).collect();
        if same.len() >= 2 {
            items = same;
        }
    }
    let mut distinct: Vec<(Kind, usize)> = Vec::new();
    for item in items {
        if !distinct.contains(&item) {
            distinct.push(item);
        }
    }
    if distinct.len() < 2 {
        let answer = ctx.l(
            "Donnez-moi les noms des deux éléments à comparer, par exemple : « compare Soldes d'été et Promo d'hiver ».",
            "Tell me the names of the two items to compare, for example: “compare Summer Sale and Winter Promo”.",
        );
        return reply(
            Intent::Compare,
            answer.to_owned(),
            vec![help_link("assistant", locale)],
        );
    }
    let a = figures(ctx, distinct[0].0, distinct[0].1).await?;
    let b = figures(ctx, distinct[1].0, distinct[1].1).await?;
    let links = vec![
        link(a.name.clone(), a.href.clone()),
        link(b.name.clone(), b.href.clone()),
    ];
    let (qa, qb) = (quoted(&a.name, locale), quoted(&b.name, locale));
    let prefer_panel = matches!(
        ctx.parsed.metric,
        Some(Metric::PanelShare | Metric::Visibility)
    ) || a.score.is_none()
        || b.score.is_none();
    let answer = if let (true, Some(pa), Some(pb)) = (prefer_panel, a.panel, b.panel) {
        let (win, lose) = if pa.share >= pb.share {
            (&qa, &qb)
        } else {
            (&qb, &qa)
        };
        match locale {
            Locale::Fr => format!(
                "Sur le panneau, {qa} obtient {} de l'attention (visibilité {}) et {qb} {} (visibilité {}) : {win} attire davantage l'attention que {lose}.",
                format::percent(pa.share, locale),
                format::ratio(pa.visibility, locale),
                format::percent(pb.share, locale),
                format::ratio(pb.visibility, locale)
            ),
            Locale::En => format!(
                "On the panel, {qa} gets {} of the attention (visibility {}) and {qb} {} (visibility {}): {win} draws more attention than {lose}.",
                format::percent(pa.share, locale),
                format::ratio(pa.visibility, locale),
                format::percent(pb.share, locale),
                format::ratio(pb.visibility, locale)
            ),
        }
    } else if let (Some(sa), Some(sb)) = (a.score, b.score) {
        let diff = (sa.round() - sb.round()).abs();
        let (win, lose) = if sa >= sb { (&qa, &qb) } else { (&qb, &qa) };
        let tail = if diff == 0.0 {
            ctx.l("ils sont à égalité", "they are level").to_owned()
        } else {
            match locale {
                Locale::Fr => format!(
                    "{win} devance {lose} de {} point{}",
                    diff,
                    if diff > 1.0 { "s" } else { "" }
                ),
                Locale::En => format!(
                    "{win} is ahead of {lose} by {} point{}",
                    diff,
                    if diff > 1.0 { "s" } else { "" }
                ),
            }
        };
        match locale {
            Locale::Fr => format!(
                "{qa} a un score d'attention de {} et {qb} de {} : {tail}.",
                format::score(sa, locale),
                format::score(sb, locale)
            ),
            Locale::En => format!(
                "{qa} has an attention score of {} and {qb} {}: {tail}.",
                format::score(sa, locale),
                format::score(sb, locale)
            ),
        }
    } else {
        let missing: Vec<String> = [(&a, &qa), (&b, &qb)]
            .iter()
            .filter(|(f, _)| f.score.is_none() && f.panel.is_none())
            .map(|(_, q)| (*q).clone())
            .collect();
        match locale {
            Locale::Fr => format!(
                "Je ne peux pas encore comparer {qa} et {qb} : {} n'{} pas de score d'attention. Créez une heatmap avec leurs images pour en obtenir.",
                format::join(&missing, locale),
                if missing.len() > 1 { "ont" } else { "a" }
            ),
            Locale::En => format!(
                "I cannot compare {qa} and {qb} yet: {} {} no attention score. Create a heatmap with their images to get one.",
                format::join(&missing, locale),
                if missing.len() > 1 { "have" } else { "has" }
            ),
        }
    };
    reply(Intent::Compare, answer, links)
}

async fn navigate(ctx: &Ctx<'_, '_>) -> Result<Reply, DbError> {
    let locale = ctx.locale;
    let opens_item = !ctx.parsed.words.iter().any(|w| w == "page");
    if opens_item && let Some((kind, i)) = ctx.items().next() {
        let name = item_name(ctx.data, kind, i).await?;
        let id = item_id(ctx.data, kind, i).await?;
        let answer = match locale {
            Locale::Fr => format!(
                "Voici {} {} : ouvrez-la avec le bouton ci-dessous.",
                kind_name(kind, locale),
                quoted(&name, locale)
            ),
            Locale::En => format!(
                "Here is {} {}: open it with the button below.",
                kind_name(kind, locale),
                quoted(&name, locale)
            ),
        }
        .replace(
            "ouvrez-la avec le bouton ci-dessous",
            if kind == Kind::Location {
                "ouvrez-le avec le bouton ci-dessous"
            } else {
                "ouvrez-la avec le bouton ci-dessous"
            },
        );
        return reply(Intent::Navigate, answer, vec![link(name, href(kind, &id))]);
    }
    let Some(page) = ctx.parsed.page else {
        return Ok(help_answer(&ctx.parsed.words.join(" "), locale, false));
    };
    let answer = match locale {
        Locale::Fr => format!(
            "Voici la page {} : le bouton ci-dessous vous y emmène.",
            quoted(page.label(locale), locale)
        ),
        Locale::En => format!(
            "Here is the {} page: the button below takes you there.",
            page.label(locale)
        ),
    };
    reply(Intent::Navigate, answer, vec![page_link(page, locale)])
}

async fn details(ctx: &Ctx<'_, '_>) -> Result<Reply, DbError> {
    let locale = ctx.locale;
    let Some((kind, i)) = ctx.items().next() else {
        return Ok(help_answer(&ctx.parsed.words.join(" "), locale, false));
    };
    let data = ctx.data;
    let (name, id, text) = match kind {
        Kind::Creative => {
            let c = &data.creatives().await?[i];
            let mut facts = Vec::new();
            if let Some(b) = &c.brand {
                facts.push(format!("{}{b}", ctx.l("marque ", "brand ")));
            }
            if let Some(k) = &c.campaign {
                facts.push(format!("{}{k}", ctx.l("campagne ", "campaign ")));
            }
            let mut text = match locale {
                Locale::Fr => format!("{} est une création", quoted(&c.name, locale)),
                Locale::En => format!("{} is a creative", quoted(&c.name, locale)),
            };
            if !facts.is_empty() {
                text.push_str(&format!(" ({})", facts.join(", ")));
            }
            text.push_str(&format!(
                "{}{}",
                ctx.l(", ajoutée le ", ", added on "),
                format::date(c.created_at, locale)
            ));
            match data.scores().await?.get(&c.media_id) {
                Some(s) => text.push_str(&format!(
                    "{}{}",
                    ctx.l(" ; score d'attention ", "; attention score "),
                    format::score(s.score, locale)
                )),
                None => text.push_str(ctx.l(
                    " ; pas encore de score d'attention",
                    "; no attention score yet",
                )),
            }
            let sims = data
                .simulations()
                .await?
                .iter()
                .filter(|s| s.creative_id == c.id)
                .count();
            text.push_str(&format!(
                ", {}.",
                match locale {
                    Locale::Fr => format!(
                        "{} avec elle",
                        format::count(sims, "simulation", "simulations", locale)
                    ),
                    Locale::En => format!(
                        "used in {}",
                        format::count(sims, "simulation", "simulations", locale)
                    ),
                }
            ));
            (c.name.clone(), c.id.clone(), text)
        }
        Kind::Location => {
            let l = &data.locations().await?[i];
            let mut text = match locale {
                Locale::Fr => format!("{} est un emplacement", quoted(&l.name, locale)),
                Locale::En => format!("{} is a location", quoted(&l.name, locale)),
            };
            if let Some(city) = &l.city {
                text.push_str(&format!("{}{city}", ctx.l(" à ", " in ")));
            }
            let mut facts = vec![format_single(&l.format, locale).to_owned()];
            if let (Some(w), Some(h)) = (l.panel_width_cm, l.panel_height_cm) {
                facts.push(format!("{w} × {h} cm"));
            }
            let lit = match (l.illumination.as_str(), locale) {
                ("front", _) => Some(ctx.l("éclairé par l'avant", "front-lit")),
                ("back", _) => Some(ctx.l("rétroéclairé", "backlit")),
                ("digital", _) => Some(ctx.l("numérique", "digital")),
                _ => None,
            };
            facts.extend(lit.map(str::to_owned));
            text.push_str(&format!(" ({})", facts.join(", ")));
            let sims = data
                .simulations()
                .await?
                .iter()
                .filter(|s| s.location_id == l.id)
                .count();
            text.push_str(&format!(
                ", {}.",
                match locale {
                    Locale::Fr => format!(
                        "{} sur cet emplacement",
                        format::count(sims, "simulation", "simulations", locale)
                    ),
                    Locale::En => format!(
                        "with {}",
                        format::count(sims, "simulation", "simulations", locale)
                    ),
                }
            ));
            if l.photo_media_id.is_none() || !l.has_quad {
                text.push_str(ctx.l(
                    " Placez une photo et les coins du panneau pour y simuler une création.",
                    " Add a photo and the panel's corners to simulate a creative there.",
                ));
            }
            (l.name.clone(), l.id.clone(), text)
        }
        Kind::Simulation => {
            let s = &data.simulations().await?[i];
            let mut text = match locale {
                Locale::Fr => format!("La simulation {} montre", quoted(&s.name, locale)),
                Locale::En => format!("The simulation {} shows", quoted(&s.name, locale)),
            };
            if let Some(c) = &s.creative_name {
                text.push_str(&format!(" {}", quoted(c, locale)));
            }
            if let Some(l) = &s.location_name {
                text.push_str(&format!("{}{}", ctx.l(" sur ", " on "), quoted(l, locale)));
            }
            text.push_str(&format!(
                "{}{}.",
                ctx.l(" : ", ": "),
                simulation_status_text(s, locale)
            ));
            (s.name.clone(), s.id.clone(), text)
        }
        Kind::Heatmap => {
            let h = &data.heatmaps().await?[i];
            let text = match locale {
                Locale::Fr => format!(
                    "La heatmap {} est {}.",
                    quoted(&h.name, locale),
                    heatmap_status_text(h, locale)
                ),
                Locale::En => format!(
                    "The heatmap {} is {}.",
                    quoted(&h.name, locale),
                    heatmap_status_text(h, locale)
                ),
            };
            (h.name.clone(), h.id.clone(), text)
        }
    };
    reply(Intent::Details, text, vec![link(name, href(kind, &id))])
}

fn greeting(ctx: &Ctx<'_, '_>) -> Reply {
    let thanks = ctx
        .parsed
        .words
        .iter()
        .any(|w| matches!(w.as_str(), "merci" | "thanks" | "thank"));
    let answer = if thanks {
        ctx.l(
            "Avec plaisir ! Autre chose ?",
            "You're welcome! Anything else?",
        )
    } else {
        ctx.l(
            "Bonjour ! Je réponds aux questions pratiques et aux questions sur vos créations, emplacements, simulations et heatmaps. Par exemple : « combien d'emplacements à Lyon ? » ou « comment faire un rendu de nuit ? ».",
            "Hello! I answer how-to questions and questions about your creatives, locations, simulations and heatmaps. For example: “how many locations in Lyon?” or “how do I make a night render?”.",
        )
    };
    Reply {
        answer: answer.to_owned(),
        links: vec![help_link("assistant", ctx.locale)],
        intent: Intent::Greeting.code().to_owned(),
    }
}

/// The help section that answers best, and every section that holds enough of the question's
/// words (best first: BM25 score weighted by the square of that share). For "how do I …?" the
/// steps rather than the article's introduction, when they score nearly as well.
fn best_help(question: &str, locale: Locale, asked: bool) -> (Option<help::Hit>, Vec<help::Hit>) {
    let hits = help::search(question, locale, 5);
    let (threshold, coverage) = if asked {
        (HELP_THRESHOLD * 0.5, 0.34)
    } else {
        (HELP_THRESHOLD, 0.5)
    };
    let mut passing: Vec<(f32, help::Hit)> = hits
        .into_iter()
        .filter_map(|h| {
            let c = h.coverage(question, locale);
            (h.score >= threshold && c >= coverage).then_some((h.score * c * c, h))
        })
        .collect();
    passing.sort_by(|a, b| b.0.total_cmp(&a.0));
    let passing: Vec<help::Hit> = passing.into_iter().map(|(_, h)| h).collect();
    let steps = asked
        && crate::assistant::matching::words(question)
            .iter()
            .any(|w| w == "how" || w == "comment");
    let chosen = passing.first().map(|best| {
        let intro = std::ptr::eq(best.section, &best.article.sections[0]);
        let better = passing
            .iter()
            .filter(|h| {
                steps
                    && intro
                    && h.article.slug == best.article.slug
                    && !std::ptr::eq(h.section, best.section)
                    && h.score >= best.score * 0.6
            })
            .max_by(|a, b| {
                let key = |h: &help::Hit| (h.section_coverage(question, locale), h.score);
                key(a)
                    .partial_cmp(&key(b))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
        *better.unwrap_or(best)
    });
    (chosen, passing)
}

/// A how-to answer from the help articles, or "I don't know" with what the assistant can do.
/// `asked` is true when the question was phrased as a how-to, which lowers the bar.
pub fn help_answer(question: &str, locale: Locale, asked: bool) -> Reply {
    let (chosen, passing) = best_help(question, locale, asked);
    match chosen {
        Some(hit) => {
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
                Locale::Fr => format!("\nPour en savoir plus : {}.", quoted(&article.title, locale)),
                Locale::En => format!("\nMore in {}.", quoted(&article.title, locale)),
            };
            answer.push_str(&see);
            Reply {
                answer,
                links,
                intent: Intent::Help.code().to_owned(),
            }
        }
        _ => Reply {
            answer: locale
                .pick(
                    "Je ne sais pas répondre à cette question. Je peux expliquer comment utiliser Regard (par exemple « comment tracer les coins du panneau ? ») et répondre sur vos données : compter ou lister vos créations, emplacements, simulations et heatmaps, trouver la meilleure ou la dernière, dire si une heatmap est terminée, comparer deux éléments ou vous emmener sur une page.",
                    "I don't know how to answer that. I can explain how to use Regard (for example “how do I draw the panel's corners?”) and answer about your data: count or list your creatives, locations, simulations and heatmaps, find the best or the latest, tell whether a heatmap is finished, compare two items, or take you to a page.",
                )
                .to_owned(),
            links: vec![help_link("assistant", locale), page_link(Page::Help, locale)],
            intent: Intent::Unknown.code().to_owned(),
        },
    }
}
