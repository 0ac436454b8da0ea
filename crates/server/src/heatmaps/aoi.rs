//! Areas of interest, without I/O: reading a shape from a request body, and what an area
//! receives of an item's attention, computed from the item's stored result (its attention grid
//! and hotspots), so it is known at once for any shape drawn at any time.

use crate::codes::FieldCode;
use regard_vision::AreaShare;
use regard_vision::Plane;
use regard_vision::analysis::{first_glance_probability, polygon_share};
use serde_json::{Value, json};

use super::result::HeatmapResult;

/// Most points of a polygon.
pub const MAX_POINTS: usize = 32;
/// Smallest area accepted, as a fraction of the image (a 1 % × 1 % square): smaller is a click.
pub const MIN_AREA: f64 = 1e-4;
/// A rectangle's edge may overshoot the image by this much (rounding in clients); it is clamped.
const EDGE_SLACK: f64 = 1e-6;
/// Places in the predicted viewing order counted as "seen in the first seconds": a passer-by
/// gives an out-of-home panel one to two seconds, about three to six fixations of 250–300 ms,
/// and the first three places are reached in that time (docs/attention.md).
pub const SEEN_EARLY_RANK: u64 = 3;

/// A shape as stored: `rect` (four axis-aligned corners, clockwise from the top left) or
/// `polygon`, points relative to the image.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub kind: &'static str,
    pub points: Vec<(f64, f64)>,
}

impl Shape {
    /// The points as stored and answered: `[{"x", "y"}, …]`.
    pub fn points_json(&self) -> Value {
        points_json(&self.points)
    }
}

fn points_json(points: &[(f64, f64)]) -> Value {
    Value::Array(
        points
            .iter()
            .map(|(x, y)| json!({"x": x, "y": y}))
            .collect(),
    )
}

/// Reads `{"x", "y", "width", "height"}` (relative to the image). Errors are field codes.
pub fn parse_rect(value: &Value) -> Result<Shape, FieldCode> {
    let map = value.as_object().ok_or(FieldCode::InvalidType)?;
    if map.len() != 4 {
        return Err(FieldCode::InvalidType);
    }
    let get = |key: &str| {
        map.get(key)
            .and_then(Value::as_f64)
            .ok_or(FieldCode::InvalidType)
    };
    let (x, y, w, h) = (get("x")?, get("y")?, get("width")?, get("height")?);
    if x < 0.0
        || y < 0.0
        || w <= 0.0
        || h <= 0.0
        || x + w > 1.0 + EDGE_SLACK
        || y + h > 1.0 + EDGE_SLACK
    {
        return Err(FieldCode::OutOfRange);
    }
    let (x2, y2) = ((x + w).min(1.0), (y + h).min(1.0));
    if (x2 - x) * (y2 - y) < MIN_AREA {
        return Err(FieldCode::TooSmall);
    }
    Ok(Shape {
        kind: "rect",
        points: vec![(x, y), (x2, y), (x2, y2), (x, y2)],
    })
}

/// Reads `[{"x", "y"}, …]`: 3 to [`MAX_POINTS`] points inside the image, enclosing at least
/// [`MIN_AREA`]. Errors are field codes.
pub fn parse_polygon(value: &Value) -> Result<Shape, FieldCode> {
    let items = value.as_array().ok_or(FieldCode::InvalidType)?;
    if items.len() < 3 {
        return Err(FieldCode::TooFew);
    }
    if items.len() > MAX_POINTS {
        return Err(FieldCode::TooMany);
    }
    let mut points = Vec::with_capacity(items.len());
    for item in items {
        let map = item.as_object().ok_or(FieldCode::InvalidType)?;
        let x = map
            .get("x")
            .and_then(Value::as_f64)
            .ok_or(FieldCode::InvalidType)?;
        let y = map
            .get("y")
            .and_then(Value::as_f64)
            .ok_or(FieldCode::InvalidType)?;
        if map.len() != 2 {
            return Err(FieldCode::InvalidType);
        }
        if !(0.0..=1.0).contains(&x) || !(0.0..=1.0).contains(&y) {
            return Err(FieldCode::OutOfRange);
        }
        points.push((x, y));
    }
    if polygon_area(&points) < MIN_AREA {
        return Err(FieldCode::TooSmall);
    }
    Ok(Shape {
        kind: "polygon",
        points,
    })
}

/// Reads stored points (written by this module).
pub fn stored_points(text: &str) -> Vec<(f64, f64)> {
    let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|p| Some((p.get("x")?.as_f64()?, p.get("y")?.as_f64()?)))
                .collect()
        })
        .unwrap_or_default()
}

