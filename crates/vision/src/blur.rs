//! Fast Gaussian blur approximated by three box blurs (running sums, O(1) per pixel whatever
//! the radius). Borders are handled by averaging only the pixels inside the image, so a blur
//! neither darkens nor brightens the edges.

use crate::image::Plane;

/// Box radius whose three-pass box blur has (about) the variance of a Gaussian of `sigma`.
fn box_radius(sigma: f32) -> usize {
    // Three boxes of width w have variance 3 (w² − 1) / 12 = σ².
    let w = (4.0 * sigma * sigma + 1.0).sqrt();
    (((w - 1.0) / 2.0).round().max(0.0)) as usize
}

/// Blurs `plane` in place with a Gaussian of standard deviation `sigma` pixels (approximated).
pub fn gaussian(plane: &mut Plane, sigma: f32) {
    let r = box_radius(sigma);
    if r == 0 {
        return;
    }
    let mut scratch = Scratch::new(plane.width, plane.height);
    for _ in 0..3 {
        box_h(plane, r, &mut scratch);
        box_v(plane, r, &mut scratch);
    }
}

/// Rows the row pass blurs together (see [`box_lines`]).
const ROWS: usize = 4;

/// What the passes need besides the plane, allocated once per [`gaussian`]: a copy of the
/// plane (the column pass reads the rows it has already overwritten), the running sums of
/// [`ROWS`] lines and the divisors.
struct Scratch {
    copy: Vec<f32>,
    sums: Vec<f64>,
    counts: Vec<f64>,
}

impl Scratch {
    fn new(w: usize, h: usize) -> Scratch {
        Scratch {
            copy: vec![0.0; w * h],
            sums: vec![0.0; ROWS * w.max(h)],
            counts: vec![0.0; w.max(h)],
        }
    }
}

/// Box blur along rows with radius `r` (averaging only inside the image), [`ROWS`] rows at a
/// time.
fn box_h(p: &mut Plane, r: usize, s: &mut Scratch) {
    let w = p.width;
    let mut blocks = p.data.chunks_exact_mut(ROWS * w);
    for block in &mut blocks {
        box_lines::<ROWS>(block, w, r, &mut s.sums[..ROWS * w], &mut s.counts[..w]);
    }
    for row in blocks.into_remainder().chunks_exact_mut(w) {
        box_lines::<1>(row, w, r, &mut s.sums[..w], &mut s.counts[..w]);
    }
}

/// Box blur along columns with radius `r` (averaging only inside the image).
fn box_v(p: &mut Plane, r: usize, s: &mut Scratch) {
    let (w, h) = (p.width, p.height);
    // Work on all columns at once, row by row, for cache-friendly access.
    let sum = &mut s.sums[..w];
    sum.fill(0.0);
    let src = &mut s.copy;
    src.copy_from_slice(&p.data);
    for y in 0..r.min(h) {
        for x in 0..w {
            sum[x] += src[y * w + x] as f64;
        }
    }
    for y in 0..h {
        let add = y + r;
        if add < h {
            for x in 0..w {
                sum[x] += src[add * w + x] as f64;
            }
        }
        if y > r {
            let sub = y - r - 1;
            for x in 0..w {
                sum[x] -= src[sub * w + x] as f64;
            }
        }
        let lo = y.saturating_sub(r);
        let hi = (y + r).min(h - 1);
        let n = (hi - lo + 1) as f64;
        for x in 0..w {
            p.data[y * w + x] = (sum[x] / n) as f32;
        }
    }
}

