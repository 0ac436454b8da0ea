//! Night scenes (rendering.md §4): the whole photo darkened and cooled through three 8-bit
//! tables, and the panel's bloom accumulated at up to a quarter of the resolution, blurred with the
//! crate's box-blur Gaussian and added back bilinearly around the panel.

use wide::f32x8;

use super::adjust::LANES;
use super::colour::Srgb;
use crate::blur;
use crate::image::Plane;
use std::ops::Range;

/// Largest downsampling factor of the bloom plane.
pub const BLOOM_FACTOR: i64 = 4;

/// The bloom plane's factor for a blur of `sigma` photo pixels: at most 4, and small enough
/// that the blur still spans two cells (a small panel's light would otherwise not spread).
pub fn bloom_factor(sigma: f64) -> i64 {
    ((sigma / 2.0).floor() as i64).clamp(1, BLOOM_FACTOR)
}

/// `encode(decode(v) · gain[c])` for every code and channel.
pub fn darken_tables(gain: [f32; 3]) -> [[u8; 256]; 3] {
    let s = Srgb::get();
    let mut t = [[0u8; 256]; 3];
    for c in 0..3 {
        for v in 0..256 {
            t[c][v] = s.encode(s.decode[v] * gain[c]);
        }
    }
    t
}

/// Copies `photo` into `out` through the per-channel tables.
pub fn darken(photo: &[u8], out: &mut [u8], t: &[[u8; 256]; 3]) {
    for (o, p) in out.chunks_exact_mut(3).zip(photo.chunks_exact(3)) {
        o[0] = t[0][p[0] as usize];
        o[1] = t[1][p[1] as usize];
        o[2] = t[2][p[2] as usize];
    }
}

/// [`darken`] in place.
pub fn darken_in_place(pixels: &mut [u8], t: &[[u8; 256]; 3]) {
    for p in pixels.chunks_exact_mut(3) {
        p[0] = t[0][p[0] as usize];
        p[1] = t[1][p[1] as usize];
        p[2] = t[2][p[2] as usize];
    }
}

/// The light emitted by the panel, at 1/[`bloom_factor`] resolution, on a grid that extends
/// beyond the photo so the blur is not cut at its borders.
pub struct Bloom {
    /// Photo pixel of the grid's top-left cell corner (a multiple of the factor).
    origin: (i64, i64),
    /// One plane per channel: mean `panel · α_edge` of each cell.
    planes: [Plane; 3],
    /// Extra pixels around the panel's box where the light can reach.
    pub margin: i64,
    /// Downsampling factor (photo pixels per cell side).
    factor: i64,
    /// Gaussian σ in photo pixels.
    sigma: f64,
    /// `1 / factor²`, the weight of one pixel in its cell's mean.
    cell_weight: f32,
}

impl Bloom {
    /// An empty bloom grid covering the box `[x0, x1) × [y0, y1)` plus the blur's reach.
    pub fn new(x0: i64, y0: i64, x1: i64, y1: i64, sigma: f64) -> Bloom {
        // Three box blurs reach about 3σ; past the margin the light is exactly zero.
        let f = bloom_factor(sigma);
        let margin = (3.0 * sigma).ceil() as i64 + 2 * f;
        let gx0 = (x0 - margin).div_euclid(f);
        let gy0 = (y0 - margin).div_euclid(f);
        let gx1 = (x1 + margin + f - 1).div_euclid(f);
        let gy1 = (y1 + margin + f - 1).div_euclid(f);
        let (w, h) = ((gx1 - gx0) as usize, (gy1 - gy0) as usize);
        Bloom {
            origin: (gx0 * f, gy0 * f),
            planes: [0, 1, 2].map(|_| Plane::filled(w, h, 0.0)),
            margin,
            factor: f,
            sigma,
            cell_weight: 1.0 / (f * f) as f32,
        }
    }

    /// Adds the light of photo pixel `(x, y)`.
    #[inline(always)]
    pub fn add(&mut self, x: i64, y: i64, light: [f32; 3]) {
        // Offsets from the grid's origin are non-negative and small: a 32-bit unsigned
        // division is several times cheaper than a 64-bit signed one.
        let f = self.factor as u32;
        let i = ((x - self.origin.0) as u32 / f) as usize;
        let j = ((y - self.origin.1) as u32 / f) as usize;
        let w = self.planes[0].width;
        for c in 0..3 {
            self.planes[c].data[j * w + i] += light[c] * self.cell_weight;
        }
    }

