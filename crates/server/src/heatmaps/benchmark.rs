//! Benchmarks: where a result stands. Each score and each area's share of attention is placed
//! against the user's own library (a percentile among their other results of the same kind) and
//! against a reference distribution that ships with the product, per kind of image (creative,
//! location photo, render). No I/O: the caller brings the library's values.
//!
//! The reference (`assets/benchmarks/reference.json`) is written once by
//! `regard benchmark-reference` over a public image set (see [`REFERENCE_JSON`] and
//! docs/architecture/heatmaps.md, "Benchmarks"). It holds, per kind, 101 quantiles (every
//! percent) of the score, focus, clarity and, for renders, the panel's visibility and its
//! probability of a look within the first second, and for
//! areas of interest the share of attention of random areas in four size bands: an area's
//! share depends first on its size, so a logo is compared with areas of about its size.

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::result::HeatmapResult;

use regard_vision::AreaShare;

use super::aoi::{ItemAttention, stored_points};
use crate::db::aois::{NamedArea, name_key};
use crate::db::heatmaps::{HeatmapWithItems, LibraryItem};

/// The shipped reference distributions (JSON, see [`Reference`]).
pub const REFERENCE_JSON: &str = include_str!("../../assets/benchmarks/reference.json");

/// Fewest other values for a library percentile to mean something; under it the answer gives
/// the count and no percentile.
pub const MIN_LIBRARY: usize = 5;

/// Upper edges of the area size bands (share of the image's surface); the last band is open.
pub const AREA_BANDS: [f64; 3] = [0.02, 0.06, 0.15];

/// Smallest and largest area of the random areas drawn for the reference.
pub const AREA_RANGE: (f64, f64) = (0.005, 0.4);

/// What an image is, for comparisons: scores of a poster and of a street photo do not compare
/// (an `image` is none of the others: compared with all).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = BenchmarkKind)]
pub enum Kind {
    Creative,
    Location,
    Render,
    /// An image that is none of the above (uploaded on the heatmap page): compared with all.
    Image,
}

impl Kind {
    /// From a media label's kind (`creative`, `location`, `simulation`; `None`: an image).
    pub fn of_label(label: Option<&str>) -> Self {
        match label {
            Some("creative") => Kind::Creative,
            Some("location") => Kind::Location,
            Some("simulation") => Kind::Render,
            _ => Kind::Image,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Creative => "creative",
            Kind::Location => "location",
            Kind::Render => "render",
            Kind::Image => "image",
        }
    }
}

/// The measures a result is benchmarked on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    Score,
    Focus,
    Clarity,
    /// A render's panel: its share of attention over its share of the surface.
    Panel,
    /// A render's panel: the probability that a passer-by looks at it within the first second.
    FirstSecond,
}

impl Metric {
    pub const ALL: [Metric; 5] = [
        Metric::Score,
        Metric::Focus,
        Metric::Clarity,
        Metric::Panel,
        Metric::FirstSecond,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Score => "score",
            Metric::Focus => "focus",
            Metric::Clarity => "clarity",
            Metric::Panel => "panel",
            Metric::FirstSecond => "first_second",
        }
    }
}

/// One kind's reference distributions: 101 quantiles each (index i: the value under which i %
/// of the reference images fall).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KindReference {
    /// Number of reference images of this kind.
    pub images: usize,
    pub score: Vec<f64>,
    pub focus: Vec<f64>,
    pub clarity: Vec<f64>,
    /// Renders only: the panel's visibility (share of attention / share of surface).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub panel: Option<Vec<f64>>,
    /// Renders only: the probability of a look at the panel within the first second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_second: Option<Vec<f64>>,
    /// Share of attention of random areas, one distribution per size band ([`AREA_BANDS`]).
    pub areas: Vec<Vec<f64>>,
    /// Number of random areas per band.
    pub area_samples: usize,
}

impl KindReference {
    fn metric(&self, metric: Metric) -> Option<&[f64]> {
        match metric {
            Metric::Score => Some(&self.score),
            Metric::Focus => Some(&self.focus),
            Metric::Clarity => Some(&self.clarity),
            Metric::Panel => self.panel.as_deref(),
            Metric::FirstSecond => self.first_second.as_deref(),
        }
    }
}

