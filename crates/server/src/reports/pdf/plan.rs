//! A campaign plan as an A4 PDF: a cover with the creative, the period and the totals (sites,
//! days, contacts, noticed contacts, and what "noticed" means and how reliable it is), then a
//! page per site: its render, its contacts, its attention in the first second and its texts'
//! legibility. Branded as the heatmap reports are; the words are the web app's.

use krilla::Document;
use krilla::geom::{Size, Transform};

use super::draw::image_of;
use super::pages::letterhead;
use super::*;
use crate::assistant::Locale;
use crate::reports::Brand;

/// One text of the creative on a site's panel.
#[derive(Debug, Clone)]
pub struct PlanText {
    pub letter_mm: f64,
    pub legible_m: f64,
    pub comfortable_m: f64,
    /// `whole`, `part` or `never` (with a distance range).
    pub reading: Option<&'static str>,
}

/// A site's page.
#[derive(Debug, Clone)]
pub struct PlanSiteReport {
    pub name: String,
    /// Address and city.
    pub place: String,
    /// The format's label.
    pub format: String,
    pub daily_contacts: Option<i64>,
    pub contacts: Option<i64>,
    pub noticed: Option<i64>,
    pub first_second: Option<f64>,
    pub time_in_view_s: Option<f64>,
    pub legible: Option<bool>,
    /// The render's preview (JPEG or WebP).
    pub render: Option<Vec<u8>>,
    /// The texts the panel shows, largest first.
    pub texts: Vec<PlanText>,
}

/// Everything the plan's PDF shows.
#[derive(Debug, Clone)]
pub struct PlanReport {
    pub lang: Locale,
    pub name: String,
    /// The creative's name.
    pub creative: String,
    /// `YYYY-MM-DD`.
    pub start_date: String,
    pub end_date: String,
    pub days: i64,
    pub contacts: i64,
    pub noticed: Option<i64>,
    pub generated_at: i64,
    pub brand: Option<Brand>,
    pub sites: Vec<PlanSiteReport>,
}

/// A count with its thousands grouped as the language writes them: `196 000` (a narrow
/// no-break space) in French, `196,000` in English.
pub fn count(value: i64, lang: Locale) -> String {
    let digits = value.unsigned_abs().to_string();
    let separator = match lang {
        Locale::Fr => "\u{202f}",
        Locale::En => ",",
    };
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push_str(separator);
        }
        out.push(c);
    }
    if value < 0 { format!("-{out}") } else { out }
}

/// A `YYYY-MM-DD` date as the language writes it.
fn day(text: &str, lang: Locale) -> String {
    match crate::plans::parse_date(text) {
        Some(d) => match lang {
            Locale::Fr => d.format("%d/%m/%Y").to_string(),
            Locale::En => d.format("%-d %b %Y").to_string(),
        },
        None => text.to_owned(),
    }
}

/// The heatmap report's frame (footer, accent) for the plan's words.
fn frame(plan: &PlanReport) -> Report {
    Report {
        lang: plan.lang,
        name: plan.name.clone(),
        created_at: plan.generated_at,
        generated_at: plan.generated_at,
        model: "v3".to_owned(),
        images: Vec::new(),
        benchmarks: None,
        brand: plan.brand.clone(),
    }
}

fn unknown(lang: Locale) -> String {
    t(lang, "plans.unknown", &[])
}

