//! What a question asks, read from its words (normalised: lowercase, no accents), in French or
//! English: the intent, the kinds of items it is about, the measure it ranks by, the page it
//! wants to reach. Names of the user's items are found separately ([`super::matching`]), since
//! they come from the data.

use super::Locale;
use super::data::Kind;
use super::matching::words;

/// What the user wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// "How many locations in Lyon?"
    Count,
    /// "List my creatives for the brand Moka."
    List,
    /// "Which creative scored best?"
    Best,
    /// "Which simulation has the lowest visibility?"
    Worst,
    /// "Open my last heatmap."
    Latest,
    /// "Is my heatmap finished?"
    Status,
    /// "Will my panel be seen?": the first-second probability of a simulation's panel.
    Seen,
    /// "Compare Summer and Winter."
    Compare,
    /// "Take me to the locations page", or "open Summer Sale".
    Navigate,
    /// What the assistant knows of one named item ("what is the score of Summer?").
    Details,
    /// A how-to question, answered from the help articles.
    Help,
    /// "Hello", "thanks".
    Greeting,
    /// Nothing the assistant can answer.
    Unknown,
}

impl Intent {
    /// The stable name in the API's `intent` field.
    pub fn code(self) -> &'static str {
        match self {
            Intent::Count => "count",
            Intent::List => "list",
            Intent::Best => "best",
            Intent::Worst => "worst",
            Intent::Latest => "latest",
            Intent::Status => "status",
            Intent::Seen => "seen",
            Intent::Compare => "compare",
            Intent::Navigate => "navigate",
            Intent::Details => "details",
            Intent::Help => "help",
            Intent::Greeting => "greeting",
            Intent::Unknown => "unknown",
        }
    }
}

/// What a ranking compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// The attention score (0–100) of a heatmap image.
    Score,
    /// The panel's share of attention in a render.
    PanelShare,
    /// The panel's share of attention divided by its share of the area.
    Visibility,
}

/// A page of the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    Creatives,
    Locations,
    NewLocation,
    Simulation,
    Heatmaps,
    NewHeatmap,
    Account,
    Help,
}

impl Page {
    /// The in-app address.
    pub fn href(self) -> &'static str {
        match self {
            Page::Creatives => "/creatives",
            Page::Locations => "/locations",
            Page::NewLocation => "/locations/new",
            Page::Simulation => "/simulation",
            Page::Heatmaps => "/heatmap",
            Page::NewHeatmap => "/heatmap/new",
            Page::Account => "/account",
            Page::Help => "/help",
        }
    }

    /// The page's name in the app's navigation.
    pub fn label(self, locale: Locale) -> &'static str {
        match self {
            Page::Creatives => locale.pick("Créations", "Creatives"),
            Page::Locations => locale.pick("Emplacements", "Locations"),
            Page::NewLocation => locale.pick("Nouvel emplacement", "New location"),
            Page::Simulation => locale.pick("Rendu", "Rendering"),
            Page::Heatmaps => locale.pick("Heatmaps", "Heatmaps"),
            Page::NewHeatmap => locale.pick("Nouvelle heatmap", "New heatmap"),
            Page::Account => locale.pick("Mon compte", "My account"),
            Page::Help => locale.pick("Aide", "Help"),
        }
    }
}

/// A status a question filters on or asks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusWord {
    Done,
    Failed,
    InProgress,
    Draft,
}

/// A question, read.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The normalised words.
    pub words: Vec<String>,
    /// The intent the words say, if they say one.
    pub intent: Option<Intent>,
    /// The kinds of items named ("creative", "emplacements"), in order of mention.
    pub kinds: Vec<Kind>,
    pub metric: Option<Metric>,
    /// "first", "oldest": the latest from the other end.
    pub oldest: bool,
    /// The page named, for navigation.
    pub page: Option<Page>,
    /// A status named ("failed heatmaps", "is it finished").
    pub status: Option<StatusWord>,
    /// A panel format named ("bus shelters", "écrans numériques").
    pub format: Option<&'static str>,
    /// "night" renders.
    pub night: bool,
    /// The language the question is written in, when its words say so clearly.
    pub language: Option<Locale>,
    /// Whether the question is phrased as a how-to ("how do I", "comment", "what does … mean").
    pub howto: bool,
    /// Whether "my"/"mes"/"mon" appears (a question about the user's own things).
    pub mine: bool,
    /// Whether the first kind word is plural ("heatmaps", "panneaux").
    pub plural: bool,
    /// Whether an "open"/"ouvre" verb appears.
    pub open: bool,
}

