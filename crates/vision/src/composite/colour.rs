//! sRGB ↔ linear light (rendering.md "Conventions") with tables: a 256-entry decode table and
//! an encoder that rounds exactly (a 4096-bucket table gives the first candidate level, the 255
//! decision thresholds correct it; eight values at a time, buckets that follow the value's
//! exponent), plus fast `log2`/`exp2` for the per-pixel powers.

use std::sync::OnceLock;

use wide::{bytemuck, f32x8, i16x8, i32x8, u8x16};

use super::adjust::LANES;

/// Exact sRGB decode of a value in 0..1 (IEC 61966-2-1).
pub fn srgb_to_linear(c: f64) -> f64 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Exact sRGB encode of a linear value in 0..1.
pub fn linear_to_srgb(l: f64) -> f64 {
    if l <= 0.003_130_8 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    }
}

const BUCKETS: usize = 4096;

/// Mantissa bits that [`Srgb::encode_lanes_i32`]'s buckets take from a value: each octave
/// `[2^e, 2^(e+1))` is cut into 128 buckets, each at most 1/128 (0.78 %) of its lower end
/// wide, while consecutive thresholds are at least 0.89 % apart (the last two, a factor
/// `(269.5 / 268.5)^2.4`; near black, in the linear segment, much more), so a bucket holds at
/// most one threshold (checked in the tests).
const OCTAVE_BITS: i32 = 7;
/// The lanes' bucket index of a value `m ≥ 0` is `(m.to_bits() >> 16) - FIRST`: bucket 1 starts
/// at 2^-13, and bucket 0 holds everything below (all of it encodes to 0: the first threshold
/// is 1.5e-4, above 2^-13 ≈ 1.2e-4). A bucket `b` in between holds exactly the values whose
/// bits are `(b + FIRST) << 16` plus 0 to 0xffff.
const FIRST: i32 = ((127 - 13) << OCTAVE_BITS) - 1;
/// The lanes' bucket of 1.0 and above (and of +∞).
const TOP: i32 = (127 << OCTAVE_BITS) - FIRST;
/// Entries of the lanes' bucket table, a power of two above [`TOP`] (the rest repeat the top
/// bucket), so that a masked index needs no bounds check.
const LANE_BUCKETS: usize = (TOP as usize + 1).next_power_of_two();

/// The conversion tables, built once per process.
pub struct Srgb {
    /// Linear value of each 8-bit code.
    pub decode: [f32; 256],
    /// Per channel, [`Srgb::decode`] as texels with that channel alone (the others 0): a
    /// pixel's texel `[r, g, b, 0]` is the sum of its three (adding zeros is exact), three
    /// vector loads and two additions instead of three scalar loads and the shuffles that
    /// insert them into a vector (the creative's pyramid).
    pub decode_texel: [[[f32; 4]; 256]; 3],
    /// `thresholds[l]`: the smallest linear value encoding to level `l + 1`.
    thresholds: [f32; 256],
    /// The level of the lower end of each bucket of `[0, 1)`.
    start: Vec<u8>,
    /// Per bucket of [`Srgb::encode_lanes_i32`] (see [`FIRST`]): its start level plus one
    /// (bits 17 up), and the threshold above it as the low 16 bits of its bits, or 0x10000
    /// when it lies beyond the bucket (bits 0 to 16). A value in the bucket is at or above the
    /// threshold exactly when its own low 16 bits are at least that, since positive floats
    /// order as their bits: one 4-byte load per value and integer compares. The buckets follow
    /// the value's exponent, so that they are narrow near black and wide near white as the
    /// levels are: 1666 buckets (6.7 kB) do what 4096 uniform ones did (pairs of f32, 32 kB,
    /// the whole L1 cache of most x86 cores, which the render's other tables also need).
    bucket: Box<[u32; LANE_BUCKETS]>,
    /// A quarter of the smallest distance between a code's linear value and the thresholds
    /// around it: adding less than this (in magnitude) to any `decode[v]` encodes back to `v`
    /// (the gap is ≈ 1.5e-4 in the linear segment near black; checked for every code in the tests).
    pub negligible: f32,
}

