//! The words of the reports, in French or English: the web app's own translations
//! (`web/src/locales/{fr,en}.json`, embedded at build time), so a report says exactly what the
//! results page says, and numbers and dates written the way each language writes them.

use std::sync::LazyLock;

use serde_json::Value;

use crate::assistant::Locale;

/// A report's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Fr,
    En,
}

impl Lang {
    /// `fr` or `en` (anything else: French, the product's default).
    pub fn parse(code: Option<&str>) -> Self {
        match code.map(|c| c.trim().to_ascii_lowercase()) {
            Some(c) if c == "en" || c.starts_with("en-") => Lang::En,
            _ => Lang::Fr,
        }
    }

    /// The BCP 47 tag.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::Fr => "fr",
            Lang::En => "en",
        }
    }
}

static FR: LazyLock<Value> = LazyLock::new(|| {
    serde_json::from_str(include_str!("../../../../web/src/locales/fr.json"))
        .expect("fr.json is JSON (checked by the web tests)")
});
static EN: LazyLock<Value> = LazyLock::new(|| {
    serde_json::from_str(include_str!("../../../../web/src/locales/en.json"))
        .expect("en.json is JSON (checked by the web tests)")
});

/// The text of `key` (dotted path) with its `{{name}}` placeholders filled; the key itself when
/// missing (the web's check keeps both files complete).
pub fn t(lang: Lang, key: &str, values: &[(&str, &str)]) -> String {
    let root: &Value = match lang {
        Lang::Fr => &FR,
        Lang::En => &EN,
    };
    let text = key
        .split('.')
        .try_fold(root, |node, part| node.get(part))
        .and_then(Value::as_str)
        .unwrap_or(key);
    values.iter().fold(text.to_owned(), |text, (name, value)| {
        text.replace(&format!("{{{{{name}}}}}"), value)
    })
}

fn decimal(lang: Lang, value: f64, digits: usize) -> String {
    let text = format!("{value:.digits$}");
    match lang {
        Lang::Fr => text.replace('.', ","),
        Lang::En => text,
    }
}

/// A share (0..1) as the web writes it: one decimal under 10 %, whole above, never "0 %" for
/// a share that is not zero.
pub fn percent(lang: Lang, share: f64) -> String {
    let (value, digits) = if share > 0.0 && share < 0.0005 {
        (0.1, 1)
    } else if share > 0.0 && share < 0.1 {
        (share * 100.0, 1)
    } else {
        (share * 100.0, 0)
    };
    let mut number = decimal(lang, value, digits);
    if digits == 1 && number.ends_with('0') {
        number.truncate(number.len() - 2);
    }
    let prefix = if share > 0.0 && share < 0.0005 {
        "< "
    } else {
        ""
    };
    match lang {
        Lang::Fr => format!("{prefix}{number}\u{a0}%"),
        Lang::En => format!("{prefix}{number}%"),
    }
}

/// A ratio with at most one decimal (2.9, 0.5, 3).
pub fn ratio(lang: Lang, value: f64) -> String {
    let mut text = decimal(lang, value, 1);
    if text.ends_with('0') {
        text.truncate(text.len() - 2);
    }
    text
}

/// A 0..100 score, rounded.
pub fn score(value: f64) -> String {
    format!("{}", value.round() as i64)
}

/// A date: "23 novembre 2026", "23 November 2026" (UTC), as the assistant writes them.
pub fn date(lang: Lang, ms: i64) -> String {
    let locale = match lang {
        Lang::Fr => Locale::Fr,
        Lang::En => Locale::En,
    };
    crate::assistant::format::date(ms, locale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_on_the_page() {
        assert_eq!(percent(Lang::Fr, 0.31), "31\u{a0}%");
        assert_eq!(percent(Lang::Fr, 0.045), "4,5\u{a0}%");
        assert_eq!(percent(Lang::En, 0.04), "4%");
        assert_eq!(percent(Lang::Fr, 0.0001), "< 0,1\u{a0}%");
        assert_eq!(percent(Lang::En, 0.0), "0%");
        assert_eq!(ratio(Lang::Fr, 2.94), "2,9");
        assert_eq!(ratio(Lang::En, 3.0), "3");
        assert_eq!(date(Lang::Fr, 1_795_435_200_000), "23 novembre 2026");
        assert_eq!(date(Lang::En, 1_795_435_200_000), "23 November 2026");
    }

    #[test]
    fn texts_come_from_the_web_translations() {
        assert_eq!(t(Lang::Fr, "heatmap.score.title", &[]), "Score d'attention");
        assert_eq!(t(Lang::En, "heatmap.score.title", &[]), "Attention score");
        assert_eq!(
            t(Lang::Fr, "heatmap.areas.seenLater", &[("rank", "4")]),
            "Vue plus tard (n° 4 de l'ordre de lecture)"
        );
        assert_eq!(t(Lang::En, "no.such.key", &[]), "no.such.key");
    }
}