/// Where the reference images come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// Short name shown to users, e.g. "OSIE".
    pub name: String,
    pub images: usize,
    pub licence: String,
    pub citation: String,
    /// How each kind was made from the set.
    pub method: String,
    /// The command that wrote the file.
    pub command: String,
}

/// The shipped reference file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    pub version: u32,
    /// The attention model the distributions were computed with (its scores only compare
    /// with the same model's).
    pub model: String,
    pub source: Provenance,
    pub creative: KindReference,
    pub location: KindReference,
    pub render: KindReference,
    /// All kinds pooled (for images that are none of them).
    pub all: KindReference,
}

impl Reference {
    /// The shipped reference, parsed once.
    pub fn shipped() -> &'static Reference {
        static REFERENCE: OnceLock<Reference> = OnceLock::new();
        REFERENCE.get_or_init(|| {
            serde_json::from_str(REFERENCE_JSON).expect("assets/benchmarks/reference.json parses")
        })
    }

    pub fn kind(&self, kind: Kind) -> &KindReference {
        match kind {
            Kind::Creative => &self.creative,
            Kind::Location => &self.location,
            Kind::Render => &self.render,
            Kind::Image => &self.all,
        }
    }

    /// The percentile of `value` among the reference images of `kind`, if the reference has
    /// that measure.
    pub fn percentile(&self, kind: Kind, metric: Metric, value: f64) -> Option<Standing> {
        let reference = self.kind(kind);
        let quantiles = reference.metric(metric)?;
        Some(Standing {
            percentile: quantile_percentile(quantiles, value)?,
            count: reference.images,
        })
    }

    /// The percentile of an area's share of attention among random areas of its size band.
    pub fn area_percentile(&self, kind: Kind, area: f64, share: f64) -> Option<Standing> {
        let reference = self.kind(kind);
        let quantiles = reference.areas.get(area_band(area))?;
        Some(Standing {
            percentile: quantile_percentile(quantiles, share)?,
            count: reference.area_samples,
        })
    }
}

/// Where a value stands in the shipped reference: the share (0..100, to one decimal in answers)
/// of the reference values below it, ties counting half, and how many values it was compared
/// with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ToSchema)]
#[schema(as = ReferenceStanding)]
pub struct Standing {
    pub percentile: f64,
    pub count: usize,
}

/// The size band of an area (index into [`KindReference::areas`]).
pub fn area_band(area: f64) -> usize {
    AREA_BANDS.iter().take_while(|&&edge| area >= edge).count()
}

/// The percentile of `value` given 101 quantiles (or any number ≥ 2, evenly spaced), read
/// off the piecewise-linear distribution through them; where several quantiles equal the value
/// (a jump in the distribution), the middle of the jump. `None` for an empty or NaN input.
pub fn quantile_percentile(quantiles: &[f64], value: f64) -> Option<f64> {
    if quantiles.len() < 2 || !value.is_finite() {
        return None;
    }
    let steps = (quantiles.len() - 1) as f64;
    let lo = quantiles.partition_point(|&q| q < value);
    let hi = quantiles.partition_point(|&q| q <= value);
    let position = if lo < hi {
        (lo + hi - 1) as f64 / 2.0
    } else if lo == 0 {
        0.0
    } else if lo == quantiles.len() {
        steps
    } else {
        let (a, b) = (quantiles[lo - 1], quantiles[lo]);
        (lo - 1) as f64 + (value - a) / (b - a)
    };
    Some((position / steps * 100.0).clamp(0.0, 100.0))
}

/// The percentile of `value` among `others` (the share below it, ties counting half), or
/// only the count when there are fewer than [`MIN_LIBRARY`] of them.
pub fn library_percentile(others: &[f64], value: f64) -> LibraryStanding {
    let count = others.len();
    let percentile = (count >= MIN_LIBRARY && value.is_finite()).then(|| {
        let close = |x: f64| (x - value).abs() <= 1e-9 * value.abs().max(1.0);
        let below = others.iter().filter(|&&x| x < value && !close(x)).count();
        let equal = others.iter().filter(|&&x| close(x)).count();
        (below as f64 + equal as f64 / 2.0) / count as f64 * 100.0
    });
    LibraryStanding { percentile, count }
}

