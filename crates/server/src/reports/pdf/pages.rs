//! The pages of a report: the cover, one page per image and the comparison of the images.

use krilla::geom::{Point, Size};

use super::draw::*;
use super::*;

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

/// The agency's logo (at most 48 pt high and 180 pt wide, its proportions kept) and name at
/// the top of the cover, over a rule in its colour.
pub(super) fn letterhead(column: &mut Column, brand: &super::super::Brand, colour: (u8, u8, u8)) {
    let top = column.y;
    let mut x = MARGIN;
    let mut height: f32 = 0.0;
    if let Some(image) = brand.logo.as_deref().and_then(draw::image_of) {
        let (w, h) = image.size();
        let scale = (48.0 / h as f32).min(180.0 / w as f32);
        let size = krilla::geom::Size::from_wh(w as f32 * scale, h as f32 * scale);
        if let Some(size) = size {
            column
                .surface
                .push_transform(&krilla::geom::Transform::from_translate(MARGIN, top));
            column.surface.draw_image(image, size);
            column.surface.pop();
            x += size.width() + 12.0;
            height = size.height();
        }
    }
    if let Some(name) = &brand.name {
        let size = 15.0;
        let y = top + (height.max(size * 1.3) - size * 1.3) / 2.0;
        let name = clip_to(name, MARGIN + WIDTH - x, size, true);
        column.put(&name, x, y, size, true, INK);
        height = height.max(size * 1.3);
    }
    if height > 0.0 {
        column.y = top + height + 6.0;
        fill(column.surface, colour);
        let mut path = PathBuilder::new();
        if let Some(rect) = Rect::from_xywh(MARGIN, column.y, WIDTH, 2.0) {
            path.push_rect(rect);
        }
        if let Some(path) = path.finish() {
            column.surface.draw_path(&path);
        }
        column.y += 12.0;
    }
}

