//! Night scenes (rendering.md §4): the whole photo darkened and cooled through three 8-bit
//! tables (looked up two bytes at a time), and the panel's bloom accumulated at up to a
//! quarter of the resolution, blurred with the crate's box-blur Gaussian and added back
//! bilinearly around the panel.

use wide::{f32x4, f32x8};

use super::adjust::{LANES, NIGHT_PHOTO};
use super::colour::Srgb;
use crate::blur;
use crate::image::Plane;
use std::ops::Range;
use std::sync::OnceLock;

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

/// The darkening of a night scene: [`darken_tables`], and the same per pair of consecutive
/// bytes.
pub struct Darkening {
    /// Per channel, the darkened code of each code.
    bytes: [[u8; 256]; 3],
    /// `pairs[c][a | b << 8]`: the bytes `a`, `b` of channels `c`, `c + 1` (mod 3) darkened,
    /// the same way (little-endian). Four pixels are six pairs, so that a 12-byte step takes
    /// six look-ups of 16 bits instead of twelve of 8 bits, and two loads and two stores
    /// instead of twelve each; the byte look-ups were bound by inserting each byte into a
    /// vector (3 × 128 kB, which the L2 cache holds).
    pairs: [Box<[u16; 1 << 16]>; 3],
}

impl Darkening {
    /// The tables of [`NIGHT_PHOTO`], the gains of every night render, built once per process
    /// (384 kB: about 0.15 ms to build).
    pub fn night() -> &'static Darkening {
        static TABLES: OnceLock<Darkening> = OnceLock::new();
        TABLES.get_or_init(|| Darkening::new(NIGHT_PHOTO))
    }

    /// The tables for the channel gains `gain`.
    pub fn new(gain: [f32; 3]) -> Darkening {
        let bytes = darken_tables(gain);
        let pairs = [0, 1, 2].map(|c| {
            let (first, second) = (&bytes[c], &bytes[(c + 1) % 3]);
            let mut t: Box<[u16; 1 << 16]> = vec![0u16; 1 << 16].try_into().expect("2^16");
            for (row, &b) in t.chunks_exact_mut(256).zip(second) {
                for (e, &a) in row.iter_mut().zip(first) {
                    *e = u16::from(a) | u16::from(b) << 8;
                }
            }
            t
        });
        Darkening { bytes, pairs }
    }

    /// Darkens the whole pixels (RGB) of `pixels` in place.
    pub fn in_place(&self, pixels: &mut [u8]) {
        let mut steps = pixels.chunks_exact_mut(12);
        for p in &mut steps {
            let (lo, hi) = self.step(p);
            p[..8].copy_from_slice(&lo.to_le_bytes());
            p[8..].copy_from_slice(&hi.to_le_bytes());
        }
        self.by_bytes(steps.into_remainder());
    }

    /// Copies the whole pixels of `photo` into `out`, darkened.
    pub fn copy(&self, photo: &[u8], out: &mut [u8]) {
        let mut steps = out.chunks_exact_mut(12);
        let mut from = photo.chunks_exact(12);
        for (o, p) in (&mut steps).zip(&mut from) {
            let (lo, hi) = self.step(p);
            o[..8].copy_from_slice(&lo.to_le_bytes());
            o[8..].copy_from_slice(&hi.to_le_bytes());
        }
        let (out, photo) = (steps.into_remainder(), from.remainder());
        out.copy_from_slice(photo);
        self.by_bytes(out);
    }

    /// Four pixels (12 bytes, starting at red) darkened: bytes 0–7 and 8–11.
    #[inline(always)]
    fn step(&self, p: &[u8]) -> (u64, u32) {
        let lo = u64::from_le_bytes(p[..8].try_into().unwrap());
        let hi = u64::from(u32::from_le_bytes(p[8..12].try_into().unwrap()));
        // The pairs start at red, blue, green, red, blue, green.
        let [rg, gb, br] = [&self.pairs[0], &self.pairs[1], &self.pairs[2]];
        let at =
            |t: &[u16; 1 << 16], v: u64, shift: u32| u64::from(t[(v >> shift) as u16 as usize]);
        let lo = at(rg, lo, 0) | at(br, lo, 16) << 16 | at(gb, lo, 32) << 32 | at(rg, lo, 48) << 48;
        let hi = at(br, hi, 0) | at(gb, hi, 16) << 16;
        (lo, hi as u32)
    }

    /// Darkens the whole pixels of `pixels` one byte at a time.
    fn by_bytes(&self, pixels: &mut [u8]) {
        for p in pixels.chunks_exact_mut(3) {
            for (v, t) in p.iter_mut().zip(&self.bytes) {
                *v = t[*v as usize];
            }
        }
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
    /// Photo column of the first value of `pending`: the box's left edge.
    row_x0: i64,
    /// The current photo row's weighted light, per channel and photo column, not yet added to
    /// its cells (see [`Bloom::end_row`]).
    pending: [Vec<f32>; 3],
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
            row_x0: x0,
            pending: [0, 1, 2].map(|_| vec![0.0; (x1 - x0).max(0) as usize]),
        }
    }

    /// Adds the light of photo pixel `x` of the current row (see [`Bloom::end_row`]).
    #[inline(always)]
    pub fn add(&mut self, x: i64, light: [f32; 3]) {
        let k = (x - self.row_x0) as usize;
        for (pending, l) in self.pending.iter_mut().zip(light) {
            pending[k] = l * self.cell_weight;
        }
    }

    /// [`Bloom::add`] for the `n ≤ LANES` pixels from `x0` along the current row,
    /// `light[channel][k]` for pixel `x0 + k`: the same products, made eight lanes at a time.
    #[inline(always)]
    pub fn add_run(&mut self, x0: i64, light: &[[f32; LANES]; 3], n: usize) {
        let k = (x0 - self.row_x0) as usize;
        let weight = f32x8::splat(self.cell_weight);
        for (pending, l) in self.pending.iter_mut().zip(light) {
            let l = (f32x8::from(*l) * weight).to_array();
            pending[k..k + n].copy_from_slice(&l[..n]);
        }
    }

    /// Adds the light of photo row `y`, columns `xa..xb`, to its cells: every pixel of them
    /// must have been given to [`Bloom::add`] or [`Bloom::add_run`] since the last row (a pixel
    /// without light as zero, which changes no sum: a sum that starts at +0 is never −0). Each
    /// cell's sum takes its pixels in the order of the row, rows in order, as adding each pixel
    /// as it comes would, so the same sums. Adding a row at a time lets the cells of a row be
    /// summed side by side, instead of every pixel's addition waiting on the previous one's
    /// store (the lanes of a run fall in two or three cells).
    pub fn end_row(&mut self, y: i64, xa: i64, xb: i64) {
        if xa >= xb {
            return;
        }
        let f = self.factor as usize;
        let row = (y - self.origin.1) as usize / f * self.planes[0].width;
        let rx = (xa - self.origin.0) as usize;
        let (first, rem) = (row + rx / f, rx % f);
        let span = (xa - self.row_x0) as usize..(xb - self.row_x0) as usize;
        for (plane, pending) in self.planes.iter_mut().zip(&self.pending) {
            let values = &pending[span.clone()];
            let cells = &mut plane.data[first..];
            // The first cell takes the `f - rem` first values (all of them when fewer), then
            // each cell `f` values.
            let (head, rest) = values.split_at((f - rem).min(values.len()));
            add_in_order(&mut cells[0], head);
            let cells = &mut cells[1..];
            match f {
                4 => add_cells::<4>(cells, rest),
                3 => add_cells::<3>(cells, rest),
                2 => add_cells::<2>(cells, rest),
                _ => add_cells::<1>(cells, rest),
            }
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
    /// row (two kept at a time, a pixel's three channels as one f32x4); a pixel whose four
    /// cells' light is below [`Srgb::negligible`] (after `strength`) has negligible light
    /// too, cannot change any code and is skipped, so each row is only walked over the span
    /// of columns that take a cell with more light. The values are taken [`LANES`] at a time:
    /// the light and the sum lane by lane, the codes by [`Srgb::encode_lanes`] (the same codes
    /// as [`Srgb::encode`]).
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
        // Per column: its left cell and weight, as in `at_row`. Its right cell is the next
        // one: `cells` below repeats the last cell once, which `at_row` takes for both when
        // the left one is the last.
        let cols: Vec<(usize, f32)> = xs
            .clone()
            .map(|x| {
                let px = ((x as i64 - self.origin.0) as f32 + 0.5) / f - 0.5;
                let px = px.clamp(0.0, (w - 1) as f32);
                let x0 = px as usize;
                (x0, px - x0 as f32)
            })
            .collect();
        let right = |x0: usize| (x0 + 1).min(w - 1);
        let (sp, negligible) = (f32x4::splat(strength), f32x4::splat(s.negligible));
        // One horizontally interpolated cell row (RGB interleaved, `buf` one value longer)
        // and the span of columns where its light may not be negligible (`(n, 0)` when it is
        // negligible everywhere): the columns that take a cell whose light is not negligible
        // (a value between two negligible ones is negligible too). A cell's three channels are
        // one f32x4 (the same operations lane by lane as three f32).
        let fill = |j: usize, cells: &mut [f32x4], buf: &mut [f32]| -> (usize, usize) {
            let rows = [0, 1, 2].map(|c| &self.planes[c].data[j * w..(j + 1) * w]);
            let (mut first, mut last) = (w, 0);
            for (k, cell) in cells[..w].iter_mut().enumerate() {
                *cell = f32x4::from([rows[0][k], rows[1][k], rows[2][k], 0.0]);
                if (sp * *cell).abs().simd_ge(negligible).any() {
                    (first, last) = (first.min(k), k + 1);
                }
            }
            cells[w] = cells[w - 1];
            for (i, &(x0, fx)) in cols.iter().enumerate() {
                let (a, b) = (cells[x0], cells[x0 + 1]);
                // The padding lane goes into the next column's first value, written next.
                buf[3 * i..3 * i + 4].copy_from_slice(&(a + (b - a) * f32x4::splat(fx)).to_array());
            }
            if first >= last {
                return (n, 0);
            }
            let lo = cols.partition_point(|&(x0, _)| right(x0) < first);
            let hi = cols.partition_point(|&(x0, _)| x0 < last);
            (lo, hi)
        };
        let mut cells = vec![f32x4::ZERO; w + 1];
        let mut slot_row = [usize::MAX; 2];
        let mut slot = [vec![0f32; 3 * n + 1], vec![0f32; 3 * n + 1]];
        let mut span = [(n, 0); 2];
        for y in ys {
            let (y0, y1, fy) = self.row(y as i64);
            for j in [y0, y1] {
                if slot_row[0] != j && slot_row[1] != j {
                    let k = usize::from(slot_row[0] == y0 || slot_row[0] == y1);
                    span[k] = fill(j, &mut cells, &mut slot[k]);
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

/// Adds `values` one after the other to `cell`.
#[inline(always)]
fn add_in_order(cell: &mut f32, values: &[f32]) {
    let mut sum = *cell;
    for &v in values {
        sum += v;
    }
    *cell = sum;
}

/// Adds `values` to `cells`, `F` consecutive values to each cell in order (the last cell
/// takes what remains). The cells' sums are independent: they are made [`LANES`] cells at a
/// time, lane `j` of the `k`-th vector holding the `k`-th value of cell `j`.
#[inline(always)]
fn add_cells<const F: usize>(cells: &mut [f32], values: &[f32]) {
    let blocks = values.chunks_exact(F * LANES);
    let rest = blocks.remainder();
    let done = blocks.len() * LANES;
    for (c, v) in cells.chunks_exact_mut(LANES).zip(blocks) {
        let mut sum = f32x8::from(<[f32; LANES]>::try_from(&*c).unwrap());
        for k in 0..F {
            sum += f32x8::from(std::array::from_fn::<f32, LANES, _>(|j| v[F * j + k]));
        }
        c.copy_from_slice(&sum.to_array());
    }
    let chunks = rest.chunks_exact(F);
    let last = done + chunks.len();
    let tail = chunks.remainder();
    for (cell, v) in cells[done..].iter_mut().zip(chunks) {
        add_in_order(cell, v);
    }
    if !tail.is_empty() {
        add_in_order(&mut cells[last], tail);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pairs_darken_like_the_byte_tables() {
        let gain = [0.3, 0.55, 0.8];
        let (d, t) = (Darkening::new(gain), darken_tables(gain));
        // Every pair of codes at each of the three pair positions (`a b a b a b` for each
        // pair), and lengths that leave 0 to 3 pixels after the 4-pixel steps.
        let photo: Vec<u8> = (0..1usize << 16)
            .flat_map(|k| [k as u8, (k >> 8) as u8].repeat(3))
            .collect();
        for len in [6 << 16, (6 << 16) - 3, (6 << 16) - 6, 33, 27, 15, 3, 0] {
            let photo = &photo[..len];
            let want: Vec<u8> = photo
                .iter()
                .enumerate()
                .map(|(i, &v)| t[i % 3][v as usize])
                .collect();
            let mut out = vec![0u8; photo.len()];
            d.copy(photo, &mut out);
            assert!(out == want, "copy of {len}");
            let mut inplace = photo.to_vec();
            d.in_place(&mut inplace);
            assert!(inplace == want, "in place {len}");
        }
    }

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
                    b.add(x, [v, 1.0 - v, 0.5 * v]);
                }
                b.end_row(y, x0, x1);
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
