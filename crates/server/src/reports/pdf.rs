//! A heatmap report as an A4 PDF, written with krilla (a maintained PDF writer on pdf-writer:
//! fonts are subset and embedded, JPEGs embedded as they are, text extractable), without I/O.
//!
//! Page 1: the heatmap's name, dates, attention model, and every image with its score (the
//! best one marked). Then one page per image: its heatmap and fog views side by side, the score
//! and what it means, the indicators, the predicted viewing order, and the areas of interest
//! with their share of attention. Every page has a footer with the date, the model and the page
//! number. The words are the web app's (`text.rs`).

use std::sync::LazyLock;

use krilla::Document;
use krilla::color::rgb;
use krilla::geom::{PathBuilder, Point, Rect, Size, Transform};
use krilla::image::Image;
use krilla::metadata::Metadata;
use krilla::num::NormalizedF32;
use krilla::page::PageSettings;
use krilla::paint::{Fill, Stroke};
use krilla::surface::Surface;
use krilla::text::{Font, TextDirection};

use super::png::Marks;
use super::text::t;
use super::{Report, ReportImage};
use crate::assistant::format::{date, number, percent};
use crate::heatmaps::benchmark::Metric;

/// A4 in points.
const PAGE: (f32, f32) = (595.28, 841.89);
const MARGIN: f32 = 42.0;
const WIDTH: f32 = PAGE.0 - 2.0 * MARGIN;
const REGULAR_TTF: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
const BOLD_TTF: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-Bold.ttf");

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
    let text = format!(
        "Regard · {} · {} · {}",
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

/// Opacities the views are drawn at over the image, as the results page opens them.
const OVERLAY_OPACITY: f32 = 0.6;
const FOG_OPACITY: f32 = 0.85;

/// Decodes a stored image: JPEG, or the lossless WebP (or PNG) previews of graphics.
fn image_of(bytes: &[u8]) -> Option<Image> {
    let data = || bytes.to_vec().into();
    match bytes {
        [0xFF, 0xD8, ..] => Image::from_jpeg(data(), true),
        [
            b'R',
            b'I',
            b'F',
            b'F',
            _,
            _,
            _,
            _,
            b'W',
            b'E',
            b'B',
            b'P',
            ..,
        ] => Image::from_webp(data(), true),
        _ => Image::from_png(data(), true),
    }
    .ok()
}

/// Draws `view` at `opacity` over `source`, scaled to `size`, top-left corner at (x, y); the
/// view alone at full strength when the source is missing.
fn draw_view(
    surface: &mut Surface,
    source: Option<&[u8]>,
    view: &[u8],
    opacity: f32,
    x: f32,
    y: f32,
    size: Size,
) {
    surface.push_transform(&Transform::from_translate(x, y));
    let under = source.and_then(image_of);
    let blended = under.is_some();
    if let Some(image) = under {
        surface.draw_image(image, size);
    }
    if let Some(image) = image_of(view) {
        let opacity =
            NormalizedF32::new(if blended { opacity } else { 1.0 }).unwrap_or(NormalizedF32::ONE);
        surface.push_opacity(opacity);
        surface.draw_image(image, size);
        surface.pop();
    }
    surface.pop();
}

/// A circle as four cubic arcs.
fn circle(path: &mut PathBuilder, cx: f32, cy: f32, r: f32) {
    const K: f32 = 0.552_284_8;
    let k = K * r;
    path.move_to(cx + r, cy);
    path.cubic_to(cx + r, cy + k, cx + k, cy + r, cx, cy + r);
    path.cubic_to(cx - k, cy + r, cx - r, cy + k, cx - r, cy);
    path.cubic_to(cx - r, cy - k, cx - k, cy - r, cx, cy - r);
    path.cubic_to(cx + k, cy - r, cx + r, cy - k, cx + r, cy);
    path.close();
}

fn stroke(surface: &mut Surface, (r, g, b): (u8, u8, u8), width: f32) {
    surface.set_stroke(Some(Stroke {
        paint: rgb::Color::new(r, g, b).into(),
        width,
        ..Default::default()
    }));
}

/// Centred bold text.
fn centred(surface: &mut Surface, text: &str, (cx, cy): (f32, f32), size: f32) {
    let width = text_width(text, size, true);
    surface.draw_text(
        Point::from_xy(cx - width / 2.0, cy + size * 0.36),
        BOLD.clone(),
        size,
        text,
        false,
        TextDirection::Auto,
    );
}

/// The areas' outlines (numbered at their top-left corner, as in the list below) and the
/// hotspots' numbers in viewing order, over an image drawn at (x, y) with `size`: the marks
/// of the page and of the PNG exports, as vectors.
fn draw_marks(surface: &mut Surface, marks: &Marks, x: f32, y: f32, size: Size) {
    let (w, h) = (size.width(), size.height());
    let at = |(px, py): (f64, f64)| (x + px as f32 * w, y + py as f32 * h);
    for (n, area) in marks.areas.iter().enumerate() {
        let points: Vec<(f32, f32)> = area.iter().copied().map(at).collect();
        let mut path = PathBuilder::new();
        for (i, &(px, py)) in points.iter().enumerate() {
            if i == 0 {
                path.move_to(px, py);
            } else {
                path.line_to(px, py);
            }
        }
        path.close();
        if let Some(path) = path.finish() {
            surface.set_fill(None);
            stroke(surface, INK, 2.4);
            surface.draw_path(&path);
            stroke(surface, (255, 255, 255), 1.1);
            surface.draw_path(&path);
        }
        let left = points.iter().map(|p| p.0).fold(f32::INFINITY, f32::min);
        let top = points.iter().map(|p| p.1).fold(f32::INFINITY, f32::min);
        let label = (n + 1).to_string();
        let width = 4.0 + label.len() as f32 * 4.6;
        surface.set_stroke(None);
        fill(surface, INK);
        let mut path = PathBuilder::new();
        if let Some(rect) = Rect::from_xywh(left, top, width, 9.0) {
            path.push_rect(rect);
        }
        if let Some(path) = path.finish() {
            surface.draw_path(&path);
        }
        fill(surface, (255, 255, 255));
        centred(surface, &label, (left + width / 2.0, top + 4.5), 7.0);
    }
    for &(rank, px, py) in &marks.hotspots {
        let (cx, cy) = at((px, py));
        let mut path = PathBuilder::new();
        circle(&mut path, cx, cy, 6.0);
        if let Some(path) = path.finish() {
            fill(surface, ACCENT);
            stroke(surface, (255, 255, 255), 1.0);
            surface.draw_path(&path);
        }
        surface.set_stroke(None);
        fill(surface, (255, 255, 255));
        centred(surface, &rank.to_string(), (cx, cy), 7.0);
    }
    surface.set_stroke(None);
}

/// "above 64 % (of 12)", the extremes in words, or how many results are missing: the page's
/// words for a standing (`percentile` null: too few to compare), lowercase (they follow a
/// colon).
fn standing_text(lang: crate::assistant::Locale, percentile: Option<f64>, count: usize) -> String {
    let total = number(count as f64, 0, lang);
    let text = match percentile {
        None => t(
            lang,
            "heatmap.benchmarks.notEnough",
            &[
                ("count", &count.to_string()),
                ("min", &crate::heatmaps::benchmark::MIN_LIBRARY.to_string()),
            ],
        ),
        Some(p) if p.round() <= 0.0 => t(lang, "heatmap.benchmarks.lowest", &[("total", &total)]),
        Some(p) if p.round() >= 100.0 => {
            t(lang, "heatmap.benchmarks.highest", &[("total", &total)])
        }
        Some(p) => t(
            lang,
            "heatmap.benchmarks.above",
            &[
                ("percent", &percent(p.round() / 100.0, lang)),
                ("total", &total),
            ],
        ),
    };
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Where a point is, in thirds of the image (the analysis' words).
fn position_key(x: f64, y: f64) -> &'static str {
    const KEYS: [[&str; 3]; 3] = [
        ["topLeft", "top", "topRight"],
        ["left", "center", "right"],
        ["bottomLeft", "bottom", "bottomRight"],
    ];
    let third = |v: f64| ((v * 3.0).floor() as i64).clamp(0, 2) as usize;
    KEYS[third(y)][third(x)]
}

fn band(value: f64) -> &'static str {
    if value >= 70.0 {
        "strong"
    } else if value >= 40.0 {
        "moderate"
    } else {
        "scattered"
    }
}

fn cover(column: &mut Column, report: &Report) {
    let lang = report.lang;
    column.text(&t(lang, "report.title", &[]), 11.0, true, ACCENT);
    column.text(&report.name, 22.0, true, INK);
    column.gap(4.0);
    column.text(
        &t(
            lang,
            "report.created",
            &[("date", &date(report.created_at, lang))],
        ),
        10.0,
        false,
        MUTED,
    );
    column.text(
        &t(lang, "report.model", &[("model", &report.model)]),
        10.0,
        false,
        MUTED,
    );
    column.rule();
    column.gap(6.0);
    column.text(&t(lang, "report.summary", &[]), 13.0, true, INK);
    let best = report
        .images
        .iter()
        .filter_map(|image| image.result.as_ref().map(|r| r.score))
        .fold(f64::NEG_INFINITY, f64::max);
    for (index, image) in report.images.iter().enumerate() {
        let line = match &image.result {
            Some(result) => {
                let mut line = t(
                    lang,
                    "report.imageScore",
                    &[
                        ("n", &(index + 1).to_string()),
                        ("name", &image.name),
                        ("score", &number(result.score.round(), 0, lang)),
                        (
                            "band",
                            &t(
                                lang,
                                &format!("heatmap.score.bands.{}", band(result.score)),
                                &[],
                            ),
                        ),
                    ],
                );
                if report.images.len() > 1 && result.score == best {
                    line.push_str(&format!(" — {}", t(lang, "report.best", &[])));
                }
                line
            }
            None => t(
                lang,
                "report.imageFailed",
                &[("n", &(index + 1).to_string()), ("name", &image.name)],
            ),
        };
        column.gap(2.0);
        column.text(&line, 10.5, false, INK);
    }
    column.gap(10.0);
    column.text(&t(lang, "heatmap.score.formula", &[]), 9.0, false, MUTED);
    column.text(&t(lang, "report.about", &[]), 9.0, false, MUTED);
}

fn image_page(column: &mut Column, report: &Report, image: &ReportImage, n: usize) {
    let lang = report.lang;
    column.text(&format!("{n}. {}", image.name), 16.0, true, INK);
    let Some(result) = &image.result else {
        column.gap(8.0);
        column.text(&t(lang, "report.failed", &[]), 10.5, false, MUTED);
        return;
    };
    column.gap(8.0);

    // The heatmap and the fog, side by side, at the image's proportions.
    let aspect = image.height as f32 / image.width.max(1) as f32;
    let each = (WIDTH - 12.0) / 2.0;
    let (w, h) = if each * aspect > 300.0 {
        (300.0 / aspect, 300.0)
    } else {
        (each, each * aspect)
    };
    let captions = [
        (
            t(lang, "heatmap.item.attention", &[]),
            &image.overlay,
            OVERLAY_OPACITY,
        ),
        (
            t(lang, "heatmap.viewer.views.fog", &[]),
            &image.fog,
            FOG_OPACITY,
        ),
    ];
    let top = column.y;
    for (i, (caption, view, opacity)) in captions.iter().enumerate() {
        let x = MARGIN + i as f32 * (each + 12.0);
        fill(column.surface, MUTED);
        column.surface.draw_text(
            Point::from_xy(x, top + 10.0),
            REGULAR.clone(),
            9.0,
            caption,
            false,
            TextDirection::Auto,
        );
        if let (Some(view), Some(size)) = (view, Size::from_wh(w, h)) {
            let source = image.source.as_deref();
            draw_view(column.surface, source, view, *opacity, x, top + 16.0, size);
            draw_marks(column.surface, &image.marks, x, top + 16.0, size);
        }
    }
    column.y = top + 16.0 + h + 6.0;

    // Score and what it means.
    let b = band(result.score);
    let colon = lang.pick("\u{a0}: ", ": ");
    column.text(
        &format!(
            "{}{colon}{}{} — {}",
            t(lang, "heatmap.score.title", &[]),
            number(result.score.round(), 0, lang),
            t(lang, "heatmap.score.outOf", &[]),
            t(lang, &format!("heatmap.score.bands.{b}"), &[])
        ),
        13.0,
        true,
        INK,
    );
    column.text(
        &t(lang, &format!("heatmap.score.bandHelp.{b}"), &[]),
        9.5,
        false,
        MUTED,
    );
    // A simulation's render: whether the panel is seen at a glance leads what follows.
    if let Some(probability) = result.panel_first_second {
        column.gap(3.0);
        column.text(
            &format!(
                "{}{colon}{}",
                t(lang, "simulation.attention.firstSecond", &[]),
                percent(probability, lang)
            ),
            11.0,
            true,
            INK,
        );
        column.text(
            &t(lang, "simulation.attention.firstSecondHint", &[]),
            8.5,
            false,
            MUTED,
        );
    }
    column.gap(4.0);
    for (key, value) in [
        (
            "focus",
            format!(
                "{}{}",
                number(result.focus.round(), 0, lang),
                t(lang, "heatmap.score.outOf", &[])
            ),
        ),
        (
            "clarity",
            format!(
                "{}{}",
                number(result.clarity.round(), 0, lang),
                t(lang, "heatmap.score.outOf", &[])
            ),
        ),
        ("top10", percent(result.top10, lang)),
    ] {
        column.text(
            &format!(
                "{}{colon}{value}",
                t(lang, &format!("heatmap.metrics.{key}"), &[])
            ),
            10.0,
            true,
            INK,
        );
        column.text(
            &t(lang, &format!("heatmap.metrics.{key}Help"), &[]),
            8.5,
            false,
            MUTED,
        );
    }

    // Where the result stands (benchmarks).
    if let Some((benchmarks, bench)) = report
        .benchmarks
        .as_ref()
        .and_then(|b| Some((b, b.item(&image.item_id)?)))
    {
        let reference = benchmarks.reference.name.as_str();
        column.gap(4.0);
        column.text(&t(lang, "heatmap.benchmarks.title", &[]), 11.0, true, INK);
        let kind = bench.kind.as_str();
        for metric in Metric::ALL {
            let Some(m) = bench.metrics.get(metric.as_str()) else {
                continue;
            };
            let mut parts = Vec::new();
            if let Some(library) = m.library {
                parts.push(format!(
                    "{}{colon}{}",
                    t(lang, &format!("heatmap.benchmarks.library.{kind}"), &[]),
                    standing_text(lang, library.percentile, library.count)
                ));
            }
            if let Some(standing) = m.reference {
                parts.push(format!(
                    "{}{colon}{}",
                    t(lang, "heatmap.benchmarks.reference", &[("name", reference)]),
                    standing_text(lang, Some(standing.percentile), standing.count)
                ));
            }
            column.text(
                &format!(
                    "{} — {}",
                    t(
                        lang,
                        &format!("heatmap.benchmarks.metrics.{}", metric.as_str()),
                        &[]
                    ),
                    parts.join(" · ")
                ),
                9.0,
                false,
                INK,
            );
        }
    }

    // The predicted viewing order.
    if !result.hotspots.is_empty() {
        column.gap(4.0);
        column.text(
            &t(lang, "heatmap.analysis.orderTitle", &[]),
            11.0,
            true,
            INK,
        );
        for spot in &result.hotspots {
            let position = t(
                lang,
                &format!(
                    "heatmap.analysis.positions.{}",
                    position_key(spot.x, spot.y)
                ),
                &[],
            );
            let line = t(
                lang,
                "heatmap.analysis.hotspot",
                &[
                    ("position", &position),
                    ("share", &percent(spot.share, lang)),
                    ("area", &percent(spot.area, lang)),
                ],
            );
            let mut chars = line.chars();
            let line: String = chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect())
                .unwrap_or_default();
            column.text(&format!("{}. {line}", spot.rank), 9.5, false, INK);
        }
    }

    // The areas of interest.
    column.gap(4.0);
    column.text(&t(lang, "heatmap.areas.title", &[]), 11.0, true, INK);
    if image.aois.is_empty() {
        column.text(&t(lang, "report.noAreas", &[]), 9.5, false, MUTED);
    }
    for (i, aoi) in image.aois.iter().enumerate() {
        let seen = match aoi.seen_rank {
            None => t(lang, "heatmap.areas.seenNone", &[]),
            Some(rank) if rank <= 3 => t(
                lang,
                "heatmap.areas.seenEarly",
                &[("rank", &rank.to_string())],
            ),
            Some(rank) => t(
                lang,
                "heatmap.areas.seenLater",
                &[("rank", &rank.to_string())],
            ),
        };
        let stats = t(
            lang,
            "heatmap.areas.stats",
            &[
                ("share", &percent(aoi.share, lang)),
                ("area", &percent(aoi.area, lang)),
                ("relative", &number(aoi.relative, 1, lang)),
            ],
        );
        let first = aoi.first_second.map(|p| {
            t(
                lang,
                "heatmap.areas.firstSecond",
                &[("probability", &percent(p, lang))],
            )
        });
        column.text(&format!("{}. {}", i + 1, aoi.name), 10.0, true, INK);
        column.text(&format!("{stats}. {seen}."), 9.0, false, MUTED);
        if let Some(first) = first {
            column.text(&format!("{first}."), 9.0, false, MUTED);
        }
        if column.y > PAGE.1 - MARGIN - 40.0 {
            column.text(&t(lang, "report.more", &[]), 9.0, false, MUTED);
            break;
        }
    }
}

