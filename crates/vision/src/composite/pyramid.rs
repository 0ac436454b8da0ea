//! The creative's linear-light mip pyramid and its anisotropic trilinear sampling
//! (rendering.md §2). Level k+1 averages the 2 × 2 texels of level k it covers, dropping the last
//! row/column of an odd size, as WebGL's `generateMipmap` does.

use wide::{f32x4, f32x8, i32x8};

use super::adjust::LANES;
use super::colour::{Srgb, fast_log2};

/// Added before truncating to floor a coordinate: larger than any sensible distance outside a
/// texture, small enough that f32 keeps sub-texel precision for textures up to 16k texels.
const OFFSET: f32 = 4096.0;

/// One level: `w × h` texels of linear RGB, interleaved, inside a border of one texel that
/// repeats the edge texels (clamping to the edge, stored).
#[derive(Debug, Clone)]
pub struct Level {
    /// Width in texels.
    pub w: usize,
    /// Height in texels.
    pub h: usize,
    /// `(w + 2) · (h + 2)` texels of linear RGB plus a zero pad, so that a texel is one 16-byte
    /// load and the bilinear arithmetic runs on four lanes at once. Texel `(x, y)` is at
    /// `(y + 1) · (w + 2) + x + 1`; the border repeats the nearest edge texel, so that a
    /// bilinear footprint clamped to `−1..=w − 1` (and rows alike) always has its four texels
    /// at `i, i + 1, i + stride, i + stride + 1`, and they are the edge-clamped ones.
    pub data: Vec<[f32; 4]>,
    /// Texels per level-0 pixel along x and y (`w / Wc`, `h / Hc`).
    scale: (f32, f32),
}

impl Level {
    /// A level of `w × h` texels, row `y` written by `fill_row(y, row)`, with its border, in
    /// `data` (a previous level's storage, reused: every element is overwritten, so storage of
    /// the right length is neither cleared nor faulted in again).
    fn new(
        w: usize,
        h: usize,
        scale: (f32, f32),
        mut data: Vec<[f32; 4]>,
        mut fill_row: impl FnMut(usize, &mut [[f32; 4]]),
    ) -> Level {
        let stride = w + 2;
        data.truncate(stride * (h + 2));
        data.resize(stride * (h + 2), [0f32; 4]);
        for (y, row) in data.chunks_exact_mut(stride).skip(1).take(h).enumerate() {
            fill_row(y, &mut row[1..=w]);
            row[0] = row[1];
            row[w + 1] = row[w];
        }
        data.copy_within(stride..2 * stride, 0);
        data.copy_within(h * stride..(h + 1) * stride, (h + 1) * stride);
        Level { w, h, data, scale }
    }

    /// Row length of `data`, border included.
    #[inline(always)]
    pub fn stride(&self) -> usize {
        self.w + 2
    }

