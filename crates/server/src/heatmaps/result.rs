//! The analysis of one heatmap image as a typed value: written by [`super::compute`], stored as
//! JSON text in `heatmap_items.result`, read back by the API, the areas of interest, the
//! benchmarks, the PDF report and the PNG exports alike.
//!
//! Older rows stay readable: every key added after the first release has a default (`model`
//! was added with v2, `panel` with the panel's share, `glance` with model v3), and a row that
//! no longer parses is logged and answered as "no result" rather than failing the whole page.
//!
//! The API answers a [`HeatmapResult`] with signed links beside it ([`AnsweredResult`]); the
//! stored value never holds links (they expire).

use regard_vision::Plane;
use regard_vision::analysis::{Analysis, AreaShare};
use regard_vision::image::working_size;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Long side of the grid sent to the browser for drawn areas.
pub const GRID_SIDE: usize = 64;

/// The model a stored result without `model` came from (the key arrived with v2).
const FIRST_MODEL: &str = "v1";

wire_enum! {
    /// Which of an analysis' two maps a view shows.
    pub enum Moment {
        /// The fixations that start within the first second: what a passer-by's glance takes in.
        Glance = "glance";
        /// Every fixation of about three seconds of free viewing (the full map; the default).
        Exploration = "exploration";
    }
}

/// A box relative to the image, as the engine writes it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ResultRect {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
}

/// A peak of attention and the region around it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Hotspot {
    /// 1 for the first region predicted to be looked at, then 2, …
    pub rank: u32,
    /// The peak, relative to the image.
    pub x: f32,
    pub y: f32,
    /// The region's bounding box.
    pub rect: ResultRect,
    /// Share of all attention inside the region.
    pub share: f64,
    /// The region's share of the image's surface.
    pub area: f64,
}

/// A face or a text-like region and its share of attention.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RegionShare {
    pub rect: ResultRect,
    /// Detector confidence.
    pub confidence: f32,
    pub share: f64,
    pub area: f64,
    /// `share / area`.
    pub relative: f64,
}

/// The map reduced to at most 64 cells a side, for drawn areas (values 0–65535).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AttentionGrid {
    pub width: u32,
    pub height: u32,
    pub values: Vec<u16>,
}

impl AttentionGrid {
    /// The map reduced (by area) to long side [`GRID_SIDE`], values relative to the grid's
    /// maximum.
    pub fn of(map: &Plane) -> Self {
        let (gw, gh) = working_size(map.width, map.height, GRID_SIDE);
        let small = map.resize_area(gw, gh);
        let k = 65535.0 / small.max().max(f32::MIN_POSITIVE);
        let values = small
            .data
            .iter()
            .map(|&v| (v * k).round().clamp(0.0, 65535.0) as u16)
            .collect();
        Self {
            width: gw as u32,
            height: gh as u32,
            values,
        }
    }

    /// The grid as a plane (`None` when its size and values disagree).
    pub fn plane(&self) -> Option<Plane> {
        let (width, height) = (self.width as usize, self.height as usize);
        if width == 0 || height == 0 || self.values.len() != width * height {
            return None;
        }
        Some(Plane {
            width,
            height,
            data: self.values.iter().map(|&v| f32::from(v)).collect(),
        })
    }
}

/// What the panel of a rendered simulation receives.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PanelShare {
    pub share: f64,
    pub area_share: f64,
    /// `share / area_share`; `null` for an empty outline.
    #[serde(default)]
    pub visibility: Option<f64>,
    /// The panel's share of the first second's attention (model v3 results).
    #[serde(default)]
    pub glance_share: Option<f64>,
    /// The probability that a viewer looks at the panel within the first second (model v3
    /// results; calibrated on eye-tracking data).
    #[serde(default)]
    pub first_second_probability: Option<f64>,
}

/// The figures every view of a map has: scores, hotspots in viewing order, faces, texts and
/// the grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MapAnalysis {
    /// Attention score, 0–100.
    pub score: f64,
    /// Focus, 0–100.
    pub focus: f64,
    /// Clarity, 0–100.
    pub clarity: f64,
    /// Share of attention in the most-attended 10% of the image.
    pub top10_share: f64,
    /// Entropy of the map over its maximum (0–1).
    pub entropy: f64,
    /// Hotspots in predicted viewing order.
    pub hotspots: Vec<Hotspot>,
    pub faces: Vec<RegionShare>,
    pub texts: Vec<RegionShare>,
    pub grid: AttentionGrid,
}

impl MapAnalysis {
    /// The engine's analysis of `map`, with its grid.
    pub fn new(analysis: &Analysis, map: &Plane) -> Self {
        Self {
            score: analysis.score,
            focus: analysis.focus,
            clarity: analysis.clarity,
            top10_share: analysis.top10_share,
            entropy: analysis.entropy,
            hotspots: analysis
                .hotspots
                .iter()
                .map(|h| Hotspot {
                    rank: u32::try_from(h.rank).unwrap_or(u32::MAX),
                    x: h.x,
                    y: h.y,
                    rect: rect(&h.rect),
                    share: h.share,
                    area: h.area,
                })
                .collect(),
            faces: analysis.faces.iter().map(region).collect(),
            texts: analysis.texts.iter().map(region).collect(),
            grid: AttentionGrid::of(map),
        }
    }
}