fn cover_page(column: &mut Column, plan: &PlanReport, frame: &Report) {
    let lang = plan.lang;
    if let Some(brand) = &plan.brand {
        letterhead(column, brand, accent(frame));
    }
    column.text(
        &t(lang, "plans.report.title", &[]),
        11.0,
        true,
        accent(frame),
    );
    column.text(&plan.name, 22.0, true, INK);
    column.gap(4.0);
    column.text(
        &t(lang, "plans.report.creative", &[("name", &plan.creative)]),
        10.5,
        false,
        MUTED,
    );
    column.text(
        &t(
            lang,
            "plans.period",
            &[
                ("start", &day(&plan.start_date, lang)),
                ("end", &day(&plan.end_date, lang)),
                ("count", &plan.days.to_string()),
            ],
        ),
        10.5,
        false,
        MUTED,
    );
    column.rule();
    column.gap(8.0);
    let figures = [
        (
            t(lang, "plans.totals.locations", &[]),
            count(plan.sites.len() as i64, lang),
        ),
        (
            t(lang, "plans.totals.contacts", &[]),
            count(plan.contacts, lang),
        ),
        (
            t(lang, "plans.totals.noticed", &[]),
            plan.noticed
                .map(|n| count(n, lang))
                .unwrap_or_else(|| t(lang, "plans.totals.noticedPending", &[])),
        ),
    ];
    let cell = WIDTH / figures.len() as f32;
    let top = column.y;
    for (i, (label, value)) in figures.iter().enumerate() {
        let x = MARGIN + cell * i as f32;
        column.put(
            &clip_to(value, cell - 8.0, 20.0, true),
            x,
            top,
            20.0,
            true,
            INK,
        );
        column.put(
            &clip_to(label, cell - 8.0, 9.0, false),
            x,
            top + 28.0,
            9.0,
            false,
            MUTED,
        );
    }
    column.y = top + 48.0;
    column.rule();
    column.gap(6.0);
    column.text(&t(lang, "plans.report.noticedMeans", &[]), 9.5, false, INK);
    column.gap(4.0);
    column.text(&t(lang, "plans.report.reliability", &[]), 9.0, false, MUTED);
    column.gap(10.0);
    column.text(&t(lang, "plans.report.sites", &[]), 13.0, true, INK);
    for (n, site) in plan.sites.iter().enumerate() {
        let figures = match (site.contacts, site.noticed) {
            (Some(c), Some(k)) => t(
                lang,
                "plans.report.siteLine",
                &[("contacts", &count(c, lang)), ("noticed", &count(k, lang))],
            ),
            (Some(c), None) => t(
                lang,
                "plans.report.siteContacts",
                &[("contacts", &count(c, lang))],
            ),
            _ => t(lang, "plans.report.siteNoContacts", &[]),
        };
        column.gap(2.0);
        column.text(
            &format!("{}. {} — {figures}", n + 1, site.name),
            10.0,
            false,
            INK,
        );
        if column.y > PAGE.1 - MARGIN * 2.5 {
            column.text(
                &t(
                    lang,
                    "plans.report.more",
                    &[("count", &(plan.sites.len() - n - 1).to_string())],
                ),
                10.0,
                false,
                MUTED,
            );
            break;
        }
    }
}

fn site_page(column: &mut Column, plan: &PlanReport, site: &PlanSiteReport, n: usize) {
    let lang = plan.lang;
    column.text(&format!("{n}. {}", site.name), 16.0, true, INK);
    let place = [site.place.as_str(), site.format.as_str()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" · ");
    column.text(&place, 10.0, false, MUTED);
    column.gap(8.0);
    match site.render.as_deref().and_then(image_of) {
        Some(image) => {
            let (w, h) = image.size();
            let scale = (WIDTH / w as f32).min(330.0 / h as f32);
            if let Some(size) = Size::from_wh(w as f32 * scale, h as f32 * scale) {
                let x = MARGIN + (WIDTH - size.width()) / 2.0;
                column
                    .surface
                    .push_transform(&Transform::from_translate(x, column.y));
                column.surface.draw_image(image, size);
                column.surface.pop();
                column.y += size.height() + 10.0;
            }
        }
        None => column.text(&t(lang, "plans.report.noRender", &[]), 10.0, false, MUTED),
    }
    let or_unknown = |v: Option<String>| v.unwrap_or_else(|| unknown(lang));
    let rows = [
        (
            "plans.export.columns.dailyContacts",
            or_unknown(site.daily_contacts.map(|c| count(c, lang))),
        ),
        (
            "plans.export.columns.contacts",
            or_unknown(site.contacts.map(|c| count(c, lang))),
        ),
        (
            "plans.report.firstSecond",
            or_unknown(site.first_second.map(|p| percent(p, lang))),
        ),
        (
            "plans.export.columns.noticed",
            or_unknown(site.noticed.map(|c| count(c, lang))),
        ),
        (
            "plans.export.columns.timeInView",
            or_unknown(site.time_in_view_s.map(|s| number(s, 1, lang))),
        ),
        (
            "plans.export.columns.legible",
            t(
                lang,
                match site.legible {
                    Some(true) => "plans.legible.yes",
                    Some(false) => "plans.legible.no",
                    None => "plans.legible.unknown",
                },
                &[],
            ),
        ),
    ];
    for (key, value) in rows {
        let top = column.y + 2.0;
        column.put(&t(lang, key, &[]), MARGIN, top, 10.0, false, MUTED);
        column.put(&value, MARGIN + WIDTH * 0.55, top, 10.0, true, INK);
        column.y = top + 14.0;
    }
    column.gap(8.0);
    column.text(&t(lang, "plans.report.texts", &[]), 12.0, true, INK);
    if site.texts.is_empty() {
        column.text(&t(lang, "plans.report.noTexts", &[]), 10.0, false, MUTED);
    }
    for (i, text) in site.texts.iter().take(8).enumerate() {
        let verdict = t(
            lang,
            "plans.report.textLine",
            &[
                ("n", &(i + 1).to_string()),
                ("mm", &number(text.letter_mm, 0, lang)),
                ("comfortable", &number(text.comfortable_m, 0, lang)),
                ("legible", &number(text.legible_m, 0, lang)),
            ],
        );
        let reading = text
            .reading
            .map(|r| format!(" — {}", t(lang, &format!("plans.report.reading.{r}"), &[])))
            .unwrap_or_default();
        column.text(&format!("{verdict}{reading}"), 9.5, false, INK);
    }
}

