//! Words, links and labels that several answers share: nouns with their counts, an item's kind
//! with its article, in-app addresses, the finished [`Reply`], the panel formats' names.

use crate::assistant::data::Kind;
use crate::assistant::intent::{Intent, Page};
use crate::assistant::{Link, Locale, Reply, format, help};
use crate::db::DbError;
use crate::db::search::normalize;

/// Most item links an answer carries.
pub(super) const LINKS_MAX: usize = 6;

/// A count with the kind's noun: `3 emplacements`, `1 creative`.
pub(super) fn noun(kind: Kind, n: usize, locale: Locale) -> String {
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

/// The kind's noun without a count, as "no …" reads it: singular in French (`aucune
/// création`), plural in English (`no creatives`).
pub(super) fn none_noun(kind: Kind, locale: Locale) -> String {
    noun(kind, 0, locale).trim_start_matches("0 ").to_owned()
}

/// The kind's noun without a count, in the singular (`création`, `location`).
pub(super) fn one_noun(kind: Kind, locale: Locale) -> String {
    noun(kind, 1, locale).trim_start_matches("1 ").to_owned()
}

/// The French ending that agrees with the kind's gender: `e` for the feminine nouns
/// (création, simulation, heatmap), nothing for emplacement.
pub(super) fn feminine_e(kind: Kind) -> &'static str {
    if kind == Kind::Location { "" } else { "e" }
}

/// The kind's noun with its definite article: `la création`, `the location`.
pub(super) fn kind_name(kind: Kind, locale: Locale) -> &'static str {
    match kind {
        Kind::Creative => locale.pick("la création", "the creative"),
        Kind::Location => locale.pick("l'emplacement", "the location"),
        Kind::Simulation => locale.pick("la simulation", "the simulation"),
        Kind::Heatmap => locale.pick("la heatmap", "the heatmap"),
    }
}

/// The list page of the kind.
pub(super) fn page_of(kind: Kind) -> Page {
    match kind {
        Kind::Creative => Page::Creatives,
        Kind::Location => Page::Locations,
        Kind::Simulation => Page::Simulation,
        Kind::Heatmap => Page::Heatmaps,
    }
}

/// The in-app address of one item.
pub(super) fn href(kind: Kind, id: &str) -> String {
    match kind {
        Kind::Creative => format!("/creatives/{id}"),
        Kind::Location => format!("/locations/{id}"),
        Kind::Simulation => format!("/simulation/{id}"),
        Kind::Heatmap => format!("/heatmap/results/{id}"),
    }
}

/// A link with this label to this address.
pub(super) fn link(label: impl Into<String>, href: impl Into<String>) -> Link {
    Link {
        label: label.into(),
        href: href.into(),
    }
}

/// A link to a page, labelled as the app's navigation names it.
pub(super) fn page_link(page: Page, locale: Locale) -> Link {
    link(page.label(locale), page.href())
}

/// A link to the help article `slug`, or to the Help page when there is no such article.
pub(super) fn help_link(slug: &str, locale: Locale) -> Link {
    match help::article(slug, locale) {
        Some(a) => link(a.title.clone(), a.href()),
        None => page_link(Page::Help, locale),
    }
}