fn rect(r: &regard_vision::analysis::Rect) -> ResultRect {
    ResultRect {
        x: r.x,
        y: r.y,
        width: r.width,
        height: r.height,
    }
}

fn region(r: &regard_vision::analysis::RegionShare) -> RegionShare {
    let AreaShare {
        share,
        area,
        relative,
    } = r.attention;
    RegionShare {
        rect: rect(&r.rect),
        confidence: r.confidence,
        share,
        area,
        relative,
    }
}

/// The analysis of one image, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct HeatmapResult {
    /// The full map: where people look over about three seconds of free viewing.
    #[serde(flatten)]
    pub map: MapAnalysis,
    /// The analysed image's size in pixels.
    pub width: u32,
    pub height: u32,
    /// The attention model that made the map (`v1`, `v2`, `v3`): scores of different models do
    /// not compare.
    #[serde(default = "first_model")]
    pub model: String,
    /// The panel's share, for a simulation's render.
    #[serde(default)]
    pub panel: Option<PanelShare>,
    /// The first glance: the same analysis of the map of the fixations that start within the
    /// first second (`null` for analyses made before model v3).
    #[serde(default)]
    pub glance: Option<MapAnalysis>,
}

fn first_model() -> String {
    FIRST_MODEL.to_owned()
}

impl HeatmapResult {
    /// The analysis of one of the two maps (`None`: the first glance of a result made before
    /// model v3).
    pub fn view(&self, moment: Moment) -> Option<&MapAnalysis> {
        match moment {
            Moment::Exploration => Some(&self.map),
            Moment::Glance => self.glance.as_ref(),
        }
    }

    /// Reads a stored result; `None` (logged) when the text is not one.
    pub fn parse(text: &str, item_id: &str) -> Option<Self> {
        serde_json::from_str(text)
            .inspect_err(|err| {
                tracing::error!(error = %err, item_id, "a stored heatmap result does not parse");
            })
            .ok()
    }

    /// The stored form.
    pub fn to_text(&self) -> String {
        // A struct of numbers, strings and vectors always serialises.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Signed links to the images of one view of the analysis.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ViewUrls {
    /// The map, 16-bit grey PNG at working resolution (linear in predicted density).
    pub map: String,
    /// The colour overlay at full strength (JPEG at the analysed size).
    pub overlay: String,
    /// The fog view at full strength.
    pub fog: String,
}

/// Signed links to the analysis' images.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ResultUrls {
    /// The map, 16-bit grey PNG.
    pub map: String,
    pub overlay: String,
    pub fog: String,
    pub overlay_thumbnail: String,
    /// The first glance's map, overlay and fog (`null` for analyses made before they were
    /// stored).
    pub glance: Option<ViewUrls>,
}

/// The analysis of one image as answered: the stored result and signed links to its images.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AnsweredResult {
    #[serde(flatten)]
    pub result: HeatmapResult,
    pub urls: ResultUrls,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_stored_before_model_panel_and_glance_existed_still_reads() {
        let text = r#"{"score": 61.5, "focus": 50, "clarity": 80, "top10_share": 0.4,
            "entropy": 0.7, "hotspots": [{"rank": 1, "x": 0.5, "y": 0.25,
            "rect": {"x": 0.4, "y": 0.2, "width": 0.2, "height": 0.1}, "share": 0.3,
            "area": 0.02}], "faces": [], "texts": [{"rect": {"x": 0, "y": 0, "width": 1,
            "height": 0.1}, "confidence": 0.5, "share": 0.2, "area": 0.1, "relative": 2}],
            "grid": {"width": 2, "height": 1, "values": [65535, 100]},
            "width": 640, "height": 320}"#;
        let result = HeatmapResult::parse(text, "item").unwrap();
        assert_eq!(result.model, "v1");
        assert_eq!(result.panel, None);
        assert_eq!(result.glance, None);
        assert_eq!(result.map.hotspots[0].rank, 1);
        assert_eq!(result.map.texts[0].relative, 2.0);
        // And it writes back the keys it now has.
        let again: serde_json::Value = serde_json::from_str(&result.to_text()).unwrap();
        assert_eq!(again["model"], "v1");
        assert!(again["glance"].is_null());
        assert_eq!(again["score"], 61.5);
    }

    #[test]
    fn text_that_is_no_result_reads_as_none() {
        assert_eq!(HeatmapResult::parse("{\"score\": 1}", "item"), None);
        assert_eq!(HeatmapResult::parse("not json", "item"), None);
    }

    #[test]
    fn a_grid_with_the_wrong_number_of_values_is_no_plane() {
        let grid = AttentionGrid {
            width: 3,
            height: 2,
            values: vec![1; 5],
        };
        assert!(grid.plane().is_none());
        let map = Plane {
            width: 128,
            height: 64,
            data: (0..128 * 64).map(|i| (i % 128) as f32).collect(),
        };
        let grid = AttentionGrid::of(&map);
        assert_eq!((grid.width, grid.height), (64, 32));
        assert_eq!(grid.values.iter().max(), Some(&65535));
        assert_eq!(grid.plane().unwrap().data.len(), 64 * 32);
    }
}