impl Srgb {
    /// The shared tables.
    pub fn get() -> &'static Srgb {
        static TABLES: OnceLock<Srgb> = OnceLock::new();
        TABLES.get_or_init(Srgb::build)
    }

    fn build() -> Srgb {
        let mut decode = [0f32; 256];
        for (i, d) in decode.iter_mut().enumerate() {
            *d = srgb_to_linear(i as f64 / 255.0) as f32;
        }
        // The last threshold is unreachable (above 1), so the search below stops at 255.
        let mut thresholds = [f32::INFINITY; 256];
        for (l, t) in thresholds.iter_mut().enumerate().take(255) {
            *t = srgb_to_linear((l as f64 + 0.5) / 255.0) as f32;
        }
        let start: Vec<u8> = (0..BUCKETS)
            .map(|i| {
                let c = i as f32 / BUCKETS as f32;
                thresholds.iter().take_while(|&&t| c >= t).count() as u8
            })
            .collect();
        let gap = (0..256)
            .map(|v| {
                let above = thresholds[v] - decode[v];
                let below = if v > 0 {
                    decode[v] - thresholds[v - 1]
                } else {
                    f32::INFINITY
                };
                above.min(below)
            })
            .fold(f32::INFINITY, f32::min);
        // A bucket's start level is the number of thresholds at or below its lower end.
        let bucket = (0..LANE_BUCKETS as i32)
            .map(|b| {
                let b = b.min(TOP);
                let lower = ((b + FIRST) as u32) << 16;
                let level = match b {
                    0 => 0,
                    _ => thresholds
                        .iter()
                        .take_while(|&&t| f32::from_bits(lower) >= t)
                        .count(),
                };
                // Bucket 0 and the top one span several octaves: no threshold in them.
                let above = if b == 0 || b == TOP || level == 255 {
                    0x10000
                } else {
                    (thresholds[level].to_bits() - lower).min(0x10000)
                };
                ((level as u32 + 1) << 17) | above
            })
            .collect::<Vec<_>>()
            .try_into()
            .expect("LANE_BUCKETS entries");
        let decode_texel = std::array::from_fn(|c| {
            std::array::from_fn(|v| {
                let mut t = [0f32; 4];
                t[c] = decode[v];
                t
            })
        });
        Srgb {
            decode,
            decode_texel,
            thresholds,
            start,
            bucket,
            negligible: gap / 4.0,
        }
    }

    /// Encodes a linear value to the nearest 8-bit sRGB code (clamped; NaN gives 0).
    #[inline(always)]
    pub fn encode(&self, l: f32) -> u8 {
        if l.is_nan() || l <= 0.0 {
            return 0;
        }
        if l >= 1.0 {
            return 255;
        }
        let level = self.start[(l * BUCKETS as f32) as usize];
        // A bucket spans less than one level even near black, so it holds at most one
        // threshold: one comparison corrects the candidate (checked in the tests).
        level + (l >= self.thresholds[level as usize]) as u8
    }
}

impl Srgb {
    /// [`Srgb::encode`] of [`LANES`] values at once: the bucket index computed lane by lane
    /// (vectorised) and clamped instead of the early returns, then one table load per value.
    /// The same codes as [`Srgb::encode`] for every input (NaN and out-of-range included).
    #[inline(always)]
    pub fn encode_lanes(&self, l: &[f32; LANES]) -> [u8; LANES] {
        // The codes are in 0..=255: two packs make the bytes.
        let code = i16x8::from_i32x8_saturate(self.encode_lanes_i32(l));
        let bytes = u8x16::narrow_i16x8(code, i16x8::ZERO).to_array();
        let mut out = [0u8; LANES];
        out.copy_from_slice(&bytes[..LANES]);
        out
    }

    /// [`Srgb::encode_lanes`]'s codes as whole numbers in f32 (exact), for a caller that adds
    /// to them before rounding (grain).
    #[inline(always)]
    pub fn encode_lanes_f32(&self, l: &[f32; LANES]) -> f32x8 {
        self.encode_lanes_i32(l).round_float()
    }