/// The answer, with each address linked once (the first link to it is kept).
pub(super) fn reply(
    intent: Intent,
    answer: String,
    mut links: Vec<Link>,
) -> Result<Reply, DbError> {
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

/// Whether two names are the same but for case, accents and spacing.
pub(super) fn same(a: &str, b: &str) -> bool {
    normalize(a) == normalize(b)
}

/// A panel format's name in the plural, as a list is filtered by it.
pub(super) fn format_label(format: &str, locale: Locale) -> &'static str {
    match format {
        "bus_shelter" => locale.pick("abribus", "bus shelters"),
        "mupi_2m2" => locale.pick(
            "mobilier urbain 2 m² (MUPI)",
            "2 m² street furniture (MUPI)",
        ),
        "digital_screen" => locale.pick("écrans numériques", "digital screens"),
        "billboard_4x3" => locale.pick("panneaux 4 × 3", "4 × 3 billboards"),
        "billboard_320x240" => {
            locale.pick("panneaux 320 × 240 (8 m²)", "320 × 240 (8 m²) billboards")
        }
        "uk_48_sheet" => locale.pick("48 feuilles (R.-U.)", "48-sheets"),
        "uk_96_sheet" => locale.pick("96 feuilles (R.-U.)", "96-sheets"),
        "uk_6_sheet" => locale.pick("6 feuilles (R.-U.)", "6-sheets"),
        "us_bulletin" => locale.pick("bulletins (É.-U.)", "bulletins"),
        "us_30_sheet" => locale.pick("affiches 30 feuilles (É.-U.)", "30-sheet posters"),
        "us_8_sheet" => locale.pick("affiches 8 feuilles (É.-U.)", "8-sheet posters"),
        "de_18_1" => locale.pick("grands formats 18/1", "18/1 large formats"),
        "de_city_light_poster" => locale.pick("City-Light-Posters", "City Light Posters"),
        "digital_75in_portrait" => locale.pick("écrans 75 pouces", "75-inch screens"),
        "digital_55in_portrait" => locale.pick("écrans 55 pouces", "55-inch screens"),
        "digital_bulletin" => locale.pick("bulletins numériques", "digital bulletins"),
        "shop_window" => locale.pick("vitrines", "shop windows"),
        _ => locale.pick("autres formats", "other formats"),
    }
}

/// A panel format's name in the singular, as one location is described.
pub(super) fn format_single(format: &str, locale: Locale) -> &'static str {
    match format {
        "bus_shelter" => locale.pick("abribus", "bus shelter"),
        "mupi_2m2" => locale.pick("mobilier urbain 2 m²", "2 m² street furniture"),
        "digital_screen" => locale.pick("écran numérique", "digital screen"),
        "billboard_4x3" => locale.pick("panneau 4 × 3", "4 × 3 billboard"),
        "billboard_320x240" => {
            locale.pick("panneau 320 × 240 (8 m²)", "320 × 240 (8 m²) billboard")
        }
        "uk_48_sheet" => locale.pick("48 feuilles (R.-U.)", "48-sheet"),
        "uk_96_sheet" => locale.pick("96 feuilles (R.-U.)", "96-sheet"),
        "uk_6_sheet" => locale.pick("6 feuilles (R.-U.)", "6-sheet"),
        "us_bulletin" => locale.pick("bulletin (É.-U.)", "bulletin"),
        "us_30_sheet" => locale.pick("affiche 30 feuilles (É.-U.)", "30-sheet poster"),
        "us_8_sheet" => locale.pick("affiche 8 feuilles (É.-U.)", "8-sheet poster"),
        "de_18_1" => locale.pick("grand format 18/1", "18/1 large format"),
        "de_city_light_poster" => locale.pick("City-Light-Poster", "City Light Poster"),
        "digital_75in_portrait" => locale.pick("écran 75 pouces", "75-inch screen"),
        "digital_55in_portrait" => locale.pick("écran 55 pouces", "55-inch screen"),
        "digital_bulletin" => locale.pick("bulletin numérique", "digital bulletin"),
        "shop_window" => locale.pick("vitrine", "shop window"),
        _ => locale.pick("autre format", "other format"),
    }
}

