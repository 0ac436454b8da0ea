//! Low-level feature maps computed on the working-size image: CIELAB conversion, multi-scale
//! centre–surround contrast (intensity, colour), edge (orientation) energy, global colour rarity,
//! the image signature (sign of the DCT, Hou, Harel & Koch 2012) and the spectral residual (Hou &
//! Zhang 2007). All sizes are relative to the working image, so the features do not depend on
//! the input's resolution.

use crate::blur::gaussian;
use crate::image::Plane;
use std::f64::consts::PI;

/// Converts R, G, B planes (0..=255, sRGB) to CIELAB (D65) planes L, a, b.
pub fn to_lab(rgb: &[Plane; 3]) -> [Plane; 3] {
    let (w, h) = (rgb[0].width, rgb[0].height);
    let mut out = [
        Plane::filled(w, h, 0.0),
        Plane::filled(w, h, 0.0),
        Plane::filled(w, h, 0.0),
    ];
    // A lookup would need integer input; averages are fractional, so compute directly.
    let lin = |v: f32| {
        let c = v / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let f = |t: f32| {
        if t > 0.008856 {
            t.cbrt()
        } else {
            7.787 * t + 16.0 / 116.0
        }
    };
    for i in 0..w * h {
        let (r, g, b) = (
            lin(rgb[0].data[i]),
            lin(rgb[1].data[i]),
            lin(rgb[2].data[i]),
        );
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
        let (fx, fy, fz) = (f(x), f(y), f(z));
        out[0].data[i] = 116.0 * fy - 16.0;
        out[1].data[i] = 500.0 * (fx - fy);
        out[2].data[i] = 200.0 * (fy - fz);
    }
    out
}

fn blurred(p: &Plane, sigma: f32) -> Plane {
    let mut q = p.clone();
    gaussian(&mut q, sigma);
    q
}

/// Multi-scale centre–surround contrast of one or more channels: the sum over surround scales of
/// |centre − surround| (Euclidean over the channels), with the centre blurred by `sigma_c`.
/// Scales are fractions of the working image's longer side.
pub fn centre_surround(channels: &[&Plane], long: usize, surrounds: &[f32]) -> Plane {
    let (w, h) = (channels[0].width, channels[0].height);
    let sigma_c = 0.004 * long as f32;
    let centres: Vec<Plane> = channels.iter().map(|c| blurred(c, sigma_c)).collect();
    let mut out = Plane::filled(w, h, 0.0);
    for &s in surrounds {
        let surr: Vec<Plane> = centres
            .iter()
            .map(|c| blurred(c, s * long as f32))
            .collect();
        for i in 0..w * h {
            let mut d2 = 0.0;
            for (c, sp) in centres.iter().zip(&surr) {
                let d = c.data[i] - sp.data[i];
                d2 += d * d;
            }
            out.data[i] += d2.sqrt();
        }
    }
    out
}

/// Edge energy: gradient magnitude of lightness at two scales, pooled by a blur. A cheap stand-in
/// for the orientation channel of Itti & Koch (it responds to oriented structure of any angle).
pub fn edge_energy(l: &Plane, long: usize) -> Plane {
    let (w, h) = (l.width, l.height);
    let mut out = Plane::filled(w, h, 0.0);
    for &s in &[0.004f32, 0.012] {
        let b = blurred(l, s * long as f32);
        for y in 0..h {
            for x in 0..w {
                let xm = b.at(x.saturating_sub(1), y);
                let xp = b.at((x + 1).min(w - 1), y);
                let ym = b.at(x, y.saturating_sub(1));
                let yp = b.at(x, (y + 1).min(h - 1));
                let (gx, gy) = (xp - xm, yp - ym);
                out.data[y * w + x] += (gx * gx + gy * gy).sqrt();
            }
        }
    }
    gaussian(&mut out, 0.02 * long as f32);
    out
}

/// Global colour rarity: Lab distance of each (slightly blurred) pixel from the image's mean
/// colour, after Achanta et al. 2009. Colours unlike the rest of the image stand out.
pub fn colour_rarity(lab: &[Plane; 3], long: usize) -> Plane {
    let (w, h) = (lab[0].width, lab[0].height);
    let b: Vec<Plane> = lab.iter().map(|c| blurred(c, 0.01 * long as f32)).collect();
    let means: Vec<f64> = lab.iter().map(|c| c.sum() / (w * h) as f64).collect();
    let mut out = Plane::filled(w, h, 0.0);
    for i in 0..w * h {
        let mut d2 = 0.0f64;
        for (c, m) in b.iter().zip(&means) {
            let d = c.data[i] as f64 - m;
            d2 += d * d;
        }
        out.data[i] = d2.sqrt() as f32;
    }
    out
}

/// Orthonormal DCT-II basis of size `n` (row k holds the k-th cosine).
fn dct_basis(n: usize) -> Vec<f64> {
    let mut m = vec![0.0; n * n];
    for k in 0..n {
        let a = if k == 0 {
            (1.0 / n as f64).sqrt()
        } else {
            (2.0 / n as f64).sqrt()
        };
        for i in 0..n {
            m[k * n + i] = a * (PI * (i as f64 + 0.5) * k as f64 / n as f64).cos();
        }
    }
    m
}

/// 2-D orthonormal DCT (forward when `inverse` is false) by separable matrix products; fine for
/// the 64-pixel images it is used on.
fn dct2(p: &[f64], w: usize, h: usize, inverse: bool) -> Vec<f64> {
    let (bw, bh) = (dct_basis(w), dct_basis(h));
    let mut tmp = vec![0.0; w * h];
    for y in 0..h {
        for k in 0..w {
            let mut s = 0.0;
            for i in 0..w {
                let c = if inverse {
                    bw[i * w + k]
                } else {
                    bw[k * w + i]
                };
                s += c * p[y * w + i];
            }
            tmp[y * w + k] = s;
        }
    }
    let mut out = vec![0.0; w * h];
    for x in 0..w {
        for k in 0..h {
            let mut s = 0.0;
            for i in 0..h {
                let c = if inverse {
                    bh[i * h + k]
                } else {
                    bh[k * h + i]
                };
                s += c * tmp[i * w + x];
            }
            out[k * w + x] = s;
        }
    }
    out
}

/// Image signature saliency (Hou, Harel & Koch 2012): on a Lab image whose longer side is 64 px,
/// per channel take the sign of the DCT, transform back, square; sum the channels and blur.
/// Returned at the size of `lab`.
pub fn signature(lab: &[Plane; 3]) -> Plane {
    let (w, h) = (lab[0].width, lab[0].height);
    let (sw, sh) = crate::image::working_size(w, h, 64);
    let mut acc = Plane::filled(sw, sh, 0.0);
    for c in lab {
        let small = c.resize_area(sw, sh);
        let d: Vec<f64> = small.data.iter().map(|&v| v as f64).collect();
        let f = dct2(&d, sw, sh, false);
        let sgn: Vec<f64> = f
            .iter()
            .map(|&v| {
                if v > 0.0 {
                    1.0
                } else if v < 0.0 {
                    -1.0
                } else {
                    0.0
                }
            })
            .collect();
        let back = dct2(&sgn, sw, sh, true);
        for (a, v) in acc.data.iter_mut().zip(back) {
            *a += (v * v) as f32;
        }
    }
    gaussian(&mut acc, 0.05 * sw.max(sh) as f32);
    acc.resize_bilinear(w, h)
}

/// Naive 1-D DFT of `n` complex values into `out` (sign −1 forward, +1 inverse), with the
/// twiddle factors `tw[j] = (cos, sin)(2πj/n)` precomputed.
fn dft_line(
    re: &[f64],
    im: &[f64],
    out_re: &mut [f64],
    out_im: &mut [f64],
    sign: f64,
    tw: &[(f64, f64)],
) {
    let n = re.len();
    for k in 0..n {
        let (mut sr, mut si) = (0.0, 0.0);
        for t in 0..n {
            let (c, s0) = tw[(k * t) % n];
            let s = sign * s0;
            sr += re[t] * c - im[t] * s;
            si += re[t] * s + im[t] * c;
        }
        out_re[k] = sr;
        out_im[k] = si;
    }
}

fn dft2(re: &mut [f64], im: &mut [f64], n: usize, sign: f64) {
    let tw: Vec<(f64, f64)> = (0..n)
        .map(|j| {
            let a = 2.0 * PI * j as f64 / n as f64;
            (a.cos(), a.sin())
        })
        .collect();
    let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
    let (mut c, mut d) = (vec![0.0; n], vec![0.0; n]);
    for y in 0..n {
        a.copy_from_slice(&re[y * n..(y + 1) * n]);
        b.copy_from_slice(&im[y * n..(y + 1) * n]);
        dft_line(&a, &b, &mut c, &mut d, sign, &tw);
        re[y * n..(y + 1) * n].copy_from_slice(&c);
        im[y * n..(y + 1) * n].copy_from_slice(&d);
    }
    for x in 0..n {
        for y in 0..n {
            a[y] = re[y * n + x];
            b[y] = im[y * n + x];
        }
        dft_line(&a, &b, &mut c, &mut d, sign, &tw);
        for y in 0..n {
            re[y * n + x] = c[y];
            im[y * n + x] = d[y];
        }
    }
}

/// Spectral residual saliency (Hou & Zhang 2007) on a 64 × 64 grey image, as OpenCV's
/// `StaticSaliencySpectralResidual` does: log-amplitude minus its 3 × 3 mean, back to space with
/// the original phase, squared, blurred. Returned at `width × height`.
pub fn spectral_residual(l: &Plane, width: usize, height: usize) -> Plane {
    const N: usize = 64;
    let small = l.resize_area(N, N);
    let mut re: Vec<f64> = small.data.iter().map(|&v| v as f64).collect();
    let mut im = vec![0.0; N * N];
    dft2(&mut re, &mut im, N, -1.0);
    let mut amp = vec![0.0; N * N];
    for i in 0..N * N {
        amp[i] = (re[i].hypot(im[i])).max(1e-12).ln();
    }
    // Residual: log amplitude minus its 3 × 3 average (wrapping, the spectrum is periodic).
    let mut res = vec![0.0; N * N];
    for y in 0..N {
        for x in 0..N {
            let mut s = 0.0;
            for dy in [N - 1, 0, 1] {
                for dx in [N - 1, 0, 1] {
                    s += amp[((y + dy) % N) * N + (x + dx) % N];
                }
            }
            res[y * N + x] = amp[y * N + x] - s / 9.0;
        }
    }
    for i in 0..N * N {
        let mag = re[i].hypot(im[i]);
        let (c, s) = if mag > 0.0 {
            (re[i] / mag, im[i] / mag)
        } else {
            (1.0, 0.0)
        };
        let e = res[i].exp();
        re[i] = e * c;
        im[i] = e * s;
    }
    dft2(&mut re, &mut im, N, 1.0);
    let mut out = Plane {
        width: N,
        height: N,
        data: re
            .iter()
            .zip(&im)
            .map(|(a, b)| (a * a + b * b) as f32)
            .collect(),
    };
    gaussian(&mut out, 2.5);
    out.normalize_max();
    out.resize_bilinear(width, height)
}

/// A centred Gaussian with standard deviations `sx × width` and `sy × height`.
pub fn centre_gaussian(width: usize, height: usize, sx: f32, sy: f32) -> Plane {
    let mut p = Plane::filled(width, height, 0.0);
    for y in 0..height {
        let v = ((y as f32 + 0.5) / height as f32 - 0.5) / sy;
        for x in 0..width {
            let u = ((x as f32 + 0.5) / width as f32 - 0.5) / sx;
            p.data[y * width + x] = (-0.5 * (u * u + v * v)).exp();
        }
    }
    p
}

/// Squared horizontal and vertical offsets from the centre, in units of the image's width and
/// height: the two inputs of the fitted (anisotropic Gaussian) centre prior.
pub fn centre_offsets(width: usize, height: usize) -> (Plane, Plane) {
    let mut u2 = Plane::filled(width, height, 0.0);
    let mut v2 = Plane::filled(width, height, 0.0);
    for y in 0..height {
        let v = (y as f32 + 0.5) / height as f32 - 0.5;
        for x in 0..width {
            let u = (x as f32 + 0.5) / width as f32 - 0.5;
            u2.data[y * width + x] = u * u;
            v2.data[y * width + x] = v * v;
        }
    }
    (u2, v2)
}

/// Boolean Map Saliency (after Zhang & Sclaroff 2013): threshold each Lab channel at evenly
/// spaced levels, in both polarities; in each Boolean map, the regions *not* connected to the
/// image border are "surrounded" and count as figure. The sum of those figure masks, each
/// divided by the square root of its area (so small surrounded shapes weigh more), is blurred.
pub fn boolean_map(lab: &[Plane; 3], long: usize) -> Plane {
    let (w, h) = (lab[0].width, lab[0].height);
    let mut out = Plane::filled(w, h, 0.0);
    let mut reached = vec![false; w * h];
    let mut mask = vec![false; w * h];
    let mut stack: Vec<usize> = Vec::new();
    for c in lab {
        let c = blurred(c, 0.004 * long as f32);
        let lo = c.data.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = c.data.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        if hi - lo < 1e-3 {
            continue;
        }
        const LEVELS: usize = 10;
        for k in 1..LEVELS {
            let th = lo + (hi - lo) * k as f32 / LEVELS as f32;
            for above in [true, false] {
                for (m, &v) in mask.iter_mut().zip(&c.data) {
                    *m = (v > th) == above;
                }
                reached.iter_mut().for_each(|r| *r = false);
                let border = (0..w)
                    .flat_map(|x| [x, (h - 1) * w + x])
                    .chain((0..h).flat_map(|y| [y * w, y * w + w - 1]));
                for i in border {
                    if mask[i] && !reached[i] {
                        reached[i] = true;
                        stack.push(i);
                    }
                }
                while let Some(i) = stack.pop() {
                    let (x, y) = (i % w, i / w);
                    let mut visit = |j: usize| {
                        if mask[j] && !reached[j] {
                            reached[j] = true;
                            stack.push(j);
                        }
                    };
                    if x > 0 {
                        visit(i - 1);
                    }
                    if x + 1 < w {
                        visit(i + 1);
                    }
                    if y > 0 {
                        visit(i - w);
                    }
                    if y + 1 < h {
                        visit(i + w);
                    }
                }
                let n = mask
                    .iter()
                    .zip(&reached)
                    .filter(|&(&m, &r)| m && !r)
                    .count();
                if n == 0 {
                    continue;
                }
                let wgt = 1.0 / (n as f32).sqrt();
                for ((o, &m), &r) in out.data.iter_mut().zip(&mask).zip(&reached) {
                    if m && !r {
                        *o += wgt;
                    }
                }
            }
        }
    }
    gaussian(&mut out, 0.02 * long as f32);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dct_round_trip_and_dft_round_trip() {
        let (w, h) = (7, 5);
        let x: Vec<f64> = (0..w * h).map(|i| ((i * 37) % 11) as f64 - 3.0).collect();
        let back = dct2(&dct2(&x, w, h, false), w, h, true);
        assert!(x.iter().zip(&back).all(|(a, b)| (a - b).abs() < 1e-9));
        let n = 8;
        let mut re: Vec<f64> = (0..n * n).map(|i| (i % 5) as f64).collect();
        let orig = re.clone();
        let mut im = vec![0.0; n * n];
        dft2(&mut re, &mut im, n, -1.0);
        dft2(&mut re, &mut im, n, 1.0);
        assert!(
            orig.iter()
                .zip(&re)
                .all(|(a, b)| (a - b / (n * n) as f64).abs() < 1e-9)
        );
    }

    #[test]
    fn saliency_features_peak_on_an_odd_patch() {
        // Grey field with one bright square: every bottom-up feature should peak near it.
        let (w, h) = (96, 64);
        let mut rgb = [
            Plane::filled(w, h, 100.0),
            Plane::filled(w, h, 100.0),
            Plane::filled(w, h, 100.0),
        ];
        for y in 40..50 {
            for x in 20..30 {
                rgb[0].data[y * w + x] = 250.0;
                rgb[1].data[y * w + x] = 30.0;
            }
        }
        let lab = to_lab(&rgb);
        let long = w.max(h);
        let argmax = |p: &Plane| {
            let i = (0..p.data.len())
                .max_by(|&a, &b| p.data[a].total_cmp(&p.data[b]))
                .unwrap();
            (i % w, i / w)
        };
        for m in [
            signature(&lab),
            boolean_map(&lab, long),
            colour_rarity(&lab, long),
            centre_surround(&[&lab[1], &lab[2]], long, &[0.05]),
        ] {
            let (x, y) = argmax(&m);
            assert!(
                (15..35).contains(&x) && (35..55).contains(&y),
                "peak at {x},{y}"
            );
        }
    }
}