    /// [`Srgb::encode_lanes`]'s codes as i32.
    #[inline(always)]
    pub fn encode_lanes_i32(&self, l: &[f32; LANES]) -> i32x8 {
        // The bucket from the value's bits (see `FIRST`). NaN and values ≤ 0 are made +0 first
        // (`fast_max` gives its second operand when either is NaN), so they land in bucket 0
        // and encode to 0 like the values just above 0; 1.0 and above, +∞ included, land in
        // the top bucket. The `min` also tells the compiler that the index is in range.
        let m = f32x8::from(*l).fast_max(f32x8::ZERO);
        let bits: i32x8 = bytemuck::cast(m);
        let idx = ((bits - i32x8::splat(FIRST << 16)).max(i32x8::splat(0)) >> 16_i32)
            .min(i32x8::splat(TOP))
            .to_array();
        let mut entry = [0i32; LANES];
        for i in 0..LANES {
            // The index is in 0..=TOP already; the mask only spares the bounds check.
            entry[i] = self.bucket[idx[i] as usize & (LANE_BUCKETS - 1)] as i32;
        }
        let entry = i32x8::from(entry);
        // level + (m ≥ threshold) = (level + 1) + `below`, −1 where the threshold's low bits
        // are above m's and 0 elsewhere. The values of bucket 0 and the top one never reach
        // their 0x10000.
        let below = (entry & i32x8::splat(0x1ffff)).simd_gt(bits & i32x8::splat(0xffff));
        (entry >> 17_i32) + below
    }
}

/// `log2(x)` for finite `x > 0`, absolute error below 3e-6.
#[inline(always)]
pub fn fast_log2(x: f32) -> f32 {
    let bits = x.to_bits();
    let e = ((bits >> 23) & 0xff) as i32 - 127;
    let m = f32::from_bits((bits & 0x007f_ffff) | 0x3f80_0000);
    // log2(m) on [1, 2): a degree-6 Chebyshev fit around 1.5, no division.
    let t = m - 1.5;
    let p = 0.584_962_8
        + t * (0.961_821_2
            + t * (-0.320_632_33
                + t * (0.141_718_16
                    + t * (-0.070_589_68 + t * (0.043_928_63 + t * -0.025_123_2)))));
    e as f32 + p
}

/// `2^x`, relative error below 1e-6 (0 below 2^-126, saturating above 2^127).
#[inline(always)]
pub fn fast_exp2(x: f32) -> f32 {
    if x < -126.0 {
        return 0.0;
    }
    exp2_in_range(x.min(127.0))
}

/// [`fast_exp2`] without the underflow test, for `x` in `[-126, 127]`: branch-free, so it
/// vectorises; the same value as [`fast_exp2`] there.
#[inline(always)]
pub fn exp2_in_range(x: f32) -> f32 {
    // Nearest integer by truncation of a positive offset value (round() is a library call).
    let i = ((x + 128.5) as i32 - 128) as f32;
    let f = (x - i) * std::f32::consts::LN_2;
    // e^f for |f| ≤ ln2/2, degree 6.
    let p = 1.0
        + f * (1.0
            + f * (0.5 + f * (1.0 / 6.0 + f * (1.0 / 24.0 + f * (1.0 / 120.0 + f / 720.0)))));
    let scale = f32::from_bits(((i as i32 + 127) as u32) << 23);
    p * scale
}