/// The box blur in place of the `K` lines of `block`, each `n` long: the running sums first
/// (serial), then the divisions, which then vectorise (the same values as dividing each sum as
/// it is made). A line's running sum is a chain of dependent additions; the lines' chains are
/// independent, so making `K` of them side by side lets them overlap instead of waiting on
/// each other.
fn box_lines<const K: usize>(
    block: &mut [f32],
    n: usize,
    r: usize,
    sums: &mut [f64],
    counts: &mut [f64],
) {
    let lines: [&[f32]; K] = std::array::from_fn(|k| &block[k * n..(k + 1) * n]);
    let mut sum = [0.0f64; K];
    for i in 0..r.min(n) {
        for k in 0..K {
            sum[k] += lines[k][i] as f64;
        }
    }
    for i in 0..n {
        if i + r < n {
            for k in 0..K {
                sum[k] += lines[k][i + r] as f64;
            }
        }
        if i > r {
            for k in 0..K {
                sum[k] -= lines[k][i - r - 1] as f64;
            }
        }
        for k in 0..K {
            sums[k * n + i] = sum[k];
        }
        let lo = i.saturating_sub(r);
        let hi = (i + r).min(n - 1);
        counts[i] = (hi - lo + 1) as f64;
    }
    for (line, sums) in block.chunks_exact_mut(n).zip(sums.chunks_exact(n)) {
        for ((v, &s), &c) in line.iter_mut().zip(sums).zip(counts.iter()) {
            *v = (s / c) as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The passes written plainly: each value divided as its running sum is made, the column
    /// pass reading a copy of the plane (the first version, the reference of the faster one).
    fn reference(plane: &mut Plane, sigma: f32) {
        let r = box_radius(sigma);
        if r == 0 {
            return;
        }
        let line = |src: &[f32], dst: &mut [f32]| {
            let n = src.len();
            let mut sum = 0.0f64;
            for &v in &src[..r.min(n)] {
                sum += v as f64;
            }
            for i in 0..n {
                if i + r < n {
                    sum += src[i + r] as f64;
                }
                if i > r {
                    sum -= src[i - r - 1] as f64;
                }
                let (lo, hi) = (i.saturating_sub(r), (i + r).min(n - 1));
                dst[i] = (sum / (hi - lo + 1) as f64) as f32;
            }
        };
        let (w, h) = (plane.width, plane.height);
        for _ in 0..3 {
            for row in plane.data.chunks_exact_mut(w) {
                let src = row.to_vec();
                line(&src, row);
            }
            for x in 0..w {
                let src: Vec<f32> = (0..h).map(|y| plane.data[y * w + x]).collect();
                let mut dst = vec![0f32; h];
                line(&src, &mut dst);
                for y in 0..h {
                    plane.data[y * w + x] = dst[y];
                }
            }
        }
    }

    #[test]
    fn the_blur_is_its_plain_reference() {
        for (w, h, sigma) in [
            (37, 23, 3.0),
            (120, 80, 14.2),
            (9, 50, 6.0),
            (5, 5, 20.0),
            (64, 1, 2.0),
        ] {
            let data: Vec<f32> = (0..w * h)
                .map(|i| ((i * 7919 % 1013) as f32 / 1013.0).powi(3))
                .collect();
            let mut got = Plane::filled(w, h, 0.0);
            got.data.copy_from_slice(&data);
            let mut want = got.clone();
            gaussian(&mut got, sigma);
            reference(&mut want, sigma);
            assert!(got.data == want.data, "{w} × {h}, σ {sigma}");
        }
    }

    #[test]
    fn blur_keeps_constant_planes_and_mass_centre() {
        let mut p = Plane::filled(17, 9, 2.5);
        gaussian(&mut p, 3.0);
        assert!(p.data.iter().all(|&v| (v - 2.5).abs() < 1e-5));

        let mut q = Plane::filled(41, 41, 0.0);
        q.data[20 * 41 + 20] = 1.0;
        gaussian(&mut q, 4.0);
        let peak = q.at(20, 20);
        assert!(q.data.iter().all(|&v| v <= peak));
        assert!((q.sum() - 1.0).abs() < 1e-4);
        // Symmetric around the centre.
        assert!((q.at(15, 20) - q.at(25, 20)).abs() < 1e-6);
    }
}
