//! Panel colour (rendering.md §3): the adjustments reduced once per render to a few constants,
//! then applied in order to each filtered linear sample; the night and bloom constants of §4;
//! and the deterministic grain hash.

use wide::{bytemuck, f32x8, i32x8, u32x8};

use super::colour::{exp2_in_range_lanes, fast_exp2, fast_log2};
use super::stats::PhotoStats;
use super::{Adjustments, Night};

/// Photo multiplier of a night scene (§4): darkened and cooled.
pub const NIGHT_PHOTO: [f32; 3] = [0.12 * 0.80, 0.12 * 0.90, 0.12 * 1.15];
/// Light of a backlit box (§3 step 7).
pub const BACKLIT: [f32; 3] = [0.85, 0.85 * 0.93, 0.85 * 0.80];
/// Bloom strength of an LED screen.
pub const BLOOM_LED: f32 = 0.35;
/// Bloom strength of a backlit box.
pub const BLOOM_BACKLIT: f32 = 0.15;
/// Bloom σ as a fraction of the quad's longer diagonal.
pub const BLOOM_SIGMA: f64 = 0.03;

/// Interpolation intervals of the contrast table (`[table[i], table[i + 1]]`): the indices it
/// covers.
const PAIRS: usize = (CONTRAST_STEPS * CONTRAST_MAX_SQRT) as usize;
const _: () = assert!(PAIRS.is_power_of_two());

/// Steps of the contrast table per unit of `sqrt(c)`.
const CONTRAST_STEPS: f32 = 4096.0;
/// The contrast table covers `sqrt(c)` in `[0, CONTRAST_MAX_SQRT]`; larger values (possible
/// with brightness and sharpening overshoot) take the fast powers.
const CONTRAST_MAX_SQRT: f32 = 2.0;

/// `0.18 · (c / 0.18)^γ` tabulated against `sqrt(c)` and interpolated linearly: a power of
/// `sqrt(c)` with exponent `2γ ≥ 1.19` is smooth enough there that the relative error is below
/// 1e-5 from c = 0.003 up and the absolute error below 3e-6 under it (half an 8-bit level is
/// 1.5e-4 near black).
#[derive(Debug, Clone, PartialEq)]
pub struct ContrastTable {
    gamma: f32,
    /// `0.18 · (r² / 0.18)^γ` at `r = i / CONTRAST_STEPS`, one entry past the last index
    /// [`ContrastTable::apply`] interpolates from, so that [`ContrastTable::apply_lanes`]'s
    /// masked indices need no bounds check. One f32 an entry: the lanes load `table[i]` and
    /// `table[i + 1]` one value at a time either way, and the 32 kB table (16 kB for values up
    /// to 1) leaves room in the L1 cache that the 64 kB of `[table[i], table[i + 1]]` pairs
    /// of an earlier version took.
    table: Box<[f32; PAIRS + 2]>,
}

impl ContrastTable {
    /// The table of exponent `gamma`.
    pub fn new(gamma: f32) -> ContrastTable {
        let n = (CONTRAST_STEPS * CONTRAST_MAX_SQRT) as usize;
        let table = (0..=n + 1)
            .map(|i| {
                let r = i as f64 / CONTRAST_STEPS as f64;
                (0.18 * (r * r / 0.18).powf(gamma as f64)) as f32
            })
            .collect::<Vec<f32>>()
            .try_into()
            .expect("PAIRS + 2 entries");
        ContrastTable { gamma, table }
    }

