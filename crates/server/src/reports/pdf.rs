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
use krilla::paint::Fill;
use krilla::surface::Surface;
use krilla::text::{Font, TextDirection};

use super::text::t;
use super::{Report, ReportImage};
use crate::assistant::format::{date, number, percent};

/// A4 in points.
const PAGE: (f32, f32) = (595.28, 841.89);
const MARGIN: f32 = 42.0;
const WIDTH: f32 = PAGE.0 - 2.0 * MARGIN;
/// Mean advance of a DejaVu Sans character, in ems (a slight overestimate, so lines never
/// overflow the margin).
const CHAR_EM: f32 = 0.56;

static REGULAR: LazyLock<Font> = LazyLock::new(|| {
    Font::new(
        include_bytes!("../../assets/fonts/DejaVuSans.ttf")
            .as_slice()
            .into(),
        0,
    )
    .expect("the embedded DejaVu Sans parses")
});
static BOLD: LazyLock<Font> = LazyLock::new(|| {
    Font::new(
        include_bytes!("../../assets/fonts/DejaVuSans-Bold.ttf")
            .as_slice()
            .into(),
        0,
    )
    .expect("the embedded DejaVu Sans Bold parses")
});

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
        for line in wrap(text, width, size) {
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

/// Lines of at most `width` points (estimated), broken between words.
fn wrap(text: &str, width: f32, size: f32) -> Vec<String> {
    let max = ((width / (size * CHAR_EM)).floor() as usize).max(8);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let len = line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
        if !line.is_empty() && len > max {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
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
        column.text(&format!("{}. {}", i + 1, aoi.name), 10.0, true, INK);
        column.text(&format!("{stats}. {seen}."), 9.0, false, MUTED);
        if column.y > PAGE.1 - MARGIN - 40.0 {
            column.text(&t(lang, "report.more", &[]), 9.0, false, MUTED);
            break;
        }
    }
}

/// The report as PDF bytes.
pub fn render(report: &Report) -> Result<Vec<u8>, String> {
    let mut document = Document::new();
    let pages = 1 + report.images.len();
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
    for (index, image) in report.images.iter().enumerate() {
        let mut page = document.start_page_with(settings()?);
        let mut surface = page.surface();
        let mut column = Column {
            surface: &mut surface,
            y: MARGIN,
        };
        image_page(&mut column, report, image, index + 1);
        footer(&mut surface, report, index + 2, pages);
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
