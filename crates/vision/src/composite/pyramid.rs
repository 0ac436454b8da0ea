//! The creative's linear-light mip pyramid and its anisotropic trilinear sampling
//! (rendering.md §2). Level k+1 averages the 2 × 2 texels of level k it covers, dropping the last
//! row/column of an odd size, as WebGL's `generateMipmap` does. A level is read through a 3 × 3
//! texel kernel: from level 1 on, the mean of four bilinear taps half a texel around the point,
//! which has no response at the level's Nyquist frequency whatever the phase (the box pyramid
//! keeps a pattern of that frequency at full contrast, and a plain bilinear read of it beats
//! against the pixel grid); on level 0 bilinear (magnification, 1:1) turning into a quadratic
//! B-spline as the creative is shrunk. The levels above 0 are stored as their corner grids, on
//! which the comb is a plain bilinear read.

use wide::{bytemuck, f32x4, f32x8, i32x8};

use super::adjust::LANES;
use super::colour::{Srgb, fast_log2};

/// Added before truncating to floor a coordinate: larger than any sensible distance outside a
/// texture, small enough that f32 keeps sub-texel precision for textures up to 16k texels.
const OFFSET: f32 = 4096.0;

/// Texels of border around level 0 (each repeating the nearest edge texel), and around the
/// corner grids of the levels above.
const BORDER: usize = 2;
const GRID_BORDER: usize = 1;

/// One level of `w × h` texels. Level 0 stores its texels (the decoded creative); the levels
/// above store their **corner grid**: the `(w + 1) × (h + 1)` means of the 2 × 2 texels around
/// each texel corner (edge texels repeated), because their kernel (the comb of rendering.md §2,
/// the mean of bilinear reads at `x ± ½`, `y ± ½`) is exactly a bilinear read of that grid:
/// four loads instead of nine. The texels of level k + 1 are the odd corners of level k's grid
/// (`(2i + 1, 2j + 1)`: the mean of texels `2i, 2i + 1` of rows `2j, 2j + 1`), so nothing else is
/// kept.
#[derive(Debug, Clone)]
pub struct Level {
    /// Width in texels.
    pub w: usize,
    /// Height in texels.
    pub h: usize,
    /// The stored values as `[r, g, b, 0]` (one 16-byte load, four lanes of arithmetic), inside
    /// a border that repeats the nearest edge value. Level 0: `w × h` texels, border 2, so that a
    /// 3 × 3 window centred on a texel clamped to `−1..=w` (and rows alike) is always at
    /// `i + {0, 1, 2} + stride · {0, 1, 2}`. Above: the corner grid, border 1, so that a
    /// bilinear footprint clamped to `−1..=w` finds its four values at `i, i + 1, i + stride,
    /// i + stride + 1`. Either way the values read are the edge-clamped ones.
    pub data: Vec<[f32; 4]>,
    /// Texels per level-0 pixel along x and y (`w / Wc`, `h / Hc`).
    scale: (f32, f32),
    /// Stored values per row and rows, border excluded.
    size: (usize, usize),
    /// Border width.
    border: usize,
}

impl Level {
    /// A level of `w × h` texels whose stored rows (`size.0` values each, `size.1` of them) are
    /// written by `fill_row(y, row)`, with a border of `border`, in `data` (a previous level's
    /// storage, reused: every element is overwritten, so storage of the right length is neither
    /// cleared nor faulted in again).
    fn new(
        (w, h): (usize, usize),
        size: (usize, usize),
        border: usize,
        scale: (f32, f32),
        mut data: Vec<[f32; 4]>,
        mut fill_row: impl FnMut(usize, &mut [[f32; 4]]),
    ) -> Level {
        let (gw, gh) = size;
        let stride = gw + 2 * border;
        data.truncate(stride * (gh + 2 * border));
        data.resize(stride * (gh + 2 * border), [0f32; 4]);
        for (y, row) in data
            .chunks_exact_mut(stride)
            .skip(border)
            .take(gh)
            .enumerate()
        {
            fill_row(y, &mut row[border..border + gw]);
            repeat_edges(row, gw, border);
        }
        repeat_edge_rows(&mut data, stride, gh, border);
        Level {
            w,
            h,
            data,
            scale,
            size,
            border,
        }
    }

    /// Row length of `data`, border included.
    #[inline(always)]
    pub fn stride(&self) -> usize {
        self.size.0 + 2 * self.border
    }

    /// Stored value `(x, y)`: texel `(x, y)` of level 0, corner `(x, y)` (between texels
    /// `x − 1, x` and rows `y − 1, y`) above.
    #[inline(always)]
    pub fn stored(&self, x: usize, y: usize) -> [f32; 4] {
        self.data[(y + self.border) * self.stride() + x + self.border]
    }

    /// The stored values of row `y` (border excluded).
    #[inline(always)]
    fn row(&self, y: usize) -> &[[f32; 4]] {
        &self.data[(y + self.border) * self.stride() + self.border..][..self.size.0]
    }
}

/// Fills a stored row's border of `border` values with its edge values (`w` from `border` on).
#[inline(always)]
fn repeat_edges(row: &mut [[f32; 4]], w: usize, border: usize) {
    let (first, last) = (row[border], row[border + w - 1]);
    row[..border].fill(first);
    row[border + w..].fill(last);
}

/// Fills the border rows of `h` stored rows of `stride` values with copies of the edge rows.
fn repeat_edge_rows(data: &mut [[f32; 4]], stride: usize, h: usize, border: usize) {
    for r in 0..border {
        data.copy_within(border * stride..(border + 1) * stride, r * stride);
        let last = (border + h - 1) * stride;
        data.copy_within(last..last + stride, (border + h + r) * stride);
    }
}

/// A level's corner grid made row by row from its texel rows, as they come: after texel row
/// `j` is given, grid row `j` (between texel rows `j − 1` and `j`) is written, and the last grid
/// row once the last texel row is in.
struct Corners {
    /// Texel row `j − 1` (clamped to row 0 for the first).
    prev: Vec<[f32; 4]>,
    /// Texel rows given so far.
    rows: usize,
}

impl Corners {
    fn new() -> Corners {
        Corners {
            prev: Vec::new(),
            rows: 0,
        }
    }

    /// Takes texel row `j` and writes grid row `j` into `out` (`w + 1` values).
    fn push(&mut self, row: &[[f32; 4]], out: &mut [[f32; 4]]) {
        if self.rows == 0 {
            self.prev.clear();
            self.prev.extend_from_slice(row);
        }
        corner_row(&self.prev, row, out);
        self.prev.copy_from_slice(row);
        self.rows += 1;
    }

    /// Writes the last grid row (below the last texel row).
    fn finish(&self, out: &mut [[f32; 4]]) {
        corner_row(&self.prev, &self.prev, out);
    }
}