/// [`exp2_in_range`] of [`LANES`] values at once: the same operations lane by lane.
#[inline(always)]
pub fn exp2_in_range_lanes(x: f32x8) -> f32x8 {
    let sp = f32x8::splat;
    let n = (x + sp(128.5)).trunc_int() - i32x8::splat(128);
    let i = n.round_float();
    let f = (x - i) * sp(std::f32::consts::LN_2);
    let p = sp(1.0)
        + f * (sp(1.0)
            + f * (sp(0.5)
                + f * (sp(1.0 / 6.0)
                    + f * (sp(1.0 / 24.0) + f * (sp(1.0 / 120.0) + f / sp(720.0))))));
    let bits: [i32; LANES] = ((n + i32x8::splat(127)) << 23_i32).to_array();
    let mut scale = [0f32; LANES];
    for k in 0..LANES {
        scale[k] = f32::from_bits(bits[k] as u32);
    }
    p * f32x8::from(scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_rounds_like_the_exact_formula() {
        let s = Srgb::get();
        let mut worst = 0i32;
        for i in 0..=200_000 {
            let l = i as f32 / 200_000.0;
            let exact = (linear_to_srgb(l as f64) * 255.0).round() as i32;
            worst = worst.max((s.encode(l) as i32 - exact).abs());
        }
        assert!(worst <= 1, "worst error {worst} levels");
        for v in 0..=255u8 {
            assert_eq!(s.encode(s.decode[v as usize]), v);
        }
        assert_eq!(s.encode(-0.5), 0);
        assert_eq!(s.encode(7.0), 255);
        assert_eq!(s.encode(f32::NAN), 0);
        // Every bucket holds at most one threshold, so the single correction step suffices.
        for i in 0..BUCKETS {
            let (a, b) = (i as f32 / BUCKETS as f32, (i + 1) as f32 / BUCKETS as f32);
            let inside = s.thresholds.iter().filter(|&&t| t > a && t < b).count();
            assert!(inside <= 1, "bucket {i}: {inside} thresholds");
        }
        // Likewise the lanes' buckets, between the lower ends of consecutive ones (bucket 0
        // ends at 2^-13, below the first threshold; the top one starts at 1.0, above the last).
        let lower = |b: i32| f32::from_bits(((b + FIRST) as u32) << 16);
        assert!(s.thresholds[0] > lower(1));
        assert_eq!(lower(TOP), 1.0);
        assert!(s.thresholds[254] < 1.0);
        for b in 1..TOP {
            let (a, c) = (lower(b), lower(b + 1));
            let inside = s.thresholds.iter().filter(|&&t| t > a && t < c).count();
            assert!(inside <= 1, "lane bucket {b}: {inside} thresholds");
        }
    }

    #[test]
    fn the_lanes_encode_like_one_value_at_a_time() {
        let s = Srgb::get();
        let mut values: Vec<f32> = (0..=300_000).map(|i| i as f32 / 250_000.0 - 0.1).collect();
        values.extend(s.thresholds.iter().take(255).flat_map(|&t| {
            [
                t,
                f32::from_bits(t.to_bits() - 1),
                f32::from_bits(t.to_bits() + 1),
            ]
        }));
        values.extend(s.decode);
        // The lanes' bucket boundaries, and the values just below them.
        values.extend((1..=TOP + 1).flat_map(|b| {
            let lower = ((b + FIRST) as u32) << 16;
            [f32::from_bits(lower), f32::from_bits(lower - 1)]
        }));
        values.extend([
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            -0.0,
            1.0,
            f32::from_bits(1.0f32.to_bits() - 1),
            f32::MAX,
            f32::MIN_POSITIVE,
            3e9,
            -3e9,
        ]);
        for chunk in values.chunks(LANES) {
            let mut l = [0f32; LANES];
            l[..chunk.len()].copy_from_slice(chunk);
            let got = s.encode_lanes(&l);
            for i in 0..LANES {
                assert_eq!(got[i], s.encode(l[i]), "{}", l[i]);
            }
        }
    }

    #[test]
    fn adding_a_negligible_amount_keeps_every_code() {
        // encode and f32 addition are monotone, so the two ends of the interval prove it.
        let s = Srgb::get();
        assert!(
            s.negligible > 3.0e-5 && s.negligible < 4.0e-5,
            "{}",
            s.negligible
        );
        let m = s.negligible * 1.0001;
        for v in 0..=255u8 {
            let d = s.decode[v as usize];
            assert_eq!(s.encode(d + m), v);
            assert_eq!(s.encode(d - m), v);
        }
    }

    #[test]
    fn the_exp2_lanes_match_one_value_at_a_time() {
        let values: Vec<f32> = (0..=260_000)
            .map(|i| -126.0 + i as f32 * 0.001)
            .chain([-126.0, 0.0, -0.0, 126.999, 127.0])
            .collect();
        for chunk in values.chunks(LANES) {
            let mut x = [0f32; LANES];
            x[..chunk.len()].copy_from_slice(chunk);
            let got = exp2_in_range_lanes(f32x8::from(x)).to_array();
            assert_eq!(got, x.map(exp2_in_range), "{x:?}");
        }
    }

    #[test]
    fn fast_powers_are_close() {
        for i in 1..2000 {
            let x = i as f32 * 0.013;
            assert!((fast_log2(x) - x.log2()).abs() < 3e-6, "{x}");
            let y = (i as f32 - 1000.0) * 0.02;
            assert!((fast_exp2(y) / y.exp2() - 1.0).abs() < 2e-6, "{y}");
        }
    }
}