const CREATIVE: &[&str] = &[
    "creative",
    "creatives",
    "creation",
    "creations",
    "crea",
    "creas",
    "visuel",
    "visuels",
    "visual",
    "visuals",
    "ad",
    "ads",
    "advert",
    "adverts",
    "advertisement",
    "advertisements",
    "poster",
    "posters",
    "pub",
    "pubs",
    "publicite",
    "publicites",
];
const LOCATION: &[&str] = &[
    "location",
    "locations",
    "emplacement",
    "emplacements",
    "site",
    "sites",
    "billboard",
    "billboards",
    "panneaux",
    "panels",
    "lieu",
    "lieux",
    "spot",
    "spots",
];
const SIMULATION: &[&str] = &[
    "simulation",
    "simulations",
    "render",
    "renders",
    "rendering",
    "renderings",
    "rendu",
    "rendus",
    "mockup",
    "mockups",
    "maquette",
    "maquettes",
];
const HEATMAP: &[&str] = &["heatmap", "heatmaps", "chaleur"];

const BEST: &[&str] = &[
    "best",
    "highest",
    "top",
    "most",
    "greatest",
    "strongest",
    "meilleur",
    "meilleure",
    "meilleurs",
    "meilleures",
    "max",
    "maximum",
    "winner",
    "leading",
];
const WORST: &[&str] = &[
    "worst", "lowest", "least", "weakest", "poorest", "pire", "pires", "moins", "min", "minimum",
    "loser",
];
const LATEST: &[&str] = &[
    "last",
    "latest",
    "newest",
    "recent",
    "recently",
    "dernier",
    "derniere",
    "derniers",
    "dernieres",
    "recente",
    "recemment",
];
const OLDEST: &[&str] = &[
    "first", "oldest", "earliest", "premier", "premiere", "ancien", "ancienne",
];
const STATUS: &[&str] = &[
    "status",
    "state",
    "finished",
    "finish",
    "ready",
    "complete",
    "completed",
    "progress",
    "processing",
    "pending",
    "running",
    "statut",
    "etat",
    "termine",
    "terminee",
    "terminees",
    "termines",
    "fini",
    "finie",
    "finies",
    "finis",
    "pret",
    "prete",
    "avancement",
    "rendered",
];
const COMPARE: &[&str] = &[
    "compare",
    "comparer",
    "comparez",
    "compares",
    "comparing",
    "comparison",
    "comparaison",
    "versus",
    "vs",
];
const COUNT_WORDS: &[&str] = &["combien", "count", "nombre", "total"];
const LIST: &[&str] = &[
    "list",
    "liste",
    "lister",
    "listez",
    "enumerate",
    "show",
    "montre",
    "montrez",
    "affiche",
    "affichez",
    "display",
    "donne",
    "donnez",
    "give",
    "quels",
    "quelles",
    "lesquels",
    "lesquelles",
    "all",
    "tous",
    "toutes",
];
const NAV: &[&str] = &[
    "navigate", "emmene", "emmenez", "amene", "amenez", "aller", "allons", "redirect", "redirige",
    "go", "goto",
];
const OPEN: &[&str] = &[
    "open", "ouvre", "ouvrir", "ouvrez", "afficher", "voir", "see",
];
const GREETING: &[&str] = &[
    "hello", "hi", "hey", "bonjour", "salut", "bonsoir", "coucou", "thanks", "thank", "merci",
];
const MINE: &[&str] = &[
    "my", "mine", "mes", "mon", "ma", "i", "j", "je", "me", "moi",
];

