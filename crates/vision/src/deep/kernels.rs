//! Convolution kernels for the attention network, on channels-last tensors (`[y][x][channel]`).
//!
//! The 1×1 convolution is a matrix product (pixels × in) · (in × out), computed on tiles of 4
//! pixels × 16 outputs held in eight 8-lane vectors; [`pointwise_ref`] is its scalar reference,
//! and the test checks they agree to the bit (both add the same products in the same order, and
//! nothing fuses multiply-adds). Depthwise convolutions run along the channels, which the
//! compiler vectorises. Padding follows TensorFlow's "SAME" rule, as the trained network does.

use wide::f32x8;

/// A channels-last tensor of `h × w` pixels with `c` channels.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    /// Height.
    pub h: usize,
    /// Width.
    pub w: usize,
    /// Channels.
    pub c: usize,
    /// Values, `[y][x][channel]`.
    pub data: Vec<f32>,
}

impl Tensor {
    /// A tensor of zeros.
    pub fn zeros(h: usize, w: usize, c: usize) -> Tensor {
        Tensor {
            h,
            w,
            c,
            data: vec![0.0; h * w * c],
        }
    }
}

/// Activation applied after a convolution's bias.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// None (linear).
    None,
    /// min(max(x, 0), 6).
    Relu6,
}

#[inline]
fn act(v: f32, a: Act) -> f32 {
    match a {
        Act::None => v,
        Act::Relu6 => v.clamp(0.0, 6.0),
    }
}

/// Scalar reference of [`pointwise`]: `out[p][o] = act(b[o] + Σ_i x[p][i] · wt[i][o])`, the
/// sum taken in increasing `i`. `wt` is `[in][out]`.
pub fn pointwise_ref(x: &Tensor, wt: &[f32], b: &[f32], a: Act) -> Tensor {
    let (cin, cout) = (x.c, b.len());
    assert_eq!(wt.len(), cin * cout);
    let mut out = Tensor::zeros(x.h, x.w, cout);
    for (px, o) in x
        .data
        .chunks_exact(cin)
        .zip(out.data.chunks_exact_mut(cout))
    {
        for (j, oj) in o.iter_mut().enumerate() {
            let mut s = b[j];
            for i in 0..cin {
                s += px[i] * wt[i * cout + j];
            }
            *oj = act(s, a);
        }
    }
    out
}

/// Runs `f(first_item, chunk)` on contiguous chunks of `out`, each a whole number of items of
/// `unit` values, items per chunk a multiple of `align`: on the calling thread alone when
/// `threads` is 1, else on up to `threads` scoped threads. Every item is computed the same way
/// whatever the split, so the result does not depend on `threads`.
fn split_items(
    out: &mut [f32],
    unit: usize,
    align: usize,
    threads: usize,
    f: impl Fn(usize, &mut [f32]) + Sync,
) {
    let n = out.len() / unit.max(1);
    let threads = threads.clamp(1, n.div_ceil(align).max(1));
    if threads == 1 {
        f(0, out);
        return;
    }
    let per = n.div_ceil(threads).div_ceil(align) * align;
    std::thread::scope(|s| {
        let mut chunks = out.chunks_mut(per * unit).enumerate();
        let first = chunks.next();
        for (k, c) in chunks {
            let f = &f;
            s.spawn(move || f(k * per, c));
        }
        if let Some((_, c)) = first {
            f(0, c);
        }
    });
}

/// 1×1 convolution as a matrix product; `wt` is `[in][out]`, the number of outputs a multiple
/// of 8. Equal to [`pointwise_ref`] bit for bit.
pub fn pointwise(x: &Tensor, wt: &[f32], b: &[f32], a: Act) -> Tensor {
    pointwise_par(x, wt, b, a, 1)
}

/// [`pointwise`] on up to `threads` threads (pixels split between them); the same bits.
pub fn pointwise_par(x: &Tensor, wt: &[f32], b: &[f32], a: Act, threads: usize) -> Tensor {
    let (cin, cout) = (x.c, b.len());
    assert_eq!(wt.len(), cin * cout);
    assert!(cout.is_multiple_of(8), "outputs must be a multiple of 8");
    let mut out = Tensor::zeros(x.h, x.w, cout);
    split_items(&mut out.data, cout, 4, threads, |first, chunk| {
        pointwise_range(x, wt, b, a, first, chunk)
    });
    out
}