/// Where `item` (a reference into `all`) sits in `all`, in constant time: the selections hold
/// references into the question's lists.
pub(super) fn index_in<T>(all: &[T], item: &T) -> Option<usize> {
    let size = std::mem::size_of::<T>().max(1);
    let start = all.as_ptr() as usize;
    let at = item as *const T as usize;
    (at >= start && at < start + all.len() * size).then(|| (at - start) / size)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Locale::{En, Fr};

    #[test]
    fn nouns_agree_with_their_count() {
        let check = |kind: Kind, n: usize, locale: Locale, expected: &str| {
            assert_eq!(noun(kind, n, locale), expected, "{kind:?} {n} {locale:?}");
        };
        // French counts 0 in the singular, English in the plural.
        check(Kind::Location, 0, Fr, "0 emplacement");
        check(Kind::Location, 0, En, "0 locations");
        check(Kind::Creative, 1, Fr, "1 création");
        check(Kind::Creative, 1, En, "1 creative");
        check(Kind::Creative, 2, Fr, "2 créations");
        check(Kind::Heatmap, 12, En, "12 heatmaps");
        check(Kind::Simulation, 3, Fr, "3 simulations");
    }

    #[test]
    fn bare_nouns_read_as_after_no_and_one() {
        let check = |kind: Kind, locale: Locale, none: &str, one: &str| {
            assert_eq!(none_noun(kind, locale), none, "{kind:?} {locale:?}");
            assert_eq!(one_noun(kind, locale), one, "{kind:?} {locale:?}");
        };
        check(Kind::Creative, Fr, "création", "création");
        check(Kind::Creative, En, "creatives", "creative");
        check(Kind::Location, Fr, "emplacement", "emplacement");
        check(Kind::Heatmap, En, "heatmaps", "heatmap");
        // "aucune création" but "aucun emplacement".
        assert_eq!(
            format!(
                "aucun{} {}",
                feminine_e(Kind::Creative),
                none_noun(Kind::Creative, Fr)
            ),
            "aucune création"
        );
        assert_eq!(
            format!(
                "aucun{} {}",
                feminine_e(Kind::Location),
                none_noun(Kind::Location, Fr)
            ),
            "aucun emplacement"
        );
    }

    #[test]
    fn every_kind_has_its_address_and_article() {
        let check = |kind: Kind, address: &str, fr: &str, en: &str| {
            assert_eq!(href(kind, "x1"), address);
            assert_eq!(kind_name(kind, Fr), fr);
            assert_eq!(kind_name(kind, En), en);
            // The item's page sits under its kind's list page.
            assert!(address.starts_with(page_of(kind).href()), "{address}");
            assert!(address.starts_with(kind.page()), "{address}");
        };
        check(
            Kind::Creative,
            "/creatives/x1",
            "la création",
            "the creative",
        );
        check(
            Kind::Location,
            "/locations/x1",
            "l'emplacement",
            "the location",
        );
        check(
            Kind::Simulation,
            "/simulation/x1",
            "la simulation",
            "the simulation",
        );
        check(
            Kind::Heatmap,
            "/heatmap/results/x1",
            "la heatmap",
            "the heatmap",
        );
    }

    #[test]
    fn replies_link_each_address_once() {
        let links = vec![
            link("Summer Sale", "/creatives/1"),
            link("Heatmap", "/heatmap/results/2"),
            link("Summer Sale (again)", "/creatives/1"),
            link("Creatives", "/creatives"),
        ];
        let reply = reply(Intent::Best, "…".into(), links).unwrap();
        let labels: Vec<&str> = reply.links.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels, ["Summer Sale", "Heatmap", "Creatives"]);
        assert_eq!(reply.intent, "best");
    }

    #[test]
    fn names_compare_without_case_or_accents() {
        let check = |a: &str, b: &str, expected: bool| {
            assert_eq!(same(a, b), expected, "{a} / {b}");
        };
        check("Été 2026", "ete 2026", true);
        check("LYON", "Lyon", true);
        check("Lyon", "Lyonn", false);
        check("Moka", "Moka Déca", false);
    }

    #[test]
    fn formats_have_a_plural_and_a_singular_name() {
        let check = |format: &str, locale: Locale, plural: &str, single: &str| {
            assert_eq!(format_label(format, locale), plural, "{format}");
            assert_eq!(format_single(format, locale), single, "{format}");
        };
        check("bus_shelter", En, "bus shelters", "bus shelter");
        // "abribus" is the same word in the plural.
        check("bus_shelter", Fr, "abribus", "abribus");
        check("billboard_4x3", Fr, "panneaux 4 × 3", "panneau 4 × 3");
        check("shop_window", En, "shop windows", "shop window");
        check(
            "mupi_2m2",
            Fr,
            "mobilier urbain 2 m² (MUPI)",
            "mobilier urbain 2 m²",
        );
        check("other", En, "other formats", "other format");
        check("made_up", Fr, "autres formats", "autre format");
    }

    #[test]
    fn index_in_finds_only_references_into_the_list() {
        let list = vec![10_u64, 20, 30];
        assert_eq!(index_in(&list, &list[0]), Some(0));
        assert_eq!(index_in(&list, &list[2]), Some(2));
        let elsewhere = 20_u64;
        assert_eq!(index_in(&list, &elsewhere), None);
        assert_eq!(index_in(&list[..2], &list[2]), None);
        let empty: Vec<u64> = Vec::new();
        assert_eq!(index_in(&empty, &elsewhere), None);
    }
}
