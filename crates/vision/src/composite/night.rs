//! Night scenes (rendering.md §4): the darkening of the photo, each byte through its channel's
//! 8-bit table, computed 32 bytes at a time with a few vector operations where the tables
//! allow it, else looked up two bytes at a time. The panel's light is in `bloom.rs`.

use wide::{bytemuck::cast, i8x32, i16x16, u8x32, u16x16};

use super::adjust::NIGHT_PHOTO;
use super::colour::Srgb;
use std::sync::OnceLock;

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

/// The darkening of a night scene: [`darken_tables`], computed by vector arithmetic when its
/// tables fit the arithmetic's shape (see [`Lanes`]), else looked up per pair of bytes.
pub struct Darkening {
    /// Per channel, the darkened code of each code.
    bytes: [[u8; 256]; 3],
    /// How whole blocks of bytes are darkened.
    path: Path,
}

/// The two ways to darken many bytes: the same bytes, at different speeds.
enum Path {
    /// By arithmetic, 96 bytes (32 pixels) at a time.
    Lanes(Box<Lanes>),
    /// `pairs[c][a | b << 8]`: the bytes `a`, `b` of channels `c`, `c + 1` (mod 3) darkened,
    /// the same way (little-endian). Four pixels are six pairs, so that a 12-byte step takes
    /// six look-ups of 16 bits instead of twelve of 8 bits, and two loads and two stores
    /// instead of twelve each; the byte look-ups were bound by inserting each byte into a
    /// vector. The tables (3 × 128 kB) live in the L2 cache and their look-ups bound the
    /// loop, which is why [`Path::Lanes`] is preferred when it applies.
    Pairs([Box<[u16; 1 << 16]>; 3]),
}

/// Most breakpoints of the staircase below a channel's lines that [`Lanes`] takes, each two
/// operations per 32 bytes: the gains from 0.02 to 0.21 need 1 to 5 (the night's 3 and 4),
/// so a table that needs more is not the curve this was made for.
const MOST_STEPS: usize = 8;

/// Bytes per block of [`Lanes`]: three vectors of 32 bytes, after which the channels of the
/// byte positions repeat (32 is 2 mod 3).
const BLOCK: usize = 96;

/// A darkening table as arithmetic, exact for every code, for the look-ups of the pair
/// tables bound their loop: per 36 MB on an AMD EPYC, 12 ms of noisy bytes and 9 ms of a
/// smooth photo, where a plain pass over the bytes takes 2 ms; this takes 2.5 ms. A dark gain
/// turns the sRGB curve into nearly a straight line above the darkest codes: in linear light
/// a gain `g` scales the value, and on the power segment
/// `encode(g · decode(v)) ≈ g^(1/2.4) · (v + 14) − 14`. With its rounding, the table `T` is
/// the largest of three parts, each at most `T` everywhere and equal to it on a range of
/// codes:
/// - two lines `⌊(m(v) − D) / 256⌋`, `m(v) = ⌊((v − 128) · K + 64) / 128⌋` (a slope of
///   `K / 32768`), for integers `K`, `D` found by search (not assumed): one down from white,
///   the other, less steep, below it, where the curve bends;
/// - below them a staircase, `min(T[v], t)`, the number of the `t` breakpoints `b_j` (the
///   first codes of levels `1..=t`) at or below `v`: a handful of small levels.
///
/// The sRGB curve is convex there, so a line that follows it over a range stays below it
/// outside that range, which is why the largest part is the table (checked for every code).
/// One line alone reaches down to codes 36 to 44 at the night's gains, leaving 8 breakpoints
/// per channel; the second line leaves 3 or 4, for 6 operations per 32 bytes instead of 8
/// (37.5 instead of 43 million instructions per 36 MB).
///
/// In a vector, the byte at position `i` of a row belongs to channel `i mod 3`, so the
/// constants are per-lane vectors whose pattern repeats every three vectors (96 bytes).
/// `m` is a rounding high-half multiply of 16-bit lanes (`⌊(x · K + 2^14) / 2^15⌋`) of
/// `x = (v − 128) · 256`: the bytes' top bits flipped, then the even bytes shifted and the
/// odd bytes masked into the lanes' high bytes. The lines' bytes come back where they came
/// from, as signed bytes (a line may be below zero where another part gives the level). It
/// is a signed multiply (the unsigned one of `wide` is two 128-bit halves, which the
/// compiler turned into 32-bit products), and the lines are within `−128..=127`: gains up to
/// about 0.21.
struct Lanes {
    /// The two lines of each channel.
    lines: [LineLanes; 2],
    /// Per breakpoint, per vector of a block: `b_j − 1` of each byte's channel, or 127 (never
    /// passed) when that channel has fewer breakpoints.
    steps: Vec<[i8x32; 3]>,
}