/// The pixels `first..first + out.len() / cout` of [`pointwise`], into `out`.
fn pointwise_range(x: &Tensor, wt: &[f32], b: &[f32], a: Act, first: usize, out: &mut [f32]) {
    let cout = b.len();
    let n = out.len() / cout;
    let mut o0 = 0;
    while o0 < cout {
        // 16 outputs at a time while they last, then 8; 4 pixels at a time, then one.
        let (v, four, one): (usize, Tile, Tile) = if cout - o0 >= 16 {
            (2, tile::<4, 2>, tile::<1, 2>)
        } else {
            (1, tile::<4, 1>, tile::<1, 1>)
        };
        let mut p0 = 0;
        while p0 + 4 <= n {
            four(x, wt, b, a, out, first, p0, o0);
            p0 += 4;
        }
        while p0 < n {
            one(x, wt, b, a, out, first, p0, o0);
            p0 += 1;
        }
        o0 += 8 * v;
    }
}

/// A [`tile`] of some shape.
type Tile = fn(&Tensor, &[f32], &[f32], Act, &mut [f32], usize, usize, usize);

/// One tile: pixels `first + p0..first + p0 + R` (written at `p0..p0 + R` of `out`), outputs
/// `o0..o0 + 8V`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn tile<const R: usize, const V: usize>(
    x: &Tensor,
    wt: &[f32],
    b: &[f32],
    a: Act,
    out: &mut [f32],
    first: usize,
    p0: usize,
    o0: usize,
) {
    let (cin, cout) = (x.c, b.len());
    let mut acc = [[f32x8::ZERO; V]; R];
    for r in 0..R {
        for v in 0..V {
            acc[r][v] = f32x8::from(&b[o0 + 8 * v..o0 + 8 * v + 8]);
        }
    }
    let q0 = first + p0;
    let rows: [&[f32]; R] = std::array::from_fn(|r| &x.data[(q0 + r) * cin..(q0 + r + 1) * cin]);
    for i in 0..cin {
        let wrow = &wt[i * cout + o0..i * cout + o0 + 8 * V];
        let wv: [f32x8; V] = std::array::from_fn(|v| f32x8::from(&wrow[8 * v..8 * v + 8]));
        for r in 0..R {
            let xv = f32x8::splat(rows[r][i]);
            for v in 0..V {
                acc[r][v] += xv * wv[v];
            }
        }
    }
    let (lo, hi) = (f32x8::splat(0.0), f32x8::splat(6.0));
    for r in 0..R {
        let o = &mut out[(p0 + r) * cout + o0..(p0 + r) * cout + o0 + 8 * V];
        for v in 0..V {
            let mut s = acc[r][v];
            if a == Act::Relu6 {
                s = s.max(lo).min(hi);
            }
            o[8 * v..8 * v + 8].copy_from_slice(&s.to_array());
        }
    }
}

/// TensorFlow "SAME" padding: output size and the padding before the first input, for an input
/// of `n`, kernel `k`, stride `s`.
pub fn same_padding(n: usize, k: usize, s: usize) -> (usize, usize) {
    let o = n.div_ceil(s);
    let total = ((o - 1) * s + k).saturating_sub(n);
    (o, total / 2)
}

/// Depthwise `k × k` convolution with stride `s`, zero "SAME" padding, bias and ReLU6; `w` is
/// `[ky·k + kx][channel]`.
pub fn depthwise(x: &Tensor, w: &[f32], b: &[f32], k: usize, s: usize) -> Tensor {
    depthwise_par(x, w, b, k, s, 1)
}