/// French and English words that tell the language of a question.
const FRENCH: &[&str] = &[
    "le", "la", "les", "des", "du", "un", "une", "mes", "mon", "ma", "quel", "quelle", "quels",
    "quelles", "combien", "comment", "est", "sont", "a", "ai", "je", "pour", "dans", "avec", "sur",
    "et", "ou", "qui", "que", "ce", "cette", "moi", "d", "l", "j", "qu", "faire", "mon", "de",
];
const ENGLISH: &[&str] = &[
    "the", "my", "how", "many", "which", "what", "is", "are", "do", "does", "i", "of", "for", "in",
    "with", "on", "and", "to", "me", "show", "list", "can", "take", "did", "best", "last",
];

/// Words the question's own vocabulary uses, never read as a one-word name on their own.
pub fn is_vocabulary(word: &str) -> bool {
    [
        CREATIVE,
        LOCATION,
        SIMULATION,
        HEATMAP,
        BEST,
        WORST,
        LATEST,
        OLDEST,
        STATUS,
        COMPARE,
        COUNT_WORDS,
        LIST,
        NAV,
        OPEN,
        GREETING,
        FRENCH,
        ENGLISH,
    ]
    .iter()
    .any(|list| list.contains(&word))
        || matches!(
            word,
            "page"
                | "score"
                | "scores"
                | "scored"
                | "attention"
                | "panel"
                | "panneau"
                | "help"
                | "aide"
                | "new"
                | "nouvelle"
                | "nouvel"
                | "brand"
                | "marque"
                | "campaign"
                | "campagne"
                | "city"
                | "ville"
                | "name"
                | "nom"
        )
}

fn has(words: &[String], list: &[&str]) -> bool {
    words.iter().any(|w| list.contains(&w.as_str()))
}

/// Whether the words contain `phrase` (words separated by single spaces) as consecutive words.
fn phrase(text: &str, phrase: &str) -> bool {
    let padded = format!(" {text} ");
    padded.contains(&format!(" {phrase} "))
}

/// The kind a word names, allowing a small typo in longer words ("emplacemnts").
fn kind_of(word: &str) -> Option<Kind> {
    let lists = [
        (Kind::Creative, CREATIVE),
        (Kind::Location, LOCATION),
        (Kind::Simulation, SIMULATION),
        (Kind::Heatmap, HEATMAP),
    ];
    for (kind, list) in lists {
        if list.contains(&word) {
            return Some(kind);
        }
    }
    // One typo (an edit or a swap) in words of six letters or more: "emplacemnts",
    // "heatmpa"; not two, which would read "create" as "creative". Some real words are one
    // edit away from a kind word and mean something else.
    if word.len() >= 6 && !matches!(word, "panneau" | "affiche") {
        for (kind, list) in lists {
            if list
                .iter()
                .any(|k| k.len() >= 6 && strsim::damerau_levenshtein(word, k) <= 1)
            {
                return Some(kind);
            }
        }
    }
    None
}

fn language(words: &[String]) -> Option<Locale> {
    let fr = words
        .iter()
        .filter(|w| FRENCH.contains(&w.as_str()))
        .count();
    let en = words
        .iter()
        .filter(|w| ENGLISH.contains(&w.as_str()))
        .count();
    if fr >= 2 && fr > en * 2 {
        Some(Locale::Fr)
    } else if en >= 2 && en > fr * 2 {
        Some(Locale::En)
    } else {
        None
    }
}

