//! Photo statistics (rendering.md §5) for auto match and grain: exposure and colour cast from
//! the ring around the panel on a ≤ 256 px linear area-averaged copy, and the Immerkær noise σ
//! on the full-size grey photo. Only the cells and rows that can lie in the ring are read, so
//! the cost follows the panel's size, not the photo's.

use super::colour::Srgb;
use crate::image::RgbImage;

/// Longer side of the statistics copy.
pub const STATS_SIZE: usize = 256;

/// What auto match and grain need from the photo.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhotoStats {
    /// `e = clamp(p90 / 0.8, 0.3, 1)`.
    pub exposure: f32,
    /// Per-channel cast, keeping luminance.
    pub cast: [f32; 3],
    /// Noise standard deviation in 8-bit units (0 when the ring is empty).
    pub noise: f32,
}

impl Default for PhotoStats {
    fn default() -> Self {
        PhotoStats {
            exposure: 1.0,
            cast: [1.0; 3],
            noise: 0.0,
        }
    }
}

fn luminance(c: [f64; 3]) -> f64 {
    0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
}

/// Size of the statistics copy: longer side 256 (rounded aspect), unchanged when smaller.
pub fn stats_size(w: usize, h: usize) -> (usize, usize) {
    if w.max(h) <= STATS_SIZE {
        (w, h)
    } else if w >= h {
        (
            STATS_SIZE,
            ((h as f64 * STATS_SIZE as f64 / w as f64).round() as usize).max(1),
        )
    } else {
        (
            ((w as f64 * STATS_SIZE as f64 / h as f64).round() as usize).max(1),
            STATS_SIZE,
        )
    }
}

/// Source interval `[a, b)` of output cell `i` (as the vision crate's area resize).
fn cell(i: usize, src: usize, dst: usize) -> (usize, usize) {
    let a = (i * src / dst).min(src - 1);
    let b = ((i + 1) * src / dst).max(a + 1).min(src);
    (a, b)
}

/// Is `(x, y)` inside the convex quad (either winding, boundary included)?
fn inside(q: &[[f64; 2]; 4], x: f64, y: f64) -> bool {
    let (mut pos, mut neg) = (false, false);
    for i in 0..4 {
        let (a, b) = (q[i], q[(i + 1) % 4]);
        let c = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
        if c > 0.0 {
            pos = true;
        } else if c < 0.0 {
            neg = true;
        }
    }
    !(pos && neg)
}

/// The quad scaled by `k` about the mean of its corners.
fn scale_quad(q: &[[f64; 2]; 4], k: f64) -> [[f64; 2]; 4] {
    let cx = q.iter().map(|p| p[0]).sum::<f64>() / 4.0;
    let cy = q.iter().map(|p| p[1]).sum::<f64>() / 4.0;
    q.map(|p| [cx + (p[0] - cx) * k, cy + (p[1] - cy) * k])
}

/// Inclusive pixel bounds of a quad clamped to a `w × h` image: `(x0, x1, y0, y1)`.
fn bounds(q: &[[f64; 2]; 4], w: usize, h: usize) -> (usize, usize, usize, usize) {
    let fold = |f: fn(f64, f64) -> f64, i: usize, init: f64| q.iter().map(|p| p[i]).fold(init, f);
    let clampi = |v: f64, hi: usize| (v.max(0.0) as usize).min(hi - 1);
    (
        clampi(fold(f64::min, 0, f64::INFINITY).floor(), w),
        clampi(fold(f64::max, 0, f64::NEG_INFINITY).ceil(), w),
        clampi(fold(f64::min, 1, f64::INFINITY).floor(), h),
        clampi(fold(f64::max, 1, f64::NEG_INFINITY).ceil(), h),
    )
}