/// Most images on the comparison page (as the compare view).
const MAX_COMPARED: usize = 4;

/// One measure compared across images: its label, one value per image (None: the image has no
/// such area), whether values are shares (0..1) rather than scores, and the places in the
/// viewing order (areas).
struct Measure {
    kind: &'static str,
    name: String,
    values: Vec<Option<f64>>,
    share: bool,
}

impl Measure {
    /// The index of the highest value unless the two highest are within the tie margin (half
    /// a point, or 0.5 % of the attention), as the compare view decides.
    fn winner(&self) -> Option<usize> {
        let mut present: Vec<(usize, f64)> = self
            .values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.map(|v| (i, v)))
            .collect();
        if present.len() < 2 {
            return None;
        }
        present.sort_by(|a, b| b.1.total_cmp(&a.1));
        let tie = if self.share { 0.005 } else { 0.5 };
        (present[0].1 - present[1].1 >= tie).then_some(present[0].0)
    }
}

/// The measures of the comparison: score, focus, clarity, then each area by name key, in order
/// of first appearance.
fn measures(images: &[&ReportImage]) -> Vec<Measure> {
    let of = |f: &dyn Fn(&super::ResultSummary) -> f64| {
        images
            .iter()
            .map(|i| i.result.as_ref().map(f))
            .collect::<Vec<_>>()
    };
    let mut rows = vec![
        Measure {
            kind: "score",
            name: String::new(),
            values: of(&|r| r.score),
            share: false,
        },
        Measure {
            kind: "focus",
            name: String::new(),
            values: of(&|r| r.focus),
            share: false,
        },
        Measure {
            kind: "clarity",
            name: String::new(),
            values: of(&|r| r.clarity),
            share: false,
        },
    ];
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for image in images {
        for aoi in &image.aois {
            if !keys.iter().any(|(k, _)| *k == aoi.key) {
                keys.push((&aoi.key, &aoi.name));
            }
        }
    }
    for (key, name) in keys {
        rows.push(Measure {
            kind: "aoi",
            name: name.to_owned(),
            values: images
                .iter()
                .map(|i| i.aois.iter().find(|a| a.key == key).map(|a| a.share))
                .collect(),
            share: true,
        });
    }
    rows
}

