//! A heatmap report as an A4 PDF, written with krilla (a maintained PDF writer on pdf-writer:
//! fonts are subset and embedded, JPEGs embedded as they are, text extractable), without I/O.
//!
//! Page 1: the heatmap's name, dates, attention model, and every image with its score (the
//! best one marked). Then one page per image: its heatmap and fog views side by side, the score
//! and what it means, the indicators, the predicted viewing order, and the areas of interest
//! with their share of attention. Every page has a footer with the date, the model and the page
//! number. The words are the web app's, through the catalogue (`crate::i18n`).

use std::sync::LazyLock;

use krilla::Document;
use krilla::color::rgb;
use krilla::geom::{PathBuilder, Point, Rect};
use krilla::metadata::Metadata;
use krilla::num::NormalizedF32;
use krilla::page::PageSettings;
use krilla::paint::Fill;
use krilla::surface::Surface;
use krilla::text::{Font, TextDirection};

use super::{Report, ReportImage};
use crate::assistant::format::{date, number, percent};
use crate::heatmaps::benchmark::Metric;
use crate::i18n::t;

mod draw;
mod pages;
mod plan;

pub use plan::{PlanReport, PlanSiteReport, PlanText, count, render_plan};

use pages::{comparison_page, cover, image_page};

/// A4 in points.
const PAGE: (f32, f32) = (595.28, 841.89);
const MARGIN: f32 = 42.0;
const WIDTH: f32 = PAGE.0 - 2.0 * MARGIN;
use super::{BOLD_TTF, REGULAR_TTF};

static REGULAR: LazyLock<Font> =
    LazyLock::new(|| Font::new(REGULAR_TTF.into(), 0).expect("the embedded DejaVu Sans parses"));
static BOLD: LazyLock<Font> =
    LazyLock::new(|| Font::new(BOLD_TTF.into(), 0).expect("the embedded DejaVu Sans Bold parses"));

/// Widths of text set in the embedded font at one size, from its glyphs' advances. Kerning is
/// left out: DejaVu's pairs only tighten, so a width is at most a hair wide and a line measured
/// to fit never overflows.
struct FontMeasure<'a> {
    charmap: skrifa::charmap::Charmap<'a>,
    metrics: skrifa::metrics::GlyphMetrics<'a>,
}

impl FontMeasure<'static> {
    fn new(size: f32, bold: bool) -> Self {
        use skrifa::MetadataProvider as _;
        use skrifa::instance::{LocationRef, Size as FontSize};

        let font = skrifa::FontRef::new(if bold { BOLD_TTF } else { REGULAR_TTF })
            .expect("the embedded DejaVu Sans parses");
        Self {
            charmap: font.charmap(),
            metrics: font.glyph_metrics(FontSize::new(size), LocationRef::default()),
        }
    }
}

impl FontMeasure<'_> {
    /// `width` plus the advances of `text`, added one character at a time from the left: the
    /// width of a line grown word by word is the very number measuring it whole would give.
    fn add(&self, width: f32, text: &str) -> f32 {
        text.chars().fold(width, |width, c| {
            // A character without a glyph is drawn as the font's .notdef box (glyph 0).
            let glyph = self.charmap.map(c).unwrap_or_default();
            width + self.metrics.advance_width(glyph).unwrap_or(0.0)
        })
    }

    fn width(&self, text: &str) -> f32 {
        self.add(0.0, text)
    }
}

/// The width of `text` set at `size` points in the embedded font.
fn text_width(text: &str, size: f32, bold: bool) -> f32 {
    FontMeasure::new(size, bold).width(text)
}

const INK: (u8, u8, u8) = (17, 24, 39);
const MUTED: (u8, u8, u8) = (75, 85, 99);
const ACCENT: (u8, u8, u8) = (29, 78, 216);

fn fill(surface: &mut Surface, (r, g, b): (u8, u8, u8)) {
    surface.set_fill(Some(Fill {
        paint: rgb::Color::new(r, g, b).into(),
        opacity: NormalizedF32::ONE,
        rule: Default::default(),
    }));
}

/// The colour of headings, rules and marks: the agency's, else Regard's blue.
fn accent(report: &Report) -> (u8, u8, u8) {
    report
        .brand
        .as_ref()
        .and_then(|brand| brand.accent)
        .unwrap_or(ACCENT)
}

