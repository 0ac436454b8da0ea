//! The words of the reports, in French or English: the web app's own translations
//! (`web/src/locales/{fr,en}.json`, embedded at build time), so a report says exactly what the
//! results page says. Numbers and dates are written by `assistant::format`, as the assistant
//! writes them.

use std::sync::LazyLock;

use serde_json::Value;

use crate::assistant::Locale;

static FR: LazyLock<Value> = LazyLock::new(|| {
    serde_json::from_str(include_str!("../../../../web/src/locales/fr.json"))
        .expect("fr.json is JSON (checked by the web tests)")
});
static EN: LazyLock<Value> = LazyLock::new(|| {
    serde_json::from_str(include_str!("../../../../web/src/locales/en.json"))
        .expect("en.json is JSON (checked by the web tests)")
});

/// The text of `key` (dotted path) with its `{{name}}` placeholders filled; the key itself,
/// logged as an error, when missing (a test checks every key the reports name, and the web's
/// check keeps both files complete).
pub fn t(locale: Locale, key: &str, values: &[(&str, &str)]) -> String {
    let root: &Value = match locale {
        Locale::Fr => &FR,
        Locale::En => &EN,
    };
    let text = key
        .split('.')
        .try_fold(root, |node, part| node.get(part))
        .and_then(Value::as_str)
        .unwrap_or_else(|| {
            tracing::error!(
                key,
                ?locale,
                "a report text is missing from the translations"
            );
            key
        });
    values.iter().fold(text.to_owned(), |text, (name, value)| {
        text.replace(&format!("{{{{{name}}}}}"), value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assistant::format::{date, number, percent};

    #[test]
    fn numbers_are_written_as_on_the_page() {
        assert_eq!(percent(0.31, Locale::Fr), "31\u{a0}%");
        assert_eq!(percent(0.045, Locale::Fr), "4,5\u{a0}%");
        assert_eq!(percent(0.04, Locale::En), "4%");
        assert_eq!(percent(0.0001, Locale::Fr), "< 0,1\u{a0}%");
        assert_eq!(percent(0.0, Locale::En), "0%");
        assert_eq!(number(2.94, 1, Locale::Fr), "2,9");
        assert_eq!(number(3.0, 1, Locale::En), "3");
        assert_eq!(date(1_795_435_200_000, Locale::Fr), "23 novembre 2026");
        assert_eq!(date(1_795_435_200_000, Locale::En), "23 November 2026");
    }

    #[test]
    fn texts_come_from_the_web_translations() {
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

    /// Every key the reports' code names exists in both languages: a text for a whole key, an
    /// object of texts for a key completed at run time (`"heatmap.score.bands.{b}"`). The web's
    /// `check:i18n` keeps the two files' keys the same; this keeps the Rust side inside them.
    #[test]
    fn every_key_the_reports_use_exists_in_both_languages() {
        let sources = [
            include_str!("mod.rs"),
            include_str!("pdf/mod.rs"),
            include_str!("pdf/draw.rs"),
            include_str!("pdf/pages.rs"),
            include_str!("png.rs"),
            include_str!("text.rs"),
        ];
        let key = regex::Regex::new(r#""((?:heatmap|report)\.[A-Za-z0-9_.{}]*)""#).unwrap();
        let mut checked = 0;
        for source in sources {
            for found in key.captures_iter(source) {
                let key = &found[1];
                for (name, root) in [("fr", &*FR), ("en", &*EN)] {
                    let (path, whole) = match key.split_once(".{") {
                        Some((prefix, _)) => (prefix, false),
                        None => (key, true),
                    };
                    let node = path.split('.').try_fold(root, |node, part| node.get(part));
                    let found = match node {
                        Some(Value::String(_)) => whole,
                        Some(Value::Object(map)) => !whole && map.values().all(Value::is_string),
                        _ => false,
                    };
                    assert!(found, "{key} is missing from {name}.json");
                }
                checked += 1;
            }
        }
        assert!(
            checked > 40,
            "only {checked} keys found: the pattern no longer sees them"
        );
    }
}