/// The plan as PDF bytes.
pub fn render_plan(plan: &PlanReport) -> Result<Vec<u8>, String> {
    let frame = frame(plan);
    let mut document = Document::new();
    let pages = 1 + plan.sites.len();
    add_page(&mut document, &frame, 1, pages, |column| {
        cover_page(column, plan, &frame)
    })?;
    for (index, site) in plan.sites.iter().enumerate() {
        add_page(&mut document, &frame, index + 2, pages, |column| {
            site_page(column, plan, site, index + 1)
        })?;
    }
    let title = t(plan.lang, "plans.report.title", &[]);
    finish(document, &title, &plan.name, plan.lang)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped_as_each_language_writes_them() {
        assert_eq!(count(196_000, Locale::Fr), "196\u{202f}000");
        assert_eq!(count(196_000, Locale::En), "196,000");
        assert_eq!(count(1_234_567, Locale::En), "1,234,567");
        assert_eq!(count(999, Locale::En), "999");
        assert_eq!(count(0, Locale::Fr), "0");
    }

    #[test]
    fn a_plan_of_two_sites_is_drawn() {
        let site = |name: &str| PlanSiteReport {
            name: name.into(),
            place: "Paris".into(),
            format: "Panneau 4 × 3 m (12 m²)".into(),
            daily_contacts: Some(10_000),
            contacts: Some(140_000),
            noticed: None,
            first_second: None,
            time_in_view_s: Some(3.1),
            legible: Some(true),
            render: None,
            texts: vec![PlanText {
                letter_mm: 210.0,
                legible_m: 72.0,
                comfortable_m: 36.0,
                reading: Some("whole"),
            }],
        };
        let plan = PlanReport {
            lang: Locale::Fr,
            name: "Soldes d'hiver".into(),
            creative: "LUMA".into(),
            start_date: "2027-01-07".into(),
            end_date: "2027-01-20".into(),
            days: 14,
            contacts: 196_000,
            noticed: None,
            generated_at: 0,
            brand: None,
            sites: vec![site("Rivoli"), site("Nation")],
        };
        let bytes = render_plan(&plan).unwrap();
        assert!(bytes.starts_with(b"%PDF"));
        // The pages and their words are read back with poppler in tests/api/plans.rs.
        let one = render_plan(&PlanReport {
            sites: vec![],
            ..plan.clone()
        })
        .unwrap();
        assert!(
            bytes.len() > one.len(),
            "two site pages add to the cover alone"
        );
    }
}
