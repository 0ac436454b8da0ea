//! Exact edge coverage (rendering.md §4): the area of the intersection of a pixel square with
//! the convex panel quad, by clipping the square against the quad's four half-planes. Pixels
//! whose centre is farther than half a diagonal from every edge skip the clipping.

/// The quad's edges as normalised half-planes `n · p + c ≥ 0` (inside).
#[derive(Debug, Clone, Copy)]
pub struct Edges {
    /// `(nx, ny, c)` per edge, with `|n| = 1`.
    pub lines: [[f64; 3]; 4],
}

/// Half the diagonal of a unit pixel: beyond this distance a pixel is wholly on one side.
pub const HALF_DIAGONAL: f64 = std::f64::consts::FRAC_1_SQRT_2;

impl Edges {
    /// The edges of a clockwise (on screen, y down) convex quad.
    pub fn new(q: &[[f64; 2]; 4]) -> Edges {
        let mut lines = [[0.0; 3]; 4];
        for i in 0..4 {
            let (a, b) = (q[i], q[(i + 1) % 4]);
            let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
            let len = ex.hypot(ey).max(1e-300);
            // cross(e, p − a) ≥ 0 inside: −ey·px + ex·py + (ey·ax − ex·ay).
            lines[i] = [-ey / len, ex / len, (ey * a[0] - ex * a[1]) / len];
        }
        Edges { lines }
    }

    /// Signed distances of a point to the four edges (positive inside).
    #[inline(always)]
    pub fn distances(&self, x: f64, y: f64) -> [f64; 4] {
        self.lines.map(|[nx, ny, c]| nx * x + ny * y + c)
    }

    /// Coverage of the pixel square `[x, x+1) × [y, y+1)`.
    pub fn coverage(&self, x: f64, y: f64) -> f64 {
        let d = self.distances(x + 0.5, y + 0.5);
        let min = d.iter().copied().fold(f64::INFINITY, f64::min);
        if min >= HALF_DIAGONAL {
            1.0
        } else if min <= -HALF_DIAGONAL {
            0.0
        } else {
            self.clipped_area(x, y)
        }
    }

    /// Coverage of the square `[x, x+size) × [y, y+size)` (a bloom cell): the fraction of its
    /// area inside the quad, as the preview's `squareCoverage`.
    pub fn square_coverage(&self, x: f64, y: f64, size: f64) -> f64 {
        let half = size / 2.0;
        let d = self.distances(x + half, y + half);
        let min = d.iter().copied().fold(f64::INFINITY, f64::min);
        let r = half * std::f64::consts::SQRT_2;
        if min >= r {
            1.0
        } else if min <= -r {
            0.0
        } else {
            self.clipped_square(x, y, size) / (size * size)
        }
    }

    /// Area of the pixel square clipped by the four half-planes (Sutherland–Hodgman), in
    /// coordinates relative to the pixel's corner to keep precision far from the origin.
    pub fn clipped_area(&self, x: f64, y: f64) -> f64 {
        self.clipped_square(x, y, 1.0)
    }

    /// Area of the square `[x, x+size) × [y, y+size)` clipped by the four half-planes.
    #[inline(always)]
    fn clipped_square(&self, x: f64, y: f64, size: f64) -> f64 {
        let mut poly = [[0.0f64; 2]; 8];
        let mut n = 4;
        poly[..4].copy_from_slice(&[[0.0, 0.0], [size, 0.0], [size, size], [0.0, size]]);
        let mut next = [[0.0f64; 2]; 8];
        for &[nx, ny, c] in &self.lines {
            let c = c + nx * x + ny * y;
            let mut m = 0;
            for i in 0..n {
                let p = poly[i];
                let q = poly[(i + 1) % n];
                let dp = nx * p[0] + ny * p[1] + c;
                let dq = nx * q[0] + ny * q[1] + c;
                if dp >= 0.0 {
                    next[m] = p;
                    m += 1;
                }
                if (dp >= 0.0) != (dq >= 0.0) {
                    let t = dp / (dp - dq);
                    next[m] = [p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t];
                    m += 1;
                }
            }
            // A convex clip of a convex polygon adds at most one vertex per line: m ≤ 8.
            n = m;
            poly[..n].copy_from_slice(&next[..n]);
            if n < 3 {
                return 0.0;
            }
        }
        let mut a = 0.0;
        for i in 0..n {
            let (p, q) = (poly[i], poly[(i + 1) % n]);
            a += p[0] * q[1] - q[0] * p[1];
        }
        (a * 0.5).abs().min(size * size)
    }
}

/// Area of a polygon (shoelace), either winding.
pub fn polygon_area(q: &[[f64; 2]]) -> f64 {
    let mut a = 0.0;
    for i in 0..q.len() {
        let (p, r) = (q[i], q[(i + 1) % q.len()]);
        a += p[0] * r[1] - r[0] * p[1];
    }
    (a * 0.5).abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_a_pixel_and_a_triangle() {
        // A quad whose left edge is x = 10.5: pixel 10 is half covered.
        let e = Edges::new(&[[10.5, 0.0], [30.0, 0.0], [30.0, 20.0], [10.5, 20.0]]);
        assert!((e.coverage(10.0, 5.0) - 0.5).abs() < 1e-12);
        assert_eq!(e.coverage(12.0, 5.0), 1.0);
        assert_eq!(e.coverage(8.0, 5.0), 0.0);
        // A diagonal edge through the pixel's corners cuts it into two triangles.
        let e = Edges::new(&[[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [5.0, 5.0]]);
        assert!((e.coverage(3.0, 3.0) - 0.5).abs() < 1e-12);
        // An edge cutting off the corner triangle (x + y ≥ 1.5 relative to pixel (4, 4)).
        let e = Edges::new(&[[9.5, 0.0], [20.0, 0.0], [20.0, 20.0], [0.0, 9.5]]);
        assert!(
            (e.coverage(4.0, 4.0) - 0.125).abs() < 1e-12,
            "{}",
            e.coverage(4.0, 4.0)
        );
    }

    #[test]
    fn coverage_sums_to_the_quad_area() {
        let q = [[13.37, 7.21], [91.6, 19.05], [84.2, 71.93], [6.4, 55.5]];
        let e = Edges::new(&q);
        let mut sum = 0.0;
        for y in 0..100 {
            for x in 0..100 {
                sum += e.coverage(x as f64, y as f64);
            }
        }
        let area = polygon_area(&q);
        assert!((sum - area).abs() / area < 1e-9, "{sum} vs {area}");
    }
}