/// The comparison page: every measure side by side for up to four images, the difference from
/// the first, and a verdict per measure (the compare view's words).
fn comparison_page(column: &mut Column, report: &Report) {
    let lang = report.lang;
    let done: Vec<&ReportImage> = report
        .images
        .iter()
        .filter(|i| i.result.is_some())
        .collect();
    let images: Vec<&ReportImage> = done.iter().copied().take(MAX_COMPARED).collect();
    let rows = measures(&images);
    let value_text = |m: &Measure, v: f64| {
        if m.share {
            percent(v, lang)
        } else {
            number(v.round(), 0, lang)
        }
    };
    column.text(&t(lang, "heatmap.compare.tableTitle", &[]), 16.0, true, INK);
    column.text(
        &t(
            lang,
            "heatmap.compare.caption",
            &[("name", &images[0].name)],
        ),
        9.5,
        false,
        MUTED,
    );
    if done.len() > MAX_COMPARED {
        column.text(
            &t(
                lang,
                "report.compareFirst",
                &[("count", &MAX_COMPARED.to_string())],
            ),
            9.5,
            false,
            MUTED,
        );
    }
    column.gap(8.0);

    let label_width = 150.0;
    let cell = (WIDTH - label_width) / images.len() as f32;
    let clip = |text: &str| clip_to(text, cell - 6.0, 8.5, true);
    let top = column.y;
    for (i, image) in images.iter().enumerate() {
        column.put(
            &clip(&format!("{}. {}", i + 1, image.name)),
            MARGIN + label_width + i as f32 * cell,
            top,
            8.5,
            true,
            INK,
        );
    }
    column.y = top + 12.0;
    column.rule();
    for row in &rows {
        let label = match row.kind {
            "aoi" => t(lang, "heatmap.compare.measures.aoi", &[("name", &row.name)]),
            kind => t(lang, &format!("heatmap.compare.measures.{kind}"), &[]),
        };
        let label_lines = wrap(&label, label_width - 8.0, 9.0, false);
        let top = column.y;
        for (k, line) in label_lines.iter().enumerate() {
            column.put(line, MARGIN, top + k as f32 * 11.0, 9.0, false, INK);
        }
        let winner = row.winner();
        for (i, value) in row.values.iter().enumerate() {
            let x = MARGIN + label_width + i as f32 * cell;
            match value {
                Some(v) => {
                    let colour = if winner == Some(i) { ACCENT } else { INK };
                    column.put(
                        &value_text(row, *v),
                        x,
                        top,
                        10.0,
                        winner == Some(i),
                        colour,
                    );
                    if let (Some(first), true) = (row.values[0], i > 0) {
                        let delta = if row.share {
                            (v - first) * 100.0
                        } else {
                            v - first
                        };
                        let sign = if delta > 0.0 {
                            "+"
                        } else if delta < 0.0 {
                            "−"
                        } else {
                            ""
                        };
                        let text = t(
                            lang,
                            "heatmap.compare.deltaPoints",
                            &[("sign", sign), ("value", &number(delta.abs(), 1, lang))],
                        );
                        column.put(&text, x, top + 11.0, 8.0, false, MUTED);
                    }
                }
                None => column.put("—", x, top, 10.0, false, MUTED),
            }
        }
        column.y = top + (label_lines.len().max(2) as f32) * 11.0;
        column.rule();
        if column.y > PAGE.1 - MARGIN - 160.0 {
            column.text(&t(lang, "report.more", &[]), 9.0, false, MUTED);
            break;
        }
    }

    // The verdicts.
    column.gap(6.0);
    column.text(&t(lang, "heatmap.compare.verdict", &[]), 12.0, true, INK);
    for row in &rows {
        let present = row.values.iter().filter(|v| v.is_some()).count();
        let sentence = if row.kind == "aoi" && present < 2 {
            t(lang, "heatmap.compare.onlyOne", &[("area", &row.name)])
        } else if let Some(w) = row.winner() {
            let best = row.values[w].unwrap_or_default();
            let other = row
                .values
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != w)
                .filter_map(|(_, v)| *v)
                .fold(f64::NEG_INFINITY, f64::max);
            t(
                lang,
                &format!("heatmap.compare.win.{}", row.kind),
                &[
                    ("name", &images[w].name),
                    ("area", &row.name),
                    ("value", &value_text(row, best)),
                    ("other", &value_text(row, other)),
                ],
            )
        } else {
            t(
                lang,
                &format!("heatmap.compare.tie.{}", row.kind),
                &[("area", &row.name)],
            )
        };
        column.text(&format!("• {sentence}"), 9.5, false, INK);
        if column.y > PAGE.1 - MARGIN - 30.0 {
            break;
        }
    }
}