/// Where a value stands among the caller's own results: `percentile` is null until there are
/// [`MIN_LIBRARY`] values to compare with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ToSchema)]
pub struct LibraryStanding {
    pub percentile: Option<f64>,
    pub count: usize,
}

/// `count` quantiles (evenly spaced, first = minimum, last = maximum) of `values`, linear
/// between order statistics; empty for no values.
pub fn quantiles(values: &[f64], count: usize) -> Vec<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() || count < 2 {
        return Vec::new();
    }
    sorted.sort_by(f64::total_cmp);
    let last = (sorted.len() - 1) as f64;
    (0..count)
        .map(|i| {
            let position = i as f64 / (count - 1) as f64 * last;
            let (below, t) = (position.floor() as usize, position.fract());
            let above = (below + 1).min(sorted.len() - 1);
            sorted[below] + (sorted[above] - sorted[below]) * t
        })
        .collect()
}

/// An item's measures, read from its result JSON (the grid is skipped, not parsed).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
struct Measures {
    score: f64,
    focus: f64,
    clarity: f64,
    #[serde(default)]
    panel: Option<PanelMeasure>,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
struct PanelMeasure {
    visibility: Option<f64>,
    #[serde(default)]
    first_second_probability: Option<f64>,
}

impl Measures {
    fn parse(result: &str) -> Option<Self> {
        serde_json::from_str(result).ok()
    }

    fn get(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::Score => Some(self.score),
            Metric::Focus => Some(self.focus),
            Metric::Clarity => Some(self.clarity),
            Metric::Panel => self.panel.and_then(|p| p.visibility),
            Metric::FirstSecond => self.panel.and_then(|p| p.first_second_probability),
        }
    }
}

/// A library item's value of a measure (`None` when it has none).
fn library_value(item: &LibraryItem, metric: Metric) -> Option<f64> {
    let value = match metric {
        Metric::Score => item.score,
        Metric::Focus => item.focus,
        Metric::Clarity => item.clarity,
        Metric::Panel => item.panel?,
        Metric::FirstSecond => item.first_second?,
    };
    value.is_finite().then_some(value)
}

/// One measure of an image and where it stands.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct MetricBenchmark {
    pub value: f64,
    /// Null on a share link's page (the owner's library is not shown to visitors).
    pub library: Option<LibraryStanding>,
    pub reference: Option<Standing>,
}

/// An area of interest's share of attention and where it stands among areas of the same name
/// (library) and random areas of its size (reference).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct AreaBenchmark {
    pub aoi_id: String,
    pub share: f64,
    pub library: Option<LibraryStanding>,
    pub reference: Option<Standing>,
}

/// The benchmarks of one done image.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ItemBenchmarks {
    pub item_id: String,
    pub kind: Kind,
    /// By measure: `score`, `focus`, `clarity`, and for a render `panel` (visibility) and
    /// `first_second` (the probability of a look at the panel within the first second).
    pub metrics: BTreeMap<String, MetricBenchmark>,
    pub aois: Vec<AreaBenchmark>,
}

/// Where the reference comes from.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ReferenceSource {
    pub name: String,
    /// How many images it was computed on.
    pub images: usize,
    pub licence: String,
    pub citation: String,
    pub method: String,
    /// The attention model it was computed with.
    pub model: String,
}

/// Where each done image's measures and areas stand (`GET /heatmaps/{id}/benchmarks`, a share
/// link's page, the PDF report).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Benchmarks {
    pub reference: ReferenceSource,
    pub items: Vec<ItemBenchmarks>,
}

impl Benchmarks {
    /// The benchmarks of one image, if it is done.
    pub fn item(&self, item_id: &str) -> Option<&ItemBenchmarks> {
        self.items.iter().find(|b| b.item_id == item_id)
    }
}

/// What the owner's own results bring to the benchmarks: every done item's measures, the
/// owner's areas with the names of this heatmap's areas, and the results (JSON text) of the
/// items those areas lie on, by item id.
#[derive(Debug, Clone, Copy)]
pub struct Library<'a> {
    pub items: &'a [LibraryItem],
    pub named: &'a [NamedArea],
    pub results: &'a HashMap<String, String>,
}