/// [`depthwise`] on up to `threads` threads (output rows split between them); the same bits.
pub fn depthwise_par(
    x: &Tensor,
    w: &[f32],
    b: &[f32],
    k: usize,
    s: usize,
    threads: usize,
) -> Tensor {
    let c = x.c;
    assert_eq!(w.len(), k * k * c);
    let (oh, pt) = same_padding(x.h, k, s);
    let (ow, pl) = same_padding(x.w, k, s);
    let mut out = Tensor::zeros(oh, ow, c);
    split_items(&mut out.data, ow * c, 1, threads, |first, rows| {
        for (r, row) in rows.chunks_exact_mut(ow * c).enumerate() {
            let oy = first + r;
            for ox in 0..ow {
                let o = &mut row[ox * c..(ox + 1) * c];
                o.copy_from_slice(b);
                for_each_tap(x, k, s, (pt, pl), (oy, ox), |tap, p| {
                    let xin = &x.data[p..p + c];
                    let wk = &w[tap * c..(tap + 1) * c];
                    for ((oc, &xi), &wi) in o.iter_mut().zip(xin).zip(wk) {
                        *oc += xi * wi;
                    }
                });
                for v in o.iter_mut() {
                    *v = v.clamp(0.0, 6.0);
                }
            }
        }
    });
    out
}

/// Calls `f(tap, p)` for every tap `ky·k + kx` of the `k × k` window (stride `s`, padding
/// `(top, left)` before the first input) of output pixel `(oy, ox)` that falls inside `x`, with
/// `p` the index of that input pixel's first channel in `x.data`; taps in the zero padding are
/// skipped, since they add nothing.
#[inline(always)]
fn for_each_tap(
    x: &Tensor,
    k: usize,
    s: usize,
    (pt, pl): (usize, usize),
    (oy, ox): (usize, usize),
    mut f: impl FnMut(usize, usize),
) {
    for ky in 0..k {
        let iy = (oy * s + ky) as isize - pt as isize;
        if iy < 0 || iy >= x.h as isize {
            continue;
        }
        for kx in 0..k {
            let ix = (ox * s + kx) as isize - pl as isize;
            if ix < 0 || ix >= x.w as isize {
                continue;
            }
            f(ky * k + kx, (iy as usize * x.w + ix as usize) * x.c);
        }
    }
}

/// Gathers the `k × k` neighbourhoods (stride `s`, "SAME" zero padding) of every output pixel:
/// a tensor whose channels are `[ky][kx][channel]`, so a full convolution is then a
/// [`pointwise`] product (used for the 3-channel stem).
pub fn im2col(x: &Tensor, k: usize, s: usize) -> Tensor {
    let c = x.c;
    let (oh, pt) = same_padding(x.h, k, s);
    let (ow, pl) = same_padding(x.w, k, s);
    let kc = k * k * c;
    let mut out = Tensor::zeros(oh, ow, kc);
    for oy in 0..oh {
        for ox in 0..ow {
            let o = &mut out.data[(oy * ow + ox) * kc..(oy * ow + ox + 1) * kc];
            for_each_tap(x, k, s, (pt, pl), (oy, ox), |tap, p| {
                o[tap * c..(tap + 1) * c].copy_from_slice(&x.data[p..p + c]);
            });
        }
    }
    out
}

