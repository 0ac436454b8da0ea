//! Cells as people type them in spreadsheets, read into values: numbers with a decimal comma
//! or point, distance ranges, formats and audiences by their wire value or their French or
//! English name.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::db::search::normalize;
use crate::i18n::{Locale, t};
use crate::ooh::{Audience, PanelFormat};

/// A number: `4.5`, `4,5` (decimal comma), `-1,25`, `−1.25` (a typographic minus),
/// `1 234,5` or `1.234,5` (grouped thousands), `1,234.5`; a trailing `unit` (`m`, `km/h`,
/// any case) is allowed. When both a comma and a point appear, the last one is the decimal
/// separator; a single comma is always one (`1,234` is 1.234). `None` for anything else
/// (words, `inf`, `NaN`).
pub fn number(text: &str, unit: &str) -> Option<f64> {
    let mut text = text.trim();
    let cut = text.len().saturating_sub(unit.len());
    if !unit.is_empty() && cut > 0 && text.is_char_boundary(cut) {
        let (head, tail) = text.split_at(cut);
        if tail.eq_ignore_ascii_case(unit) {
            text = head.trim_end();
        }
    }
    let mut digits: String = text
        .chars()
        .filter(|c| !matches!(c, ' ' | '\u{a0}' | '\u{202f}' | '\u{2009}' | '\'' | '’'))
        .map(|c| if c == '\u{2212}' { '-' } else { c })
        .collect();
    let (comma, point) = (digits.rfind(','), digits.rfind('.'));
    let grouping = match (comma, point) {
        (Some(c), Some(p)) if c > p => '.',
        (Some(_), Some(_)) => ',',
        (Some(_), None) if digits.matches(',').count() > 1 => ',',
        (None, Some(_)) if digits.matches('.').count() > 1 => '.',
        _ => ' ',
    };
    digits.retain(|c| c != grouping);
    let digits = digits.replace(',', ".");
    // Digits, one sign, one point and an exponent only: `f64::from_str` would also take
    // `inf`, `NaN` and `infinity`.
    let plain = !digits.is_empty()
        && digits
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e' | 'E'))
        && digits.chars().any(|c| c.is_ascii_digit());
    if !plain {
        return None;
    }
    digits.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// A count (contacts a day): a whole number as planners write it, grouped by spaces, points,
/// commas or apostrophes (`10 000`, `10.000`, `10,000`, `1'250'000`). A lone separator
/// followed by three digits groups thousands: a count has no decimals, so `10,000` is ten
/// thousand, not ten. Anything else is read as [`number`] and must be whole.
pub fn count(text: &str) -> Option<f64> {
    let text = text.trim();
    let groups: Vec<&str> = text
        .split([' ', '\u{a0}', '\u{202f}', '\u{2009}', '\'', '’', ',', '.'])
        .collect();
    let grouped = groups.len() > 1
        && groups
            .iter()
            .all(|g| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit()))
        && groups[0].len() <= 3
        && groups[1..].iter().all(|g| g.len() == 3);
    if grouped {
        return groups.concat().parse::<f64>().ok();
    }
    number(text, "").filter(|v| v.fract() == 0.0)
}

/// A viewing distance cell: one number (the farthest distance) or a range from the nearest
/// to the farthest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Distance {
    /// The nearest distance, in metres, when a range was given.
    pub min_m: Option<f64>,
    /// The farthest distance, in metres.
    pub max_m: f64,
}

/// What separates the two ends of a range (`10-150`, `10–150`, `10 à 150`, `10 to 150`).
const RANGE_SEPARATORS: [&str; 6] = ["–", "—", " à ", " a ", " to ", "-"];

/// A distance in metres (`150`, `150 m`), or a range (`10-150`, `10 – 150 m`, `10 à 150`,
/// `10 to 150`); `None` for anything else. The ends are not put in order: a range written
/// backwards is refused like `viewing_distance_min_m` over `viewing_distance_max_m`.
pub fn distance(text: &str) -> Option<Distance> {
    if let Some(max_m) = number(text, "m") {
        return Some(Distance { min_m: None, max_m });
    }
    let lowered = text.trim().to_lowercase();
    for separator in RANGE_SEPARATORS {
        for (at, _) in lowered.match_indices(separator) {
            let (min, max) = (&lowered[..at], &lowered[at + separator.len()..]);
            if let (Some(min_m), Some(max_m)) = (number(min, "m"), number(max, "m")) {
                return Some(Distance {
                    min_m: Some(min_m),
                    max_m,
                });
            }
        }
    }
    None
}

/// A name reduced to its letters and digits, lowercased and without accents (`×` read as
/// `x`, `²` as `2`): `Panneau 4 × 3 m (12 m²)` → `panneau4x3m12m2`.
fn loose(text: &str) -> String {
    normalize(text)
        .chars()
        .map(|c| if c == '×' { 'x' } else { c })
        .filter(|c| c.is_alphanumeric())
        .collect()
}