/// One line of each channel, per vector of a block: its `K` and `D` at the even and at the
/// odd bytes.
struct LineLanes {
    k: [[i16x16; 2]; 3],
    d: [[i16x16; 2]; 3],
}

/// One line: its `K` and `D`.
#[derive(Clone, Copy)]
struct Line {
    k: i16,
    d: i16,
}

/// One channel's constants for [`Lanes`]: the lines and the breakpoints.
struct Channel {
    lines: [Line; 2],
    steps: Vec<u8>,
}

impl Channel {
    /// The constants of the table `t`, if it has the shape [`Lanes`] needs (non-decreasing,
    /// its first line reaching down to code 128, at most [`MOST_STEPS`] breakpoints below
    /// the lines).
    fn fit(t: &[u8; 256]) -> Option<Channel> {
        if t.windows(2).any(|w| w[1] < w[0]) {
            return None;
        }
        // The first line, from white down to 128 at least (the staircase's compares are
        // signed), the second from where the first stops, if it takes 8 codes or more (else
        // the first line twice).
        let (first, reach) = Self::line(t, 128, 256)?;
        let (second, reach) = match reach.checked_sub(8) {
            Some(low) => Self::line(t, low, reach).unwrap_or((first, reach)),
            None => (first, reach),
        };
        // The staircase takes the levels below the lines, all below code 128 as its signed
        // compares need.
        let levels = if reach == 0 { 0 } else { t[reach - 1] as usize };
        if levels > MOST_STEPS {
            return None;
        }
        let steps = (1..=levels)
            .map(|level| t.iter().position(|&l| l as usize >= level).unwrap_or(255) as u8)
            .collect();
        Some(Channel {
            lines: [first, second],
            steps,
        })
    }

    /// Of the lines at most `t` everywhere and equal to it on the codes from `top − 1` down
    /// to `bottom` at least, the one that goes furthest down, and the code where it stops.
    fn line(t: &[u8; 256], bottom: usize, top: usize) -> Option<(Line, usize)> {
        // Such a line gives the levels of both codes `bottom` and `top − 1` (within one level,
        // plus the product's rounding, under 1/256 level): its slope is within
        // `(1 + 1/64) / span` of their chord's.
        let span = (top - 1 - bottom) as f64;
        let chord = (f64::from(t[top - 1]) - f64::from(t[bottom])) / span * 32768.0;
        let slack = 32768.0 * (1.0 + 1.0 / 64.0) / span;
        let first = (chord - slack).floor().max(0.0) as i64;
        let last = (chord + slack).ceil().min(32767.0) as i64;
        let mut best: Option<(Line, usize)> = None;
        for k in first..=last {
            let m = |v: usize| ((v as i64 - 128) * k + 64) >> 7;
            // A code `v` of level `T` needs `D` in `[a − 255, a]`, `a = m(v) − 256 T`.
            let a = |v: usize| m(v) - 256 * i64::from(t[v]);
            // How far down the codes' bounds from `top − 1` meet, starting from `(low, high)`.
            let walk = |mut low: i64, mut high: i64| {
                let mut v = top;
                while v > 0 {
                    let (l, h) = (low.max(a(v - 1) - 255), high.min(a(v - 1)));
                    if l > h {
                        break;
                    }
                    (low, high, v) = (l, h, v - 1);
                }
                (v, low)
            };
            let known = best.map_or(bottom + 1, |(_, reach)| reach);
            if walk(i64::MIN, i64::MAX).0 >= known {
                continue;
            }
            // The line must also stay at or below every code's level (`m − D ≤ 256 T + 255`)
            // and `m − D` within 16 bits at every code, `D` too.
            let (mut low, mut high) = (-32768, 32767);
            for v in 0..256 {
                low = low.max(a(v) - 255).max(m(v) - 32767);
                high = high.min(m(v) + 32768);
                if low > high {
                    break;
                }
            }
            let (reach, d) = walk(low, high);
            if reach < known && low <= high {
                best = Some((
                    Line {
                        k: k as i16,
                        d: d as i16,
                    },
                    reach,
                ));
            }
        }
        best
    }
}