/// Exposure and cast (§5) from the ring on the statistics copy.
pub fn exposure_and_cast(photo: &RgbImage<'_>, quad: &[[f64; 2]; 4]) -> (f32, [f32; 3]) {
    let (pw, ph, data) = (photo.width(), photo.height(), photo.data());
    let (w, h) = stats_size(pw, ph);
    let (sx, sy) = (w as f64 / pw as f64, h as f64 / ph as f64);
    let q = quad.map(|p| [p[0] * sx, p[1] * sy]);
    let outer = scale_quad(&q, 1.5);
    let (bx0, bx1, by0, by1) = bounds(&outer, w, h);
    let lut = &Srgb::get().decode;
    let mut ys = Vec::new();
    let mut m = [0f64; 3];
    for oy in by0..=by1 {
        let (y0, y1) = cell(oy, ph, h);
        for ox in bx0..=bx1 {
            let (cx, cy) = (ox as f64 + 0.5, oy as f64 + 0.5);
            if !inside(&outer, cx, cy) || inside(&q, cx, cy) {
                continue;
            }
            let (x0, x1) = cell(ox, pw, w);
            let mut acc = [0f64; 3];
            for yy in y0..y1 {
                for px in data[(yy * pw + x0) * 3..(yy * pw + x1) * 3].chunks_exact(3) {
                    for c in 0..3 {
                        acc[c] += lut[px[c] as usize] as f64;
                    }
                }
            }
            let n = ((y1 - y0) * (x1 - x0)) as f64;
            let c = acc.map(|a| (a / n) as f32 as f64);
            ys.push(luminance(c));
            for k in 0..3 {
                m[k] += c[k];
            }
        }
    }
    if ys.is_empty() {
        return (1.0, [1.0; 3]);
    }
    ys.sort_by(f64::total_cmp);
    let idx = ((0.9 * ys.len() as f64).ceil() as usize).clamp(1, ys.len()) - 1;
    let exposure = (ys[idx] / 0.8).clamp(0.3, 1.0) as f32;
    let n = ys.len() as f64;
    let mean = m.map(|v| v / n);
    let ym = luminance(mean);
    if ym <= 0.0 {
        return (exposure, [1.0; 3]);
    }
    let k = mean.map(|c| (c / ym).sqrt().clamp(0.85, 1.15));
    let yk = luminance(k);
    (exposure, k.map(|c| (c / yk) as f32))
}

/// Immerkær's noise σ (8-bit units) over the ring's pixels at full size, every second row.
pub fn noise_sigma(photo: &RgbImage<'_>, quad: &[[f64; 2]; 4]) -> f32 {
    let (w, h, data) = (photo.width(), photo.height(), photo.data());
    if w < 3 || h < 3 {
        return 0.0;
    }
    let outer = scale_quad(quad, 1.5);
    let (bx0, bx1, by0, by1) = bounds(&outer, w, h);
    let grey = |x: usize, y: usize| -> f32 {
        let p = &data[(y * w + x) * 3..];
        0.2126 * p[0] as f32 + 0.7152 * p[1] as f32 + 0.0722 * p[2] as f32
    };
    let (mut sum, mut n) = (0f64, 0usize);
    // Three grey rows, reused across the row's pixels.
    let (xa, xb) = (bx0.max(1), bx1.min(w - 2));
    if xa > xb {
        return 0.0;
    }
    let mut rows = vec![vec![0f32; xb - xa + 3]; 3];
    let mut y = (by0 + by0 % 2).max(1);
    // Pixels of a row in the ring form at most the outer quad's span minus the inner one's.
    while y <= by1.min(h - 2) {
        let mut filled = false;
        for x in xa..=xb {
            let (cx, cy) = (x as f64 + 0.5, y as f64 + 0.5);
            if !inside(&outer, cx, cy) || inside(quad, cx, cy) {
                continue;
            }
            if !filled {
                for (k, row) in rows.iter_mut().enumerate() {
                    for (i, v) in row.iter_mut().enumerate() {
                        *v = grey(xa - 1 + i, y - 1 + k);
                    }
                }
                filled = true;
            }
            let i = x - xa + 1;
            let (a, b, c) = (&rows[0], &rows[1], &rows[2]);
            let corners = a[i - 1] + a[i + 1] + c[i - 1] + c[i + 1];
            let sides = a[i] + b[i - 1] + b[i + 1] + c[i];
            sum += (corners - 2.0 * sides + 4.0 * b[i]).abs() as f64;
            n += 1;
        }
        y += 2;
    }
    if n == 0 {
        0.0
    } else {
        ((std::f64::consts::PI / 2.0).sqrt() * (sum / n as f64) / 6.0) as f32
    }
}

/// Both statistics of §5 for a quad in photo pixels.
pub fn photo_stats(photo: &RgbImage<'_>, quad: &[[f64; 2]; 4]) -> PhotoStats {
    let (exposure, cast) = exposure_and_cast(photo, quad);
    PhotoStats {
        exposure,
        cast,
        noise: noise_sigma(photo, quad),
    }
}
