//! Letter height of a line, measured on the image inside the line's box.
//!
//! The rule (one for every line): report the **cap height**.
//! * The line's pixels are split in two tones (Otsu); the ink is the tone that touches the box's
//!   border least; each pixel's ink coverage is its grey level between the two tones' means
//!   (anti-aliased edges count in part), summed per row into a profile.
//! * Capitals and figures: the letters' band is the longest run of rows holding at least 30 % of
//!   the profile's 90th percentile; accents over capitals, cedillas, commas and the € bar are
//!   sparse rows and fall out. Its height, with the partial rows at both ends, is the cap height.
//! * Mixed case: the x-height band is the longest run of rows at ≥ 45 % (the dense rows of the
//!   lower-case letters), and the cap height is x-height / [`X_OVER_CAP`].
//! * Capitals or mixed case: from the recognised text (fewer than 40 % of its letters lower case:
//!   capitals), then, as the recogniser confuses the case of letters alike in both cases (C/c,
//!   O/o, É/é), from the ink: in mixed case, ascenders and capitals rise from the x-height band
//!   without a gap, so the dense band is ~0.7 of the band grown upwards through rows with any ink;
//!   accents over capitals sit apart, after empty rows, and the ratio stays near 1.

/// x-height over cap height of common poster faces: 0.70 (Times/Liberation Serif) to 0.77
/// (Arial/Liberation Sans Bold); Roboto, Open Sans, Noto, DejaVu 0.74–0.77.
pub const X_OVER_CAP: f32 = 0.74;

/// Letters whose lower-case form rises above the x-height (or carries an accent there).
const TALL_LOWER: &str = "bdfhkltàâéèêëîïôûùç";

/// A measured letter height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LetterHeight {
    /// Cap height in pixels (measured for capitals, x-height / [`X_OVER_CAP`] for mixed case).
    pub cap_height: f32,
    /// Height of the band measured (cap height for capitals, x-height for mixed case), pixels.
    pub measured: f32,
    /// Whether the line is capitals (and figures).
    pub capitals: bool,
}

/// Measures the cap height of the line in an RGB crop (its box), given the recognised text.
pub fn letter_height(crop: &[u8], w: usize, h: usize, text: &str) -> Option<LetterHeight> {
    if w < 3 || h < 3 {
        return None;
    }
    let grey: Vec<f32> = crop
        .chunks_exact(3)
        .map(|p| 0.299 * p[0] as f32 + 0.587 * p[1] as f32 + 0.114 * p[2] as f32)
        .collect();
    let t = otsu(&grey);
    let (mut lo, mut nlo, mut hi, mut nhi) = (0f64, 0usize, 0f64, 0usize);
    for &g in &grey {
        if g <= t {
            lo += g as f64;
            nlo += 1;
        } else {
            hi += g as f64;
            nhi += 1;
        }
    }
    if nlo == 0 || nhi == 0 {
        return None;
    }
    let (lo, hi) = ((lo / nlo as f64) as f32, (hi / nhi as f64) as f32);
    // ink is the tone that touches the border less
    let mut border_light = 0usize;
    let mut border_n = 0usize;
    for x in 0..w {
        for y in [0, h - 1] {
            border_light += (grey[y * w + x] > t) as usize;
            border_n += 1;
        }
    }
    for y in 0..h {
        for x in [0, w - 1] {
            border_light += (grey[y * w + x] > t) as usize;
            border_n += 1;
        }
    }
    let ink_dark = border_light * 2 > border_n;
    let (ink, bg) = if ink_dark { (lo, hi) } else { (hi, lo) };
    let prof: Vec<f32> = (0..h)
        .map(|y| {
            grey[y * w..(y + 1) * w]
                .iter()
                .map(|&g| ((g - bg) / (ink - bg)).clamp(0.0, 1.0))
                .sum()
        })
        .collect();
    let mut sorted = prof.clone();
    sorted.sort_by(f32::total_cmp);
    let peak = sorted[((sorted.len() - 1) as f32 * 0.9).round() as usize];
    if peak <= 0.0 {
        return None;
    }
    let capitals = is_caps(&prof, peak, text);
    let tau = if capitals { 0.3 } else { 0.45 } * peak;
    let (a, b) = longest_run(&prof, tau)?;
    let mut band: Vec<f32> = prof[a..=b].to_vec();
    band.sort_by(f32::total_cmp);
    let r = band[band.len() / 2];
    let mut height = (b - a + 1) as f32 - 2.0 + (prof[a] / r).min(1.0) + (prof[b] / r).min(1.0);
    if a > 0 {
        height += (prof[a - 1] / r).min(1.0);
    }
    if b + 1 < h {
        height += (prof[b + 1] / r).min(1.0);
    }
    let cap_height = if capitals {
        height
    } else {
        height / X_OVER_CAP
    };
    Some(LetterHeight {
        cap_height,
        measured: height,
        capitals,
    })
}