impl Lanes {
    /// The arithmetic for the tables `bytes`, if every channel has its shape and it gives
    /// back every code of every channel at every position of a block.
    fn new(bytes: &[[u8; 256]; 3]) -> Option<Lanes> {
        let channels = [
            Channel::fit(&bytes[0])?,
            Channel::fit(&bytes[1])?,
            Channel::fit(&bytes[2])?,
        ];
        let per_byte = |vector: usize, f: &dyn Fn(&Channel) -> i16| -> [i16; 32] {
            std::array::from_fn(|i| f(&channels[(32 * vector + i) % 3]))
        };
        let halves = |vector: usize, f: &dyn Fn(&Channel) -> i16| -> [i16x16; 2] {
            let b = per_byte(vector, f);
            [0, 1].map(|odd| i16x16::from(std::array::from_fn(|j| b[2 * j + odd])))
        };
        let lines = [0, 1].map(|n| LineLanes {
            k: [0, 1, 2].map(|p| halves(p, &|c| c.lines[n].k)),
            d: [0, 1, 2].map(|p| halves(p, &|c| c.lines[n].d)),
        });
        let n = channels.iter().map(|c| c.steps.len()).max().unwrap_or(0);
        let steps = (0..n)
            .map(|j| {
                [0, 1, 2].map(|vector| {
                    let b = per_byte(vector, &|c| c.steps.get(j).map_or(128, |&b| b.into()));
                    i8x32::from(b.map(|b| (b - 1) as i8))
                })
            })
            .collect();
        let lanes = Lanes { lines, steps };
        // Every code at every position of a block, next to other codes, through the very code
        // that will run: 256 blocks (24 kB).
        for first in 0..=255u8 {
            let block: [u8; BLOCK] = std::array::from_fn(|i| (first as usize + 7 * i) as u8);
            let mut out = [0u8; BLOCK];
            lanes.block(&block, &mut out);
            if (0..BLOCK).any(|i| out[i] != bytes[i % 3][block[i] as usize]) {
                return None;
            }
        }
        Some(lanes)
    }

    /// Darkens a block of 96 bytes (starting at red) given as three vectors. (Written out
    /// per vector: closures given to `array::map` were not inlined.)
    #[inline(always)]
    fn darken(&self, v: [u8x32; 3]) -> [u8x32; 3] {
        let lines = [
            self.lines_at(0, v[0]),
            self.lines_at(1, v[1]),
            self.lines_at(2, v[2]),
        ];
        // The staircase: each breakpoint passed subtracts −1 (a compare's true). The compares
        // are signed: the codes above 127 pass none, and the lines give their levels.
        let s: [i8x32; 3] = [cast(v[0]), cast(v[1]), cast(v[2])];
        let mut passed = [i8x32::ZERO; 3];
        for step in &self.steps {
            passed[0] -= s[0].simd_gt(step[0]);
            passed[1] -= s[1].simd_gt(step[1]);
            passed[2] -= s[2].simd_gt(step[2]);
        }
        [
            cast(lines[0].max(passed[0])),
            cast(lines[1].max(passed[1])),
            cast(lines[2].max(passed[2])),
        ]
    }

    /// The larger of the two lines at each byte of vector `p` of a block.
    #[inline(always)]
    fn lines_at(&self, p: usize, v: u8x32) -> i8x32 {
        // `(v − 128) · 256` of the even and of the odd bytes.
        let w: u16x16 = cast(v ^ u8x32::splat(0x80));
        let even: i16x16 = cast(w << 8u32);
        let odd: i16x16 = cast(w & u16x16::splat(0xff00));
        let [a, b] = &self.lines;
        let line =
            |x: i16x16, l: &LineLanes, half: usize| x.mul_scale_round(l.k[p][half]) - l.d[p][half];
        let even: u16x16 = cast(line(even, a, 0).max(line(even, b, 0)));
        let odd: u16x16 = cast(line(odd, a, 1).max(line(odd, b, 1)));
        cast((even >> 8u32) | (odd & u16x16::splat(0xff00)))
    }