/// Names of formats people write besides the wire values and the app's labels.
const FORMAT_NAMES: [(&str, PanelFormat); 21] = [
    ("4x3", PanelFormat::Billboard4x3),
    ("4x3m", PanelFormat::Billboard4x3),
    ("12m2", PanelFormat::Billboard4x3),
    ("panneau12m2", PanelFormat::Billboard4x3),
    ("8m2", PanelFormat::Billboard320x240),
    ("panneau8m2", PanelFormat::Billboard320x240),
    ("320x240", PanelFormat::Billboard320x240),
    ("2m2", PanelFormat::Mupi2m2),
    ("mupi", PanelFormat::Mupi2m2),
    ("abribus", PanelFormat::BusShelter),
    ("clp", PanelFormat::DeCityLightPoster),
    ("48sheet", PanelFormat::Uk48Sheet),
    ("96sheet", PanelFormat::Uk96Sheet),
    ("6sheet", PanelFormat::Uk6Sheet),
    ("30sheet", PanelFormat::Us30Sheet),
    ("8sheet", PanelFormat::Us8Sheet),
    ("bulletin", PanelFormat::UsBulletin),
    ("75pouces", PanelFormat::Digital75inPortrait),
    ("75inch", PanelFormat::Digital75inPortrait),
    ("55pouces", PanelFormat::Digital55inPortrait),
    ("55inch", PanelFormat::Digital55inPortrait),
];

/// Every name a format is known by, reduced by [`loose`]: its wire value, its French and
/// English labels in the app (whole, and without what they add in brackets), then
/// [`FORMAT_NAMES`]. The first format to claim a name keeps it.
static FORMATS: LazyLock<HashMap<String, PanelFormat>> = LazyLock::new(|| {
    let mut names = HashMap::new();
    for &format in PanelFormat::ALL {
        names.entry(loose(format.as_str())).or_insert(format);
    }
    let labels: Vec<(String, PanelFormat)> = Locale::ALL
        .iter()
        .flat_map(|&locale| {
            PanelFormat::ALL.iter().map(move |&format| {
                let key = format!("locations.formats.{}", format.as_str());
                (t(locale, &key, &[]), format)
            })
        })
        .collect();
    for (label, format) in &labels {
        names.entry(loose(label)).or_insert(*format);
    }
    for (label, format) in &labels {
        let short = label.split('(').next().unwrap_or(label);
        names.entry(loose(short)).or_insert(*format);
    }
    // Former wire values are what they are now, ahead of any label.
    for (name, format) in crate::ooh::FORMER_FORMATS {
        names.insert(loose(name), format);
    }
    for (name, format) in FORMAT_NAMES {
        names.entry(loose(name)).or_insert(format);
    }
    names
});

/// A panel format by its wire value (`billboard_4x3`) or a former one (`billboard_12m2`), its
/// label in the app in French or English (`Panneau 4 × 3 m (12 m²)`, `Bus shelter`), ignoring
/// case, accents, spaces and punctuation, or a usual short name (`4x3`, `12 m²`, `8m2`,
/// `MUPI`, `abribus`, `48 sheet`, `75 pouces`). Every name gives one canonical format.
pub fn format(text: &str) -> Option<PanelFormat> {
    FORMATS.get(&loose(text)).copied()
}