    /// [`ContrastTable::apply`] of [`LANES`] values in place: the square roots, indices and
    /// interpolation lane by lane (vectorised), the same operations so the same results; a
    /// chunk with a value beyond the table goes one value at a time.
    #[inline(always)]
    pub fn apply_lanes(&self, c: &mut [f32; LANES]) {
        let x = f32x8::from(*c).sqrt() * f32x8::splat(CONTRAST_STEPS);
        let limit = f32x8::splat(CONTRAST_STEPS * CONTRAST_MAX_SQRT);
        if !x.simd_lt(limit).all() {
            for v in c.iter_mut() {
                *v = self.apply(*v);
            }
            return;
        }
        let i = x.trunc_int();
        let f = x - i.round_float();
        let i = i.to_array();
        let (mut a, mut b) = ([0f32; LANES], [0f32; LANES]);
        for l in 0..LANES {
            // Below PAIRS already (checked above); the mask only spares the bounds check.
            let j = i[l] as usize & (PAIRS - 1);
            [a[l], b[l]] = [self.table[j], self.table[j + 1]];
        }
        let (a, b) = (f32x8::from(a), f32x8::from(b));
        *c = (a + (b - a) * f).to_array();
    }

    /// `0.18 · (c / 0.18)^γ` for `c ≥ 0`.
    #[inline(always)]
    pub fn apply(&self, c: f32) -> f32 {
        let x = c.sqrt() * CONTRAST_STEPS;
        if x < CONTRAST_STEPS * CONTRAST_MAX_SQRT {
            let i = x as usize;
            let f = x - i as f32;
            let (a, b) = (self.table[i], self.table[i + 1]);
            a + (b - a) * f
        } else {
            Self::exact(self.gamma, c)
        }
    }

    /// The same with the fast powers (the reference of the table).
    #[inline(always)]
    pub fn exact(gamma: f32, c: f32) -> f32 {
        if c > 0.0 {
            0.18 * fast_exp2(gamma * fast_log2(c * (1.0 / 0.18)))
        } else {
            0.0
        }
    }
}

/// The adjustments reduced to what the per-pixel code needs.
#[derive(Debug, Clone, PartialEq)]
pub struct PanelParams {
    /// LOD bias of the main sample (blur when sharpness < 0).
    pub bias: f32,
    /// Unsharp amount `1.5·h` (0 when h ≤ 0); the blurred twin uses `bias + 1.5`.
    pub sharpen: f32,
    /// Brightness gain `2^(1.5·b)`.
    pub bright: f32,
    /// Contrast exponent `2^(0.75·k)`.
    pub gamma: f32,
    /// `1 + σ`.
    pub sat: f32,
    /// Warmth × auto match or lighting, per channel.
    pub gain: [f32; 3],
    /// `0.6·glare`.
    pub glare: f32,
    /// Photo multiplier (1 by day).
    pub photo_gain: [f32; 3],
    /// Bloom strength (0 by day).
    pub bloom: f32,
    /// Grain amplitude in 8-bit units: `n · max(σ_photo, 1)`.
    pub grain: f32,
    /// The contrast power as a table (`None` when `gamma` is 1).
    pub contrast: Option<ContrastTable>,
}

impl PanelParams {
    /// Reduces validated adjustments, with the photo statistics when auto match or grain need them.
    pub fn new(a: &Adjustments, stats: &PhotoStats) -> PanelParams {
        let h = a.sharpness;
        let w = a.warmth;
        let warm = [1.0 + 0.12 * w, 1.0, 1.0 - 0.12 * w];
        let light = match a.night {
            Some(Night::Backlit) => BACKLIT,
            Some(Night::Led) => [1.0; 3],
            // By day, auto match models the scene's light on the printed paper.
            None if a.auto_match => stats.cast.map(|c| c * stats.exposure),
            None => [1.0; 3],
        };
        PanelParams {
            bias: if h < 0.0 { -2.5 * h } else { 0.0 },
            sharpen: if h > 0.0 { 1.5 * h } else { 0.0 },
            bright: (1.5 * a.brightness).exp2(),
            gamma: (0.75 * a.contrast).exp2(),
            sat: 1.0 + a.saturation,
            gain: [warm[0] * light[0], warm[1] * light[1], warm[2] * light[2]],
            glare: 0.6 * a.glare,
            photo_gain: if a.night.is_some() {
                NIGHT_PHOTO
            } else {
                [1.0; 3]
            },
            bloom: match a.night {
                Some(Night::Led) => BLOOM_LED,
                Some(Night::Backlit) => BLOOM_BACKLIT,
                None => 0.0,
            },
            grain: a.grain * stats.noise.max(1.0),
            contrast: (a.contrast != 0.0).then(|| ContrastTable::new((0.75 * a.contrast).exp2())),
        }
    }