    /// Darkens the 96 bytes `from` into `to`.
    #[inline(always)]
    fn block(&self, from: &[u8], to: &mut [u8]) {
        let out = self.darken(load(from));
        store(&out, to);
    }

    /// Darkens the 96 bytes `block` in place.
    #[inline(always)]
    fn block_in_place(&self, block: &mut [u8]) {
        let out = self.darken(load(block));
        store(&out, block);
    }
}

/// The three vectors of the 96 bytes `block`.
#[inline(always)]
fn load(block: &[u8]) -> [u8x32; 3] {
    let at = |p: usize| u8x32::from(<[u8; 32]>::try_from(&block[32 * p..32 * p + 32]).unwrap());
    [at(0), at(1), at(2)]
}

/// Writes the three vectors `v` to the 96 bytes `block`.
#[inline(always)]
fn store(v: &[u8x32; 3], block: &mut [u8]) {
    for (p, v) in v.iter().enumerate() {
        block[32 * p..32 * p + 32].copy_from_slice(&v.to_array());
    }
}

impl Darkening {
    /// The darkening of [`NIGHT_PHOTO`], the gains of every night render, built once per
    /// process (by arithmetic: the search of its constants takes about 0.5 ms).
    pub fn night() -> &'static Darkening {
        static TABLES: OnceLock<Darkening> = OnceLock::new();
        TABLES.get_or_init(|| Darkening::new(NIGHT_PHOTO))
    }

    /// The darkening for the channel gains `gain`: by arithmetic when the tables allow it,
    /// else through pair tables.
    pub fn new(gain: [f32; 3]) -> Darkening {
        let bytes = darken_tables(gain);
        let path = match Lanes::new(&bytes) {
            Some(lanes) => Path::Lanes(Box::new(lanes)),
            None => Path::Pairs(Self::pairs(&bytes)),
        };
        Darkening { bytes, path }
    }

    /// The pair tables of [`Path::Pairs`].
    fn pairs(bytes: &[[u8; 256]; 3]) -> [Box<[u16; 1 << 16]>; 3] {
        [0, 1, 2].map(|c| {
            let (first, second) = (&bytes[c], &bytes[(c + 1) % 3]);
            let mut t: Box<[u16; 1 << 16]> = vec![0u16; 1 << 16].try_into().expect("2^16");
            for (row, &b) in t.chunks_exact_mut(256).zip(second) {
                for (e, &a) in row.iter_mut().zip(first) {
                    *e = u16::from(a) | u16::from(b) << 8;
                }
            }
            t
        })
    }

    /// Darkens the whole pixels (RGB) of `pixels` in place.
    pub fn in_place(&self, pixels: &mut [u8]) {
        match &self.path {
            Path::Lanes(lanes) => {
                let mut blocks = pixels.chunks_exact_mut(BLOCK);
                for b in &mut blocks {
                    lanes.block_in_place(b);
                }
                self.by_bytes(blocks.into_remainder());
            }
            Path::Pairs(pairs) => {
                let mut steps = pixels.chunks_exact_mut(12);
                for p in &mut steps {
                    let (lo, hi) = Self::step(pairs, p);
                    p[..8].copy_from_slice(&lo.to_le_bytes());
                    p[8..].copy_from_slice(&hi.to_le_bytes());
                }
                self.by_bytes(steps.into_remainder());
            }
        }
    }

    /// Copies the whole pixels of `photo` into `out`, darkened.
    pub fn copy(&self, photo: &[u8], out: &mut [u8]) {
        let (out, photo) = match &self.path {
            Path::Lanes(lanes) => {
                let mut blocks = out.chunks_exact_mut(BLOCK);
                let mut from = photo.chunks_exact(BLOCK);
                for (o, p) in (&mut blocks).zip(&mut from) {
                    lanes.block(p, o);
                }
                (blocks.into_remainder(), from.remainder())
            }
            Path::Pairs(pairs) => {
                let mut steps = out.chunks_exact_mut(12);
                let mut from = photo.chunks_exact(12);
                for (o, p) in (&mut steps).zip(&mut from) {
                    let (lo, hi) = Self::step(pairs, p);
                    o[..8].copy_from_slice(&lo.to_le_bytes());
                    o[8..].copy_from_slice(&hi.to_le_bytes());
                }
                (steps.into_remainder(), from.remainder())
            }
        };
        out.copy_from_slice(photo);
        self.by_bytes(out);
    }

    /// Four pixels (12 bytes, starting at red) darkened through the pair tables: bytes 0–7
    /// and 8–11.
    #[inline(always)]
    fn step(pairs: &[Box<[u16; 1 << 16]>; 3], p: &[u8]) -> (u64, u32) {
        let lo = u64::from_le_bytes(p[..8].try_into().unwrap());
        let hi = u64::from(u32::from_le_bytes(p[8..12].try_into().unwrap()));
        // The pairs start at red, blue, green, red, blue, green.
        let [rg, gb, br] = [&pairs[0], &pairs[1], &pairs[2]];
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks `copy` and `in_place` of `d` against the tables of `gain` on `photo` cut to
    /// `len`, also from a few pixels in (a slice starts at red wherever it starts).
    fn check(d: &Darkening, gain: [f32; 3], photo: &[u8], lengths: &[usize]) {
        let t = darken_tables(gain);
        for &len in lengths {
            for skip in [0, 3, 30, 93] {
                let photo = &photo[skip.min(len)..len];
                let want: Vec<u8> = photo
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| t[i % 3][v as usize])
                    .collect();
                let mut out = vec![0u8; photo.len()];
                d.copy(photo, &mut out);
                assert!(out == want, "{gain:?}: copy of {len} from {skip}");
                let mut inplace = photo.to_vec();
                d.in_place(&mut inplace);
                assert!(inplace == want, "{gain:?}: in place {len} from {skip}");
            }
        }
    }

    #[test]
    fn the_pairs_darken_like_the_byte_tables() {
        // Gains whose slopes are above 1/2, which the arithmetic declines.
        let gain = [0.3, 0.55, 0.8];
        let d = Darkening::new(gain);
        assert!(matches!(d.path, Path::Pairs(_)));
        // Every pair of codes at each of the three pair positions (`a b a b a b` for each
        // pair), and lengths that leave 0 to 3 pixels after the 4-pixel steps.
        let photo: Vec<u8> = (0..1usize << 16)
            .flat_map(|k| [k as u8, (k >> 8) as u8].repeat(3))
            .collect();
        let lengths = [6 << 16, (6 << 16) - 3, (6 << 16) - 6, 33, 27, 15, 3, 0];
        check(&d, gain, &photo, &lengths);
    }

    #[test]
    fn the_lanes_darken_like_the_byte_tables() {
        // Every code at every position of a block (so in every channel and at every place in
        // each vector) next to other codes, then noise; lengths that leave 0 to 31 pixels
        // after the blocks.
        let mut photo: Vec<u8> = (0..256 * BLOCK)
            .map(|i| (i / BLOCK + 7 * (i % BLOCK)) as u8)
            .collect();
        photo.extend((0..5000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
        let full = photo.len() / 3 * 3;
        let lengths = [
            full,
            full - 3,
            full - 93,
            256 * BLOCK,
            2 * BLOCK + 45,
            99,
            93,
            3,
            0,
        ];
        for gain in [NIGHT_PHOTO, [0.02, 0.05, 0.18], [0.07, 0.16, 0.19]] {
            let d = Darkening::new(gain);
            assert!(matches!(d.path, Path::Lanes(_)), "{gain:?}");
            check(&d, gain, &photo, &lengths);
        }
        assert!(matches!(Darkening::night().path, Path::Lanes(_)));
    }

    #[test]
    fn the_arithmetic_declines_the_tables_it_cannot_give() {
        // Slopes near 1 (no room in the multiplier), saturation at white, and a gain so dark
        // that its straight part starts above 127: the pair tables, the same bytes.
        let photo: Vec<u8> = (0..3 * BLOCK * 256 + 21)
            .map(|i| (i * 7919 % 251) as u8)
            .collect();
        let full = photo.len() / 3 * 3;
        for gain in [[0.95, 1.0, 0.9], [2.0, 0.1, 0.1], [0.005, 0.1, 0.1]] {
            let d = Darkening::new(gain);
            assert!(matches!(d.path, Path::Pairs(_)), "{gain:?}");
            check(&d, gain, &photo, &[full, full - 3, 99, 6]);
        }
    }
}