    /// [`Bloom::add`] for the `n ≤ LANES` pixels from `(x0, y)` along a row, `light[channel][k]`
    /// for pixel `x0 + k`: the same sums in the same order, the cells found by counting instead
    /// of two divisions a pixel. The weighted light is made eight lanes at a time (the same
    /// products), and each cell's sums are made in a register, stored once per cell: adding
    /// through memory would chain every pixel's sum on the store of the previous one.
    #[inline(always)]
    pub fn add_run(&mut self, x0: i64, y: i64, light: &[[f32; LANES]; 3], n: usize) {
        let f = self.factor as u32;
        let rx = (x0 - self.origin.0) as u32;
        let (mut i, rem) = ((rx / f) as usize, (rx % f) as usize);
        let row = ((y - self.origin.1) as u32 / f) as usize * self.planes[0].width;
        let weight = f32x8::splat(self.cell_weight);
        let light = light.map(|l| (f32x8::from(l) * weight).to_array());
        // Pixels `k..end` fall in cell `i`: the first cell takes `f - rem` of them.
        let (mut k, mut end) = (0, (f as usize - rem).min(n));
        while k < n {
            for (plane, l) in self.planes.iter_mut().zip(&light) {
                let cell = &mut plane.data[row + i];
                let mut sum = *cell;
                for &v in &l[k..end] {
                    sum += v;
                }
                *cell = sum;
            }
            (k, end, i) = (end, (end + f as usize).min(n), i + 1);
        }
    }

    /// Blurs the accumulated light.
    pub fn blur(&mut self) {
        for p in &mut self.planes {
            blur::gaussian(p, (self.sigma / self.factor as f64) as f32);
        }
    }

    /// The blurred light at photo pixel `(x, y)`, bilinear between cell centres.
    #[inline(always)]
    pub fn at(&self, x: i64, y: i64) -> [f32; 3] {
        self.at_row(x, self.row(y))
    }

    /// The row part of [`Bloom::at`] for photo row `y`: cell rows and weight.
    #[inline(always)]
    pub fn row(&self, y: i64) -> (usize, usize, f32) {
        let f = self.factor as f32;
        let h = self.planes[0].height;
        let py = ((y - self.origin.1) as f32 + 0.5) / f - 0.5;
        let py = py.clamp(0.0, (h - 1) as f32);
        let y0 = py as usize;
        (y0, (y0 + 1).min(h - 1), py - y0 as f32)
    }