/// One corner-grid row between texel rows `r0` and `r1` (`w` texels each): value `m` is the
/// mean of texels `m − 1` and `m` of both rows, clamped to the row, summed in the order of
/// [`halve_row`] so that the odd corners are exactly the next level's texels.
#[inline(always)]
fn corner_row(r0: &[[f32; 4]], r1: &[[f32; 4]], out: &mut [[f32; 4]]) {
    let w = r0.len();
    let f = |p: [f32; 4]| f32x4::from(p);
    let mean = |a: usize, b: usize| {
        let sum = f(r0[a]) + f(r0[b]) + f(r1[a]) + f(r1[b]);
        (f32x4::splat(0.25) * sum).to_array()
    };
    // The edge corners repeat the edge texels; the others average two columns.
    out[0] = mean(0, 0);
    out[w] = mean(w - 1, w - 1);
    for (m, o) in out[1..w].iter_mut().enumerate() {
        *o = mean(m, m + 1);
    }
}

/// The pyramid of a creative, level 0 first.
#[derive(Debug, Clone, Default)]
pub struct Pyramid {
    /// The levels, halving down to 1 × 1.
    pub levels: Vec<Level>,
}

/// The footprint of one output pixel in creative pixels: the centre and the Jacobian's columns.
#[derive(Debug, Clone, Copy)]
pub struct Footprint {
    /// Centre, creative pixels (continuous).
    pub u: f32,
    /// Centre, creative pixels (continuous).
    pub v: f32,
    /// `(∂u/∂x, ∂v/∂x)`.
    pub jx: [f32; 2],
    /// `(∂u/∂y, ∂v/∂y)`.
    pub jy: [f32; 2],
}

impl Pyramid {
    /// Builds the pyramid of an 8-bit sRGB image (`w · h · 3` bytes).
    pub fn build(w: usize, h: usize, rgb: &[u8]) -> Pyramid {
        let mut p = Pyramid { levels: Vec::new() };
        p.rebuild(w, h, rgb);
        p
    }

    /// [`Pyramid::build`] in place, reusing this pyramid's storage (same result).
    pub fn rebuild(&mut self, w: usize, h: usize, rgb: &[u8]) {
        let (wc, hc) = (w as f32, h as f32);
        let mut old = std::mem::take(&mut self.levels).into_iter().map(|l| l.data);
        let mut levels = Vec::new();
        let (first, second) = (
            old.next().unwrap_or_default(),
            old.next().unwrap_or_default(),
        );
        if w > 1 || h > 1 {
            let (l0, l1) = first_levels(w, h, rgb, first, second);
            levels.push(l0);
            levels.push(l1);
        } else {
            levels.push(Level::new(
                (w, h),
                (w, h),
                BORDER,
                (1.0, 1.0),
                first,
                |y, row| decode_row(&rgb[y * w * 3..(y + 1) * w * 3], row),
            ));
        }
        let mut corners = Corners::new();
        let mut texels = Vec::new();
        while let Some(prev) = levels.last().filter(|l| l.w > 1 || l.h > 1) {
            // Level k + 1's texels are the odd corners of level k's grid.
            let (nw, nh) = ((prev.w / 2).max(1), (prev.h / 2).max(1));
            let scale = (nw as f32 / wc, nh as f32 / hc);
            corners.rows = 0;
            let level = Level::new(
                (nw, nh),
                (nw + 1, nh + 1),
                GRID_BORDER,
                scale,
                old.next().unwrap_or_default(),
                |j, row| {
                    if j == nh {
                        corners.finish(row);
                        return;
                    }
                    let grid = prev.row(2 * j + 1);
                    texels.clear();
                    texels.extend((0..nw).map(|i| grid[2 * i + 1]));
                    corners.push(&texels, row);
                },
            );
            levels.push(level);
        }
        self.levels = levels;
    }

    /// Texel `(x, y)` of level `k` (`x < w`, `y < h`): stored for level 0, an odd corner of
    /// level k − 1's grid above level 1, and for level 1 the mean of level 0's 2 × 2 texels
    /// (as the build makes it).
    pub fn texel(&self, k: usize, x: usize, y: usize) -> [f32; 4] {
        match k {
            0 => self.levels[0].stored(x, y),
            1 => {
                let l = &self.levels[0];
                let (x1, y1) = ((2 * x + 1).min(l.w - 1), (2 * y + 1).min(l.h - 1));
                let mut out = [[0f32; 4]];
                halve_row(
                    &[l.stored(2 * x, 2 * y), l.stored(x1, 2 * y)],
                    &[l.stored(2 * x, y1), l.stored(x1, y1)],
                    &mut out,
                );
                out[0]
            }
            _ => self.levels[k - 1].stored(2 * x + 1, 2 * y + 1),
        }
    }

    /// Level `k` read through its kernel (rendering.md §2) at `(u, v)` in level-0 pixels, as
    /// `[r, g, b, 0]`; `beta` is level 0's B-spline share ([`level0_share`]), unused above.
    #[inline(always)]
    pub fn level_sample(&self, k: usize, u: f32, v: f32, beta: f32) -> f32x4 {
        let l = &self.levels[k];
        if k > 0 {
            // The comb: bilinear on the corner grid, whose value m sits at texel coordinate
            // m − ½, i.e. at grid coordinate u · w_k / Wc.
            let (at, fx, fy) = grid_position(l, u * l.scale.0, v * l.scale.1);
            return grid_bilinear(&l.data, at, l.stride(), fx, fy);
        }
        let share = Some(beta);
        let (ix, wx) = axis(u * l.scale.0 - 0.5, l.w, share);
        let (iy, wy) = axis(v * l.scale.1 - 0.5, l.h, share);
        let stride = l.stride();
        window(&l.data, iy * stride + ix, stride, wx, wy)
    }

    /// Trilinear sample at level-of-detail `lambda` (already clamped to the levels): levels
    /// `⌊λ⌋` and `⌊λ⌋ + 1` through their kernels, mixed by the fraction of λ.
    #[inline(always)]
    fn trilinear(&self, lambda: f32, u: f32, v: f32) -> [f32; 3] {
        let k = lambda as usize;
        let f = lambda - k as f32;
        let beta = level0_share(lambda);
        let a = self.level_sample(k, u, v, beta);
        if f <= 0.0 || k + 1 >= self.levels.len() {
            return rgb(a);
        }
        let b = self.level_sample(k + 1, u, v, beta);
        rgb(a + (b - a) * f32x4::splat(f))
    }

