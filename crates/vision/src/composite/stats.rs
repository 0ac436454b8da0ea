//! Photo statistics (rendering.md §5) for auto match and grain: exposure and colour cast from
//! the photo's white point (its brightest cells outside the panel) on a ≤ 256 px linear
//! area-averaged copy, and the Immerkær noise σ on the full-size grey photo in the ring (the quad
//! ×1.5). Cells are sub-sampled on big photos and only the rows that can lie in the ring are
//! read, so the cost stays a few milliseconds.

use wide::{bytemuck, f32x8, i32x8, u8x16};

use super::colour::Srgb;
use crate::image::RgbImage;

/// Longer side of the statistics copy.
pub const STATS_SIZE: usize = 256;

/// What auto match and grain need from the photo.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhotoStats {
    /// `e = clamp(p99 / 0.8, 0.3, 1)`.
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

/// The run `[a, b)` within `[xa, xb)` of the pixels of the row whose centres lie at height `cy`
/// that are [`inside`] the convex quad: the line's crossing with the quad, its ends settled by
/// [`inside`] itself (a convex quad meets a line in one interval), so the run is exactly the
/// pixels the per-pixel test accepts.
fn inside_run(q: &[[f64; 2]; 4], cy: f64, xa: usize, xb: usize) -> (usize, usize) {
    let test = |x: usize| inside(q, x as f64 + 0.5, cy);
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for i in 0..4 {
        let (a, b) = (q[i], q[(i + 1) % 4]);
        if a[1].max(b[1]) < cy || a[1].min(b[1]) > cy {
            continue;
        }
        let dy = b[1] - a[1];
        let ts = if dy == 0.0 {
            [0.0, 1.0]
        } else {
            let t = ((cy - a[1]) / dy).clamp(0.0, 1.0);
            [t, t]
        };
        for t in ts {
            let x = a[0] + (b[0] - a[0]) * t;
            lo = lo.min(x);
            hi = hi.max(x);
        }
    }
    if lo > hi {
        // The line misses the quad.
        return (xa, xa);
    }
    let mut a = (lo - 0.5).ceil().clamp(xa as f64, xb as f64) as usize;
    let mut b = ((hi - 0.5).floor() + 1.0).clamp(a as f64, xb as f64) as usize;
    while a < b && !test(a) {
        a += 1;
    }
    while b > a && !test(b - 1) {
        b -= 1;
    }
    if a == b {
        // Nothing found inside the crossing (a line grazing a corner): scan around it.
        let near = (lo - 2.0).clamp(xa as f64, xb as f64) as usize
            ..(hi + 2.0).clamp(xa as f64, xb as f64) as usize;
        return match near.clone().find(|&x| test(x)) {
            Some(first) => (first, (first..xb).find(|&x| !test(x)).unwrap_or(xb)),
            None => (xa, xa),
        };
    }
    while a > xa && test(a - 1) {
        a -= 1;
    }
    while b < xb && test(b) {
        b += 1;
    }
    (a, b)
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

/// The percentile of the cells' luminance that stands for the photo's white (a white poster in
/// that light): the brightest percent, which a sign, a white wall or the paper of a poster
/// nearby reaches, and a few highlights do not.
pub const WHITE_PERCENTILE: f64 = 0.99;

/// The cells that give the light's colour: at or above this percentile of luminance.
pub const CAST_PERCENTILE: f64 = 0.97;

/// Sampling step inside a cell of the statistics copy: every pixel for photos up to 1024 px,
/// then about four samples per cell side, so a 12-megapixel photo costs a few milliseconds.
pub fn cell_step(w: usize, h: usize) -> usize {
    (w.max(h) / (4 * STATS_SIZE)).max(1)
}

/// Exposure and cast (§5) from the photo's white point on the statistics copy.
///
/// A printed poster reflects the light the scene's white surfaces reflect: the exposure follows
/// the brightest cells of the whole photo outside the panel (the 99th percentile of luminance),
/// not the panel's immediate surroundings, whose brightest parts may be a brick wall (a white
/// mug on a sunlit brick wall came out at a third of the brightness of the posters beside it).
/// The cast is read from the brightest 3 % only, the likeliest to be neutral surfaces showing the
/// light's colour.
pub fn exposure_and_cast(photo: &RgbImage<'_>, quad: &[[f64; 2]; 4]) -> (f32, [f32; 3]) {
    exposure_and_cast_with_step(photo, quad, cell_step(photo.width(), photo.height()))
}

/// [`exposure_and_cast`] with an explicit sampling step inside cells (1 = every pixel).
fn exposure_and_cast_with_step(
    photo: &RgbImage<'_>,
    quad: &[[f64; 2]; 4],
    step: usize,
) -> (f32, [f32; 3]) {
    let (pw, ph, data) = (photo.width(), photo.height(), photo.data());
    let (w, h) = stats_size(pw, ph);
    let (sx, sy) = (w as f64 / pw as f64, h as f64 / ph as f64);
    let q = quad.map(|p| [p[0] * sx, p[1] * sy]);
    let lut = &Srgb::get().decode;
    let mut cells: Vec<(f64, [f64; 3])> = Vec::with_capacity(w * h);
    for oy in 0..h {
        let (y0, y1) = cell(oy, ph, h);
        // The row's cells whose centre is inside the quad are skipped (the panel's own pixels
        // are whatever the site shows now).
        let (ia, ib) = inside_run(&q, oy as f64 + 0.5, 0, w);
        for ox in (0..ia).chain(ib..w) {
            let (x0, x1) = cell(ox, pw, w);
            let mut acc = [0f64; 3];
            let mut n = 0usize;
            for yy in (y0..y1).step_by(step) {
                let row = &data[(yy * pw + x0) * 3..(yy * pw + x1) * 3];
                // Pixels 0, step, 2·step… of the cell's row, by index (`step_by` over
                // `chunks_exact` costs a call per sample).
                let mut i = 0;
                while i + 3 <= row.len() {
                    let px = &row[i..i + 3];
                    for c in 0..3 {
                        acc[c] += lut[px[c] as usize] as f64;
                    }
                    n += 1;
                    i += 3 * step;
                }
            }
            let c = acc.map(|a| (a / n as f64) as f32 as f64);
            cells.push((luminance(c), c));
        }
    }
    exposure_and_cast_of(&cells)
}

/// Exposure and cast from the cells `(luminance, mean linear RGB)` outside the panel.
fn exposure_and_cast_of(cells: &[(f64, [f64; 3])]) -> (f32, [f32; 3]) {
    if cells.is_empty() {
        return (1.0, [1.0; 3]);
    }
    // Percentile p of the sorted luminances: the k-th smallest, found without sorting them all.
    let mut ys: Vec<f64> = cells.iter().map(|c| c.0).collect();
    let mut at = |p: f64| {
        let k = ((p * ys.len() as f64).ceil() as usize).clamp(1, ys.len()) - 1;
        *ys.select_nth_unstable_by(k, f64::total_cmp).1
    };
    let exposure = (at(WHITE_PERCENTILE) / 0.8).clamp(0.3, 1.0) as f32;
    let threshold = at(CAST_PERCENTILE);
    // The brightest cells in the order of a stable sort by luminance (the sum's order).
    let mut bright: Vec<&(f64, [f64; 3])> = cells.iter().filter(|(y, _)| *y >= threshold).collect();
    bright.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut m = [0f64; 3];
    let mut n = 0usize;
    for (_, c) in bright {
        for k in 0..3 {
            m[k] += c[k];
        }
        n += 1;
    }
    let mean = m.map(|v| v / n as f64);
    let ym = luminance(mean);
    if ym <= 0.0 {
        return (exposure, [1.0; 3]);
    }
    let k = mean.map(|c| (c / ym).sqrt().clamp(0.9, 1.1));
    let yk = luminance(k);
    (exposure, k.map(|c| (c / yk) as f32))
}

/// Rows of the ring that [`noise_sigma`] reads: every fourth (hundreds of thousands of pixels
/// on a large panel's ring, far more than the estimate needs).
pub const NOISE_ROW_STEP: usize = 4;

/// The byte shuffle that puts channel `c` of four consecutive RGB pixels into the low bytes of
/// four 32-bit lanes (the other bytes zero: `0x80`), from 16 bytes in which the first of the
/// pixels starts at byte `skip`.
const fn spread(c: usize, skip: usize) -> [u8; 16] {
    let mut t = [0x80u8; 16];
    let mut i = 0;
    while i < 4 {
        t[4 * i] = (3 * i + c + skip) as u8;
        i += 1;
    }
    t
}

/// The grey values of the whole groups of eight pixels of `src` (RGB) into `dst`: the same
/// products as the tables of [`noise_sigma`] (`k · v` in f32, one rounding each) and the same
/// sums, eight lanes at a time. A channel's eight bytes are spread into 32-bit lanes by two
/// byte shuffles, of the group's first 16 bytes (pixels 0 to 3) and of its last 16 (pixels 4
/// to 7, from byte 8), instead of 24 byte inserts.
fn grey_row(src: &[u8], dst: &mut [f32]) {
    const LOW: [[u8; 16]; 3] = [spread(0, 0), spread(1, 0), spread(2, 0)];
    const HIGH: [[u8; 16]; 3] = [spread(0, 4), spread(1, 4), spread(2, 4)];
    let sp = f32x8::splat;
    for (d, p) in dst.chunks_exact_mut(8).zip(src.chunks_exact(24)) {
        let bytes = |at: usize| u8x16::from(<[u8; 16]>::try_from(&p[at..at + 16]).unwrap());
        let (first, last) = (bytes(0), bytes(8));
        let channel = |c: usize| {
            let lo = first.shuffle(u8x16::from(LOW[c]));
            let hi = last.shuffle(u8x16::from(HIGH[c]));
            bytemuck::cast::<_, i32x8>([lo, hi]).round_float()
        };
        let g = sp(0.2126) * channel(0) + sp(0.7152) * channel(1) + sp(0.0722) * channel(2);
        d.copy_from_slice(&g.to_array());
    }
}

/// Immerkær's noise σ (8-bit units) over the ring's pixels at full size, every
/// [`NOISE_ROW_STEP`]-th row.
pub fn noise_sigma(photo: &RgbImage<'_>, quad: &[[f64; 2]; 4]) -> f32 {
    let (w, h, data) = (photo.width(), photo.height(), photo.data());
    if w < 3 || h < 3 {
        return 0.0;
    }
    let outer = scale_quad(quad, 1.5);
    let (bx0, bx1, by0, by1) = bounds(&outer, w, h);
    // `0.2126 · r + 0.7152 · g + 0.0722 · b` in f32, each product from a table.
    let table = |k: f32| -> [f32; 256] { std::array::from_fn(|v| k * v as f32) };
    let (tr, tg, tb) = (table(0.2126), table(0.7152), table(0.0722));
    let grey = |p: &[u8]| -> f32 { tr[p[0] as usize] + tg[p[1] as usize] + tb[p[2] as usize] };
    let (mut sum, mut n) = (0f64, 0usize);
    // Three grey rows, reused across the row's pixels.
    let (xa, xb) = (bx0.max(1), bx1.min(w - 2));
    if xa > xb {
        return 0.0;
    }
    let mut rows = vec![vec![0f32; xb - xa + 3]; 3];
    let mut y = by0.next_multiple_of(NOISE_ROW_STEP).max(1);
    // Pixels of a row in the ring form at most the outer quad's span minus the inner one's.
    while y <= by1.min(h - 2) {
        let cy = y as f64 + 0.5;
        let (oa, ob) = inside_run(&outer, cy, xa, xb + 1);
        let (ia, ib) = inside_run(quad, cy, xa, xb + 1);
        // The ring's pixels, left to right: [oa, ob) less [ia, ib).
        let (left, right) = if ia < ib {
            (oa..ia.clamp(oa, ob), ib.clamp(oa, ob)..ob)
        } else {
            (oa..ob, ob..ob)
        };
        if !left.is_empty() || !right.is_empty() {
            // Only the runs' pixels and their neighbours: the inner quad's span is not read.
            for run in [&left, &right] {
                if run.is_empty() {
                    continue;
                }
                for (k, row) in rows.iter_mut().enumerate() {
                    let start = (y - 1 + k) * w + run.start - 1;
                    let src = &data[start * 3..(start + run.len() + 2) * 3];
                    let dst = &mut row[run.start - xa..run.end - xa + 2];
                    grey_row(src, dst);
                    let done = dst.len() / 8 * 8;
                    for (g, p) in dst[done..].iter_mut().zip(src[3 * done..].chunks_exact(3)) {
                        *g = grey(p);
                    }
                }
            }
            for run in [&left, &right] {
                // Pixel x's 3 × 3 neighbourhood is at x − xa .. x − xa + 3 of the three rows.
                let span = run.start - xa..run.end - xa + 2;
                let [a, b, c] = [0, 1, 2].map(|k| &rows[k][span.clone()]);
                // Eight pixels at a time: the same f32 operations lane by lane, then the f64
                // sum in the pixels' order.
                let pixels = run.len();
                let done = pixels / 8 * 8;
                let at =
                    |r: &[f32], i: usize| f32x8::from(<[f32; 8]>::try_from(&r[i..i + 8]).unwrap());
                for i in (0..done).step_by(8) {
                    let corners = at(a, i) + at(a, i + 2) + at(c, i) + at(c, i + 2);
                    let sides = at(a, i + 1) + at(b, i) + at(b, i + 2) + at(c, i + 1);
                    let l = (corners - f32x8::splat(2.0) * sides
                        + f32x8::splat(4.0) * at(b, i + 1))
                    .abs();
                    for v in l.to_array() {
                        sum += v as f64;
                    }
                }
                for i in done..pixels {
                    let corners = a[i] + a[i + 2] + c[i] + c[i + 2];
                    let sides = a[i + 1] + b[i] + b[i + 2] + c[i + 1];
                    sum += (corners - 2.0 * sides + 4.0 * b[i + 1]).abs() as f64;
                }
                n += pixels;
            }
        }
        y += NOISE_ROW_STEP;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grey_lanes_are_the_table_sums() {
        let table = |k: f32| -> [f32; 256] { std::array::from_fn(|v| k * v as f32) };
        let (tr, tg, tb) = (table(0.2126), table(0.7152), table(0.0722));
        // Every code in every channel, eight pixels at a time, and a tail the lanes leave.
        let src: Vec<u8> = (0..3 * 261).map(|i| (i * 7 + i / 3) as u8).collect();
        let mut dst = vec![-1f32; 261];
        grey_row(&src, &mut dst);
        for (k, (g, p)) in dst.iter().zip(src.chunks_exact(3)).enumerate() {
            if k < 256 {
                let want = tr[p[0] as usize] + tg[p[1] as usize] + tb[p[2] as usize];
                assert_eq!(g.to_bits(), want.to_bits(), "pixel {k}");
            } else {
                assert_eq!(*g, -1.0, "pixel {k} is the scalar path's");
            }
        }
    }

    /// The per-pixel scan that [`noise_sigma`]'s runs replace.
    fn noise_sigma_reference(photo: &RgbImage<'_>, quad: &[[f64; 2]; 4]) -> f32 {
        let (w, h, data) = (photo.width(), photo.height(), photo.data());
        let outer = scale_quad(quad, 1.5);
        let (bx0, bx1, by0, by1) = bounds(&outer, w, h);
        let grey = |x: usize, y: usize| -> f32 {
            let p = &data[(y * w + x) * 3..];
            0.2126 * p[0] as f32 + 0.7152 * p[1] as f32 + 0.0722 * p[2] as f32
        };
        let (mut sum, mut n) = (0f64, 0usize);
        let (xa, xb) = (bx0.max(1), bx1.min(w - 2));
        let mut y = by0.next_multiple_of(NOISE_ROW_STEP).max(1);
        while y <= by1.min(h - 2) {
            for x in xa..=xb {
                let (cx, cy) = (x as f64 + 0.5, y as f64 + 0.5);
                if !inside(&outer, cx, cy) || inside(quad, cx, cy) {
                    continue;
                }
                let g = |dx: usize, dy: usize| grey(x + dx - 1, y + dy - 1);
                let corners = g(0, 0) + g(2, 0) + g(0, 2) + g(2, 2);
                let sides = g(1, 0) + g(0, 1) + g(2, 1) + g(1, 2);
                sum += (corners - 2.0 * sides + 4.0 * g(1, 1)).abs() as f64;
                n += 1;
            }
            y += NOISE_ROW_STEP;
        }
        if n == 0 {
            0.0
        } else {
            ((std::f64::consts::PI / 2.0).sqrt() * (sum / n as f64) / 6.0) as f32
        }
    }

    /// [`exposure_and_cast_of`] with every cell sorted, as §5 reads.
    fn exposure_and_cast_reference(cells: &[(f64, [f64; 3])]) -> (f32, [f32; 3]) {
        let mut cells = cells.to_vec();
        cells.sort_by(|a, b| a.0.total_cmp(&b.0));
        let at =
            |p: f64| cells[((p * cells.len() as f64).ceil() as usize).clamp(1, cells.len()) - 1].0;
        let exposure = (at(WHITE_PERCENTILE) / 0.8).clamp(0.3, 1.0) as f32;
        let threshold = at(CAST_PERCENTILE);
        let (mut m, mut n) = ([0f64; 3], 0usize);
        for (_, c) in cells.iter().filter(|(y, _)| *y >= threshold) {
            for k in 0..3 {
                m[k] += c[k];
            }
            n += 1;
        }
        let mean = m.map(|v| v / n as f64);
        let ym = luminance(mean);
        let k = mean.map(|c| (c / ym).sqrt().clamp(0.9, 1.1));
        let yk = luminance(k);
        (exposure, k.map(|c| (c / yk) as f32))
    }

    #[test]
    fn the_selected_percentiles_match_a_full_sort() {
        for len in [1usize, 2, 9, 10, 11, 97, 1000, 4321] {
            // Few distinct luminances, so that ties (and their order in the sum) matter.
            let cells: Vec<(f64, [f64; 3])> = (0..len)
                .map(|i| {
                    let c =
                        [0, 1, 2].map(|k| ((i * 7919 + k * 104_729) % 1009) as f64 / 1009.0 + 0.01);
                    ((i * 31 % 17) as f64 / 16.0 + 0.01, c)
                })
                .collect();
            assert_eq!(
                exposure_and_cast_of(&cells),
                exposure_and_cast_reference(&cells),
                "{len}"
            );
        }
    }

    #[test]
    fn the_noise_runs_match_the_per_pixel_scan() {
        let (w, h) = (300, 200);
        let data: Vec<u8> = (0..w * h * 3).map(|i| (i * 7919 % 253) as u8).collect();
        let img = RgbImage::new(w, h, &data).unwrap();
        let quads = [
            [[100.0, 60.0], [200.0, 70.0], [195.0, 140.0], [105.0, 150.0]],
            [[10.3, 5.7], [290.2, 20.0], [280.0, 190.5], [3.0, 170.0]],
            [[150.0, 20.5], [250.0, 100.0], [150.0, 180.5], [50.0, 100.0]],
            [[0.0, 0.0], [40.0, 0.0], [40.0, 30.0], [0.0, 30.0]],
        ];
        for q in &quads {
            assert_eq!(
                noise_sigma(&img, q),
                noise_sigma_reference(&img, q),
                "{q:?}"
            );
        }
    }

    /// A 200 × 150 photo of `wall` with a `w × h` patch of `patch` at (x, y).
    fn photo(wall: [u8; 3], patch: [u8; 3], (x, y, w, h): (usize, usize, usize, usize)) -> Vec<u8> {
        let mut data = Vec::with_capacity(200 * 150 * 3);
        for py in 0..150 {
            for px in 0..200 {
                let inside = (x..x + w).contains(&px) && (y..y + h).contains(&py);
                data.extend_from_slice(if inside { &patch } else { &wall });
            }
        }
        data
    }

    const QUAD: [[f64; 2]; 4] = [[80.0, 60.0], [120.0, 60.0], [120.0, 90.0], [80.0, 90.0]];

    #[test]
    fn a_coloured_wall_with_white_signs_keeps_exposure_and_a_near_neutral_cast() {
        // A brick-red wall (its own colour, not the light's) with a white sign beside the panel,
        // a twelfth of the photo.
        let data = photo([150, 70, 50], [235, 235, 235], (30, 40, 40, 60));
        let img = RgbImage::new(200, 150, &data).unwrap();
        let (e, cast) = exposure_and_cast(&img, &QUAD);
        let white = Srgb::get().decode[235];
        assert!((e - (white / 0.8).min(1.0)).abs() < 1e-3, "exposure {e}");
        // The cast comes from the white sign: neutral, so the creative is not tinted red.
        for c in cast {
            assert!((c - 1.0).abs() < 0.02, "cast {cast:?}");
        }
    }

    #[test]
    fn a_warm_light_gives_a_warm_cast_that_keeps_luminance() {
        // Everything lit by warm light: the brightest surfaces are warm too.
        let data = photo([120, 100, 80], [250, 215, 170], (30, 55, 25, 40));
        let img = RgbImage::new(200, 150, &data).unwrap();
        let (_, cast) = exposure_and_cast(&img, &QUAD);
        assert!(cast[0] > 1.0 && cast[2] < 1.0, "cast {cast:?}");
        assert!(cast.iter().all(|c| (0.9 * 0.8..=1.1 * 1.25).contains(c)));
        let y = 0.2126 * cast[0] + 0.7152 * cast[1] + 0.0722 * cast[2];
        assert!((y - 1.0).abs() < 1e-5, "luminance {y}");
    }

    #[test]
    fn sub_sampled_cells_give_nearly_the_same_statistics() {
        // A 2048 × 1536 photo has a step of 2; a smooth scene gives the same figures either way.
        let (w, h) = (2048, 1536);
        let mut data = Vec::with_capacity(w * h * 3);
        for y in 0..h {
            for x in 0..w {
                data.extend_from_slice(&[(x * 255 / w) as u8, (y * 255 / h) as u8, 128]);
            }
        }
        assert_eq!(cell_step(w, h), 2);
        let img = RgbImage::new(w, h, &data).unwrap();
        let quad = [
            [800.0, 600.0],
            [1200.0, 620.0],
            [1190.0, 900.0],
            [810.0, 880.0],
        ];
        let (e, cast) = exposure_and_cast(&img, &quad);
        // The reference: the same cells with every pixel read.
        let (e1, cast1) = exposure_and_cast_with_step(&img, &quad, 1);
        assert!((e - e1).abs() < 0.01, "{e} vs {e1}");
        for k in 0..3 {
            assert!((cast[k] - cast1[k]).abs() < 0.01, "{cast:?} vs {cast1:?}");
        }
    }
}