/// The benchmarks of a heatmap's done items (shape in docs/architecture/heatmaps.md):
/// each measure and each area's share against the owner's `library` (every done item, this
/// heatmap's included; an item is never compared with itself) and the shipped reference.
/// Without a library (a share link's page), every `library` is null.
pub fn heatmap_benchmarks(found: &HeatmapWithItems, library: Option<Library<'_>>) -> Benchmarks {
    let reference = Reference::shipped();
    let (items, named, results) = match library {
        Some(l) => (l.items, l.named, l.results),
        None => (&[][..], &[][..], &HashMap::new()),
    };
    let kinds: Vec<(&LibraryItem, Kind)> = items
        .iter()
        .map(|item| (item, Kind::of_label(item.kind.as_deref())))
        .collect();
    // Attention of the items that other areas of the same names lie on, parsed once each.
    let mut attention: HashMap<&str, Option<ItemAttention>> = HashMap::new();
    for area in named {
        attention.entry(area.item_id.as_str()).or_insert_with(|| {
            let result = results.get(&area.item_id)?;
            ItemAttention::from_result(&HeatmapResult::parse(result, &area.item_id)?)
        });
    }
    let named_shares: Vec<(&NamedArea, f64)> = named
        .iter()
        .filter_map(|area| {
            let attention = attention.get(area.item_id.as_str())?.as_ref()?;
            Some((area, attention.shares(&stored_points(&area.points)).share))
        })
        .collect();

    let answers: Vec<ItemBenchmarks> = found
        .items
        .iter()
        .filter(|item| item.status == "done")
        .filter_map(|item| {
            let result = item.result.as_deref()?;
            let own = Measures::parse(result)?;
            let label = found.labels.get(&item.source.id).map(|l| l.kind);
            let kind = Kind::of_label(label);
            // Same kind (an image that is none of them is compared with everything).
            let peers: Vec<&LibraryItem> = kinds
                .iter()
                .filter(|(other, other_kind)| {
                    other.item_id != item.id && (kind == Kind::Image || *other_kind == kind)
                })
                .map(|(other, _)| *other)
                .collect();
            let mut metrics = BTreeMap::new();
            for metric in Metric::ALL {
                let Some(value) = own.get(metric) else {
                    continue;
                };
                let others: Vec<f64> = peers
                    .iter()
                    .filter_map(|other| library_value(other, metric))
                    .collect();
                metrics.insert(
                    metric.as_str().to_owned(),
                    MetricBenchmark {
                        value,
                        library: library.map(|_| library_percentile(&others, value).rounded()),
                        reference: reference
                            .percentile(kind, metric, value)
                            .map(Standing::rounded),
                    },
                );
            }
            let item_attention =
                HeatmapResult::parse(result, &item.id).and_then(|r| ItemAttention::from_result(&r));
            let aois: Vec<AreaBenchmark> = found
                .aois_of(&item.id)
                .filter_map(|aoi| {
                    let attention = item_attention.as_ref()?;
                    let points = stored_points(&aoi.points);
                    let AreaShare { share, area, .. } = attention.shares(&points);
                    let key = name_key(&aoi.name);
                    let others: Vec<f64> = named_shares
                        .iter()
                        .filter(|(other, _)| other.name_key == key && other.id != aoi.id)
                        .map(|(_, share)| *share)
                        .collect();
                    Some(AreaBenchmark {
                        aoi_id: aoi.id.clone(),
                        share,
                        library: library.map(|_| library_percentile(&others, share).rounded()),
                        reference: reference
                            .area_percentile(kind, area, share)
                            .map(Standing::rounded),
                    })
                })
                .collect();
            Some(ItemBenchmarks {
                item_id: item.id.clone(),
                kind,
                metrics,
                aois,
            })
        })
        .collect();
    let source = &reference.source;
    Benchmarks {
        reference: ReferenceSource {
            name: source.name.clone(),
            images: source.images,
            licence: source.licence.clone(),
            citation: source.citation.clone(),
            method: source.method.clone(),
            model: reference.model.clone(),
        },
        items: answers,
    }
}

impl Standing {
    /// The percentile to one decimal (the answer's precision).
    fn rounded(self) -> Self {
        Self {
            percentile: (self.percentile * 10.0).round() / 10.0,
            ..self
        }
    }
}

