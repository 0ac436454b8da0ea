//! Reports a planner hands to a client: a heatmap's results as an A4 PDF in French or English
//! ([`pdf`], words from the catalogue, `crate::i18n`, which takes them from the web app's so that
//! a report says what the results page says). [`Report`] is what a report shows, gathered by
//! [`Report::from_heatmap`] from the stored results; writing the PDF does no I/O.

pub mod caption;
pub mod kept;
pub mod pdf;
pub mod png;

/// The report's type face, DejaVu Sans (licence in assets/fonts), for the PDF and the PNG
/// exports' captions alike.
pub(crate) const REGULAR_TTF: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
pub(crate) const BOLD_TTF: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-Bold.ttf");

use std::collections::HashMap;

use crate::assistant::Locale;
use crate::db::heatmaps::HeatmapWithItems;
use crate::heatmaps::aoi::{ItemAttention, stored_points};
use crate::heatmaps::benchmark::Benchmarks;
use crate::heatmaps::result::{HeatmapResult, Hotspot};

/// Everything a report shows.
#[derive(Debug, Clone)]
pub struct Report {
    pub lang: Locale,
    /// The heatmap's name.
    pub name: String,
    pub created_at: i64,
    pub generated_at: i64,
    /// The attention model that made the maps ("v3").
    pub model: String,
    pub images: Vec<ReportImage>,
    /// The benchmarks of the images (as `GET /heatmaps/{id}/benchmarks` answers them), when
    /// gathered.
    pub benchmarks: Option<Benchmarks>,
    /// The agency's branding (`/account/branding`), when set.
    pub brand: Option<Brand>,
}

/// An agency's branding on its reports: its name and logo at the top of the cover and in every
/// footer, its colour for the headings, rules and marks that are otherwise blue.
#[derive(Debug, Clone, Default)]
pub struct Brand {
    pub name: Option<String>,
    /// `#rrggbb` read as RGB.
    pub accent: Option<(u8, u8, u8)>,
    /// The logo as stored (its preview: JPEG, PNG or WebP).
    pub logo: Option<Vec<u8>>,
}

impl Brand {
    /// `#rrggbb` as RGB; `None` for anything else.
    pub fn parse_colour(text: &str) -> Option<(u8, u8, u8)> {
        let hex = text.strip_prefix('#').filter(|h| h.len() == 6)?;
        let channel = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
        Some((channel(0)?, channel(2)?, channel(4)?))
    }
}

/// One image of the report.
#[derive(Debug, Clone)]
pub struct ReportImage {
    pub item_id: String,
    /// As the user named it (creative, location, simulation), else its file name.
    pub name: String,
    pub width: u32,
    pub height: u32,
    /// None unless the image is done.
    pub result: Option<ResultSummary>,
    /// The image itself at preview size (JPEG, PNG or WebP as stored), under the two views.
    pub source: Option<Vec<u8>>,
    /// The colour overlay and the fog view at full strength (JPEG), when they could be read.
    pub overlay: Option<Vec<u8>>,
    pub fog: Option<Vec<u8>>,
    pub aois: Vec<AoiLine>,
    /// What is drawn over the views: the areas' outlines and the hotspots' numbers.
    pub marks: png::Marks,
}

/// The figures of a done image.
#[derive(Debug, Clone)]
pub struct ResultSummary {
    pub score: f64,
    pub focus: f64,
    pub clarity: f64,
    pub top10: f64,
    pub hotspots: Vec<Spot>,
    /// For a simulation's render: the probability that a passer-by looks at the panel within
    /// the first second (model v3 results).
    pub panel_first_second: Option<f64>,
}

/// The key of a score's band in the catalogue (`heatmap.score.bands.<key>`): what the score
/// means in words, as the results page says it.
pub fn band_key(score: f64) -> &'static str {
    if score >= 70.0 {
        "strong"
    } else if score >= 40.0 {
        "moderate"
    } else {
        "scattered"
    }
}

/// What a score means in words, as the results page says it ("Attention partagée").
pub fn band_words(lang: Locale, score: f64) -> String {
    crate::i18n::t(
        lang,
        &format!("heatmap.score.bands.{}", band_key(score)),
        &[],
    )
}

/// A hotspot in the predicted viewing order.
#[derive(Debug, Clone)]
pub struct Spot {
    pub rank: u64,
    pub x: f64,
    pub y: f64,
    pub share: f64,
    pub area: f64,
}

