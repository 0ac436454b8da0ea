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
    let mut tmp = vec![0.0f32; plane.width.max(plane.height)];
    for _ in 0..3 {
        box_h(plane, r, &mut tmp);
        box_v(plane, r, &mut tmp);
    }
}

/// Box blur along rows with radius `r` (averaging only inside the image).
pub fn box_h(p: &mut Plane, r: usize, tmp: &mut [f32]) {
    let w = p.width;
    for row in p.data.chunks_exact_mut(w) {
        box_line(row, r, &mut tmp[..w]);
        row.copy_from_slice(&tmp[..w]);
    }
}

/// Box blur along columns with radius `r` (averaging only inside the image).
pub fn box_v(p: &mut Plane, r: usize, tmp: &mut [f32]) {
    let (w, h) = (p.width, p.height);
    // Work on all columns at once, row by row, for cache-friendly access.
    let mut sum = vec![0.0f64; w];
    let src = p.data.clone();
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
    let _ = tmp;
}

fn box_line(src: &[f32], r: usize, dst: &mut [f32]) {
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
        let lo = i.saturating_sub(r);
        let hi = (i + r).min(n - 1);
        dst[i] = (sum / (hi - lo + 1) as f64) as f32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
