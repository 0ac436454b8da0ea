//! The panel quad: four corners of a panel in a photo, relative to its size (0..1, y
//! downwards), convex and listed clockwise on screen from the top-left corner. The rules every
//! writer checks (a location's outline, a simulation's override) and the stored form, in one
//! place; no I/O.

use serde_json::{Value, json};

use crate::codes::FieldCode;

/// A point of the panel quad, normalised to the photo (0..1, y downwards).
pub type Point = (f64, f64);

/// Reads a quad: four `{"x", "y"}` objects (or `[x, y]` pairs), each inside [0, 1], forming a
/// convex quadrilateral listed clockwise on screen (from the top-left corner).
pub fn parse_quad(value: &Value) -> Result<[Point; 4], FieldCode> {
    let items = value
        .as_array()
        .filter(|items| items.len() == 4)
        .ok_or(FieldCode::InvalidShape)?;
    let mut points = [(0.0, 0.0); 4];
    for (point, item) in points.iter_mut().zip(items) {
        let (x, y) = match item {
            Value::Object(map) => (map.get("x"), map.get("y")),
            Value::Array(pair) if pair.len() == 2 => (pair.first(), pair.get(1)),
            _ => return Err(FieldCode::InvalidShape),
        };
        let x = x.and_then(Value::as_f64).ok_or(FieldCode::InvalidShape)?;
        let y = y.and_then(Value::as_f64).ok_or(FieldCode::InvalidShape)?;
        if !(0.0..=1.0).contains(&x) || !(0.0..=1.0).contains(&y) {
            return Err(FieldCode::OutOfRange);
        }
        *point = (x, y);
    }
    check_quad(&points)?;
    Ok(points)
}

/// `(b - a) × (c - a)`: positive when a → b → c turns clockwise on screen (y downwards).
fn cross(a: Point, b: Point, c: Point) -> f64 {
    (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
}

/// Whether segments ab and cd cross at a point inside both.
fn segments_cross(a: Point, b: Point, c: Point, d: Point) -> bool {
    let (d1, d2) = (cross(a, b, c), cross(a, b, d));
    let (d3, d4) = (cross(c, d, a), cross(c, d, b));
    d1 * d2 < 0.0 && d3 * d4 < 0.0
}

/// Convex, clockwise, not self-intersecting, not degenerate.
pub fn check_quad(p: &[Point; 4]) -> Result<(), FieldCode> {
    if segments_cross(p[0], p[1], p[2], p[3]) || segments_cross(p[1], p[2], p[3], p[0]) {
        return Err(FieldCode::SelfIntersecting);
    }
    // Turn at each corner; all the same sign means convex. A tolerance refuses slivers.
    let turns: Vec<f64> = (0..4)
        .map(|i| cross(p[i], p[(i + 1) % 4], p[(i + 2) % 4]))
        .collect();
    const EPS: f64 = 1e-9;
    if turns.iter().all(|t| *t > EPS) {
        Ok(())
    } else if turns.iter().all(|t| *t < -EPS) {
        Err(FieldCode::NotClockwise)
    } else {
        Err(FieldCode::NotConvex)
    }
}

/// A quad as stored and answered: `[{"x", "y"} × 4]`.
pub fn quad_json(points: &[Point; 4]) -> Value {
    Value::Array(
        points
            .iter()
            .map(|(x, y)| json!({"x": x, "y": y}))
            .collect(),
    )
}

/// Reads a stored quad (written by [`quad_json`]); `None` when it does not parse.
pub fn read_stored(text: &str) -> Option<[Point; 4]> {
    parse_quad(&serde_json::from_str::<Value>(text).ok()?).ok()
}

/// The area of a quad in pixels² of a `width × height` photo.
pub fn area_px(quad: &[Point; 4], width: i64, height: i64) -> f64 {
    let (w, h) = (width as f64, height as f64);
    let twice: f64 = (0..4)
        .map(|i| {
            let (a, b) = (quad[i], quad[(i + 1) % 4]);
            a.0 * w * b.1 * h - b.0 * w * a.1 * h
        })
        .sum();
    twice.abs() / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad(points: [(f64, f64); 4]) -> Value {
        Value::Array(
            points
                .iter()
                .map(|(x, y)| json!({"x": x, "y": y}))
                .collect(),
        )
    }

    #[test]
    fn quads_are_checked() {
        let square = [(0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9)];
        assert!(parse_quad(&quad(square)).is_ok());
        // A perspective trapezium, and pairs instead of objects.
        assert!(parse_quad(&json!([[0.2, 0.1], [0.7, 0.2], [0.7, 0.8], [0.2, 0.9]])).is_ok());
        let cases: [(Value, &str); 7] = [
            (json!([[0.1, 0.1], [0.9, 0.1], [0.9, 0.9]]), "invalid_shape"),
            (json!([1, 2, 3, 4]), "invalid_shape"),
            (json!({"x": 1}), "invalid_shape"),
            (
                quad([(0.1, 0.1), (1.2, 0.1), (0.9, 0.9), (0.1, 0.9)]),
                "out_of_range",
            ),
            (
                quad([(0.1, 0.1), (0.1, 0.9), (0.9, 0.9), (0.9, 0.1)]),
                "not_clockwise",
            ),
            (
                quad([(0.1, 0.1), (0.9, 0.9), (0.9, 0.1), (0.1, 0.9)]),
                "self_intersecting",
            ),
            (
                quad([(0.1, 0.1), (0.9, 0.1), (0.3, 0.3), (0.1, 0.9)]),
                "not_convex",
            ),
        ];
        for (value, code) in cases {
            assert_eq!(
                parse_quad(&value).err().map(FieldCode::as_str),
                Some(code),
                "{value}"
            );
        }
        // Degenerate: three points on a line.
        assert_eq!(
            parse_quad(&quad([(0.1, 0.1), (0.5, 0.1), (0.9, 0.1), (0.5, 0.9)])).err(),
            Some(FieldCode::NotConvex)
        );
    }

    #[test]
    fn quad_areas_are_in_photo_pixels() {
        let square = [(0.0, 0.0), (0.5, 0.0), (0.5, 0.5), (0.0, 0.5)];
        assert!((area_px(&square, 400, 200) - 200.0 * 100.0).abs() < 1e-9);
        let tiny = [(0.0, 0.0), (0.001, 0.0), (0.001, 0.001), (0.0, 0.001)];
        assert!(area_px(&tiny, 1000, 1000) < 4.0);
    }

    #[test]
    fn stored_quads_read_back() {
        let quad = [(0.1, 0.2), (0.9, 0.2), (0.9, 0.8), (0.1, 0.8)];
        assert_eq!(read_stored(&quad_json(&quad).to_string()), Some(quad));
        assert_eq!(read_stored("[1, 2]"), None);
    }
}