pub(super) fn cover(column: &mut Column, report: &Report) {
    let lang = report.lang;
    if let Some(brand) = &report.brand {
        letterhead(column, brand, accent(report));
    }
    column.text(&t(lang, "report.title", &[]), 11.0, true, accent(report));
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
                        ("band", &super::super::band_words(lang, result.score)),
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

pub(super) fn image_page(column: &mut Column, report: &Report, image: &ReportImage, n: usize) {
    let lang = report.lang;
    column.text(&format!("{n}. {}", image.name), 16.0, true, INK);
    let Some(result) = &image.result else {
        column.gap(8.0);
        column.text(&t(lang, "report.failed", &[]), 10.5, false, MUTED);
        return;
    };
    column.gap(8.0);

    // The image itself, its heatmap and its fog, side by side at the image's proportions: the
    // client sees what was analysed beside what the model predicts.
    let aspect = image.height as f32 / image.width.max(1) as f32;
    let each = (WIDTH - 24.0) / 3.0;
    let (w, h) = if each * aspect > 300.0 {
        (300.0 / aspect, 300.0)
    } else {
        (each, each * aspect)
    };
    let columns = [
        (t(lang, "heatmap.viewer.views.original", &[]), None, 1.0),
        (
            t(lang, "heatmap.item.attention", &[]),
            Some(&image.overlay),
            OVERLAY_OPACITY,
        ),
        (
            t(lang, "heatmap.viewer.views.fog", &[]),
            Some(&image.fog),
            FOG_OPACITY,
        ),
    ];
    let top = column.y;
    for (i, (caption, view, opacity)) in columns.iter().enumerate() {
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
        let Some(size) = Size::from_wh(w, h) else {
            continue;
        };
        let source = image.source.as_deref();
        match view {
            // The original, as analysed, without marks.
            None => {
                if let Some(original) = source.and_then(image_of) {
                    column
                        .surface
                        .push_transform(&krilla::geom::Transform::from_translate(x, top + 16.0));
                    column.surface.draw_image(original, size);
                    column.surface.pop();
                }
            }
            Some(Some(view)) => {
                draw_view(column.surface, source, view, *opacity, x, top + 16.0, size);
                draw_marks(
                    column.surface,
                    &image.marks,
                    x,
                    top + 16.0,
                    size,
                    accent(report),
                );
            }
            Some(None) => {}
        }
    }
    column.y = top + 16.0 + h + 6.0;

    // Score and what it means.
    let b = super::super::band_key(result.score);
    let colon = lang.pick("\u{a0}: ", ": ");
    column.text(
        &format!(
            "{}{colon}{}{} — {}",
            t(lang, "heatmap.score.title", &[]),
            number(result.score.round(), 0, lang),
            t(lang, "heatmap.score.outOf", &[]),
            super::super::band_words(lang, result.score)
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
    /// A value as the page prints it, read back: a score rounded to a whole number, a share in
    /// percent with the digits `percent` prints (one under 10 %, none above; "< 0.1 %" is 0).
    /// Differences and winners are taken between these, as the compare view does, so that 48
    /// beside 39 reads +9.
    fn shown(&self, v: f64) -> f64 {
        if !self.share {
            return v.round();
        }
        if v > 0.0 && v < 0.0005 {
            return 0.0;
        }
        let scale = if v > 0.0 && v < 0.1 { 10.0 } else { 1.0 };
        (v * 100.0 * scale).round() / scale
    }

    /// The shown value minus the first image's, in score points or percentage points (to a
    /// tenth, which drops the subtraction's floating-point noise).
    fn delta(&self, v: f64, first: f64) -> f64 {
        ((self.shown(v) - self.shown(first)) * 10.0).round() / 10.0
    }

    /// The index of the highest shown value unless the two highest are within half a point
    /// (of score, or of percentage), as the compare view decides.
    fn winner(&self) -> Option<usize> {
        let mut present: Vec<(usize, f64)> = self
            .values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.map(|v| (i, self.shown(v))))
            .collect();
        if present.len() < 2 {
            return None;
        }
        present.sort_by(|a, b| b.1.total_cmp(&a.1));
        (present[0].1 - present[1].1 >= 0.5).then_some(present[0].0)
    }
}

/// The measures of the comparison: score, focus, clarity, then each area by name key, in order
/// of first appearance.
fn measures(images: &[&ReportImage]) -> Vec<Measure> {
    let of = |f: &dyn Fn(&super::super::ResultSummary) -> f64| {
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
pub(super) fn comparison_page(column: &mut Column, report: &Report) {
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
                    let colour = if winner == Some(i) {
                        accent(report)
                    } else {
                        INK
                    };
                    column.put(
                        &value_text(row, *v),
                        x,
                        top,
                        10.0,
                        winner == Some(i),
                        colour,
                    );
                    if let (Some(first), true) = (row.values[0], i > 0) {
                        let delta = row.delta(*v, first);
                        let sign = if delta > 0.0 {
                            "+"
                        } else if delta < 0.0 {
                            "−"
                        } else {
                            "±"
                        };
                        // As the compare view: percentage points for areas, whole score points.
                        let text = if row.share {
                            t(
                                lang,
                                "heatmap.compare.deltaPoints",
                                &[("sign", sign), ("value", &number(delta.abs(), 1, lang))],
                            )
                        } else {
                            format!("{sign}{}", number(delta.abs(), 0, lang))
                        };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn measure(values: &[f64], share: bool) -> Measure {
        Measure {
            kind: "score",
            name: String::new(),
            values: values.iter().copied().map(Some).collect(),
            share,
        }
    }

    #[test]
    fn differences_and_winners_come_from_the_values_as_printed() {
        // 39.4 and 47.6 print 39 and 48: +9, not the +8 of the raw values.
        let scores = measure(&[39.4, 47.6], false);
        assert_eq!(scores.delta(47.6, 39.4), 9.0);
        // 48.5 and 61.4 print 49 and 61: +12, not +13.
        assert_eq!(measure(&[48.5, 61.4], false).delta(61.4, 48.5), 12.0);
        // Shares in percentage points between what is printed: 4.5 % and 12 %.
        let shares = measure(&[0.0449, 0.123], true);
        assert_eq!(shares.delta(0.123, 0.0449), 7.5);
        assert_eq!(shares.shown(0.0004), 0.0, "< 0.1 % counts as 0");
        // 70.5 and 70.4 print 71 and 70: a point apart, not a tie; 70.4 and 70.2 are one.
        assert_eq!(measure(&[70.4, 70.5], false).winner(), Some(1));
        assert_eq!(measure(&[70.4, 70.2], false).winner(), None);
    }
}