impl LibraryStanding {
    /// The percentile to one decimal (the answer's precision).
    fn rounded(self) -> Self {
        Self {
            percentile: self.percentile.map(|p| (p * 10.0).round() / 10.0),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_reference_parses_and_has_every_kind() {
        let reference = Reference::shipped();
        for kind in [Kind::Creative, Kind::Location, Kind::Render, Kind::Image] {
            let k = reference.kind(kind);
            assert!(k.images > 0, "{kind:?}");
            for q in [&k.score, &k.focus, &k.clarity] {
                assert_eq!(q.len(), 101, "{kind:?}");
                assert!(q.windows(2).all(|w| w[0] <= w[1]), "{kind:?} sorted");
            }
            assert_eq!(k.areas.len(), AREA_BANDS.len() + 1);
            assert!(k.areas.iter().all(|band| band.len() == 101));
        }
        assert!(reference.render.panel.is_some());
        assert!(reference.creative.panel.is_none());
        let first = reference
            .render
            .first_second
            .as_ref()
            .expect("renders' first second");
        assert_eq!(first.len(), 101);
        assert!(first.windows(2).all(|w| w[0] <= w[1]));
        assert!(first.iter().all(|p| (0.0..=1.0).contains(p)));
        assert!(reference.creative.first_second.is_none());
        assert_eq!(reference.model, "v3");
    }

    #[test]
    fn percentiles_read_off_quantiles() {
        let q: Vec<f64> = (0..=100).map(f64::from).collect();
        assert_eq!(quantile_percentile(&q, -5.0), Some(0.0));
        assert_eq!(quantile_percentile(&q, 500.0), Some(100.0));
        assert_eq!(quantile_percentile(&q, 37.0), Some(37.0));
        assert!((quantile_percentile(&q, 37.25).unwrap() - 37.25).abs() < 1e-9);
        // A jump: a third of the values are exactly 5.
        let jump = [0.0, 5.0, 5.0, 10.0];
        assert!((quantile_percentile(&jump, 5.0).unwrap() - 50.0).abs() < 1e-9);
        assert_eq!(quantile_percentile(&jump, f64::NAN), None);
        assert_eq!(quantile_percentile(&[1.0], 1.0), None);
    }

    #[test]
    fn quantiles_of_a_sample_round_trip_through_percentiles() {
        let values: Vec<f64> = (0..700).map(|i| f64::from(i) * 0.1).collect();
        let q = quantiles(&values, 101);
        assert_eq!(q.len(), 101);
        assert_eq!(q[0], 0.0);
        assert!((q[100] - 69.9).abs() < 1e-9);
        assert!((quantile_percentile(&q, 35.0).unwrap() - 50.07).abs() < 0.1);
        assert!(quantiles(&[], 101).is_empty());
    }

    #[test]
    fn library_percentiles_count_ties_half_and_need_enough_values() {
        let others = [10.0, 20.0, 30.0, 40.0, 50.0];
        assert_eq!(library_percentile(&others, 35.0).percentile, Some(60.0));
        assert_eq!(library_percentile(&others, 30.0).percentile, Some(50.0));
        assert_eq!(library_percentile(&others, 5.0).percentile, Some(0.0));
        assert_eq!(library_percentile(&others, 99.0).percentile, Some(100.0));
        let few = library_percentile(&others[..4], 35.0);
        assert_eq!(
            few,
            LibraryStanding {
                percentile: None,
                count: 4
            }
        );
    }

    #[test]
    fn areas_fall_in_size_bands() {
        assert_eq!(area_band(0.001), 0);
        assert_eq!(area_band(0.02), 1);
        assert_eq!(area_band(0.1), 2);
        assert_eq!(area_band(0.6), 3);
    }

    #[test]
    fn kinds_follow_labels() {
        assert_eq!(Kind::of_label(Some("simulation")), Kind::Render);
        assert_eq!(Kind::of_label(Some("creative")), Kind::Creative);
        assert_eq!(Kind::of_label(None), Kind::Image);
    }

    #[test]
    fn a_higher_score_stands_higher_in_the_reference() {
        let reference = Reference::shipped();
        let low = reference
            .percentile(Kind::Creative, Metric::Score, 10.0)
            .unwrap();
        let high = reference
            .percentile(Kind::Creative, Metric::Score, 90.0)
            .unwrap();
        assert!(low.percentile < high.percentile);
        assert!(
            reference
                .percentile(Kind::Creative, Metric::Panel, 1.0)
                .is_none()
        );
    }
}