    /// [`Pyramid::sample`] for the first `n` of [`LANES`] footprints given channel-major
    /// (`[u, v, jx.0, jx.1, jy.0, jy.1][lane]`), into `a` and `b` channel-major
    /// (`[channel][lane]`; `b` means nothing without `second_bias`): the levels are computed
    /// lane by lane (vectorised) when every footprint takes one tap, else each footprint goes
    /// through [`Pyramid::sample`]. The same results either way (tested).
    #[inline(always)]
    pub fn sample_lanes(
        &self,
        fp: &[[f32; LANES]; 6],
        n: usize,
        bias: f32,
        second_bias: Option<f32>,
        a: &mut [[f32; LANES]; 3],
        b: &mut [[f32; LANES]; 3],
    ) {
        let top = (self.levels.len() - 1) as f32;
        let mut one = true;
        let mut base = [0f32; LANES];
        for i in 0..LANES {
            let lx2 = fp[2][i] * fp[2][i] + fp[3][i] * fp[3][i];
            let ly2 = fp[4][i] * fp[4][i] + fp[5][i] * fp[5][i];
            let lmax2 = lx2.max(ly2);
            let lmin2 = lx2.min(ly2).max(1e-12);
            one &= i >= n || lmax2 < 2.25 * lmin2;
            let l = 0.5 * fast_log2(lmax2);
            base[i] = if lmax2 > 1.0 { l } else { 0.0 };
        }
        if !one {
            for i in 0..n {
                let f = Footprint {
                    u: fp[0][i],
                    v: fp[1][i],
                    jx: [fp[2][i], fp[3][i]],
                    jy: [fp[4][i], fp[5][i]],
                };
                let (x, y) = self.sample(&f, bias, second_bias);
                for c in 0..3 {
                    (a[c][i], b[c][i]) = (x[c], y[c]);
                }
            }
            return;
        }
        let lambda = |bias: f32| -> [f32; LANES] {
            let mut l = [0f32; LANES];
            for i in 0..LANES {
                l[i] = (base[i] + bias).clamp(0.0, top);
            }
            l
        };
        let (u, v) = (&fp[0], &fp[1]);
        let la = lambda(bias);
        let Some(sb) = second_bias else {
            *a = self.trilinear_lanes(&la, u, v, n);
            return;
        };
        let lb = lambda(sb);
        // The unsharp mask's twin is 1.5 levels coarser: when the main sample mixes levels k
        // and k + 1 and the twin k + 1 and k + 2, level k + 1 is read once for both (its
        // kernel does not depend on λ from level 1 on).
        match (self.common_level(&la, n), self.common_level(&lb, n)) {
            (Some(k), Some(kb)) if kb == k + 1 => {
                let beta = level0_share_lanes(&la);
                let l0 = self.level_lanes(k, u, v, beta);
                let l1 = self.level_lanes(k + 1, u, v, beta);
                let l2 = self.level_lanes(k + 2, u, v, beta);
                *a = pair_channels(&mix_lanes(&l0, &l1, &la, k));
                *b = pair_channels(&mix_lanes(&l1, &l2, &lb, k + 1));
            }
            _ => {
                *a = self.trilinear_lanes(&la, u, v, n);
                *b = self.trilinear_lanes(&lb, u, v, n);
            }
        }
    }

    /// The level `k` when the first `n` lanes all mix levels `k` and `k + 1` (a fraction above
    /// 0, `k + 1` a level), else `None`.
    #[inline(always)]
    fn common_level(&self, lambda: &[f32; LANES], n: usize) -> Option<usize> {
        let k = lambda[0] as usize;
        // For λ ≥ 0 (clamped), `λ as usize == k` with a fraction above 0 is k < λ < k + 1;
        // NaN fails both comparisons, as it fails the fraction test.
        let kf = k as f32;
        let l = f32x8::from(*lambda);
        let inside = l.simd_gt(f32x8::splat(kf)) & l.simd_lt(f32x8::splat(kf + 1.0));
        let first = (1u32 << n) - 1;
        (inside.to_bitmask() & first == first && k + 1 < self.levels.len()).then_some(k)
    }

    /// [`Pyramid::trilinear`] of the first `n` lanes, channel-major (lanes past `n` are 0 or
    /// any value): when they all mix the same two levels, the texel coordinates and weights are
    /// computed lane by lane (vectorised), else one at a time.
    #[inline(always)]
    fn trilinear_lanes(
        &self,
        lambda: &[f32; LANES],
        u: &[f32; LANES],
        v: &[f32; LANES],
        n: usize,
    ) -> [[f32; LANES]; 3] {
        let Some(k) = self.common_level(lambda, n) else {
            let mut out = [[0f32; LANES]; 3];
            for i in 0..n {
                let t = self.trilinear(lambda[i], u[i], v[i]);
                for c in 0..3 {
                    out[c][i] = t[c];
                }
            }
            return out;
        };
        let beta = level0_share_lanes(lambda);
        let a = self.level_lanes(k, u, v, beta);
        let b = self.level_lanes(k + 1, u, v, beta);
        pair_channels(&mix_lanes(&a, &b, lambda, k))
    }

    /// [`Pyramid::level_sample`] of level `k` for every lane, as [`Pairs`]: the positions and
    /// weights lane by lane, the arithmetic on the four channels of two lanes' texels at once.
    #[inline(always)]
    fn level_lanes(&self, k: usize, u: &[f32; LANES], v: &[f32; LANES], beta: f32x8) -> Pairs {
        let l = &self.levels[k];
        let stride = l.stride();
        // Every lane (those past `n` are read, clamped, and dropped): fixed bounds unroll.
        // Vector `p` of the result holds lanes `p` and `p + 4` ([`Pairs`]).
        if k > 0 {
            // Exactly the operations of `grid_position`, eight lanes at once; `trunc_int`
            // saturates (and maps NaN to 0) like `as i32`.
            let x = f32x8::from(*u) * f32x8::splat(l.scale.0);
            let y = f32x8::from(*v) * f32x8::splat(l.scale.1);
            let off = i32x8::splat(OFFSET as i32);
            let xi = (x + f32x8::splat(OFFSET)).trunc_int() - off;
            let yi = (y + f32x8::splat(OFFSET)).trunc_int() - off;
            let (fx, fy) = (x - xi.round_float(), y - yi.round_float());
            let (lo, one) = (i32x8::splat(-1), i32x8::splat(1));
            let x0 = xi.max(lo).min(i32x8::splat(l.size.0 as i32 - 1)) + one;
            let y0 = yi.max(lo).min(i32x8::splat(l.size.1 as i32 - 1)) + one;
            let at = (y0 * i32x8::splat(stride as i32) + x0).to_array();
            let f = [fx, fy];
            // Written out: a closure or an array's `map` here would not be inlined.
            return [
                grid_pair_of(l, &at, f, 0),
                grid_pair_of(l, &at, f, 1),
                grid_pair_of(l, &at, f, 2),
                grid_pair_of(l, &at, f, 3),
            ];
        }
        let x = f32x8::from(*u) * f32x8::splat(l.scale.0) - f32x8::splat(0.5);
        let y = f32x8::from(*v) * f32x8::splat(l.scale.1) - f32x8::splat(0.5);
        let (ix, wx) = axis_lanes(x, l.w, Some(beta));
        let (iy, wy) = axis_lanes(y, l.h, Some(beta));
        let at = (iy * i32x8::splat(stride as i32) + ix).to_array();
        let w = [wx, wy];
        [
            window_pair_of(l, &at, &w, 0),
            window_pair_of(l, &at, &w, 1),
            window_pair_of(l, &at, &w, 2),
            window_pair_of(l, &at, &w, 3),
        ]
    }