    /// §3 steps 1–9 on the filtered sample `c` (and its blurred twin `cb` when sharpening), at
    /// panel coordinates `(s, t)`. Returns the panel colour in 0..1.
    #[inline(always)]
    pub fn apply(&self, mut c: [f32; 3], cb: [f32; 3], s: f32, t: f32) -> [f32; 3] {
        if self.sharpen > 0.0 {
            for i in 0..3 {
                c[i] += self.sharpen * (c[i] - cb[i]);
            }
        }
        for v in &mut c {
            *v = v.max(0.0) * self.bright;
        }
        // 0.18 · (c / 0.18)^γ, tabulated: within 1e-5 relative, far below a level.
        if let Some(table) = &self.contrast {
            for v in &mut c {
                *v = table.apply(*v);
            }
        }
        if self.sat != 1.0 {
            let y = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
            for v in &mut c {
                *v = (y + (*v - y) * self.sat).max(0.0);
            }
        }
        for i in 0..3 {
            c[i] *= self.gain[i];
        }
        if self.glare > 0.0 {
            let z = (0.8 * s + 0.6 * t - 0.45) / 0.12;
            // exp(−z²) is below 1e-13 past |z| = 5.5: no visible light there.
            if z.abs() < 5.5 {
                let g = self.glare * fast_exp2(-z * z * std::f32::consts::LOG2_E);
                for v in &mut c {
                    *v += (1.0 - v.min(1.0)) * g;
                }
            }
        }
        c.map(|v| v.clamp(0.0, 1.0))
    }
}

/// Pixels per chunk of the lane-wise code.
pub const LANES: usize = 8;

/// Up to [`LANES`] pixels between the passes of the shading (`render_over`), channel-major
/// (`[channel][lane]`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Chunk {
    /// Panel coordinates `s` and `t`.
    pub st: [[f32; LANES]; 2],
    /// Footprints: `u, v, jx.0, jx.1, jy.0, jy.1`.
    pub fps: [[f32; LANES]; 6],
    /// The filtered sample, then the panel colour.
    pub c: [[f32; LANES]; 3],
    /// The blurred twin (when sharpening).
    pub cb: [[f32; LANES]; 3],
}