/// Writes lines down a page, from the top margin.
struct Column<'a, 'b> {
    surface: &'a mut Surface<'b>,
    y: f32,
}

impl Column<'_, '_> {
    fn text(&mut self, text: &str, size: f32, bold: bool, colour: (u8, u8, u8)) {
        self.text_at(MARGIN, WIDTH, text, size, bold, colour);
    }

    /// Wraps `text` at word boundaries to `width` and writes it from `x`.
    fn text_at(
        &mut self,
        x: f32,
        width: f32,
        text: &str,
        size: f32,
        bold: bool,
        colour: (u8, u8, u8),
    ) {
        fill(self.surface, colour);
        let font = if bold { BOLD.clone() } else { REGULAR.clone() };
        for line in wrap(text, width, size, bold) {
            self.y += size * 1.3;
            self.surface.draw_text(
                Point::from_xy(x, self.y),
                font.clone(),
                size,
                &line,
                false,
                TextDirection::Auto,
            );
        }
    }

    /// One line at a fixed place (its top at `y`), without moving down.
    fn put(&mut self, text: &str, x: f32, y: f32, size: f32, bold: bool, colour: (u8, u8, u8)) {
        fill(self.surface, colour);
        let font = if bold { BOLD.clone() } else { REGULAR.clone() };
        self.surface.draw_text(
            Point::from_xy(x, y + size),
            font,
            size,
            text,
            false,
            TextDirection::Auto,
        );
    }

    fn gap(&mut self, points: f32) {
        self.y += points;
    }

    /// A thin rule across the column.
    fn rule(&mut self) {
        self.y += 6.0;
        fill(self.surface, (216, 221, 228));
        let mut path = PathBuilder::new();
        if let Some(rect) = Rect::from_xywh(MARGIN, self.y, WIDTH, 0.7) {
            path.push_rect(rect);
        }
        if let Some(path) = path.finish() {
            self.surface.draw_path(&path);
        }
        self.y += 4.0;
    }
}