/// Bilinear resize of every channel to `h × w`, with half-pixel centres and clamped edges
/// (PyTorch's `interpolate(mode="bilinear", align_corners=False)`).
pub fn resize_bilinear(x: &Tensor, h: usize, w: usize) -> Tensor {
    let taps = |n_in: usize, n_out: usize| -> Vec<(usize, usize, f32)> {
        let scale = n_in as f32 / n_out as f32;
        (0..n_out)
            .map(|d| {
                let src = ((d as f32 + 0.5) * scale - 0.5).max(0.0);
                let i0 = (src.floor() as usize).min(n_in - 1);
                let i1 = (i0 + 1).min(n_in - 1);
                (i0, i1, src - i0 as f32)
            })
            .collect()
    };
    let (ty, tx) = (taps(x.h, h), taps(x.w, w));
    let c = x.c;
    let mut out = Tensor::zeros(h, w, c);
    for (oy, &(y0, y1, fy)) in ty.iter().enumerate() {
        for (ox, &(x0, x1, fx)) in tx.iter().enumerate() {
            let px = |y: usize, xx: usize| &x.data[(y * x.w + xx) * c..(y * x.w + xx + 1) * c];
            let (a, b2, c2, d) = (px(y0, x0), px(y0, x1), px(y1, x0), px(y1, x1));
            let o = &mut out.data[(oy * w + ox) * c..(oy * w + ox + 1) * c];
            for j in 0..c {
                let top = (1.0 - fx) * a[j] + fx * b2[j];
                let bot = (1.0 - fx) * c2[j] + fx * d[j];
                o[j] = (1.0 - fy) * top + fy * bot;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pseudo(n: usize, seed: u32) -> Vec<f32> {
        let mut s = seed.wrapping_mul(2_654_435_761).max(1);
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                (s % 2001) as f32 / 1000.0 - 1.0
            })
            .collect()
    }

    #[test]
    fn pointwise_equals_scalar_reference() {
        // Sizes exercise the 16-wide and 8-wide tiles and the pixel tail.
        for &(h, w, cin, cout) in &[(3, 5, 7, 24), (1, 1, 3, 8), (4, 4, 40, 16), (2, 3, 27, 32)] {
            let x = Tensor {
                h,
                w,
                c: cin,
                data: pseudo(h * w * cin, 1),
            };
            let wt = pseudo(cin * cout, 2);
            let b = pseudo(cout, 3);
            for a in [Act::None, Act::Relu6] {
                let want = pointwise_ref(&x, &wt, &b, a);
                assert_eq!(pointwise(&x, &wt, &b, a), want);
                for threads in [2, 3, 64] {
                    assert_eq!(
                        pointwise_par(&x, &wt, &b, a, threads),
                        want,
                        "{threads} threads"
                    );
                }
            }
        }
    }

    #[test]
    fn depthwise_does_not_depend_on_threads() {
        for &(h, w, c, k, s) in &[(7, 5, 16, 3, 1), (9, 6, 8, 5, 2), (1, 1, 8, 3, 2)] {
            let x = Tensor {
                h,
                w,
                c,
                data: pseudo(h * w * c, 4),
            };
            let wt = pseudo(k * k * c, 5);
            let b = pseudo(c, 6);
            let one = depthwise(&x, &wt, &b, k, s);
            for threads in [2, 4, 32] {
                assert_eq!(
                    depthwise_par(&x, &wt, &b, k, s, threads),
                    one,
                    "{threads} threads"
                );
            }
        }
    }

    #[test]
    fn same_padding_matches_tensorflow() {
        // Stride 1: symmetric; stride 2 on even sizes: the extra row goes after.
        assert_eq!(same_padding(10, 3, 1), (10, 1));
        assert_eq!(same_padding(10, 5, 1), (10, 2));
        assert_eq!(same_padding(10, 3, 2), (5, 0));
        assert_eq!(same_padding(10, 5, 2), (5, 1));
        assert_eq!(same_padding(9, 3, 2), (5, 1));
    }

    #[test]
    fn depthwise_hand_computed() {
        // One channel of ones, 3×3 kernel of ones, bias 0: each output counts the in-image
        // neighbours (4 in a corner, 6 on an edge, 9 inside), clamped at 6.
        let x = Tensor {
            h: 3,
            w: 3,
            c: 1,
            data: vec![1.0; 9],
        };
        let y = depthwise(&x, &[1.0; 9], &[0.0], 3, 1);
        assert_eq!(y.data, vec![4.0, 6.0, 4.0, 6.0, 6.0, 6.0, 4.0, 6.0, 4.0]);
        // Stride 2 on 4×4 with kernel 3: padding 0 before, 1 after.
        let x = Tensor {
            h: 4,
            w: 4,
            c: 1,
            data: (0..16).map(|v| v as f32 * 0.25).collect(),
        };
        let y = depthwise(
            &x,
            &[0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
            &[0.0],
            3,
            2,
        );
        assert_eq!((y.h, y.w), (2, 2));
        // The centre tap of output (oy, ox) reads input (2oy + 1, 2ox + 1): values 5, 7, 13, 15
        // (× 0.25).
        assert_eq!(y.data, vec![1.25, 1.75, 3.25, 3.75]);
    }

    #[test]
    fn bilinear_doubling_matches_half_pixel_rule() {
        // 2 → 4 pixels: sources at −0.25 (clamped 0), 0.25, 0.75, 1.25 (clamped to 1).
        let x = Tensor {
            h: 1,
            w: 2,
            c: 1,
            data: vec![0.0, 4.0],
        };
        let y = resize_bilinear(&x, 1, 4);
        assert_eq!(y.data, vec![0.0, 1.0, 3.0, 4.0]);
    }
}