/// The report as PDF bytes.
pub fn render(report: &Report) -> Result<Vec<u8>, String> {
    let mut document = Document::new();
    let compared = report.images.iter().filter(|i| i.result.is_some()).count() >= 2;
    let pages = 1 + usize::from(compared) + report.images.len();
    let settings = || PageSettings::from_wh(PAGE.0, PAGE.1).ok_or("bad page size");
    {
        let mut page = document.start_page_with(settings()?);
        let mut surface = page.surface();
        let mut column = Column {
            surface: &mut surface,
            y: MARGIN,
        };
        cover(&mut column, report);
        footer(&mut surface, report, 1, pages);
        surface.finish();
        page.finish();
    }
    if compared {
        let mut page = document.start_page_with(settings()?);
        let mut surface = page.surface();
        let mut column = Column {
            surface: &mut surface,
            y: MARGIN,
        };
        comparison_page(&mut column, report);
        footer(&mut surface, report, 2, pages);
        surface.finish();
        page.finish();
    }
    for (index, image) in report.images.iter().enumerate() {
        let mut page = document.start_page_with(settings()?);
        let mut surface = page.surface();
        let mut column = Column {
            surface: &mut surface,
            y: MARGIN,
        };
        image_page(&mut column, report, image, index + 1);
        footer(
            &mut surface,
            report,
            index + 2 + usize::from(compared),
            pages,
        );
        surface.finish();
        page.finish();
    }
    document.set_metadata(
        Metadata::new()
            .title(format!(
                "{} — {}",
                t(report.lang, "report.title", &[]),
                report.name
            ))
            .language(report.lang.code().to_owned())
            .creator("Regard".to_owned()),
    );
    document.finish().map_err(|err| format!("{err:?}"))
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