    /// Anisotropic trilinear filtering of a footprint (rendering.md §2) at LOD `bias`, and when
    /// `second_bias` is given the same taps at that bias too (the unsharp mask's blurred twin).
    #[inline(always)]
    pub fn sample(
        &self,
        fp: &Footprint,
        bias: f32,
        second_bias: Option<f32>,
    ) -> ([f32; 3], [f32; 3]) {
        let lx2 = fp.jx[0] * fp.jx[0] + fp.jx[1] * fp.jx[1];
        let ly2 = fp.jy[0] * fp.jy[0] + fp.jy[1] * fp.jy[1];
        let top = (self.levels.len() - 1) as f32;
        let lmax2 = lx2.max(ly2);
        let lmin2 = lx2.min(ly2).max(1e-12);
        // Lmax / Lmin < 1.5: one tap at the centre at the level of Lmax, the common case near
        // 1:1 scale, without square roots or divisions (log2 L = log2(L²) / 2).
        if lmax2 < 2.25 * lmin2 {
            let base = if lmax2 > 1.0 {
                0.5 * fast_log2(lmax2)
            } else {
                0.0
            };
            let l1 = (base + bias).clamp(0.0, top);
            let a = self.trilinear(l1, fp.u, fp.v);
            let b = second_bias.map_or([0.0; 3], |b| {
                self.trilinear((base + b).clamp(0.0, top), fp.u, fp.v)
            });
            return (a, b);
        }
        let (lx, ly) = (lx2.sqrt(), ly2.sqrt());
        let (lmax, major) = if lx >= ly { (lx, fp.jx) } else { (ly, fp.jy) };
        let lmin = lx.min(ly).max(1e-6);
        let ratio = lmax / lmin;
        // floor(ratio + 0.5) clamped to 2..4 (ratio ≥ 1.5 here), without the library call.
        let taps = if ratio < 2.5 {
            2
        } else if ratio < 3.5 {
            3
        } else {
            4
        };
        let n = taps as f32;
        // The level follows the larger of the per-tap major extent and the minor extent: with
        // 2 taps on a footprint of ratio 1.5 the per-tap extent would otherwise drop below the
        // minor axis's footprint and alias (rendering.md §2).
        let extent = (lmax / n).max(lmin);
        let base = if extent > 1.0 { fast_log2(extent) } else { 0.0 };
        let l1 = (base + bias).clamp(0.0, top);
        let l2 = second_bias.map(|b| (base + b).clamp(0.0, top));
        let mut a = [0f32; 3];
        let mut b = [0f32; 3];
        for i in 0..taps {
            let o = (i as f32 + 0.5) / n - 0.5;
            let (u, v) = (fp.u + major[0] * o, fp.v + major[1] * o);
            let s = self.trilinear(l1, u, v);
            for c in 0..3 {
                a[c] += s[c];
            }
            if let Some(l2) = l2 {
                let s = self.trilinear(l2, u, v);
                for c in 0..3 {
                    b[c] += s[c];
                }
            }
        }
        let k = 1.0 / n;
        (a.map(|x| x * k), b.map(|x| x * k))
    }
}

/// Level 0 (the decoded creative) and level 1 (the corner grid of its 2 × 2 means) of a `w × h`
/// image, `w > 1` or `h > 1`, in the given storage: each level-1 texel row is made as soon as
/// the two level-0 rows it averages are written, while they are still in cache, rather than by
/// reading level 0 back from memory, and its corner-grid row right after.
fn first_levels(
    w: usize,
    h: usize,
    rgb: &[u8],
    mut d0: Vec<[f32; 4]>,
    mut d1: Vec<[f32; 4]>,
) -> (Level, Level) {
    let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
    let (s0, s1) = (w + 2 * BORDER, nw + 1 + 2 * GRID_BORDER);
    d0.truncate(s0 * (h + 2 * BORDER));
    d0.resize(s0 * (h + 2 * BORDER), [0f32; 4]);
    d1.truncate(s1 * (nh + 1 + 2 * GRID_BORDER));
    d1.resize(s1 * (nh + 1 + 2 * GRID_BORDER), [0f32; 4]);
    let fill0 = |d0: &mut [[f32; 4]], y: usize| {
        let row = &mut d0[(y + BORDER) * s0..(y + BORDER + 1) * s0];
        decode_row(
            &rgb[y * w * 3..(y + 1) * w * 3],
            &mut row[BORDER..BORDER + w],
        );
        repeat_edges(row, w, BORDER);
    };
    let grid_row = |j: usize| {
        let start = (j + GRID_BORDER) * s1;
        start + GRID_BORDER..start + GRID_BORDER + nw + 1
    };
    let mut corners = Corners::new();
    let mut texels = vec![[0f32; 4]; nw];
    let mut made = 0;
    for j in 0..nh {
        let (y0, y1) = (2 * j, (2 * j + 1).min(h - 1));
        while made <= y1 {
            fill0(&mut d0, made);
            made += 1;
        }
        let r0 = &d0[(y0 + BORDER) * s0 + BORDER..][..w];
        let r1 = &d0[(y1 + BORDER) * s0 + BORDER..][..w];
        halve_row(r0, r1, &mut texels);
        corners.push(&texels, &mut d1[grid_row(j)]);
    }
    corners.finish(&mut d1[grid_row(nh)]);
    while made < h {
        fill0(&mut d0, made);
        made += 1;
    }
    for j in 0..=nh {
        let row = &mut d1[(j + GRID_BORDER) * s1..(j + GRID_BORDER + 1) * s1];
        repeat_edges(row, nw + 1, GRID_BORDER);
    }
    repeat_edge_rows(&mut d0, s0, h, BORDER);
    repeat_edge_rows(&mut d1, s1, nh + 1, GRID_BORDER);
    let scale = (nw as f32 / w as f32, nh as f32 / h as f32);
    (
        Level {
            w,
            h,
            data: d0,
            scale: (1.0, 1.0),
            size: (w, h),
            border: BORDER,
        },
        Level {
            w: nw,
            h: nh,
            data: d1,
            scale,
            size: (nw + 1, nh + 1),
            border: GRID_BORDER,
        },
    )
}

/// The storage index of a corner grid's value at the top-left of grid coordinate `(x, y)`
/// (value m at m), clamped to the grid, and the fractions towards the next value.
#[inline(always)]
fn grid_position(l: &Level, x: f32, y: f32) -> (usize, f32, f32) {
    // floor() is a library call without SSE4.1; truncation after an offset is not. The
    // offset keeps coordinates far outside the texture (clamped anyway) non-negative.
    let xi = (x + OFFSET) as i32 - OFFSET as i32;
    let yi = (y + OFFSET) as i32 - OFFSET as i32;
    let (fx, fy) = (x - xi as f32, y - yi as f32);
    // Clamped to the border: values x0 and x0 + 1 are then clamp(xi) and clamp(xi + 1).
    let x0 = (xi.clamp(-1, l.size.0 as i32 - 1) + 1) as usize;
    let y0 = (yi.clamp(-1, l.size.1 as i32 - 1) + 1) as usize;
    (y0 * l.stride() + x0, fx, fy)
}