    /// Texel `(x, y)`, `x < w`, `y < h`.
    #[inline(always)]
    pub fn texel(&self, x: usize, y: usize) -> [f32; 4] {
        self.data[(y + 1) * self.stride() + x + 1]
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
            levels.push(Level::new(w, h, (1.0, 1.0), first, |y, row| {
                decode_row(&rgb[y * w * 3..(y + 1) * w * 3], row)
            }));
        }
        while let Some(prev) = levels.last().filter(|l| l.w > 1 || l.h > 1) {
            let (nw, nh) = ((prev.w / 2).max(1), (prev.h / 2).max(1));
            let scale = (nw as f32 / wc, nh as f32 / hc);
            let level = Level::new(nw, nh, scale, old.next().unwrap_or_default(), |j, row| {
                let (y0, y1) = (2 * j, (2 * j + 1).min(prev.h - 1));
                let r0 = &prev.data[(y0 + 1) * prev.stride() + 1..][..prev.w];
                let r1 = &prev.data[(y1 + 1) * prev.stride() + 1..][..prev.w];
                halve_row(r0, r1, row);
            });
            levels.push(level);
        }
        self.levels = levels;
    }

    /// Bilinear sample of level `k` at `(u, v)` in level-0 pixels, clamped to the edge texels.
    #[inline(always)]
    pub fn bilinear(&self, k: usize, u: f32, v: f32) -> [f32; 3] {
        let l = &self.levels[k];
        let x = u * l.scale.0 - 0.5;
        let y = v * l.scale.1 - 0.5;
        // floor() is a library call without SSE4.1; truncation after an offset is not. The
        // offset keeps coordinates far outside the texture (clamped anyway) non-negative.
        let xi = (x + OFFSET) as i32 - OFFSET as i32;
        let yi = (y + OFFSET) as i32 - OFFSET as i32;
        let (fx, fy) = (x - xi as f32, y - yi as f32);
        // Clamped to the border: texels x0 and x0 + 1 are then clamp(xi) and clamp(xi + 1).
        let x0 = (xi.clamp(-1, l.w as i32 - 1) + 1) as usize;
        let y0 = (yi.clamp(-1, l.h as i32 - 1) + 1) as usize;
        let stride = l.stride();
        let p = &l.data[y0 * stride + x0..][..stride + 2];
        let (a, b, c, e) = (p[0], p[1], p[stride], p[stride + 1]);
        let mut out = [0f32; 4];
        for k in 0..4 {
            let top = a[k] + (b[k] - a[k]) * fx;
            let bot = c[k] + (e[k] - c[k]) * fx;
            out[k] = top + (bot - top) * fy;
        }
        [out[0], out[1], out[2]]
    }

    /// Trilinear sample at level-of-detail `lambda` (already clamped to the levels).
    #[inline(always)]
    fn trilinear(&self, lambda: f32, u: f32, v: f32) -> [f32; 3] {
        let k = lambda as usize;
        let f = lambda - k as f32;
        let a = self.bilinear(k, u, v);
        if f <= 0.0 || k + 1 >= self.levels.len() {
            return a;
        }
        let b = self.bilinear(k + 1, u, v);
        [
            a[0] + (b[0] - a[0]) * f,
            a[1] + (b[1] - a[1]) * f,
            a[2] + (b[2] - a[2]) * f,
        ]
    }

    /// [`Pyramid::sample`] for the first `n` of [`LANES`] footprints given channel-major
    /// (`[u, v, jx.0, jx.1, jy.0, jy.1][lane]`), into `a` and `b` (one texel-like `[r, g, b, 0]`
    /// per lane): the levels are computed lane by lane (vectorised) when every footprint takes
    /// one tap, else each footprint goes through [`Pyramid::sample`]. The same results either
    /// way (tested).
    #[inline(always)]
    pub fn sample_lanes(
        &self,
        fp: &[[f32; LANES]; 6],
        n: usize,
        bias: f32,
        second_bias: Option<f32>,
        a: &mut [f32x4; LANES],
        b: &mut [f32x4; LANES],
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
                a[i] = f32x4::from([x[0], x[1], x[2], 0.0]);
                b[i] = f32x4::from([y[0], y[1], y[2], 0.0]);
            }
            return;
        }
        let lambda = |bias: f32| -> [f32; LANES] {
            std::array::from_fn(|i| (base[i] + bias).clamp(0.0, top))
        };
        let (u, v) = (&fp[0], &fp[1]);
        let la = lambda(bias);
        let Some(sb) = second_bias else {
            self.trilinear_lanes(&la, u, v, n, a);
            return;
        };
        let lb = lambda(sb);
        // The unsharp mask's twin is 1.5 levels coarser: when the main sample mixes levels k
        // and k + 1 and the twin k + 1 and k + 2, level k + 1 is fetched once for both.
        match (self.common_level(&la, n), self.common_level(&lb, n)) {
            (Some(k), Some(kb)) if kb == k + 1 => {
                let l0 = self.bilinear_lanes(k, u, v);
                let l1 = self.bilinear_lanes(k + 1, u, v);
                let l2 = self.bilinear_lanes(k + 2, u, v);
                mix_lanes(&l0, &l1, &la, k, a);
                mix_lanes(&l1, &l2, &lb, k + 1, b);
            }
            _ => {
                self.trilinear_lanes(&la, u, v, n, a);
                self.trilinear_lanes(&lb, u, v, n, b);
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

    /// [`Pyramid::trilinear`] of the first `n` lanes: when they all mix the same two levels,
    /// the texel coordinates are computed lane by lane (vectorised), else one at a time.
    #[inline(always)]
    fn trilinear_lanes(
        &self,
        lambda: &[f32; LANES],
        u: &[f32; LANES],
        v: &[f32; LANES],
        n: usize,
        out: &mut [f32x4; LANES],
    ) {
        let Some(k) = self.common_level(lambda, n) else {
            for i in 0..n {
                let t = self.trilinear(lambda[i], u[i], v[i]);
                out[i] = f32x4::from([t[0], t[1], t[2], 0.0]);
            }
            return;
        };
        let a = self.bilinear_lanes(k, u, v);
        let b = self.bilinear_lanes(k + 1, u, v);
        mix_lanes(&a, &b, lambda, k, out);
    }

    /// [`Pyramid::bilinear`] of level `k` for every lane: the texel coordinates lane by
    /// lane, the arithmetic on the four channels of each texel at once.
    #[inline(always)]
    fn bilinear_lanes(&self, k: usize, u: &[f32; LANES], v: &[f32; LANES]) -> [f32x4; LANES] {
        let l = &self.levels[k];
        // Exactly the scalar operations of `bilinear`, eight lanes at once; `trunc_int`
        // saturates (and maps NaN to 0) like `as i32`.
        let x = f32x8::from(*u) * f32x8::splat(l.scale.0) - f32x8::splat(0.5);
        let y = f32x8::from(*v) * f32x8::splat(l.scale.1) - f32x8::splat(0.5);
        let off = i32x8::splat(OFFSET as i32);
        let xi = (x + f32x8::splat(OFFSET)).trunc_int() - off;
        let yi = (y + f32x8::splat(OFFSET)).trunc_int() - off;
        let fx = (x - xi.round_float()).to_array();
        let fy = (y - yi.round_float()).to_array();
        let (lo, one) = (i32x8::splat(-1), i32x8::splat(1));
        let x0 = xi.max(lo).min(i32x8::splat(l.w as i32 - 1)) + one;
        let y0 = yi.max(lo).min(i32x8::splat(l.h as i32 - 1)) + one;
        let stride = l.stride();
        let at = (y0 * i32x8::splat(stride as i32) + x0).to_array();
        let d = &l.data;
        let mut out = [f32x4::ZERO; LANES];
        // Every lane (those past `n` are read, clamped, and dropped): fixed bounds unroll.
        for i in 0..LANES {
            let p = &d[at[i] as usize..][..stride + 2];
            let t = |j: usize| f32x4::from(p[j]);
            let (fx, fy) = (f32x4::splat(fx[i]), f32x4::splat(fy[i]));
            let (a, b, c, e) = (t(0), t(1), t(stride), t(stride + 1));
            let top = a + (b - a) * fx;
            let bot = c + (e - c) * fx;
            out[i] = top + (bot - top) * fy;
        }
        out
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

/// Level 0 (the decoded creative) and level 1 (its 2 × 2 means) of a `w × h` image, `w > 1` or
/// `h > 1`, in the given storage: each level-1 row is made as soon as the two level-0 rows it
/// averages are written, while they are still in cache, rather than by reading level 0 back
/// from memory. The same values as [`Level::new`] with [`decode_row`] and [`halve_row`].
fn first_levels(
    w: usize,
    h: usize,
    rgb: &[u8],
    mut d0: Vec<[f32; 4]>,
    mut d1: Vec<[f32; 4]>,
) -> (Level, Level) {
    let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
    let (s0, s1) = (w + 2, nw + 2);
    d0.truncate(s0 * (h + 2));
    d0.resize(s0 * (h + 2), [0f32; 4]);
    d1.truncate(s1 * (nh + 2));
    d1.resize(s1 * (nh + 2), [0f32; 4]);
    let fill0 = |d0: &mut [[f32; 4]], y: usize| {
        let row = &mut d0[(y + 1) * s0..(y + 2) * s0];
        decode_row(&rgb[y * w * 3..(y + 1) * w * 3], &mut row[1..=w]);
        row[0] = row[1];
        row[w + 1] = row[w];
    };
    let mut made = 0;
    for j in 0..nh {
        let (y0, y1) = (2 * j, (2 * j + 1).min(h - 1));
        while made <= y1 {
            fill0(&mut d0, made);
            made += 1;
        }
        let r0 = &d0[(y0 + 1) * s0 + 1..][..w];
        let r1 = &d0[(y1 + 1) * s0 + 1..][..w];
        let row = &mut d1[(j + 1) * s1..(j + 2) * s1];
        halve_row(r0, r1, &mut row[1..=nw]);
        row[0] = row[1];
        row[nw + 1] = row[nw];
    }
    while made < h {
        fill0(&mut d0, made);
        made += 1;
    }
    for (d, stride, rows) in [(&mut d0, s0, h), (&mut d1, s1, nh)] {
        d.copy_within(stride..2 * stride, 0);
        d.copy_within(rows * stride..(rows + 1) * stride, (rows + 1) * stride);
    }
    let scale = (nw as f32 / w as f32, nh as f32 / h as f32);
    (
        Level {
            w,
            h,
            data: d0,
            scale: (1.0, 1.0),
        },
        Level {
            w: nw,
            h: nh,
            data: d1,
            scale,
        },
    )
}

/// One row of 8-bit sRGB pixels decoded to linear texels.
#[inline(always)]
fn decode_row(src: &[u8], row: &mut [[f32; 4]]) {
    let lut = &Srgb::get().decode;
    for (t, p) in row.iter_mut().zip(src.chunks_exact(3)) {
        *t = [
            lut[p[0] as usize],
            lut[p[1] as usize],
            lut[p[2] as usize],
            0.0,
        ];
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

/// Lane-major samples (`[r, g, b, 0]` per lane) to channel-major (`[channel][lane]`).
#[inline(always)]
pub fn channels(x: &[f32x4; LANES]) -> [[f32; LANES]; 3] {
    let mut c = [[0f32; LANES]; 3];
    for (q, quad) in x.chunks_exact(4).enumerate() {
        let t = f32x4::transpose([quad[0], quad[1], quad[2], quad[3]]);
        for ch in 0..3 {
            c[ch][4 * q..4 * q + 4].copy_from_slice(&t[ch].to_array());
        }
    }
    c
}

/// The trilinear mix of two levels' bilinear samples: `a + (b − a) · fract(λ)` per lane, as in
/// [`Pyramid::trilinear`] (λ's integer part is `k` in every lane).
#[inline(always)]
fn mix_lanes(
    a: &[f32x4; LANES],
    b: &[f32x4; LANES],
    lambda: &[f32; LANES],
    k: usize,
    out: &mut [f32x4; LANES],
) {
    let f = (f32x8::from(*lambda) - f32x8::splat(k as f32)).to_array();
    for i in 0..LANES {
        out[i] = a[i] + (b[i] - a[i]) * f32x4::splat(f[i]);
    }
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
        let mean = |l: &Level| {
            let mut sum = 0f64;
            for y in 0..l.h {
                for x in 0..l.w {
                    let v = l.texel(x, y);
                    sum += (v[0] + v[1] + v[2]) as f64;
                }
            }
            sum / (l.w * l.h) as f64
        };
        let m0 = mean(&p.levels[0]);
        for l in &p.levels {
            assert!((mean(l) - m0).abs() < 1e-5);
        }
    }

    #[test]
    fn odd_sizes_drop_the_last_row_and_column() {
        // 3 × 1: level 1 is 1 × 1, the mean of texels 0 and 1 only.
        let rgb = [0u8, 0, 0, 255, 255, 255, 255, 255, 255];
        let p = Pyramid::build(3, 1, &rgb);
        assert_eq!((p.levels[1].w, p.levels[1].h), (1, 1));
        assert!((p.levels[1].texel(0, 0)[0] - 0.5).abs() < 1e-6);
    }

    #[test]
    fn the_fused_first_levels_are_the_level_by_level_ones() {
        for (w, h) in [(64, 32), (97, 61), (2, 1), (1, 5), (7, 2), (3, 3)] {
            let rgb: Vec<u8> = (0..w * h * 3).map(|i| (i * 7919 % 251) as u8).collect();
            let p = Pyramid::build(w, h, &rgb);
            let l0 = Level::new(w, h, (1.0, 1.0), Vec::new(), |y, row| {
                decode_row(&rgb[y * w * 3..(y + 1) * w * 3], row)
            });
            let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
            let scale = (nw as f32 / w as f32, nh as f32 / h as f32);
            let l1 = Level::new(nw, nh, scale, Vec::new(), |j, row| {
                let (y0, y1) = (2 * j, (2 * j + 1).min(h - 1));
                let r0 = &l0.data[(y0 + 1) * l0.stride() + 1..][..w];
                let r1 = &l0.data[(y1 + 1) * l0.stride() + 1..][..w];
                halve_row(r0, r1, row);
            });
            for (got, want) in p.levels.iter().zip([&l0, &l1]) {
                assert_eq!((got.w, got.h, got.scale), (want.w, want.h, want.scale));
                assert!(got.data == want.data, "{w} × {h}");
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
            let (u, v) = (fp.u + major[0] * o as f32, fp.v + major[1] * o as f32);
            let k = lambda.floor() as usize;
            let f = lambda - k as f64;
            let a = p.bilinear(k, u, v);
            let b = p.bilinear((k + 1).min(top as usize), u, v);
            for c in 0..3 {
                acc[c] += (a[c] as f64 * (1.0 - f) + b[c] as f64 * f) / n;
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
            let fp = Footprint {
                u: 48.0 + 40.0 * (a * 0.37).sin(),
                v: 30.0 + 25.0 * (a * 0.53).cos(),
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
        assert!(worst < 2e-5, "worst {worst}");
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
            let mut a = [f32x4::ZERO; LANES];
            let mut b = [f32x4::ZERO; LANES];
            p.sample_lanes(&fp, n, bias, second, &mut a, &mut b);
            for i in 0..n {
                let f = Footprint {
                    u: fp[0][i],
                    v: fp[1][i],
                    jx: [fp[2][i], fp[3][i]],
                    jy: [fp[4][i], fp[5][i]],
                };
                let (x, y) = p.sample(&f, bias, second);
                assert_eq!(a[i].to_array()[..3], x, "{k} {i}");
                if second.is_some() {
                    assert_eq!(b[i].to_array()[..3], y, "{k} {i}");
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