impl PanelParams {
    /// [`PanelParams::apply`] on every pixel of `chunks`, [`LANES`] at once, in place (`c`
    /// becomes the panel colour): the same operations in the same order, so the same results,
    /// written so that the compiler can vectorise all but the table look-ups. Each step goes
    /// over all the chunks before the next: a step's chunks are independent, so their latencies
    /// overlap, where one chunk's chain of steps would wait on each.
    #[inline(always)]
    pub fn apply_lanes(&self, chunks: &mut [Chunk]) {
        // The same operations as `apply`, eight lanes at once (`f32x8::max` picks the other
        // operand of a NaN, as `f32::max` does).
        let sp = f32x8::splat;
        #[inline(always)]
        fn each(chunks: &mut [Chunk], f: impl Fn(&mut [f32x8; 3], &Chunk)) {
            for ch in chunks.iter_mut() {
                let mut v = ch.c.map(f32x8::from);
                f(&mut v, ch);
                ch.c = v.map(|v| v.to_array());
            }
        }
        if self.sharpen > 0.0 {
            each(chunks, |v, ch| {
                for (v, b) in v.iter_mut().zip(&ch.cb) {
                    *v += sp(self.sharpen) * (*v - f32x8::from(*b));
                }
            });
        }
        each(chunks, |v, _| {
            for v in v.iter_mut() {
                *v = v.max(sp(0.0)) * sp(self.bright);
            }
        });
        if let Some(table) = &self.contrast {
            for ch in chunks.iter_mut() {
                for c in ch.c.iter_mut() {
                    table.apply_lanes(c);
                }
            }
        }
        each(chunks, |v, _| {
            if self.sat != 1.0 {
                let y = sp(0.2126) * v[0] + sp(0.7152) * v[1] + sp(0.0722) * v[2];
                for v in v.iter_mut() {
                    *v = (y + (*v - y) * sp(self.sat)).max(sp(0.0));
                }
            }
            for (v, gain) in v.iter_mut().zip(self.gain) {
                *v *= sp(gain);
            }
        });
        if self.glare > 0.0 {
            each(chunks, |v, ch| {
                let z = (sp(0.8) * f32x8::from(ch.st[0]) + sp(0.6) * f32x8::from(ch.st[1])
                    - sp(0.45))
                    / sp(0.12);
                // Branch-free: the exponent is clamped only where the light is dropped anyway,
                // and adding 0 changes nothing.
                let e =
                    exp2_in_range_lanes((-z * z * sp(std::f32::consts::LOG2_E)).max(sp(-126.0)));
                let g = z.abs().simd_lt(sp(5.5)).select(sp(self.glare) * e, sp(0.0));
                for v in v.iter_mut() {
                    *v += (sp(1.0) - v.min(sp(1.0))) * g;
                }
            });
        }
        for ch in chunks.iter_mut() {
            for ch in ch.c.iter_mut() {
                for v in ch.iter_mut() {
                    *v = v.clamp(0.0, 1.0);
                }
            }
        }
    }
}

/// Deterministic grain value of pixel `(x, y)`: uniform on [−√3, √3), mean 0, variance 1.
/// The same hash as the browser preview's `grainZ`.
#[inline(always)]
pub fn grain_z(x: u32, y: u32) -> f32 {
    (grain_bits(x, y) as f32 / 16_777_216.0 - 0.5) * 3.464_101_6
}

/// The 24 hashed bits of [`grain_z`].
#[inline(always)]
pub fn grain_bits(x: u32, y: u32) -> u32 {
    let mut h = x.wrapping_mul(0x27d4_eb2d) ^ y.wrapping_mul(0x1656_67b1);
    h = (h ^ (h >> 15)).wrapping_mul(0x85eb_ca6b);
    h = (h ^ (h >> 13)).wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h >> 8
}

/// [`grain_bits`] of the pixels `(x0 + i, y)`, `i` in `0..LANES`, lane by lane (the same
/// wrapping products and shifts).
#[inline(always)]
pub fn grain_bits_lanes(x0: u32, y: u32) -> i32x8 {
    let sp = u32x8::splat;
    let x = sp(x0) + u32x8::from([0, 1, 2, 3, 4, 5, 6, 7]);
    let mut h = (x * sp(0x27d4_eb2d)) ^ sp(y.wrapping_mul(0x1656_67b1));
    h = (h ^ (h >> 15)) * sp(0x85eb_ca6b);
    h = (h ^ (h >> 13)) * sp(0xc2b2_ae35);
    h ^= h >> 16;
    // Below 2^24: the same value as a signed lane.
    bytemuck::cast(h >> 8)
}