/// Bilinear interpolation of the four stored values from `at`.
#[inline(always)]
fn grid_bilinear(d: &[[f32; 4]], at: usize, stride: usize, fx: f32, fy: f32) -> f32x4 {
    let p = &d[at..][..stride + 2];
    bilinear(
        |j| f32x4::from(p[j]),
        stride,
        f32x4::splat(fx),
        f32x4::splat(fy),
    )
}

/// [`grid_bilinear`] of two lanes at once, side by side (the same operations on each); the
/// fractions as [`pair_of`]s.
#[inline(always)]
fn grid_bilinear_pair(
    d: &[[f32; 4]],
    at: [usize; 2],
    stride: usize,
    fx: f32x8,
    fy: f32x8,
) -> f32x8 {
    let (p, q) = (&d[at[0]..][..stride + 2], &d[at[1]..][..stride + 2]);
    let t = |j: usize| -> f32x8 { bytemuck::cast([p[j], q[j]]) };
    bilinear(t, stride, fx, fy)
}

/// The corner-grid reads (level `l` above 0) of lanes `p` and `p + 4` as a pair, from the
/// lanes' storage indices `at` and fractions `f` (`[fx, fy]`).
#[inline(always)]
fn grid_pair_of(l: &Level, at: &[i32; LANES], f: [f32x8; 2], p: usize) -> f32x8 {
    let at = [at[p] as usize, at[p + 4] as usize];
    grid_bilinear_pair(&l.data, at, l.stride(), pair_of(f[0], p), pair_of(f[1], p))
}

/// Level 0's windows of lanes `p` and `p + 4` as a pair, from the lanes' storage indices `at`
/// and axis weights `w` (`[wx, wy]`).
#[inline(always)]
fn window_pair_of(l: &Level, at: &[i32; LANES], w: &[[f32x8; 3]; 2], p: usize) -> f32x8 {
    let at = [at[p] as usize, at[p + 4] as usize];
    let [wx, wy] = w;
    let wx = [pair_of(wx[0], p), pair_of(wx[1], p), pair_of(wx[2], p)];
    let wy = [pair_of(wy[0], p), pair_of(wy[1], p), pair_of(wy[2], p)];
    window_pair(&l.data, at, l.stride(), wx, wy)
}

/// The bilinear mix of values `t(0)`, `t(1)`, `t(stride)`, `t(stride + 1)`: one texel a vector
/// ([`grid_bilinear`]) or two lanes' side by side ([`grid_bilinear_pair`]), the same operations.
#[inline(always)]
fn bilinear<T: Texels>(t: impl Fn(usize) -> T, stride: usize, fx: T, fy: T) -> T {
    let (a, b, c, e) = (t(0), t(1), t(stride), t(stride + 1));
    let top = a + (b - a) * fx;
    let bot = c + (e - c) * fx;
    top + (bot - top) * fy
}

/// What the texel arithmetic runs on: `f32x4` (one texel) or `f32x8` (two lanes' texels).
trait Texels:
    Copy + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self> + std::ops::Mul<Output = Self>
{
}

impl Texels for f32x4 {}
impl Texels for f32x8 {}

/// A chunk's [`LANES`] texel-like values (`[r, g, b, 0]`) as four vectors, vector `p` holding
/// lanes `p` and `p + 4` side by side: each 128-bit half then holds the lanes `0..4` or `4..8` in
/// order, so that a lane's value is spread over a pair with one in-half shuffle
/// ([`pair_of`]) and the channels are gathered back with a 4 × 4 transpose in each half
/// ([`pair_channels`]), where pairs of neighbouring lanes need shuffles across the halves.
type Pairs = [f32x8; 4];

/// `[x_p, x_p, x_p, x_p, x_{p+4}, …]`: lanes `p` and `p + 4` of `x`, each over its half of a
/// pair (one in-half shuffle).
#[inline(always)]
fn pair_of(x: f32x8, p: usize) -> f32x8 {
    let a = x.to_array();
    let (l, h) = (a[p], a[p + 4]);
    f32x8::from([l, l, l, l, h, h, h, h])
}

/// [`Pairs`] to channel-major (`[channel][lane]`): in each half, the 4 × 4 transpose of the
/// four pairs' texels, whose first three rows are the channels.
#[inline(always)]
fn pair_channels(x: &Pairs) -> [[f32; LANES]; 3] {
    let (a, b, c, d) = (
        x[0].to_array(),
        x[1].to_array(),
        x[2].to_array(),
        x[3].to_array(),
    );
    // Each half: the four lanes' red, green and blue, in lane order.
    let channel = |k: usize| -> [f32; LANES] {
        [
            a[k],
            b[k],
            c[k],
            d[k],
            a[4 + k],
            b[4 + k],
            c[4 + k],
            d[4 + k],
        ]
    };
    [channel(0), channel(1), channel(2)]
}

/// Level 0's B-spline share at level-of-detail `lambda` (rendering.md §2): `min(1, 2λ)`, so
/// that level 0 is read bilinearly at 1:1 and beyond (magnification), and through the quadratic
/// B-spline from a shrink of √2 on.
#[inline(always)]
pub fn level0_share(lambda: f32) -> f32 {
    (2.0 * lambda).min(1.0)
}

/// [`level0_share`] lane by lane.
#[inline(always)]
fn level0_share_lanes(lambda: &[f32; LANES]) -> f32x8 {
    (f32x8::from(*lambda) * f32x8::splat(2.0)).min(f32x8::splat(1.0))
}

/// One axis of a level's kernel: `x` in texels with texel centres at whole numbers (`u · w_k /
/// Wc − ½`), `n` texels. Returns the storage column (border included) of texel `c − 1`, `c` the
/// texel nearest to `x`, and the weights of texels `c − 1`, `c`, `c + 1`: level 0's (B-spline
/// share `Some(β)`) or the comb of the levels above (`None`).
#[inline(always)]
fn axis(x: f32, n: usize, share: Option<f32>) -> (usize, [f32; 3]) {
    // Beyond these bounds every texel of the window is an edge texel: clamping changes
    // nothing, and keeps the window inside the stored border.
    let x = x.max(-1.5).min(n as f32 + 0.5);
    // floor(x + ½) by truncation after an offset (floor() is a library call without SSE4.1).
    let c = (((x + 0.5) + OFFSET) as i32 - OFFSET as i32).min(n as i32);
    let g = x - c as f32;
    let w = match share {
        Some(beta) => level0_weights(g, beta),
        None => comb_weights(g),
    };
    ((c + BORDER as i32 - 1) as usize, w)
}

