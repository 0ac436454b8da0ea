//! The panel's light at night (rendering.md §4): emitted per cell of `f × f` photo pixels
//! before the panel is shaded, blurred with the crate's box-blur Gaussian, then read back per
//! photo row (bilinear between cell centres) and added in linear light before each pixel's
//! one encode, as the live preview does.
//!
//! Emitting first is what makes the night render cheap: the light of a cell is the panel's
//! colour at the cell's centre for a footprint `f` pixels wide (one filtered sample, as the
//! preview's low-resolution pass takes) times the cell's coverage, so the shading does not
//! have to store every pixel's light, and the panel's pixels take their light before their
//! encode instead of being decoded and encoded a second time afterwards.

use std::ops::Range;

use wide::f32x8;

use super::adjust::LANES;
use super::colour::Srgb;
use super::coverage::Edges;
use crate::blur;
use crate::image::Plane;

/// Largest downsampling factor of the bloom plane.
pub const BLOOM_FACTOR: i64 = 16;

/// The bloom plane's factor for a blur of `sigma` photo pixels: at most [`BLOOM_FACTOR`], and
/// small enough that the blur still spans two cells (a small panel's light would otherwise not
/// spread). The preview's `bloomFactor` is the same.
pub fn bloom_factor(sigma: f64) -> i64 {
    ((sigma / 2.0).floor() as i64).clamp(1, BLOOM_FACTOR)
}

/// The light emitted by the panel, at 1/[`bloom_factor`] resolution, on a grid that extends
/// beyond the photo so the blur is not cut at its borders.
pub struct Bloom {
    /// Photo pixel of the grid's top-left cell corner (a multiple of the factor).
    origin: (i64, i64),
    /// One plane per channel: the light of each cell.
    planes: [Plane; 3],
    /// Extra pixels around the panel's box where the light can reach.
    pub margin: i64,
    /// The panel's box `[x0, x1) × [y0, y1)` given to [`Bloom::new`].
    bbox: (i64, i64, i64, i64),
    /// Downsampling factor (photo pixels per cell side).
    factor: i64,
    /// Gaussian σ in photo pixels.
    sigma: f64,
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
            bbox: (x0, y0, x1, y1),
            factor: f,
            sigma,
        }
    }

    /// Sets the light of every cell that meets the panel's box: the cell's coverage by the
    /// quad times `panel(x, y, f)`, the panel's linear colour at the cell's
    /// centre `(x, y)` (photo coordinates, pixel centres at half-integers) for a footprint `f`
    /// photo pixels wide. Cells the quad does not touch stay dark.
    pub fn emit(&mut self, edges: &Edges, mut panel: impl FnMut(f64, f64, f32) -> [f32; 3]) {
        let (f, (x0, y0, x1, y1)) = (self.factor, self.bbox);
        let w = self.planes[0].width;
        let cells = |lo: i64, hi: i64, origin: i64| {
            (lo - origin).div_euclid(f) as usize..(hi - origin + f - 1).div_euclid(f) as usize
        };
        for j in cells(y0, y1, self.origin.1) {
            let cy = self.origin.1 + j as i64 * f;
            for i in cells(x0, x1, self.origin.0) {
                let cx = self.origin.0 + i as i64 * f;
                let a = edges.square_coverage(cx as f64, cy as f64, f as f64) as f32;
                if a <= 0.0 {
                    continue;
                }
                let half = f as f64 / 2.0;
                let c = panel(cx as f64 + half, cy as f64 + half, f as f32);
                for (plane, v) in self.planes.iter_mut().zip(c) {
                    plane.data[j * w + i] = v * a;
                }
            }
        }
    }

    /// Blurs the emitted light.
    pub fn blur(&mut self) {
        for p in &mut self.planes {
            blur::gaussian(p, (self.sigma / self.factor as f64) as f32);
        }
    }

    /// The photo columns and rows the light may reach (within a `pw × ph` photo): the box given
    /// to [`Bloom::new`] widened by the margin. The light is exactly 0 outside.
    pub fn reach(&self, pw: usize, ph: usize) -> Reach {
        let (m, (x0, y0, x1, y1)) = (self.margin, self.bbox);
        Reach {
            xs: (x0 - m).max(0) as usize..((x1 + m).max(0) as usize).min(pw),
            ys: (y0 - m).max(0) as usize..((y1 + m).max(0) as usize).min(ph),
        }
    }

    /// The blurred light at photo pixel `(x, y)`, bilinear between cell centres: the reference
    /// that [`LightRows`] follows.
    #[inline(always)]
    pub fn at(&self, x: i64, y: i64) -> [f32; 3] {
        let (y0, y1, fy) = self.row(y);
        let (x0, fx) = self.column(x);
        let w = self.planes[0].width;
        let x1 = (x0 + 1).min(w - 1);
        [0, 1, 2].map(|c| {
            let d = &self.planes[c].data;
            let t = d[y0 * w + x0] + (d[y0 * w + x1] - d[y0 * w + x0]) * fx;
            let b = d[y1 * w + x0] + (d[y1 * w + x1] - d[y1 * w + x0]) * fx;
            t + (b - t) * fy
        })
    }

    /// The cell rows and weight of photo row `y`.
    #[inline(always)]
    fn row(&self, y: i64) -> (usize, usize, f32) {
        let f = self.factor as f32;
        let h = self.planes[0].height;
        let py = ((y - self.origin.1) as f32 + 0.5) / f - 0.5;
        let py = py.clamp(0.0, (h - 1) as f32);
        let y0 = py as usize;
        (y0, (y0 + 1).min(h - 1), py - y0 as f32)
    }

    /// The left cell and weight of photo column `x` (its right cell is the next one, or the
    /// same when it is the last).
    #[inline(always)]
    fn column(&self, x: i64) -> (usize, f32) {
        let f = self.factor as f32;
        let w = self.planes[0].width;
        let px = ((x - self.origin.0) as f32 + 0.5) / f - 0.5;
        let px = px.clamp(0.0, (w - 1) as f32);
        let x0 = px as usize;
        (x0, px - x0 as f32)
    }
}