/// [`grain_z`] of [`grain_bits`] already converted to f32 (exactly: below 2^24), lane by lane.
#[inline(always)]
pub fn grain_z_of(bits: f32x8) -> f32x8 {
    (bits / f32x8::splat(16_777_216.0) - f32x8::splat(0.5)) * f32x8::splat(3.464_101_6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grain_lanes_hash_as_the_scalar_grain() {
        for (x0, y) in [
            (0u32, 0u32),
            (1, 7),
            (4093, 2999),
            (u32::MAX - 3, 12),
            (77, u32::MAX),
        ] {
            let lanes = grain_bits_lanes(x0, y).to_array();
            for (i, &b) in lanes.iter().enumerate() {
                assert_eq!(
                    b as u32,
                    grain_bits(x0.wrapping_add(i as u32), y),
                    "({x0}, {y}) + {i}"
                );
            }
        }
    }

    #[test]
    fn neutral_adjustments_change_nothing() {
        let p = PanelParams::new(&Adjustments::default(), &PhotoStats::default());
        let c = [0.2, 0.5, 0.9];
        assert_eq!(p.apply(c, [0.0; 3], 0.3, 0.3), c);
    }

    #[test]
    fn the_lanes_match_one_pixel_at_a_time() {
        let a = Adjustments {
            brightness: 0.1,
            contrast: 0.2,
            saturation: 0.15,
            warmth: 0.2,
            sharpness: 0.3,
            grain: 0.5,
            glare: 0.3,
            auto_match: true,
            night: None,
            view: None,
        };
        for a in [a, Adjustments::default()] {
            let p = PanelParams::new(&a, &PhotoStats::default());
            for k in 0..200 {
                let f = |i: usize, c: usize| ((k * 31 + i * 7 + c * 13) % 97) as f32 / 80.0;
                let c = [0, 1, 2].map(|ch| std::array::from_fn(|i| f(i, ch)));
                let cb = [0, 1, 2].map(|ch| std::array::from_fn(|i| f(i + 3, ch) * 0.9));
                let s = std::array::from_fn(|i| (k * LANES + i) as f32 / 1600.0);
                let t: [f32; LANES] = std::array::from_fn(|i| 1.0 - s[i] * 0.7);
                let mut chunk = [Chunk {
                    st: [s, t],
                    c,
                    cb,
                    ..Chunk::default()
                }];
                p.apply_lanes(&mut chunk);
                let lanes = chunk[0].c;
                for i in 0..LANES {
                    let one = p.apply(c.map(|ch| ch[i]), cb.map(|ch| ch[i]), s[i], t[i]);
                    assert_eq!(one, lanes.map(|ch| ch[i]), "{k} {i}");
                }
            }
        }
    }

    #[test]
    fn the_contrast_table_matches_the_powers() {
        for k in [-1.0f32, -0.4, 0.2, 1.0] {
            let gamma = (0.75 * k).exp2();
            let t = ContrastTable::new(gamma);
            for i in 0..=100_000 {
                let c = (i as f32 / 100_000.0).powi(2) * 6.0;
                let exact = ContrastTable::exact(gamma, c);
                let err = (t.apply(c) - exact).abs();
                assert!(
                    err <= 3e-6 + 1e-5 * exact,
                    "γ {gamma}, c {c}: {} vs {exact}",
                    t.apply(c)
                );
            }
        }
    }

    #[test]
    fn the_contrast_lanes_match_one_value_at_a_time() {
        let t = ContrastTable::new((0.75f32 * 0.2).exp2());
        let values: Vec<f32> = (0..=80_000)
            .map(|i| (i as f32 / 20_000.0).powi(2))
            .chain([0.0, 3.999_999, 4.0, 4.000_001, 1e9])
            .collect();
        for chunk in values.chunks(LANES) {
            let mut c = [0.5f32; LANES];
            c[..chunk.len()].copy_from_slice(chunk);
            let mut lanes = c;
            t.apply_lanes(&mut lanes);
            assert_eq!(lanes, c.map(|v| t.apply(v)), "{c:?}");
        }
    }

    #[test]
    fn grain_has_mean_zero_and_unit_variance() {
        let (mut s, mut s2) = (0f64, 0f64);
        let n = 200 * 200;
        for y in 0..200 {
            for x in 0..200 {
                let z = grain_z(x, y) as f64;
                s += z;
                s2 += z * z;
            }
        }
        assert!((s / n as f64).abs() < 0.03);
        assert!((s2 / n as f64 - 1.0).abs() < 0.05);
        assert_eq!(grain_z(17, 4), grain_z(17, 4));
        assert_ne!(grain_z(17, 4), grain_z(4, 17));
    }
}