/// An area of interest and what it receives.
#[derive(Debug, Clone)]
pub struct AoiLine {
    pub name: String,
    /// The name's key (case, accents and spaces ignored): areas line up across images by it.
    pub key: String,
    pub share: f64,
    pub area: f64,
    pub relative: f64,
    pub seen_rank: Option<u64>,
    /// The calibrated probability of a look within the first second (model v3 results).
    pub first_second: Option<f64>,
}

/// What the exports draw over an item's views: its hotspots' peaks in viewing order (of the
/// view drawn: the full map's or the first glance's) and its areas' outlines, in the page's
/// order.
pub fn marks_of<'a>(
    hotspots: &[Hotspot],
    aois: impl Iterator<Item = &'a crate::db::aois::AoiRow>,
) -> png::Marks {
    png::Marks {
        hotspots: hotspots
            .iter()
            .map(|s| (s.rank, f64::from(s.x), f64::from(s.y)))
            .collect(),
        areas: aois.map(|a| stored_points(&a.points)).collect(),
    }
}

impl Report {
    /// Gathers a heatmap's report; `images` maps media ids to their bytes: sources (previews),
    /// overlays and fogs.
    pub fn from_heatmap(
        found: &HeatmapWithItems,
        lang: Locale,
        generated_at: i64,
        images: &HashMap<String, Vec<u8>>,
    ) -> Self {
        let mut model = String::from("v3");
        let items = found
            .items
            .iter()
            .map(|item| {
                let name = found
                    .labels
                    .get(&item.source.id)
                    .map(|label| label.name.clone())
                    .or_else(|| {
                        let name = item.source.original_name.as_deref()?;
                        Some(crate::media::file_stem(name).trim().to_owned())
                    })
                    .filter(|n| !n.is_empty())
                    .unwrap_or_else(|| {
                        crate::i18n::t(
                            lang,
                            "heatmap.item.imageN",
                            &[("n", &(item.position + 1).to_string())],
                        )
                    });
                let parsed = item
                    .result
                    .as_deref()
                    .filter(|_| item.status == "done")
                    .and_then(|text| HeatmapResult::parse(text, &item.id));
                let attention = parsed.as_ref().and_then(ItemAttention::from_result);
                let result = parsed.as_ref().map(|r| {
                    model.clone_from(&r.model);
                    ResultSummary {
                        score: r.map.score,
                        focus: r.map.focus,
                        clarity: r.map.clarity,
                        top10: r.map.top10_share,
                        panel_first_second: r.panel.and_then(|p| p.first_second_probability),
                        hotspots: r
                            .map
                            .hotspots
                            .iter()
                            .map(|s| Spot {
                                rank: u64::from(s.rank),
                                x: f64::from(s.x),
                                y: f64::from(s.y),
                                share: s.share,
                                area: s.area,
                            })
                            .collect(),
                    }
                });
                let aois = found
                    .aois_of(&item.id)
                    .filter_map(|aoi| {
                        let figures = attention.as_ref()?.of(&stored_points(&aoi.points));
                        Some(AoiLine {
                            name: aoi.name.clone(),
                            key: crate::db::aois::name_key(&aoi.name),
                            share: figures.share,
                            area: figures.area,
                            relative: figures.relative,
                            seen_rank: figures.seen_rank,
                            first_second: figures.first_second_probability,
                        })
                    })
                    .collect();
                let bytes =
                    |id: &Option<String>| id.as_ref().and_then(|id| images.get(id)).cloned();
                let hotspots = parsed.as_ref().map_or(&[][..], |r| &r.map.hotspots[..]);
                let marks = marks_of(hotspots, found.aois_of(&item.id));
                ReportImage {
                    item_id: item.id.clone(),
                    name,
                    width: item.source.width as u32,
                    height: item.source.height as u32,
                    result,
                    source: images.get(&item.source.id).cloned(),
                    overlay: bytes(&item.overlay_media_id),
                    fog: bytes(&item.fog_media_id),
                    aois,
                    marks,
                }
            })
            .collect();
        Report {
            lang,
            name: found.heatmap.name.clone(),
            created_at: found.heatmap.created_at,
            generated_at,
            model,
            images: items,
            benchmarks: None,
            brand: None,
        }
    }
}