/// The photo columns and rows a bloom's light may reach.
#[derive(Debug, Clone)]
pub struct Reach {
    pub xs: Range<usize>,
    pub ys: Range<usize>,
}

/// The light of one photo row after another, over the columns of a [`Reach`]: the same
/// operations in the same order as [`Bloom::at`], so the same values, but each cell row is
/// interpolated across the columns once (two kept at a time) rather than per pixel.
pub struct LightRows<'a> {
    bloom: &'a Bloom,
    /// Per column (relative to the reach's first): its left cell and weight.
    cols: Vec<(usize, f32)>,
    /// The cell rows held in `slot`.
    slot_row: [usize; 2],
    /// Two cell rows interpolated across the columns, per channel.
    slot: [[Vec<f32>; 3]; 2],
    /// Per slot, the columns whose light is not zero (`(n, 0)` when none).
    lit: [(usize, usize); 2],
    /// The current row's light per channel and column.
    pub light: [Vec<f32>; 3],
}

impl<'a> LightRows<'a> {
    /// The reader of `bloom`'s light over the photo columns `xs`.
    pub fn new(bloom: &'a Bloom, xs: Range<usize>) -> LightRows<'a> {
        let n = xs.len();
        let cols = xs.map(|x| bloom.column(x as i64)).collect();
        let planes = || [0, 1, 2].map(|_| vec![0f32; n]);
        LightRows {
            bloom,
            cols,
            slot_row: [usize::MAX; 2],
            slot: [planes(), planes()],
            lit: [(n, 0); 2],
            light: planes(),
        }
    }

    /// Fills [`LightRows::light`] for photo row `y` over the columns `need` (relative to the
    /// reach's first; the others keep what they held) and returns the columns where it is not
    /// zero, `need` or not (an empty range when it is zero everywhere). Outside them the light
    /// is exactly 0.
    pub fn row(&mut self, y: usize, need: Range<usize>) -> Range<usize> {
        let (y0, y1, fy) = self.bloom.row(y as i64);
        for j in [y0, y1] {
            if self.slot_row[0] != j && self.slot_row[1] != j {
                let k = usize::from(self.slot_row[0] == y0 || self.slot_row[0] == y1);
                self.lit[k] = self.fill(j, k);
                self.slot_row[k] = j;
            }
        }
        let a = usize::from(self.slot_row[0] != y0);
        let b = usize::from(self.slot_row[0] != y1);
        let (lo, hi) = (
            self.lit[a].0.min(self.lit[b].0),
            self.lit[a].1.max(self.lit[b].1),
        );
        let lit = lo..hi.max(lo);
        let cols = match (need.is_empty(), lit.is_empty()) {
            (true, _) => lit.clone(),
            (false, true) => need,
            (false, false) => need.start.min(lit.start)..need.end.max(lit.end),
        };
        if cols.start < cols.end {
            let fyv = f32x8::splat(fy);
            for c in 0..3 {
                let (top, bottom) = (
                    &self.slot[a][c][cols.clone()],
                    &self.slot[b][c][cols.clone()],
                );
                let out = &mut self.light[c][cols.clone()];
                let done = out.len() / LANES * LANES;
                let lanes = |v: &[f32]| f32x8::from(<[f32; LANES]>::try_from(v).unwrap());
                for ((o, t), b) in out[..done]
                    .chunks_exact_mut(LANES)
                    .zip(top.chunks_exact(LANES))
                    .zip(bottom.chunks_exact(LANES))
                {
                    let (t, b) = (lanes(t), lanes(b));
                    o.copy_from_slice(&(t + (b - t) * fyv).to_array());
                }
                for ((o, &t), &b) in out[done..]
                    .iter_mut()
                    .zip(&top[done..])
                    .zip(&bottom[done..])
                {
                    *o = t + (b - t) * fy;
                }
            }
        }
        lit
    }

    /// Interpolates cell row `j` across the columns into slot `k`; returns the columns whose
    /// light is not zero: those that take a cell with light (between two dark cells the light
    /// is exactly zero).
    fn fill(&mut self, j: usize, k: usize) -> (usize, usize) {
        let w = self.bloom.planes[0].width;
        let n = self.cols.len();
        let (mut first, mut last) = (w, 0);
        for c in 0..3 {
            let row = &self.bloom.planes[c].data[j * w..(j + 1) * w];
            if let Some(f) = row.iter().position(|&v| v != 0.0) {
                let l = w - row.iter().rev().position(|&v| v != 0.0).unwrap_or(0);
                (first, last) = (first.min(f), last.max(l));
            }
            for (o, &(x0, fx)) in self.slot[k][c].iter_mut().zip(&self.cols) {
                let (a, b) = (row[x0], row[(x0 + 1).min(w - 1)]);
                *o = a + (b - a) * fx;
            }
        }
        if first >= last {
            return (n, 0);
        }
        let right = |x0: usize| (x0 + 1).min(w - 1);
        let lo = self.cols.partition_point(|&(x0, _)| right(x0) < first);
        let hi = self.cols.partition_point(|&(x0, _)| x0 < last);
        (lo, hi)
    }
}

/// Adds light to photo pixels in place: each value `v` of channel `c` becomes
/// `encode(decode(v) · gain[c] + strength · light[c][k])`, `k` the pixel's index in `pixels`
/// (RGB, starting at red): the photo's night gain and the light in one encode. Eight pixels at
/// a time: the decodes are table loads, the sums lane by lane, the codes by
/// [`Srgb::encode_lanes`] (the same codes as [`Srgb::encode`]).
pub fn light_pixels(pixels: &mut [u8], light: [&[f32]; 3], gain: [f32; 3], strength: f32) {
    let s = Srgb::get();
    let sp = f32x8::splat(strength);
    let mut groups = pixels.chunks_exact_mut(3 * LANES);
    let mut k = 0;
    for o in &mut groups {
        for c in 0..3 {
            let mut base = [0f32; LANES];
            for (i, b) in base.iter_mut().enumerate() {
                *b = s.decode[o[3 * i + c] as usize];
            }
            let l = f32x8::from(<[f32; LANES]>::try_from(&light[c][k..k + LANES]).unwrap());
            let codes =
                s.encode_lanes(&(f32x8::from(base) * f32x8::splat(gain[c]) + sp * l).to_array());
            for (i, &v) in codes.iter().enumerate() {
                o[3 * i + c] = v;
            }
        }
        k += LANES;
    }
    for (i, o) in groups.into_remainder().chunks_exact_mut(3).enumerate() {
        for c in 0..3 {
            o[c] = s.encode(s.decode[o[c] as usize] * gain[c] + strength * light[c][k + i]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bloom over a 50 × 45 box emitting a pattern, blurred.
    fn bloom(sigma: f64) -> (Bloom, (i64, i64, i64, i64)) {
        let (x0, y0, x1, y1) = (60i64, 40i64, 110i64, 85i64);
        let mut b = Bloom::new(x0, y0, x1, y1, sigma);
        let edges = Edges::new(&[
            [x0 as f64 + 3.3, y0 as f64],
            [x1 as f64, y0 as f64 + 2.1],
            [x1 as f64 - 1.2, y1 as f64],
            [x0 as f64, y1 as f64 - 4.0],
        ]);
        b.emit(&edges, |x, y, f| {
            let v = ((x * 13.0 + y * 7.0) % 50.0) as f32 / 50.0;
            [v, 1.0 - v, 0.5 * v * f]
        });
        b.blur();
        (b, (x0, y0, x1, y1))
    }

    #[test]
    fn the_rows_give_the_per_pixel_bilinear_light_and_zero_outside_their_span() {
        let (pw, ph) = (173usize, 131usize);
        for sigma in [9.0, 3.0, 14.5, 1.0, 40.0] {
            let (b, (x0, y0, x1, y1)) = bloom(sigma);
            let reach = b.reach(pw, ph);
            let mut rows = LightRows::new(&b, reach.xs.clone());
            let n = reach.xs.len();
            let mut lit_somewhere = false;
            for y in reach.ys.clone() {
                // Alternate what is asked for: the whole row, part of it, nothing.
                let need = match y % 3 {
                    0 => 0..n,
                    1 => n / 3..n / 2,
                    _ => 0..0,
                };
                let lit = rows.row(y, need.clone());
                lit_somewhere |= !lit.is_empty();
                for (k, x) in reach.xs.clone().enumerate() {
                    let want = b.at(x as i64, y as i64);
                    if lit.contains(&k) || need.contains(&k) {
                        let got = [0, 1, 2].map(|c| rows.light[c][k]);
                        assert_eq!(got, want, "σ {sigma}, ({x}, {y})");
                    } else {
                        assert_eq!(want, [0.0; 3], "σ {sigma}, ({x}, {y}) outside the span");
                    }
                }
            }
            assert!(lit_somewhere);
            // Beyond the margin the light is zero.
            let m = b.margin;
            for (x, y) in [
                (x0 - m - 1, 60),
                (x1 + m, 60),
                (100, y0 - m - 1),
                (100, y1 + m),
            ] {
                assert_eq!(b.at(x, y), [0.0; 3], "σ {sigma}, ({x}, {y})");
            }
        }
    }

    #[test]
    fn light_pixels_matches_the_per_value_encode() {
        let s = Srgb::get();
        let gain = [0.096, 0.108, 0.138];
        for (len, strength) in [(37usize, 0.35f32), (8, 0.15), (3, 2.0), (0, 0.35)] {
            let photo: Vec<u8> = (0..3 * len).map(|i| (i * 37 % 256) as u8).collect();
            let light = [0, 1, 2].map(|c| {
                (0..len)
                    .map(|i| {
                        if i % 5 == 0 {
                            0.0
                        } else {
                            (i * (c + 1)) as f32 / 97.0
                        }
                    })
                    .collect::<Vec<f32>>()
            });
            let mut out = photo.clone();
            light_pixels(&mut out, [&light[0], &light[1], &light[2]], gain, strength);
            for (i, (&o, &p)) in out.iter().zip(&photo).enumerate() {
                let (k, c) = (i / 3, i % 3);
                let want = s.encode(s.decode[p as usize] * gain[c] + strength * light[c][k]);
                assert_eq!(o, want, "value {i} of {len}");
            }
        }
    }
}