/// Lines of at most `width` points in the font at `size`, broken between words (a single word
/// wider than `width` keeps a line of its own).
fn wrap(text: &str, width: f32, size: f32, bold: bool) -> Vec<String> {
    let measure = FontMeasure::new(size, bold);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut line_width = 0.0;
    for word in text.split(' ') {
        if !line.is_empty() {
            let joined = measure.add(measure.add(line_width, " "), word);
            if joined > width {
                lines.push(std::mem::take(&mut line));
            } else {
                line.push(' ');
                line.push_str(word);
                line_width = joined;
                continue;
            }
        }
        line.push_str(word);
        line_width = measure.width(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// `text` cut with an ellipsis so that it fits `width` points at `size` (whole when it fits).
fn clip_to(text: &str, width: f32, size: f32, bold: bool) -> String {
    let measure = FontMeasure::new(size, bold);
    if measure.width(text) <= width {
        return text.to_owned();
    }
    let mut kept: String = text.to_owned();
    while kept.pop().is_some() {
        let candidate = format!("{}…", kept.trim_end());
        if measure.width(&candidate) <= width {
            return candidate;
        }
    }
    "…".to_owned()
}

fn footer(surface: &mut Surface, report: &Report, page: usize, pages: usize) {
    let lang = report.lang;
    // The agency signs its reports; Regard stays named as the tool that made them.
    let by = match report
        .brand
        .as_ref()
        .and_then(|brand| brand.name.as_deref())
    {
        Some(agency) => format!("{agency} · Regard"),
        None => "Regard".to_owned(),
    };
    let text = format!(
        "{by} · {} · {} · {}",
        t(
            lang,
            "report.generated",
            &[("date", &date(report.generated_at, lang))]
        ),
        t(lang, "report.model", &[("model", &report.model)]),
        t(
            lang,
            "report.page",
            &[("n", &page.to_string()), ("total", &pages.to_string())]
        ),
    );
    fill(surface, MUTED);
    surface.draw_text(
        Point::from_xy(MARGIN, PAGE.1 - MARGIN / 2.0),
        REGULAR.clone(),
        8.0,
        &text,
        false,
        TextDirection::Auto,
    );
}

/// Adds an A4 page to `document`: `draw` writes its column from the top margin, then the
/// footer of `frame` numbers it `n` of `pages`.
fn add_page(
    document: &mut Document,
    frame: &Report,
    n: usize,
    pages: usize,
    draw: impl FnOnce(&mut Column),
) -> Result<(), String> {
    let settings = PageSettings::from_wh(PAGE.0, PAGE.1).ok_or("bad page size")?;
    let mut page = document.start_page_with(settings);
    let mut surface = page.surface();
    let mut column = Column {
        surface: &mut surface,
        y: MARGIN,
    };
    draw(&mut column);
    footer(&mut surface, frame, n, pages);
    surface.finish();
    page.finish();
    Ok(())
}

/// The document's bytes, titled "`title` — `name`" in `lang`.
fn finish(
    mut document: Document,
    title: &str,
    name: &str,
    lang: crate::assistant::Locale,
) -> Result<Vec<u8>, String> {
    document.set_metadata(
        Metadata::new()
            .title(format!("{title} — {name}"))
            .language(lang.code().to_owned())
            .creator("Regard".to_owned()),
    );
    document.finish().map_err(|err| format!("{err:?}"))
}

/// The report as PDF bytes.
pub fn render(report: &Report) -> Result<Vec<u8>, String> {
    let mut document = Document::new();
    let compared = report.images.iter().filter(|i| i.result.is_some()).count() >= 2;
    let pages = 1 + usize::from(compared) + report.images.len();
    add_page(&mut document, report, 1, pages, |column| {
        cover(column, report)
    })?;
    if compared {
        add_page(&mut document, report, 2, pages, |column| {
            comparison_page(column, report)
        })?;
    }
    for (index, image) in report.images.iter().enumerate() {
        let n = index + 2 + usize::from(compared);
        add_page(&mut document, report, n, pages, |column| {
            image_page(column, report, image, index + 1)
        })?;
    }
    let title = t(report.lang, "report.title", &[]);
    finish(document, &title, &report.name, report.lang)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_come_from_the_glyphs_not_a_mean_advance() {
        // DejaVu Sans: "i" is narrow, "W" wide; bold is wider than regular.
        let narrow = text_width("iiiiiiiiii", 10.0, false);
        let wide = text_width("WWWWWWWWWW", 10.0, false);
        assert!(wide > 3.0 * narrow, "{wide} vs {narrow}");
        assert!(text_width("Regard", 10.0, true) > text_width("Regard", 10.0, false));
        // Linear in the size, and nothing for nothing.
        let at10 = text_width("Affiche 4×3", 10.0, false);
        assert!((text_width("Affiche 4×3", 20.0, false) - 2.0 * at10).abs() < 1e-3);
        assert_eq!(text_width("", 12.0, false), 0.0);
    }

    #[test]
    fn wrapped_lines_fit_their_width_and_keep_every_word() {
        let text = "Le panneau est vu dans la première seconde par une majorité des passants, \
                    WWWW MMMM et le texte légal reste illisible à trente mètres";
        for (width, size) in [(120.0, 9.0), (200.0, 10.0), (511.0, 12.0)] {
            let lines = wrap(text, width, size, false);
            for line in &lines {
                assert!(text_width(line, size, false) <= width, "{line:?} > {width}");
            }
            assert_eq!(lines.join(" "), text);
            // Greedy: the next line's first word would not have fitted on the line before.
            for pair in lines.windows(2) {
                let first = pair[1].split(' ').next().unwrap();
                let joined = format!("{} {first}", pair[0]);
                assert!(text_width(&joined, size, false) > width, "{joined:?}");
            }
        }
        // Wide letters wrap sooner than narrow ones of the same count.
        let w = "WWWW WWWW WWWW WWWW WWWW WWWW";
        let i = "iiii iiii iiii iiii iiii iiii";
        assert!(wrap(w, 100.0, 10.0, false).len() > wrap(i, 100.0, 10.0, false).len());
    }

    #[test]
    fn clipped_names_fit_with_an_ellipsis() {
        assert_eq!(clip_to("Été", 100.0, 8.5, true), "Été");
        let long = "Campagne printemps Évian — variante A très longue";
        let clipped = clip_to(long, 60.0, 8.5, true);
        assert!(clipped.ends_with('…'), "{clipped}");
        assert!(text_width(&clipped, 8.5, true) <= 60.0);
        assert!(long.starts_with(clipped.trim_end_matches('…')));
    }
}