/// Capitals (and figures) or mixed case; see the module's documentation.
pub fn is_caps(prof: &[f32], peak: f32, text: &str) -> bool {
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    let lower = text.chars().filter(|c| c.is_lowercase()).count();
    if (lower as f32) < 0.4 * letters.max(1) as f32 {
        return true;
    }
    let tall = text
        .chars()
        .any(|c| TALL_LOWER.contains(c) || c.is_uppercase() || c.is_ascii_digit());
    if !tall {
        return false; // only x-height letters: the ink cannot tell
    }
    let Some((a, b)) = longest_run(prof, 0.5 * peak) else {
        return false;
    };
    let mut top = a;
    while top > 0 && prof[top - 1] >= 0.03 * peak {
        top -= 1;
    }
    (b - a + 1) as f32 / (b - top + 1) as f32 >= 0.9
}

/// The longest run of rows whose profile reaches `min`: (first, last).
fn longest_run(prof: &[f32], min: f32) -> Option<(usize, usize)> {
    let (mut best, mut best_start, mut cur, mut start) = (0, 0, 0, 0);
    for (i, &v) in prof.iter().enumerate() {
        if v >= min {
            if cur == 0 {
                start = i;
            }
            cur += 1;
            if cur > best {
                best = cur;
                best_start = start;
            }
        } else {
            cur = 0;
        }
    }
    (best > 0).then(|| (best_start, best_start + best - 1))
}

/// Otsu's threshold of grey levels (0..255): the level maximising the between-class variance.
fn otsu(grey: &[f32]) -> f32 {
    let mut hist = [0f64; 256];
    for &g in grey {
        hist[g.clamp(0.0, 255.0) as usize] += 1.0;
    }
    let total = grey.len() as f64;
    let mt: f64 = hist.iter().enumerate().map(|(i, &c)| i as f64 * c).sum();
    let (mut w0, mut m0, mut best, mut arg) = (0f64, 0f64, -1f64, 0usize);
    for (i, &c) in hist.iter().enumerate() {
        w0 += c;
        m0 += i as f64 * c;
        let w1 = total - w0;
        if w0 == 0.0 || w1 == 0.0 {
            continue;
        }
        let between = (mt * w0 / total - m0).powi(2) / (w0 * w1);
        if between > best {
            best = between;
            arg = i;
        }
    }
    arg as f32 + 0.5
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Draws block letters: capitals of height `cap` (or x-height letters with ascenders).
    fn synth(caps: bool) -> (Vec<u8>, usize, usize) {
        let (w, h) = (200, 60);
        let mut img = vec![255u8; w * h * 3];
        let base = 45;
        for k in 0..8 {
            let x0 = 10 + k * 22;
            let top = if caps || k % 3 == 0 {
                base - 30
            } else {
                base - 21
            };
            for y in top..base {
                for x in x0..x0 + 14 {
                    // hollow letters: strokes of 4 px
                    let edge = x < x0 + 4 || x >= x0 + 10 || y < top + 4 || y >= base - 4;
                    if edge {
                        img[(y * w + x) * 3..(y * w + x) * 3 + 3].copy_from_slice(&[0, 0, 0]);
                    }
                }
            }
        }
        (img, w, h)
    }

    #[test]
    fn capitals_measure_their_height() {
        let (img, w, h) = synth(true);
        let lh = letter_height(&img, w, h, "HOUSEHOH").unwrap();
        assert!(lh.capitals);
        assert!((lh.cap_height - 30.0).abs() < 1.0, "{lh:?}");
    }

    #[test]
    fn mixed_case_measures_x_height() {
        let (img, w, h) = synth(false);
        let lh = letter_height(&img, w, h, "donbonda").unwrap();
        assert!(!lh.capitals, "{lh:?}");
        assert!((lh.measured - 21.0).abs() < 1.0, "{lh:?}");
    }
}
