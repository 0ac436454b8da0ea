//! The panel's projective geometry (rendering.md §1): the square-to-quad homography of Heckbert
//! (1989), its inverse, and the analytic Jacobian used for the filter footprint.

/// A 3 × 3 projective transform, row-major: `(x, y) ↦ ((m0 x + m1 y + m2) / w, (m3 x + m4 y + m5) / w)`
/// with `w = m6 x + m7 y + m8`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Homography(pub [f64; 9]);

impl Homography {
    /// The homography mapping the unit square to `quad`: (0,0) → q0, (1,0) → q1, (1,1) → q2,
    /// (0,1) → q3. Degenerate quads give non-finite coefficients; `check_quad` refuses them first.
    pub fn square_to_quad(quad: &[[f64; 2]; 4]) -> Self {
        let [[x0, y0], [x1, y1], [x2, y2], [x3, y3]] = *quad;
        let sx = x0 - x1 + x2 - x3;
        let sy = y0 - y1 + y2 - y3;
        let (g, h) = if sx == 0.0 && sy == 0.0 {
            // A parallelogram: the map is affine.
            (0.0, 0.0)
        } else {
            let (dx1, dx2, dy1, dy2) = (x1 - x2, x3 - x2, y1 - y2, y3 - y2);
            let den = dx1 * dy2 - dx2 * dy1;
            ((sx * dy2 - dx2 * sy) / den, (dx1 * sy - sx * dy1) / den)
        };
        Homography([
            x1 - x0 + g * x1,
            x3 - x0 + h * x3,
            x0,
            y1 - y0 + g * y1,
            y3 - y0 + h * y3,
            y0,
            g,
            h,
            1.0,
        ])
    }

    /// The inverse transform (the adjugate, normalised so that its last coefficient is 1 when
    /// it can be).
    pub fn inverse(&self) -> Self {
        let [a, b, c, d, e, f, g, h, i] = self.0;
        let adj = [
            e * i - f * h,
            c * h - b * i,
            b * f - c * e,
            f * g - d * i,
            a * i - c * g,
            c * d - a * f,
            d * h - e * g,
            b * g - a * h,
            a * e - b * d,
        ];
        // Any non-zero multiple is the same transform; scaling by the last coefficient keeps
        // the numbers near 1 for well-conditioned quads.
        let k = if adj[8].abs() > 1e-300 { adj[8] } else { 1.0 };
        Homography(adj.map(|v| v / k))
    }

    /// Maps a point.
    pub fn apply(&self, x: f64, y: f64) -> (f64, f64) {
        let m = &self.0;
        let w = m[6] * x + m[7] * y + m[8];
        (
            (m[0] * x + m[1] * y + m[2]) / w,
            (m[3] * x + m[4] * y + m[5]) / w,
        )
    }

    /// The mapped point and the Jacobian `[[∂X/∂x, ∂X/∂y], [∂Y/∂x, ∂Y/∂y]]` at `(x, y)`.
    pub fn apply_with_jacobian(&self, x: f64, y: f64) -> ((f64, f64), [[f64; 2]; 2]) {
        let m = &self.0;
        let w = m[6] * x + m[7] * y + m[8];
        let px = (m[0] * x + m[1] * y + m[2]) / w;
        let py = (m[3] * x + m[4] * y + m[5]) / w;
        (
            (px, py),
            [
                [(m[0] - px * m[6]) / w, (m[1] - px * m[7]) / w],
                [(m[3] - py * m[6]) / w, (m[4] - py * m[7]) / w],
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUAD: [[f64; 2]; 4] = [[103.2, 51.7], [611.9, 88.4], [587.5, 402.1], [121.0, 377.3]];

    #[test]
    fn corners_map_exactly_and_the_inverse_undoes_it() {
        let h = Homography::square_to_quad(&QUAD);
        let inv = h.inverse();
        for (k, (s, t)) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
            .into_iter()
            .enumerate()
        {
            let (x, y) = h.apply(s, t);
            assert!((x - QUAD[k][0]).abs() < 1e-9 && (y - QUAD[k][1]).abs() < 1e-9);
            let (s2, t2) = inv.apply(x, y);
            assert!((s2 - s).abs() < 1e-12 && (t2 - t).abs() < 1e-12);
        }
        for i in 0..20 {
            let (x, y) = (100.0 + 25.0 * i as f64, 60.0 + 17.0 * i as f64);
            let (s, t) = inv.apply(x, y);
            let (x2, y2) = h.apply(s, t);
            assert!((x2 - x).abs() < 1e-9 && (y2 - y).abs() < 1e-9, "{i}");
        }
    }

    #[test]
    fn parallelograms_are_affine() {
        let q = [[10.0, 10.0], [50.0, 20.0], [60.0, 60.0], [20.0, 50.0]];
        let h = Homography::square_to_quad(&q);
        assert_eq!((h.0[6], h.0[7]), (0.0, 0.0));
        let (x, y) = h.apply(0.5, 0.5);
        assert!((x - 35.0).abs() < 1e-12 && (y - 35.0).abs() < 1e-12);
    }

    #[test]
    fn jacobian_matches_finite_differences() {
        let inv = Homography::square_to_quad(&QUAD).inverse();
        let (x, y) = (300.3, 200.7);
        let (_, j) = inv.apply_with_jacobian(x, y);
        let e = 1e-4;
        let (a, b) = inv.apply(x + e, y);
        let (c, d) = inv.apply(x - e, y);
        assert!((j[0][0] - (a - c) / (2.0 * e)).abs() < 1e-8);
        assert!((j[1][0] - (b - d) / (2.0 * e)).abs() < 1e-8);
        let (a, b) = inv.apply(x, y + e);
        let (c, d) = inv.apply(x, y - e);
        assert!((j[0][1] - (a - c) / (2.0 * e)).abs() < 1e-8);
        assert!((j[1][1] - (b - d) / (2.0 * e)).abs() < 1e-8);
    }
}