/// An audience: `pedestrian`, `road`, or their French and English names (`piéton(s)`,
/// `automobiliste(s)`, `route`, `drivers`), ignoring case and accents.
pub fn audience(text: &str) -> Option<Audience> {
    match loose(text).as_str() {
        "pedestrian" | "pedestrians" | "pieton" | "pietons" | "apied" | "foot" => {
            Some(Audience::Pedestrian)
        }
        "road" | "route" | "automobiliste" | "automobilistes" | "driver" | "drivers"
        | "vehicule" | "vehicules" | "vehicle" | "vehicles" => Some(Audience::Road),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_take_a_decimal_comma_or_point() {
        for (text, expected) in [
            ("4,5", Some(4.5)),
            ("4.5", Some(4.5)),
            (" 12 ", Some(12.0)),
            ("-1,25", Some(-1.25)),
            ("\u{2212}1.25", Some(-1.25)),
            ("1 234,5", Some(1234.5)),
            ("1\u{202f}234,5", Some(1234.5)),
            ("1.234,5", Some(1234.5)),
            ("1,234.5", Some(1234.5)),
            ("1.234.567", Some(1_234_567.0)),
            ("1,234", Some(1.234)),
            ("48,8566", Some(48.8566)),
            ("1e3", Some(1000.0)),
            ("abc", None),
            ("", None),
            ("inf", None),
            ("NaN", None),
            ("-", None),
            ("4,5,6.7", Some(456.7)),
        ] {
            assert_eq!(number(text, ""), expected, "{text:?}");
        }
        assert_eq!(number("4,5 m", "m"), Some(4.5));
        assert_eq!(number("50 KM/H", "km/h"), Some(50.0));
        assert_eq!(number("4,5 m", ""), None);
        assert_eq!(
            number("4,5 é", "m"),
            None,
            "a unit is cut on a character boundary"
        );
    }

    #[test]
    fn distances_are_one_number_or_a_range() {
        let range = |min, max| {
            Some(Distance {
                min_m: Some(min),
                max_m: max,
            })
        };
        for (text, expected) in [
            (
                "150",
                Some(Distance {
                    min_m: None,
                    max_m: 150.0,
                }),
            ),
            (
                "150 m",
                Some(Distance {
                    min_m: None,
                    max_m: 150.0,
                }),
            ),
            ("10-150", range(10.0, 150.0)),
            ("10 - 150", range(10.0, 150.0)),
            ("10–150", range(10.0, 150.0)),
            ("10 — 150 m", range(10.0, 150.0)),
            ("10 à 150", range(10.0, 150.0)),
            ("10 À 150 M", range(10.0, 150.0)),
            ("10 to 150", range(10.0, 150.0)),
            ("2,5-20", range(2.5, 20.0)),
            ("10 m - 150 m", range(10.0, 150.0)),
            ("150-10", range(150.0, 10.0)),
            ("far", None),
            ("10-", None),
            ("10 à", None),
        ] {
            assert_eq!(distance(text), expected, "{text:?}");
        }
    }

    #[test]
    fn formats_are_read_by_wire_value_and_by_label_in_both_languages() {
        for &expected in PanelFormat::ALL {
            assert_eq!(format(expected.as_str()), Some(expected));
            for locale in Locale::ALL {
                let label = t(
                    locale,
                    &format!("locations.formats.{}", expected.as_str()),
                    &[],
                );
                assert_eq!(format(&label), Some(expected), "{label}");
            }
        }
        for (text, expected) in [
            ("BILLBOARD_4X3", PanelFormat::Billboard4x3),
            ("Panneau 4x3 m", PanelFormat::Billboard4x3),
            ("4 x 3", PanelFormat::Billboard4x3),
            ("Abribus", PanelFormat::BusShelter),
            ("bus shelter", PanelFormat::BusShelter),
            ("MUPI", PanelFormat::Mupi2m2),
            ("48-sheet", PanelFormat::Uk48Sheet),
            ("Vitrine", PanelFormat::ShopWindow),
            ("Autre", PanelFormat::Other),
            // One meaning per format: the aliases a planner writes, and the former values.
            ("12m2", PanelFormat::Billboard4x3),
            ("12 m²", PanelFormat::Billboard4x3),
            ("Panneau 12 m²", PanelFormat::Billboard4x3),
            ("billboard_12m2", PanelFormat::Billboard4x3),
            ("8m2", PanelFormat::Billboard320x240),
            ("8 m²", PanelFormat::Billboard320x240),
            ("billboard_8m2", PanelFormat::Billboard320x240),
            ("320 x 240", PanelFormat::Billboard320x240),
            ("75 pouces", PanelFormat::Digital75inPortrait),
            ("48 sheet", PanelFormat::Uk48Sheet),
            ("30-sheet", PanelFormat::Us30Sheet),
        ] {
            assert_eq!(format(text), Some(expected), "{text}");
        }
        assert_eq!(format("poster"), None);
    }

    #[test]
    fn audiences_are_read_in_both_languages() {
        for text in [
            "pedestrian",
            "Piéton",
            "piétons",
            "PIETON(S)",
            "Pedestrians",
        ] {
            assert_eq!(audience(text), Some(Audience::Pedestrian), "{text}");
        }
        for text in [
            "road",
            "Route",
            "automobiliste",
            "Automobilistes",
            "drivers",
        ] {
            assert_eq!(audience(text), Some(Audience::Road), "{text}");
        }
        assert_eq!(audience("cyclists"), None);
    }

    #[test]
    fn counts_are_read_whatever_their_grouping_and_never_as_decimals() {
        for (text, want) in [
            ("10000", Some(10_000.0)),
            ("10 000", Some(10_000.0)),
            ("10\u{202f}000", Some(10_000.0)),
            ("10.000", Some(10_000.0)),
            ("10,000", Some(10_000.0)),
            ("1'250'000", Some(1_250_000.0)),
            ("1,250,000", Some(1_250_000.0)),
            ("0", Some(0.0)),
            ("12,5", None),
            // Not three digits after the separator: a decimal, whole here (a spreadsheet's
            // two-decimal format), so ten.
            ("10,00", Some(10.0)),
            ("beaucoup", None),
        ] {
            assert_eq!(count(text), want, "{text}");
        }
    }
}