/// Reads a question.
pub fn parse(question: &str) -> Parsed {
    let words = words(question);
    let text = words.join(" ");
    let p = |s: &str| phrase(&text, s);

    let mut kinds: Vec<Kind> = Vec::new();
    let mut plural = false;
    for (i, word) in words.iter().enumerate() {
        let kind = match word.as_str() {
            // "heat map", "carte de chaleur", "carte d'attention"
            "heat" if words.get(i + 1).is_some_and(|n| n.starts_with("map")) => Some(Kind::Heatmap),
            "carte" | "cartes"
                if words
                    .get(i + 1..i + 3)
                    .is_some_and(|n| n.iter().any(|w| w == "attention" || w == "chaleur")) =>
            {
                Some(Kind::Heatmap)
            }
            "chaleur" => None,
            "mock" if words.get(i + 1).is_some_and(|n| n.starts_with("up")) => {
                Some(Kind::Simulation)
            }
            w => kind_of(w),
        };
        if let Some(kind) = kind
            && !kinds.contains(&kind)
        {
            if kinds.is_empty() {
                plural = word.ends_with('s') || word.ends_with('x');
            }
            kinds.push(kind);
        }
    }

    let visibility = has(&words, &["visibility", "visibilite", "visible"]);
    let panel_words = has(&words, &["panel", "panneau", "share", "part"]);
    let metric = if visibility {
        Some(Metric::Visibility)
    } else if panel_words && (has(&words, &["attention", "share", "part"]) || p("on the panel")) {
        Some(Metric::PanelShare)
    } else if has(
        &words,
        &[
            "score",
            "scores",
            "scored",
            "scoring",
            "note",
            "noted",
            "attention",
        ],
    ) {
        Some(Metric::Score)
    } else {
        None
    };

    let status = if has(
        &words,
        &[
            "failed", "fail", "echoue", "echouee", "echouees", "echoues", "echec", "echecs",
            "error", "errors", "erreur", "erreurs",
        ],
    ) {
        Some(StatusWord::Failed)
    } else if p("en cours")
        || has(
            &words,
            &["processing", "pending", "running", "progress", "queued"],
        )
    {
        Some(StatusWord::InProgress)
    } else if has(&words, &["draft", "drafts", "brouillon", "brouillons"]) {
        Some(StatusWord::Draft)
    } else if has(
        &words,
        &[
            "finished",
            "done",
            "ready",
            "complete",
            "completed",
            "termine",
            "terminee",
            "terminees",
            "termines",
            "fini",
            "finie",
            "finies",
            "finis",
            "pret",
            "prete",
            "prets",
            "pretes",
            "rendered",
        ],
    ) {
        Some(StatusWord::Done)
    } else {
        None
    };

    let format = if p("bus shelter")
        || p("bus shelters")
        || has(&words, &["abribus", "shelter", "shelters"])
    {
        Some("bus_shelter")
    } else if has(&words, &["mupi", "mupis"]) {
        Some("mupi_2m2")
    } else if p("digital screen")
        || p("digital screens")
        || p("ecran numerique")
        || p("ecrans numeriques")
        || has(&words, &["ecran", "ecrans", "dooh"])
    {
        Some("digital_screen")
    } else if p("4 x 3") || p("12 m2") || has(&words, &["4x3", "12m2"]) {
        // One panel, two names: a 4 × 3 m billboard is the 12 m².
        Some("billboard_4x3")
    } else if p("320 x 240") || p("8 m2") || has(&words, &["320x240", "8m2"]) {
        Some("billboard_320x240")
    } else if p("shop window") || has(&words, &["vitrine", "vitrines"]) {
        Some("shop_window")
    } else {
        None
    };

    let newish = has(
        &words,
        &[
            "new", "nouvelle", "nouvel", "nouveau", "create", "creer", "add", "ajouter",
        ],
    );
    let page = if has(
        &words,
        &[
            "account",
            "compte",
            "profile",
            "profil",
            "settings",
            "parametres",
            "password",
        ],
    ) || p("mot de passe")
    {
        Some(Page::Account)
    } else if has(&words, &["help", "aide", "documentation", "articles"]) {
        Some(Page::Help)
    } else {
        match kinds.first() {
            Some(Kind::Heatmap) if newish => Some(Page::NewHeatmap),
            Some(Kind::Location) if newish => Some(Page::NewLocation),
            Some(Kind::Creative) => Some(Page::Creatives),
            Some(Kind::Location) => Some(Page::Locations),
            Some(Kind::Simulation) => Some(Page::Simulation),
            Some(Kind::Heatmap) => Some(Page::Heatmaps),
            None => None,
        }
    };

    // "Combien de temps", "how long": a duration, which the help articles answer, not a count.
    let duration = p("combien de temps") || p("how long");
    let howto = duration
        || p("how do")
        || p("how can")
        || p("how to")
        || p("how should")
        || p("how does")
        || p("how would")
        || p("how is")
        || p("how are")
        || (has(&words, &["comment"]) && !has(&words, &["combien"]))
        || has(
            &words,
            &[
                "explain",
                "explique",
                "expliquez",
                "why",
                "pourquoi",
                "mean",
                "means",
                "meaning",
                "signifie",
                "signifient",
                "definition",
                "formula",
                "formule",
                "calculated",
                "computed",
                "calcule",
                "calculee",
                "tips",
                "conseil",
                "conseils",
            ],
        )
        || p("what does")
        || p("veut dire")
        || p("veulent dire")
        || p("c est quoi")
        || p("qu est ce")
        || p("can i")
        || p("puis je")
        || p("peut on")
        || p("est il possible")
        || p("is it possible")
        || p("where do i")
        || p("where can i")
        || p("ou puis je");

    let mine = has(&words, MINE);
    let count = !duration && (has(&words, COUNT_WORDS) || p("how many") || p("number of"));
    let best = has(&words, BEST)
        || p("le plus")
        || p("la plus")
        || p("les plus")
        || p("plus d attention")
        || p("plus eleve")
        || p("plus elevee")
        || p("plus haut")
        || p("plus haute")
        || p("plus fort")
        || p("plus forte")
        || p("plus visible")
        || p("mieux note")
        || p("mieux notee");
    let worst = has(&words, WORST)
        || p("plus faible")
        || p("plus bas")
        || p("plus basse")
        || p("plus mauvais")
        || p("plus mauvaise")
        || p("moins bon")
        || p("moins bonne");
    let latest = has(&words, LATEST)
        || p("most recent")
        || p("plus recent")
        || p("plus recente")
        || p("just created")
        || p("vient de");
    let oldest = has(&words, OLDEST) || p("plus ancien") || p("plus ancienne");
    let compare = has(&words, COMPARE) || p("difference between") || p("difference entre");
    let navigate = has(&words, NAV)
        || p("take me")
        || p("bring me")
        || p("go to")
        || p("va a")
        || p("vas a")
        || (has(&words, OPEN) && has(&words, &["page"]))
        || (has(&words, &["page"]) && page.is_some() && !howto);
    let list = has(&words, LIST)
        || p("what are")
        || p("which are")
        || p("which ones")
        || p("quels sont")
        || p("quelles sont");
    let greeting = words.len() <= 4 && has(&words, GREETING);
    // "Will my panel be seen?", "mon panneau sera-t-il vu ?", "noticed in the first second?"
    let seen = has(
        &words,
        &[
            "seen",
            "noticed",
            "notice",
            "spotted",
            "vu",
            "vue",
            "remarque",
            "remarquee",
            "aperçu",
            "apercu",
        ],
    ) || p("first second")
        || p("premiere seconde")
        || p("first glance")
        || p("premier regard");

    // "How many images at most in a heatmap?" asks for a limit, not a count of the user's.
    let limit = has(
        &words,
        &[
            "maximum",
            "max",
            "limit",
            "limits",
            "limite",
            "limites",
            "allowed",
            "autorise",
            "autorisees",
            "autorises",
        ],
    ) || p("at most")
        || p("au plus")
        || p("au maximum");
    let intent = if count && limit {
        Some(Intent::Help)
    } else if count {
        Some(Intent::Count)
    } else if howto {
        Some(Intent::Help)
    } else if compare {
        Some(Intent::Compare)
    } else if navigate && page.is_some() && !(latest || oldest || best || worst) {
        Some(Intent::Navigate)
    } else if seen && !list && !plural && !best && !worst {
        // Before "latest": "the first second" names no item's age.
        Some(Intent::Seen)
    } else if latest || (oldest && !best && !worst) {
        Some(Intent::Latest)
    } else if worst {
        Some(Intent::Worst)
    } else if best && (!kinds.is_empty() || metric.is_some()) {
        Some(Intent::Best)
    } else if !list
        && !plural
        && (has(&words, STATUS)
            || p("ou en est")
            || p("ou en sont")
            || (status.is_some() && has(&words, &["done", "failed", "echoue", "echouee"])))
    {
        Some(Intent::Status)
    } else if list || (plural && status.is_some()) {
        Some(Intent::List)
    } else if greeting {
        Some(Intent::Greeting)
    } else {
        None
    };

    let night = has(&words, &["night", "nuit", "nocturne"]);
    let open = has(&words, OPEN);
    Parsed {
        language: language(&words),
        words,
        intent,
        kinds,
        metric,
        oldest: oldest && !latest,
        page,
        status,
        format,
        night,
        howto,
        mine,
        plural,
        open,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(question: &str, intent: Option<Intent>, kinds: &[Kind]) {
        let parsed = parse(question);
        assert_eq!(parsed.intent, intent, "{question}");
        assert_eq!(parsed.kinds, kinds, "{question}");
    }

    #[test]
    fn intents_in_both_languages() {
        use Kind::*;
        check(
            "Combien d'emplacements à Lyon ?",
            Some(Intent::Count),
            &[Location],
        );
        check(
            "how many creatives do I have",
            Some(Intent::Count),
            &[Creative],
        );
        check(
            "list my creatives for the brand Moka",
            Some(Intent::List),
            &[Creative],
        );
        check(
            "Which creative scored best?",
            Some(Intent::Best),
            &[Creative],
        );
        check(
            "quelle simulation attire le plus l'attention sur le panneau ?",
            Some(Intent::Best),
            &[Simulation],
        );
        check(
            "quel est mon pire visuel ?",
            Some(Intent::Worst),
            &[Creative],
        );
        check("open my last heatmap", Some(Intent::Latest), &[Heatmap]);
        check(
            "ouvre ma dernière carte de chaleur",
            Some(Intent::Latest),
            &[Heatmap],
        );
        check("is my heatmap finished?", Some(Intent::Status), &[Heatmap]);
        check("will my panel be seen?", Some(Intent::Seen), &[]);
        check("mon panneau sera-t-il vu ?", Some(Intent::Seen), &[]);
        check(
            "la simulation Gare est-elle remarquée dans la première seconde ?",
            Some(Intent::Seen),
            &[Simulation],
        );
        check("which heatmaps failed?", Some(Intent::List), &[Heatmap]);
        check(
            "Où en est la heatmap Printemps ?",
            Some(Intent::Status),
            &[Heatmap],
        );
        check(
            "ma heatmap est-elle terminée ?",
            Some(Intent::Status),
            &[Heatmap],
        );
        check("compare A and B", Some(Intent::Compare), &[]);
        check(
            "take me to the locations page",
            Some(Intent::Navigate),
            &[Location],
        );
        check(
            "emmène-moi aux créations",
            Some(Intent::Navigate),
            &[Creative],
        );
        check(
            "how do I draw the panel's corners?",
            Some(Intent::Help),
            &[],
        );
        check(
            "Comment créer une heatmap ?",
            Some(Intent::Help),
            &[Heatmap],
        );
        check("what does clarity mean", Some(Intent::Help), &[]);
        check("bonjour", Some(Intent::Greeting), &[]);
        check(
            "Combien d'images au maximum dans une heatmap ?",
            Some(Intent::Help),
            &[Kind::Heatmap],
        );
        check("Summer Sale", None, &[]);
        // How long is a duration, not a count.
        check(
            "Combien de temps un lien de partage est-il valable ?",
            Some(Intent::Help),
            &[],
        );
        check(
            "how long does a render take?",
            Some(Intent::Help),
            &[Kind::Simulation],
        );
        // The second half of a two-part question asks "which ones" of the first one's kind.
        check("lesquels sont à Paris ?", Some(Intent::List), &[]);
        check("which ones failed?", Some(Intent::List), &[]);
    }

    #[test]
    fn typos_in_kind_words_are_forgiven() {
        assert_eq!(parse("combien d'emplacemnts").kinds, [Kind::Location]);
        assert_eq!(parse("my latest heatmpa").kinds, [Kind::Heatmap]);
    }

    #[test]
    fn metrics_pages_and_languages() {
        assert_eq!(
            parse("most visible render").metric,
            Some(Metric::Visibility)
        );
        assert_eq!(
            parse("best share of attention on the panel").metric,
            Some(Metric::PanelShare)
        );
        assert_eq!(parse("new heatmap page").page, Some(Page::NewHeatmap));
        assert_eq!(
            parse("combien de créations ai-je ?").language,
            Some(Locale::Fr)
        );
        assert_eq!(
            parse("how many creatives do I have").language,
            Some(Locale::En)
        );
        assert_eq!(parse("failed heatmaps").status, Some(StatusWord::Failed));
        assert_eq!(parse("abribus à Paris").format, Some("bus_shelter"));
    }
}
