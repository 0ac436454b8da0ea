//! Figures, dates and lists written the way each language writes them, with the app's units:
//! scores out of 100 (rounded, as the heatmap pages show them), shares in percent (one decimal
//! under 10%, as the simulation page), visibility as a ratio (`3.2×`).

use super::Locale;

/// A number with at most `decimals` decimals (trailing zeros dropped), French decimal comma.
pub fn number(value: f64, decimals: usize, locale: Locale) -> String {
    let mut text = format!("{value:.decimals$}");
    if text.contains('.') {
        text = text.trim_end_matches('0').trim_end_matches('.').to_owned();
    }
    if text == "-0" {
        text = "0".to_owned();
    }
    match locale {
        Locale::Fr => text.replace('.', ","),
        Locale::En => text,
    }
}

/// A 0..100 score: `72/100`.
pub fn score(value: f64, locale: Locale) -> String {
    format!("{}/100", number(value.round(), 0, locale))
}

/// A 0..1 share as a percentage: `18%` / `18 %`, `6.5%` under 10%. A share that is not zero
/// never reads "0 %" (as on the pages): under 0.05 % it is `< 0.1%`.
pub fn percent(share: f64, locale: Locale) -> String {
    let (prefix, pct) = if share > 0.0 && share < 0.0005 {
        ("< ", 0.1)
    } else {
        ("", share * 100.0)
    };
    let digits = if share > 0.0 && share < 0.1 { 1 } else { 0 };
    match locale {
        Locale::Fr => format!("{prefix}{}\u{a0}%", number(pct, digits, locale)),
        Locale::En => format!("{prefix}{}%", number(pct, digits, locale)),
    }
}

/// A ratio such as the visibility: `3.2×`.
pub fn ratio(value: f64, locale: Locale) -> String {
    format!("{}×", number(value, 1, locale))
}

/// A name in quotes: « Été » / “Summer”.
pub fn quoted(name: &str, locale: Locale) -> String {
    match locale {
        Locale::Fr => format!("«\u{a0}{name}\u{a0}»"),
        Locale::En => format!("“{name}”"),
    }
}

/// `a`, `a and b`, `a, b and c` (`et` in French).
pub fn join(items: &[String], locale: Locale) -> String {
    let and = locale.pick(" et ", " and ");
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{}{and}{last}", init.join(", ")),
    }
}

/// A count with its noun: `1 creative`, `3 creatives`, `0 creative` in French.
pub fn count(n: usize, singular: &str, plural: &str, locale: Locale) -> String {
    // French uses the singular for 0 and 1; English only for 1.
    let one = match locale {
        Locale::Fr => n <= 1,
        Locale::En => n == 1,
    };
    format!("{n} {}", if one { singular } else { plural })
}

/// A date from epoch milliseconds: `12 March 2026` / `12 mars 2026` (UTC).
pub fn date(epoch_ms: i64, locale: Locale) -> String {
    use chrono::{DateTime, Datelike};
    let Some(at) = DateTime::from_timestamp_millis(epoch_ms) else {
        return String::new();
    };
    const FR: [&str; 12] = [
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ];
    const EN: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let month = at.month0() as usize;
    let name = match locale {
        Locale::Fr => FR[month],
        Locale::En => EN[month],
    };
    format!("{} {name} {}", at.day(), at.year())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reports write numbers as the results page does.
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
    fn figures_follow_the_language() {
        assert_eq!(score(71.6, Locale::En), "72/100");
        assert_eq!(percent(0.184, Locale::En), "18%");
        assert_eq!(percent(0.0612, Locale::Fr), "6,1\u{a0}%");
        assert_eq!(ratio(3.04, Locale::Fr), "3×");
        assert_eq!(ratio(2.46, Locale::En), "2.5×");
        assert_eq!(
            join(&["a".into(), "b".into(), "c".into()], Locale::Fr),
            "a, b et c"
        );
        assert_eq!(count(0, "création", "créations", Locale::Fr), "0 création");
        assert_eq!(count(0, "creative", "creatives", Locale::En), "0 creatives");
        assert_eq!(date(1_773_316_800_000, Locale::Fr), "12 mars 2026");
    }
}