/// [`axis`] lane by lane (the same operations, so the same results).
#[inline(always)]
fn axis_lanes(x: f32x8, n: usize, share: Option<f32x8>) -> (i32x8, [f32x8; 3]) {
    let x = x.max(f32x8::splat(-1.5)).min(f32x8::splat(n as f32 + 0.5));
    let off = i32x8::splat(OFFSET as i32);
    let c = (((x + f32x8::splat(0.5)) + f32x8::splat(OFFSET)).trunc_int() - off)
        .min(i32x8::splat(n as i32));
    let g = x - c.round_float();
    let w = match share {
        Some(beta) => level0_weights(g, beta),
        None => comb_weights(g),
    };
    (c + i32x8::splat(BORDER as i32 - 1), w)
}

/// What the axis weights are computed on: `f32` for one footprint, `f32x8` for eight lanes.
trait Lane:
    Copy
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Neg<Output = Self>
{
    fn splat(v: f32) -> Self;
    fn max0(self) -> Self;
    fn abs(self) -> Self;
}

impl Lane for f32 {
    #[inline(always)]
    fn splat(v: f32) -> f32 {
        v
    }
    #[inline(always)]
    fn max0(self) -> f32 {
        self.max(0.0)
    }
    #[inline(always)]
    fn abs(self) -> f32 {
        f32::abs(self)
    }
}

impl Lane for f32x8 {
    #[inline(always)]
    fn splat(v: f32) -> f32x8 {
        f32x8::splat(v)
    }
    #[inline(always)]
    fn max0(self) -> f32x8 {
        self.max(f32x8::ZERO)
    }
    #[inline(always)]
    fn abs(self) -> f32x8 {
        f32x8::abs(self)
    }
}

/// The comb of levels 1 and up at offset `g = x − c` from the nearest texel: the mean of
/// bilinear taps at `x ± ½`, `((½ − g)/2, ½, (½ + g)/2)`.
#[inline(always)]
fn comb_weights<T: Lane>(g: T) -> [T; 3] {
    let half = T::splat(0.5);
    [(half - g) * half, half, (half + g) * half]
}

/// Level 0's weights at offset `g` from the nearest texel: bilinear
/// `(max(0, −g), 1 − |g|, max(0, g))` moved by `beta` towards the quadratic B-spline
/// `((½ − g)²/2, ¾ − g², (½ + g)²/2)`.
#[inline(always)]
fn level0_weights<T: Lane>(g: T, beta: T) -> [T; 3] {
    let half = T::splat(0.5);
    let (m, p) = (half - g, half + g);
    let b = [(-g).max0(), T::splat(1.0) - g.abs(), g.max0()];
    let q = [half * (m * m), T::splat(0.75) - g * g, half * (p * p)];
    [
        b[0] + (q[0] - b[0]) * beta,
        b[1] + (q[1] - b[1]) * beta,
        b[2] + (q[2] - b[2]) * beta,
    ]
}

/// The 3 × 3 window whose first texel is stored at `at`, weighted by `wx` along rows and `wy`
/// across them (rows first).
#[inline(always)]
fn window(d: &[[f32; 4]], at: usize, stride: usize, wx: [f32; 3], wy: [f32; 3]) -> f32x4 {
    let p = &d[at..][..2 * stride + 3];
    let s = f32x4::splat;
    weigh_window(|j| f32x4::from(p[j]), stride, wx.map(s), wy.map(s))
}

/// [`window`] of two lanes at once, side by side (the same operations on each); the weights
/// as [`pair_of`]s.
#[inline(always)]
fn window_pair(
    d: &[[f32; 4]],
    at: [usize; 2],
    stride: usize,
    wx: [f32x8; 3],
    wy: [f32x8; 3],
) -> f32x8 {
    let (p, q) = (&d[at[0]..][..2 * stride + 3], &d[at[1]..][..2 * stride + 3]);
    weigh_window(
        |j| -> f32x8 { bytemuck::cast([p[j], q[j]]) },
        stride,
        wx,
        wy,
    )
}

/// The 3 × 3 window of values `t(j)` (`j` from its first texel, `stride` a row) weighted by
/// `wx` along rows and `wy` across them, rows first: for [`window`] and [`window_pair`] alike.
#[inline(always)]
fn weigh_window<T: Texels>(t: impl Fn(usize) -> T, stride: usize, wx: [T; 3], wy: [T; 3]) -> T {
    let row = |r: usize| t(r) * wx[0] + t(r + 1) * wx[1] + t(r + 2) * wx[2];
    row(0) * wy[0] + row(stride) * wy[1] + row(2 * stride) * wy[2]
}

/// The first three channels of a texel-like value.
#[inline(always)]
fn rgb(x: f32x4) -> [f32; 3] {
    let a = x.to_array();
    [a[0], a[1], a[2]]
}

/// One row of 8-bit sRGB pixels decoded to linear texels.
#[inline(always)]
fn decode_row(src: &[u8], row: &mut [[f32; 4]]) {
    let [r, g, b] = &Srgb::get().decode_texel;
    for (t, p) in row.iter_mut().zip(src.chunks_exact(3)) {
        let v = |table: &[[f32; 4]; 256], c: usize| f32x4::from(table[p[c] as usize]);
        *t = (v(r, 0) + v(g, 1) + v(b, 2)).to_array();
    }
}

/// One row of the next level: the means of the 2 × 2 texels of rows `r0` and `r1` (the last
/// column dropped when odd, the last one repeated for a width of 1).
#[inline(always)]
fn halve_row(r0: &[[f32; 4]], r1: &[[f32; 4]], row: &mut [[f32; 4]]) {
    let w = r0.len();
    for (i, t) in row.iter_mut().enumerate() {
        let (x0, x1) = (2 * i, (2 * i + 1).min(w - 1));
        let f = |p: [f32; 4]| f32x4::from(p);
        let sum = f(r0[x0]) + f(r0[x1]) + f(r1[x0]) + f(r1[x1]);
        *t = (f32x4::splat(0.25) * sum).to_array();
    }
}