    /// [`Bloom::at`] at column `x` of a row given by [`Bloom::row`].
    #[inline(always)]
    pub fn at_row(&self, x: i64, (y0, y1, fy): (usize, usize, f32)) -> [f32; 3] {
        let f = self.factor as f32;
        let w = self.planes[0].width;
        let px = ((x - self.origin.0) as f32 + 0.5) / f - 0.5;
        let px = px.clamp(0.0, (w - 1) as f32);
        let x0 = px as usize;
        let x1 = (x0 + 1).min(w - 1);
        let fx = px - x0 as f32;
        [0, 1, 2].map(|c| {
            let d = &self.planes[c].data;
            let t = d[y0 * w + x0] + (d[y0 * w + x1] - d[y0 * w + x0]) * fx;
            let b = d[y1 * w + x0] + (d[y1 * w + x1] - d[y1 * w + x0]) * fx;
            t + (b - t) * fy
        })
    }
    /// Adds `strength ·` the blurred light to the pixels `xs × ys` of `out` (RGB, `pw` pixels
    /// wide) in linear light: per channel `encode(decode(o) + strength · at(x, y))`, the same
    /// operations in the same order as [`Bloom::at`], so the same bytes. The horizontal
    /// interpolation of a cell row does not depend on the photo row, so it is done once per cell
    /// row (two kept at a time); a pixel whose light on both cell rows is below
    /// [`Srgb::negligible`] (after `strength`) cannot change any code and is skipped, so each
    /// row is only walked over the span where the light is not negligible. The values are
    /// taken [`LANES`] at a time: the light and the sum lane by lane, the codes by
    /// [`Srgb::encode_lanes`] (the same codes as [`Srgb::encode`]).
    pub fn add_back(
        &self,
        out: &mut [u8],
        pw: usize,
        xs: Range<usize>,
        ys: Range<usize>,
        strength: f32,
    ) {
        let s = Srgb::get();
        let f = self.factor as f32;
        let w = self.planes[0].width;
        let n = xs.len();
        // Per column: cells and weight, as in `at_row`.
        let cols: Vec<(usize, usize, f32)> = xs
            .clone()
            .map(|x| {
                let px = ((x as i64 - self.origin.0) as f32 + 0.5) / f - 0.5;
                let px = px.clamp(0.0, (w - 1) as f32);
                let x0 = px as usize;
                (x0, (x0 + 1).min(w - 1), px - x0 as f32)
            })
            .collect();
        // One horizontally interpolated cell row (RGB interleaved) and the span of columns
        // where its light is not negligible (`(n, 0)` when empty).
        let fill = |j: usize, buf: &mut [f32]| -> (usize, usize) {
            let mut span = (n, 0);
            let rows = [0, 1, 2].map(|c| &self.planes[c].data[j * w..(j + 1) * w]);
            for (i, (&(x0, x1, fx), px)) in cols.iter().zip(buf.chunks_exact_mut(3)).enumerate() {
                let mut big = false;
                for c in 0..3 {
                    let d = rows[c];
                    let v = d[x0] + (d[x1] - d[x0]) * fx;
                    px[c] = v;
                    big |= (strength * v).abs() >= s.negligible;
                }
                if big {
                    span = (span.0.min(i), i + 1);
                }
            }
            span
        };
        let mut slot_row = [usize::MAX; 2];
        let mut slot = [vec![0f32; 3 * n], vec![0f32; 3 * n]];
        let mut span = [(n, 0); 2];
        for y in ys {
            let (y0, y1, fy) = self.row(y as i64);
            for j in [y0, y1] {
                if slot_row[0] != j && slot_row[1] != j {
                    let k = usize::from(slot_row[0] == y0 || slot_row[0] == y1);
                    span[k] = fill(j, &mut slot[k]);
                    slot_row[k] = j;
                }
            }
            let a = usize::from(slot_row[0] != y0);
            let b = usize::from(slot_row[0] != y1);
            let (lo, hi) = (span[a].0.min(span[b].0), span[a].1.max(span[b].1));
            if lo >= hi {
                continue;
            }
            let top = &slot[a][3 * lo..3 * hi];
            let bottom = &slot[b][3 * lo..3 * hi];
            let start = y * pw + xs.start;
            let line = &mut out[(start + lo) * 3..(start + hi) * 3];
            let (sp, fyv) = (f32x8::splat(strength), f32x8::splat(fy));
            let done = line.len() / LANES * LANES;
            let (head, tail) = line.split_at_mut(done);
            let (tops, bottoms) = (top.chunks_exact(LANES), bottom.chunks_exact(LANES));
            for ((o, t), b) in head.chunks_exact_mut(LANES).zip(tops).zip(bottoms) {
                let lanes = |v: &[f32]| f32x8::from(<[f32; LANES]>::try_from(v).unwrap());
                let (t, b) = (lanes(t), lanes(b));
                let light = t + (b - t) * fyv;
                let mut base = [0f32; LANES];
                for (d, &v) in base.iter_mut().zip(o.iter()) {
                    *d = s.decode[v as usize];
                }
                let codes = s.encode_lanes(&(f32x8::from(base) + sp * light).to_array());
                o.copy_from_slice(&codes);
            }
            for ((o, &t), &b) in tail.iter_mut().zip(&top[done..]).zip(&bottom[done..]) {
                let light = t + (b - t) * fy;
                *o = s.encode(s.decode[*o as usize] + strength * light);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_back_matches_the_per_pixel_bilinear_light() {
        let s = Srgb::get();
        let (pw, ph) = (173usize, 131usize);
        let photo: Vec<u8> = (0..pw * ph * 3).map(|i| (i * 37 % 256) as u8).collect();
        for (sigma, strength) in [(9.0, 0.8), (3.0, 0.05), (14.5, 2.0), (5.0, 1e-4)] {
            let (x0, y0, x1, y1) = (60i64, 40i64, 110i64, 85i64);
            let mut b = Bloom::new(x0, y0, x1, y1, sigma);
            for y in y0..y1 {
                for x in x0..x1 {
                    let v = ((x * 13 + y * 7) % 50) as f32 / 50.0;
                    b.add(x, y, [v, 1.0 - v, 0.5 * v]);
                }
            }
            b.blur();
            let m = b.margin;
            let ys = (y0 - m).max(0) as usize..((y1 + m) as usize).min(ph);
            let xs = (x0 - m).max(0) as usize..((x1 + m) as usize).min(pw);
            let mut reference = photo.clone();
            for y in ys.clone() {
                for x in xs.clone() {
                    let light = b.at(x as i64, y as i64);
                    for k in 0..3 {
                        let o = &mut reference[(y * pw + x) * 3 + k];
                        *o = s.encode(s.decode[*o as usize] + strength * light[k]);
                    }
                }
            }
            let mut out = photo.clone();
            b.add_back(&mut out, pw, xs, ys, strength);
            assert!(out == reference, "σ {sigma}, strength {strength}");
            if strength > 0.01 {
                assert!(out != photo);
            }
        }
    }
}
