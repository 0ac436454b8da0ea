//! The server's words in French (the product's default) and English: one language type,
//! [`Locale`], and one catalogue, read by [`t`].
//!
//! The catalogue is two pairs of JSON files embedded at build time, looked up in this order:
//! the server's own (`crates/server/locales/{fr,en}.json`: the mails and SMS), then the web
//! app's (`web/src/locales/{fr,en}.json`), whose words the reports take so that a PDF says
//! exactly what the results page says. Their top-level sections do not overlap (a test checks
//! it). Placeholders are written `{{name}}`, as i18next writes them.
//!
//! Decision: the assistant's answers stay in its code (`assistant::engine`, with
//! [`Locale::pick`]). They are composed, not looked up: a French answer agrees in gender and
//! number with the kind of item and the count it names, and orders its words differently from
//! the English one, so a key per fragment would split each sentence from the grammar that
//! builds it. What the assistant shares with the rest is this language type, the number and
//! date formats (`assistant::format`), and the help articles, one file per language.

use std::sync::LazyLock;

use serde::Serialize;
use serde_json::Value;

/// A language of the product.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Locale {
    Fr,
    En,
}

impl Locale {
    /// Both languages, the default first.
    pub const ALL: [Locale; 2] = [Locale::Fr, Locale::En];

    /// `fr` or `en`.
    pub fn code(self) -> &'static str {
        match self {
            Locale::Fr => "fr",
            Locale::En => "en",
        }
    }

    /// Parses `fr`/`en` (and regional forms such as `fr-CA`).
    pub fn parse(value: &str) -> Option<Self> {
        let lang = value.split(['-', '_']).next()?.to_ascii_lowercase();
        match lang.as_str() {
            "fr" => Some(Locale::Fr),
            "en" => Some(Locale::En),
            _ => None,
        }
    }

    /// The first language of an `Accept-Language` value that we speak; French otherwise.
    pub fn from_accept_language(header: Option<&str>) -> Self {
        header
            .unwrap_or("")
            .split(',')
            .filter_map(|part| Locale::parse(part.split(';').next().unwrap_or("").trim()))
            .next()
            .unwrap_or(Locale::Fr)
    }

    /// Picks the French or English text.
    pub fn pick<'a>(self, fr: &'a str, en: &'a str) -> &'a str {
        match self {
            Locale::Fr => fr,
            Locale::En => en,
        }
    }
}

fn parse(json: &str, name: &str) -> Value {
    serde_json::from_str(json).unwrap_or_else(|err| panic!("{name} is not JSON: {err}"))
}

static SERVER_FR: LazyLock<Value> =
    LazyLock::new(|| parse(include_str!("../locales/fr.json"), "locales/fr.json"));
static SERVER_EN: LazyLock<Value> =
    LazyLock::new(|| parse(include_str!("../locales/en.json"), "locales/en.json"));
static WEB_FR: LazyLock<Value> = LazyLock::new(|| {
    parse(
        include_str!("../../../web/src/locales/fr.json"),
        "web/src/locales/fr.json",
    )
});
static WEB_EN: LazyLock<Value> = LazyLock::new(|| {
    parse(
        include_str!("../../../web/src/locales/en.json"),
        "web/src/locales/en.json",
    )
});

/// The catalogue's files for `locale`, in lookup order.
fn files(locale: Locale) -> [&'static Value; 2] {
    match locale {
        Locale::Fr => [&SERVER_FR, &WEB_FR],
        Locale::En => [&SERVER_EN, &WEB_EN],
    }
}

/// The node at `key` (a dotted path): a text, or an object of texts for a key completed at run
/// time.
fn node(locale: Locale, key: &str) -> Option<&'static Value> {
    files(locale)
        .into_iter()
        .find_map(|root| key.split('.').try_fold(root, |node, part| node.get(part)))
}

/// The text of `key` (a dotted path), if the catalogue has it.
pub fn lookup(locale: Locale, key: &str) -> Option<&'static str> {
    node(locale, key).and_then(Value::as_str)
}