/// The trilinear mix of two levels' samples: `a + (b − a) · fract(λ)` per lane, as in
/// [`Pyramid::trilinear`] (λ's integer part is `k` in every lane).
#[inline(always)]
fn mix_lanes(a: &Pairs, b: &Pairs, lambda: &[f32; LANES], k: usize) -> Pairs {
    let f = f32x8::from(*lambda) - f32x8::splat(k as f32);
    let mix = |p: usize| a[p] + (b[p] - a[p]) * pair_of(f, p);
    [mix(0), mix(1), mix(2), mix(3)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_halve_and_keep_the_mean_of_even_sizes() {
        let (w, h) = (64, 32);
        let rgb: Vec<u8> = (0..w * h * 3).map(|i| (i * 37 % 251) as u8).collect();
        let p = Pyramid::build(w, h, &rgb);
        let sizes: Vec<_> = p.levels.iter().map(|l| (l.w, l.h)).collect();
        assert_eq!(sizes[..3], [(64, 32), (32, 16), (16, 8)]);
        assert_eq!(*sizes.last().unwrap(), (1, 1));
        assert_eq!(sizes.len(), 7);
        let mean = |k: usize| {
            let l = &p.levels[k];
            let mut sum = 0f64;
            for y in 0..l.h {
                for x in 0..l.w {
                    let v = p.texel(k, x, y);
                    sum += (v[0] + v[1] + v[2]) as f64;
                }
            }
            sum / (l.w * l.h) as f64
        };
        let m0 = mean(0);
        for k in 0..p.levels.len() {
            assert!((mean(k) - m0).abs() < 1e-5);
        }
    }

    #[test]
    fn odd_sizes_drop_the_last_row_and_column() {
        // 3 × 1: level 1 is 1 × 1, the mean of texels 0 and 1 only.
        let rgb = [0u8, 0, 0, 255, 255, 255, 255, 255, 255];
        let p = Pyramid::build(3, 1, &rgb);
        assert_eq!((p.levels[1].w, p.levels[1].h), (1, 1));
        assert!((p.texel(1, 0, 0)[0] - 0.5).abs() < 1e-6);
    }

    #[test]
    fn each_level_halves_the_one_below_and_stores_its_corner_grid() {
        for (w, h) in [(64, 32), (97, 61), (2, 1), (1, 5), (7, 2), (3, 3)] {
            let rgb: Vec<u8> = (0..w * h * 3).map(|i| (i * 7919 % 251) as u8).collect();
            let p = Pyramid::build(w, h, &rgb);
            let lut = &Srgb::get().decode;
            for y in 0..h {
                for x in 0..w {
                    let i = (y * w + x) * 3;
                    let want = [
                        lut[rgb[i] as usize],
                        lut[rgb[i + 1] as usize],
                        lut[rgb[i + 2] as usize],
                        0.0,
                    ];
                    assert_eq!(p.texel(0, x, y), want);
                }
            }
            for k in 1..p.levels.len() {
                let (l, below) = (&p.levels[k], &p.levels[k - 1]);
                assert_eq!((l.w, l.h), ((below.w / 2).max(1), (below.h / 2).max(1)));
                // Texels: the 2 × 2 means of the level below (the last odd row/column dropped),
                // in halve_row's order.
                for y in 0..l.h {
                    for x in 0..l.w {
                        let (x1, y1) = ((2 * x + 1).min(below.w - 1), (2 * y + 1).min(below.h - 1));
                        let t = |xx, yy| f32x4::from(p.texel(k - 1, xx, yy));
                        let sum = t(2 * x, 2 * y) + t(x1, 2 * y) + t(2 * x, y1) + t(x1, y1);
                        assert_eq!(p.texel(k, x, y), (f32x4::splat(0.25) * sum).to_array());
                    }
                }
                // The corner grid: the means of the clamped 2 × 2 texels around each corner.
                for n in 0..=l.h {
                    for m in 0..=l.w {
                        let t = |xx: usize, yy: usize| {
                            f32x4::from(p.texel(k, xx.min(l.w - 1), yy.min(l.h - 1)))
                        };
                        let (xa, ya) = (m.saturating_sub(1), n.saturating_sub(1));
                        let sum = t(xa, ya) + t(m, ya) + t(xa, n) + t(m, n);
                        assert_eq!(
                            l.stored(m, n),
                            (f32x4::splat(0.25) * sum).to_array(),
                            "{w} × {h}, level {k}, corner ({m}, {n})"
                        );
                    }
                }
            }
            // Storage reused from a bigger creative gives the same levels.
            let mut reused = Pyramid::build(130, 90, &vec![200u8; 130 * 90 * 3]);
            reused.rebuild(w, h, &rgb);
            assert!(
                reused
                    .levels
                    .iter()
                    .zip(&p.levels)
                    .all(|(a, b)| a.data == b.data)
            );
            assert_eq!(reused.levels.len(), p.levels.len());
        }
    }

    /// Texel `(x, y)` of level `k`, the coordinates clamped to the level (rendering.md §2).
    fn clamped(p: &Pyramid, k: usize, x: i64, y: i64) -> [f32; 4] {
        let l = &p.levels[k];
        p.texel(
            k,
            x.clamp(0, l.w as i64 - 1) as usize,
            y.clamp(0, l.h as i64 - 1) as usize,
        )
    }

    /// Level `k` through its kernel, rendering.md §2 written plainly (f64, clamped texels).
    fn reference_level(p: &Pyramid, k: usize, u: f64, v: f64, lambda: f64) -> [f64; 3] {
        let l = &p.levels[k];
        let x = u * l.w as f64 / p.levels[0].w as f64 - 0.5;
        let y = v * l.h as f64 / p.levels[0].h as f64 - 0.5;
        let weights = |x: f64| {
            let c = (x + 0.5).floor();
            let g = x - c;
            let w = if k == 0 {
                let beta = (2.0 * lambda).min(1.0);
                let b = [(-g).max(0.0), 1.0 - g.abs(), g.max(0.0)];
                let q = [
                    (0.5 - g).powi(2) / 2.0,
                    0.75 - g * g,
                    (0.5 + g).powi(2) / 2.0,
                ];
                [0, 1, 2].map(|i| b[i] * (1.0 - beta) + q[i] * beta)
            } else {
                [(0.5 - g) / 2.0, 0.5, (0.5 + g) / 2.0]
            };
            (c as i64, w)
        };
        let ((cx, wx), (cy, wy)) = (weights(x), weights(y));
        let mut acc = [0f64; 3];
        for j in 0..3 {
            for i in 0..3 {
                let t = clamped(p, k, cx + i as i64 - 1, cy + j as i64 - 1);
                for c in 0..3 {
                    acc[c] += wx[i] * wy[j] * t[c] as f64;
                }
            }
        }
        acc
    }

    /// rendering.md §2 written plainly: the reference of [`Pyramid::sample`]'s fast paths.
    fn reference(p: &Pyramid, fp: &Footprint, bias: f32) -> [f32; 3] {
        let lx = (fp.jx[0] as f64).hypot(fp.jx[1] as f64);
        let ly = (fp.jy[0] as f64).hypot(fp.jy[1] as f64);
        let (lmax, major) = if lx >= ly { (lx, fp.jx) } else { (ly, fp.jy) };
        let lmin = lx.min(ly).max(1e-6);
        let n = (lmax / lmin + 0.5).floor().clamp(1.0, 4.0);
        let top = (p.levels.len() - 1) as f64;
        let lambda = ((lmax / n).max(lmin).log2().max(0.0) + bias as f64).clamp(0.0, top);
        let mut acc = [0f64; 3];
        for i in 0..n as usize {
            let o = (i as f64 + 0.5) / n - 0.5;
            let (u, v) = (
                fp.u as f64 + major[0] as f64 * o,
                fp.v as f64 + major[1] as f64 * o,
            );
            let k = lambda.floor() as usize;
            let f = lambda - k as f64;
            let a = reference_level(p, k, u, v, lambda);
            let b = reference_level(p, (k + 1).min(top as usize), u, v, lambda);
            for c in 0..3 {
                acc[c] += (a[c] * (1.0 - f) + b[c] * f) / n;
            }
        }
        acc.map(|v| v as f32)
    }

    #[test]
    fn the_fast_paths_match_the_reference() {
        let (w, h) = (97, 61);
        let rgb: Vec<u8> = (0..w * h * 3).map(|i| (i * 7919 % 251) as u8).collect();
        let p = Pyramid::build(w, h, &rgb);
        let mut worst = 0f32;
        for k in 0..4000 {
            let a = k as f32 * 0.618;
            let s = 0.3 + (k % 37) as f32 * 0.2;
            let r = 1.0 + (k % 23) as f32 * 0.17;
            // Centres beyond the edges too (clamping).
            let fp = Footprint {
                u: 48.0 + 58.0 * (a * 0.37).sin(),
                v: 30.0 + 38.0 * (a * 0.53).cos(),
                jx: [s * r * a.cos(), s * r * a.sin()],
                jy: [-s * a.sin() * 1.1, s * a.cos()],
            };
            let bias = (k % 3) as f32 * 0.75;
            let (got, _) = p.sample(&fp, bias, None);
            let want = reference(&p, &fp, bias);
            for c in 0..3 {
                worst = worst.max((got[c] - want[c]).abs());
            }
        }
        // f32 arithmetic and the fast log2 of λ (which moves level 0's B-spline share too).
        assert!(worst < 5e-5, "worst {worst}");
    }

    #[test]
    fn levels_above_0_ignore_a_pattern_at_their_nyquist_frequency() {
        // 2-px stripes: level 1 alternates 1, 0, 1, 0 at full contrast (the box pyramid keeps
        // it), which a bilinear read would show as beats; the comb reads its mean at any phase.
        let (w, h) = (64, 16);
        let rgb: Vec<u8> = (0..w * h)
            .flat_map(|i| [if (i % w / 2) % 2 == 0 { 255 } else { 0 }; 3])
            .collect();
        let p = Pyramid::build(w, h, &rgb);
        assert_eq!(p.texel(1, 0, 0)[0], 1.0);
        assert_eq!(p.texel(1, 1, 0)[0], 0.0);
        for i in 0..200 {
            let (u, v) = (3.0 + i as f32 * 0.2937, 2.0 + i as f32 * 0.05);
            let c = p.level_sample(1, u, v, 0.0).to_array();
            assert!((c[0] - 0.5).abs() < 1e-6, "{u}: {}", c[0]);
        }
    }

    #[test]
    fn level_0_is_bilinear_at_1_to_1_and_beyond() {
        let (w, h) = (23, 17);
        let rgb: Vec<u8> = (0..w * h * 3).map(|i| (i * 7919 % 251) as u8).collect();
        let p = Pyramid::build(w, h, &rgb);
        for i in 0..500 {
            let (u, v) = (-1.0 + i as f32 * 0.0517, -2.0 + i as f32 * 0.0431);
            // Plain bilinear between the four nearest texel centres, clamped.
            let (x, y) = (u as f64 - 0.5, v as f64 - 0.5);
            let (x0, y0) = (x.floor(), y.floor());
            let (fx, fy) = (x - x0, y - y0);
            let t = |dx: i64, dy: i64| clamped(&p, 0, x0 as i64 + dx, y0 as i64 + dy)[0] as f64;
            let want = (t(0, 0) * (1.0 - fx) + t(1, 0) * fx) * (1.0 - fy)
                + (t(0, 1) * (1.0 - fx) + t(1, 1) * fx) * fy;
            let got = p.trilinear(0.0, u, v)[0] as f64;
            assert!((got - want).abs() < 1e-6, "({u}, {v}): {got} vs {want}");
        }
    }

    #[test]
    fn the_lanes_match_one_footprint_at_a_time() {
        let (w, h) = (97, 61);
        let rgb: Vec<u8> = (0..w * h * 3).map(|i| (i * 7919 % 251) as u8).collect();
        let p = Pyramid::build(w, h, &rgb);
        let biases = [(0.0, None), (0.0, Some(1.5)), (0.8, Some(2.3)), (2.5, None)];
        for k in 0..3000 {
            // Footprints of one chunk share a scale (as neighbours on a panel do), so that the
            // vectorised paths (one level pair, the shared level of the twin) are taken too.
            let scale = 0.4 + (k % 29) as f32 * 0.13;
            let stretch = if k % 5 == 0 { 1.7 } else { 1.0 };
            let mut fp = [[0f32; LANES]; 6];
            for i in 0..LANES {
                let a = (k * LANES + i) as f32 * 0.618;
                fp[0][i] = 48.0 + 55.0 * (a * 0.37).sin();
                fp[1][i] = 30.0 + 36.0 * (a * 0.53).cos();
                fp[2][i] = scale * stretch * (1.0 + 0.01 * i as f32);
                fp[3][i] = 0.05 * scale;
                fp[4][i] = -0.03 * scale;
                fp[5][i] = scale;
            }
            let n = if k % 7 == 0 { 1 + k % LANES } else { LANES };
            let (bias, second) = biases[k % biases.len()];
            let mut a = [[0f32; LANES]; 3];
            let mut b = [[0f32; LANES]; 3];
            p.sample_lanes(&fp, n, bias, second, &mut a, &mut b);
            for i in 0..n {
                let f = Footprint {
                    u: fp[0][i],
                    v: fp[1][i],
                    jx: [fp[2][i], fp[3][i]],
                    jy: [fp[4][i], fp[5][i]],
                };
                let (x, y) = p.sample(&f, bias, second);
                assert_eq!(a.map(|c| c[i]), x, "{k} {i}");
                if second.is_some() {
                    assert_eq!(b.map(|c| c[i]), y, "{k} {i}");
                }
            }
        }
    }

    #[test]
    fn a_shrunk_checkerboard_comes_out_flat() {
        let n = 256;
        let rgb: Vec<u8> = (0..n * n)
            .flat_map(|i| {
                let (x, y) = (i % n, i / n);
                let v = if (x / 2 + y / 2) % 2 == 0 { 255 } else { 0 };
                [v, v, v]
            })
            .collect();
        let p = Pyramid::build(n, n, &rgb);
        // 8× shrink, anisotropic (steep) footprints at many sub-pixel phases.
        for k in 0..200 {
            let fp = Footprint {
                u: 40.0 + k as f32 * 0.77,
                v: 30.0 + k as f32 * 0.53,
                jx: [8.0, 0.7],
                jy: [-1.2, 22.0],
            };
            let (c, _) = p.sample(&fp, 0.0, None);
            assert!((c[0] - 0.5).abs() < 0.01, "{k}: {}", c[0]);
        }
    }
}