/// Area enclosed by a polygon (shoelace formula; a self-crossing outline counts its lobes with
/// their signs, which is enough to refuse slivers).
fn polygon_area(points: &[(f64, f64)]) -> f64 {
    let n = points.len();
    let twice: f64 = (0..n)
        .map(|i| {
            let (a, b) = (points[i], points[(i + 1) % n]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum();
    twice.abs() / 2.0
}

/// Whether a point lies inside a polygon (even–odd rule, as [`polygon_share`]).
fn contains(points: &[(f64, f64)], x: f64, y: f64) -> bool {
    let mut inside = false;
    for i in 0..points.len() {
        let (a, b) = (points[i], points[(i + 1) % points.len()]);
        if (a.1 <= y) != (b.1 <= y) && x < a.0 + (y - a.1) / (b.1 - a.1) * (b.0 - a.0) {
            inside = !inside;
        }
    }
    inside
}

/// The bounding box of points: `(x, y, width, height)`.
pub fn bounds(points: &[(f64, f64)]) -> (f64, f64, f64, f64) {
    let fold = |f: fn(f64, f64) -> f64, init: f64, pick: fn(&(f64, f64)) -> f64| {
        points.iter().map(pick).fold(init, f)
    };
    let (x0, x1) = (fold(f64::min, 1.0, |p| p.0), fold(f64::max, 0.0, |p| p.0));
    let (y0, y1) = (fold(f64::min, 1.0, |p| p.1), fold(f64::max, 0.0, |p| p.1));
    (x0, y0, (x1 - x0).max(0.0), (y1 - y0).max(0.0))
}

/// What an area receives of its image's attention.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AreaFigures {
    /// Share of all attention inside the area.
    pub share: f64,
    /// Share of the image's surface.
    pub area: f64,
    /// `share / area`.
    pub relative: f64,
    /// The place in the predicted viewing order of the first hotspot whose peak lies in the
    /// area (`None` when none does).
    pub seen_rank: Option<u64>,
    /// Whether that place is at most [`SEEN_EARLY_RANK`].
    pub seen_early: bool,
    /// Share of the first second's attention inside the area (`None` for results made before
    /// the first-glance map existed).
    pub glance_share: Option<f64>,
    /// The probability that a viewer looks at the area within the first second (calibrated;
    /// `None` as `glance_share`).
    pub first_second_probability: Option<f64>,
}

/// An item's attention as areas need it: the grids of its result (the full map and, for model
/// v3 results, the first-glance map) as planes, and its hotspots' peaks in viewing order.
#[derive(Debug, Clone)]
pub struct ItemAttention {
    map: Plane,
    glance: Option<Plane>,
    peaks: Vec<(u64, f64, f64)>,
}

impl ItemAttention {
    /// Reads a done item's result (`grid`, `glance.grid` and `hotspots`); `None` if its grid
    /// is malformed.
    pub fn from_result(result: &HeatmapResult) -> Option<Self> {
        let map = result.map.grid.plane()?;
        let glance = result.glance.as_ref().and_then(|g| g.grid.plane());
        let peaks = result
            .map
            .hotspots
            .iter()
            .map(|s| (u64::from(s.rank), f64::from(s.x), f64::from(s.y)))
            .collect();
        Some(Self { map, glance, peaks })
    }

    /// The area's share of all attention and of the image's surface.
    pub fn shares(&self, points: &[(f64, f64)]) -> AreaShare {
        polygon_share(&self.map, &to_f32(points))
    }

    /// What an area receives (see [`AreaFigures`]).
    pub fn of(&self, points: &[(f64, f64)]) -> AreaFigures {
        let share = polygon_share(&self.map, &to_f32(points));
        let glance_share = self
            .glance
            .as_ref()
            .map(|g| polygon_share(g, &to_f32(points)));
        let rank = self
            .peaks
            .iter()
            .filter(|(_, x, y)| contains(points, *x, *y))
            .map(|(rank, _, _)| *rank)
            .min();
        AreaFigures {
            share: share.share,
            area: share.area,
            relative: share.relative,
            seen_rank: rank,
            seen_early: rank.is_some_and(|r| r <= SEEN_EARLY_RANK),
            glance_share: glance_share.map(|s| s.share),
            first_second_probability: glance_share.map(|s| first_glance_probability(s.share)),
        }
    }
}

fn to_f32(points: &[(f64, f64)]) -> Vec<(f32, f32)> {
    points.iter().map(|&(x, y)| (x as f32, y as f32)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result() -> HeatmapResult {
        // A 4 × 2 grid: all attention in the top-left cell, a little in the bottom-right one.
        let spot = |rank: u32, x: f32, y: f32| {
            json!({"rank": rank, "x": x, "y": y, "share": 0.5, "area": 0.1,
                "rect": {"x": x, "y": y, "width": 0.1, "height": 0.1}})
        };
        serde_json::from_value(json!({
            "score": 50, "focus": 50, "clarity": 50, "top10_share": 0.5, "entropy": 0.5,
            "faces": [], "texts": [], "width": 400, "height": 200,
            "grid": {"width": 4, "height": 2, "values": [900, 0, 0, 0, 0, 0, 0, 100]},
            "hotspots": [spot(1, 0.125, 0.25), spot(2, 0.875, 0.75)],
        }))
        .unwrap()
    }

    #[test]
    fn a_rect_is_read_as_four_clockwise_corners_and_clamped_to_the_image() {
        let shape = parse_rect(&json!({"x": 0.5, "y": 0.25, "width": 0.5000000001, "height": 0.5}))
            .unwrap();
        assert_eq!(shape.kind, "rect");
        assert_eq!(
            shape.points,
            vec![(0.5, 0.25), (1.0, 0.25), (1.0, 0.75), (0.5, 0.75)]
        );
    }

    #[test]
    fn bad_shapes_get_field_codes() {
        assert_eq!(parse_rect(&json!([1, 2])), Err(FieldCode::InvalidType));
        assert_eq!(
            parse_rect(&json!({"x": 0.5, "y": 0, "width": 0.6, "height": 0.5})),
            Err(FieldCode::OutOfRange)
        );
        assert_eq!(
            parse_rect(&json!({"x": 0, "y": 0, "width": 0.005, "height": 0.005})),
            Err(FieldCode::TooSmall)
        );
        assert_eq!(
            parse_rect(&json!({"x": 0, "y": 0, "width": 0.5, "height": 0.5, "z": 1})),
            Err(FieldCode::InvalidType)
        );
        assert_eq!(
            parse_polygon(&json!([{"x": 0, "y": 0}, {"x": 1, "y": 0}])),
            Err(FieldCode::TooFew)
        );
        assert_eq!(
            parse_polygon(&json!([{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 1, "y": 1.5}])),
            Err(FieldCode::OutOfRange)
        );
        assert_eq!(
            parse_polygon(&json!([{"x": 0, "y": 0}, {"x": 0.5, "y": 0.5}, {"x": 1, "y": 1}])),
            Err(FieldCode::TooSmall)
        );
        let many: Vec<Value> = (0..33)
            .map(|i| json!({"x": i as f64 / 40.0, "y": 0.5}))
            .collect();
        assert_eq!(parse_polygon(&Value::Array(many)), Err(FieldCode::TooMany));
    }

    #[test]
    fn an_area_gets_its_share_of_attention_and_its_place_in_the_viewing_order() {
        let attention = ItemAttention::from_result(&result()).unwrap();
        let top_left = parse_rect(&json!({"x": 0, "y": 0, "width": 0.25, "height": 0.5})).unwrap();
        let stats = attention.of(&top_left.points);
        assert!((stats.share - 0.9).abs() < 1e-9, "{stats:?}");
        assert!((stats.area - 0.125).abs() < 1e-9);
        assert!((stats.relative - 7.2).abs() < 1e-6);
        assert_eq!(stats.seen_rank, Some(1));
        assert!(stats.seen_early);

        // A triangle over the bottom-right cell's peak: second place.
        let triangle =
            parse_polygon(&json!([{"x": 0.7, "y": 0.5}, {"x": 1, "y": 0.5}, {"x": 1, "y": 1}]))
                .unwrap();
        assert_eq!(attention.of(&triangle.points).seen_rank, Some(2));

        let empty = parse_rect(&json!({"x": 0.3, "y": 0, "width": 0.4, "height": 0.4})).unwrap();
        let stats = attention.of(&empty.points);
        assert_eq!(stats.share, 0.0);
        assert_eq!(stats.seen_rank, None);
        assert!(!stats.seen_early);
    }

    #[test]
    fn stored_points_read_back_and_bound() {
        let shape = parse_rect(&json!({"x": 0.1, "y": 0.2, "width": 0.3, "height": 0.4})).unwrap();
        let points = stored_points(&shape.points_json().to_string());
        assert_eq!(points, shape.points);
        let (_, _, width, height) = bounds(&points);
        assert!((width - 0.3).abs() < 1e-12);
        assert!((height - 0.4).abs() < 1e-12);
    }
}