/// The text of `key` (a dotted path) with its `{{name}}` placeholders filled. A missing key
/// gives the key itself, logged as an error (tests check every key the code names).
pub fn t(locale: Locale, key: &str, values: &[(&str, &str)]) -> String {
    let text = lookup(locale, key).unwrap_or_else(|| {
        tracing::error!(key, ?locale, "a text is missing from the translations");
        key
    });
    values.iter().fold(text.to_owned(), |text, (name, value)| {
        text.replace(&format!("{{{{{name}}}}}"), value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_come_from_the_server_catalogue_then_the_web_one() {
        assert_eq!(
            t(Locale::En, "sms.code", &[("code", "012345")]),
            "Regard: your verification code is 012345. It expires in 5 minutes."
        );
        assert_eq!(
            t(Locale::Fr, "heatmap.score.title", &[]),
            "Score d'attention"
        );
        assert_eq!(t(Locale::En, "heatmap.score.title", &[]), "Attention score");
        assert_eq!(
            t(Locale::Fr, "heatmap.areas.seenLater", &[("rank", "4")]),
            "Vue plus tard (n° 4 de l'ordre de lecture)"
        );
        assert_eq!(t(Locale::En, "no.such.key", &[]), "no.such.key");
    }

    #[test]
    fn accept_language_picks_the_first_language_we_speak() {
        let pick = |header| Locale::from_accept_language(header);
        assert_eq!(pick(Some("en-GB,en;q=0.9,fr;q=0.8")), Locale::En);
        assert_eq!(pick(Some("de-DE,fr;q=0.5,en;q=0.4")), Locale::Fr);
        assert_eq!(pick(Some("de-DE, EN-us")), Locale::En);
        assert_eq!(pick(Some("de-DE")), Locale::Fr);
        assert_eq!(pick(None), Locale::Fr);
    }

    /// Every key of one language's file, as dotted paths.
    fn keys(node: &Value, prefix: &str, out: &mut Vec<String>) {
        match node {
            Value::Object(map) => {
                for (name, child) in map {
                    let path = if prefix.is_empty() {
                        name.clone()
                    } else {
                        format!("{prefix}.{name}")
                    };
                    keys(child, &path, out);
                }
            }
            _ => out.push(prefix.to_owned()),
        }
    }

    #[test]
    fn the_server_files_have_the_same_keys_and_no_section_of_the_web_ones() {
        let (mut fr, mut en) = (Vec::new(), Vec::new());
        keys(&SERVER_FR, "", &mut fr);
        keys(&SERVER_EN, "", &mut en);
        assert_eq!(fr, en);
        assert!(fr.len() >= 30, "{} keys", fr.len());
        for section in SERVER_FR.as_object().unwrap().keys() {
            assert!(
                WEB_FR.get(section).is_none(),
                "{section} is in both catalogues"
            );
        }
        let mut all = Vec::new();
        keys(&SERVER_FR, "", &mut all);
        for key in all {
            let text = lookup(Locale::Fr, &key).unwrap_or_default();
            assert!(
                !text.contains('{') || text.contains("{{"),
                "{key}: a placeholder is written {{{{name}}}}"
            );
        }
    }

    /// Every key the Rust code names as a literal exists in both languages: a text for a whole
    /// key, an object of texts for a key completed at run time (`"heatmap.score.bands.{b}"`).
    /// The web's `check:i18n` keeps its two files' keys the same; this keeps Rust inside them.
    #[test]
    fn every_key_the_code_names_exists_in_both_languages() {
        let sections = ["mail", "sms", "heatmap", "report"];
        let pattern = format!(r#""((?:{})\.[A-Za-z0-9_.{{}}]*)""#, sections.join("|"));
        let key = regex::Regex::new(&pattern).unwrap();
        let mut checked = 0;
        let mut pending = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src"
        ))];
        while let Some(path) = pending.pop() {
            if path.is_dir() {
                pending.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            if path.extension().is_none_or(|ext| ext != "rs") {
                continue;
            }
            let source = std::fs::read_to_string(&path).unwrap();
            for found in key.captures_iter(&source) {
                let key = &found[1];
                for locale in Locale::ALL {
                    let (path_part, whole) = match key.split_once(".{") {
                        Some((prefix, _)) => (prefix, false),
                        None => (key, true),
                    };
                    let ok = match node(locale, path_part) {
                        Some(Value::String(_)) => whole,
                        Some(Value::Object(map)) => !whole && map.values().all(Value::is_string),
                        _ => false,
                    };
                    assert!(ok, "{key} is missing in {}", locale.code());
                }
                checked += 1;
            }
        }
        assert!(
            checked > 60,
            "only {checked} keys found: the pattern no longer sees them"
        );
    }
}
