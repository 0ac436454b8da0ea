//! The caption band of the PNG exports (no I/O): under the image, or under each image of a
//! comparison, what a client reading the file alone needs: the image's name, its score and what
//! it means, the map shown, and the numbered areas with their share of attention; and along the
//! bottom the agency's name and logo in its colour, when it set them. Text is DejaVu Sans drawn
//! with ab_glyph, wrapped to each column.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use image::imageops::FilterType;
use image::{Rgb, RgbImage};

use super::{BOLD_TTF, REGULAR_TTF};

const INK: [u8; 3] = [17, 24, 39];
const MUTED: [u8; 3] = [75, 85, 99];
/// Regard's blue: the rule over the band when the agency chose no colour.
const ACCENT: [u8; 3] = [29, 78, 216];

/// What is written under one image.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Column {
    /// The image's name, in bold.
    pub title: String,
    pub lines: Vec<String>,
}

/// Who signs the export: the agency's name and logo along the band's bottom, its colour for
/// the rule over the band.
#[derive(Debug, Clone, Default)]
pub struct Signature {
    pub name: Option<String>,
    pub accent: Option<[u8; 3]>,
    pub logo: Option<RgbImage>,
}

/// `img` with a white band under it: each column's text under its span `(x, width)` of the
/// image, then the signature. Sizes follow the image's width, so a caption reads the same on a
/// small export and a large one.
pub fn with_caption(
    img: &RgbImage,
    columns: &[((u32, u32), Column)],
    signature: &Signature,
) -> RgbImage {
    let regular = FontRef::try_from_slice(REGULAR_TTF).expect("the embedded DejaVu Sans parses");
    let bold = FontRef::try_from_slice(BOLD_TTF).expect("the embedded DejaVu Sans Bold parses");
    let width = img.width();
    let size = (width as f32 / 70.0).clamp(13.0, 30.0);
    let title_size = size * 1.2;
    let pad = (size * 0.9).round() as u32;
    let line = (size * 1.35).round() as u32;
    let title_line = (title_size * 1.35).round() as u32;

    // Lay every column out first: the band is as tall as the longest.
    let laid: Vec<(u32, u32, Vec<String>, Vec<String>)> = columns
        .iter()
        .map(|&((x, w), ref column)| {
            let inner = w.saturating_sub(2 * pad).max(1) as f32;
            let title = wrap(&bold, title_size, &column.title, inner);
            let lines = column
                .lines
                .iter()
                .flat_map(|l| wrap(&regular, size, l, inner))
                .collect();
            (x, w, title, lines)
        })
        .collect();
    let text_height = laid
        .iter()
        .map(|(_, _, title, lines)| title.len() as u32 * title_line + lines.len() as u32 * line)
        .max()
        .unwrap_or(0);
    let signed = signature.name.is_some() || signature.logo.is_some();
    let sign_height = if signed {
        (size * 2.4).round() as u32
    } else {
        0
    };
    let rule = (size / 5.0).round().max(2.0) as u32;
    let band = rule + pad + text_height + pad + sign_height;

    let mut out = RgbImage::from_pixel(width, img.height() + band, Rgb([255, 255, 255]));
    image::imageops::replace(&mut out, img, 0, 0);
    let top = img.height();
    let accent = signature.accent.unwrap_or(ACCENT);
    fill_rect(&mut out, 0, top, width, rule, accent);

    for (x, _, title, lines) in &laid {
        let mut y = (top + rule + pad) as f32;
        for text in title {
            draw(&mut out, &bold, title_size, text, (*x + pad) as f32, y, INK);
            y += title_line as f32;
        }
        for text in lines {
            draw(&mut out, &regular, size, text, (*x + pad) as f32, y, MUTED);
            y += line as f32;
        }
    }

    if signed {
        let y0 = top + rule + pad + text_height + pad / 2;
        let mut x = pad;
        if let Some(logo) = &signature.logo {
            let h = (size * 1.8).round().max(1.0) as u32;
            let w = ((logo.width() as f32 * h as f32 / logo.height().max(1) as f32).round() as u32)
                .clamp(1, width / 3);
            let scaled = image::imageops::resize(logo, w, h, FilterType::Triangle);
            image::imageops::replace(&mut out, &scaled, i64::from(x), i64::from(y0));
            x += w + pad / 2;
        }
        if let Some(name) = &signature.name {
            let y = y0 as f32 + (size * 1.8 - size * 1.2) / 2.0;
            draw(&mut out, &bold, size, name, x as f32, y, accent);
        }
    }
    out
}

/// The width of `text` at `size` pixels.
fn measure(font: &FontRef, size: f32, text: &str) -> f32 {
    let scaled = font.as_scaled(PxScale::from(size));
    text.chars()
        .map(|c| scaled.h_advance(scaled.glyph_id(c)))
        .sum()
}

/// `text` in lines of at most `width` pixels, broken between words (a word longer than a line
/// is cut with an ellipsis).
fn wrap(font: &FontRef, size: f32, text: &str, width: f32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
        let candidate = if current.is_empty() {
            word.to_owned()
        } else {
            format!("{current} {word}")
        };
        if measure(font, size, &candidate) <= width || current.is_empty() {
            current = candidate;
        } else {
            lines.push(std::mem::take(&mut current));
            current = word.to_owned();
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
        .into_iter()
        .map(|l| clip(font, size, &l, width))
        .collect()
}

/// `text`, cut with "…" to fit `width` when it does not.
fn clip(font: &FontRef, size: f32, text: &str, width: f32) -> String {
    if measure(font, size, text) <= width {
        return text.to_owned();
    }
    let mut kept: String = text.to_owned();
    while !kept.is_empty() {
        kept.pop();
        let candidate = format!("{}…", kept.trim_end());
        if measure(font, size, &candidate) <= width {
            return candidate;
        }
    }
    "…".to_owned()
}

/// Draws one line with its top at `y`, blending each glyph's coverage over the band.
fn draw(
    img: &mut RgbImage,
    font: &FontRef,
    size: f32,
    text: &str,
    x: f32,
    y: f32,
    colour: [u8; 3],
) {
    let scaled = font.as_scaled(PxScale::from(size));
    let baseline = y + scaled.ascent();
    let mut caret = x;
    let (w, h) = img.dimensions();
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        let glyph = id.with_scale_and_position(size, point(caret, baseline));
        caret += scaled.h_advance(id);
        let Some(outlined) = font.outline_glyph(glyph) else {
            continue;
        };
        let bounds = outlined.px_bounds();
        outlined.draw(|gx, gy, coverage| {
            let px = bounds.min.x as i64 + i64::from(gx);
            let py = bounds.min.y as i64 + i64::from(gy);
            if px < 0 || py < 0 || px >= i64::from(w) || py >= i64::from(h) {
                return;
            }
            let pixel = img.get_pixel_mut(px as u32, py as u32);
            let a = coverage.clamp(0.0, 1.0);
            for (channel, ink) in pixel.0.iter_mut().zip(colour) {
                *channel = (f32::from(*channel) * (1.0 - a) + f32::from(ink) * a).round() as u8;
            }
        });
    }
}

fn fill_rect(img: &mut RgbImage, x: u32, y: u32, w: u32, h: u32, colour: [u8; 3]) {
    for py in y..(y + h).min(img.height()) {
        for px in x..(x + w).min(img.width()) {
            img.put_pixel(px, py, Rgb(colour));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inked(img: &RgbImage, x: std::ops::Range<u32>, y: std::ops::Range<u32>) -> usize {
        let mut count = 0;
        for py in y {
            for px in x.clone() {
                if img.get_pixel(px, py).0.iter().any(|&c| c < 200) {
                    count += 1;
                }
            }
        }
        count
    }

    #[test]
    fn a_band_is_added_under_the_image_with_text_in_each_column() {
        let img = RgbImage::from_pixel(800, 300, Rgb([40, 40, 40]));
        let columns = [
            (
                (0, 400),
                Column {
                    title: "Affiche été".into(),
                    lines: vec!["Score d'attention : 57/100".into()],
                },
            ),
            ((400, 400), Column::default()),
        ];
        let out = with_caption(&img, &columns, &Signature::default());
        assert_eq!(out.width(), 800);
        assert!(out.height() > 300 + 40, "a band: {}", out.height());
        // The image is untouched, the first column has text, the second none.
        assert_eq!(out.get_pixel(10, 10).0, [40, 40, 40]);
        assert!(inked(&out, 0..400, 310..out.height()) > 200);
        assert_eq!(inked(&out, 400..800, 310..out.height()), 0);
        // The rule over the band is Regard's blue without an agency colour.
        assert_eq!(out.get_pixel(600, 300).0, ACCENT);
    }

    #[test]
    fn the_signature_is_in_the_agencys_colour() {
        let img = RgbImage::from_pixel(600, 200, Rgb([255, 255, 255]));
        let signature = Signature {
            name: Some("Agence Lumière".into()),
            accent: Some([194, 65, 12]),
            logo: Some(RgbImage::from_pixel(30, 10, Rgb([0, 0, 0]))),
        };
        let out = with_caption(&img, &[((0, 600), Column::default())], &signature);
        assert_eq!(out.get_pixel(300, 200).0, [194, 65, 12]);
        let orange = out
            .pixels()
            .skip(600 * 205)
            .filter(|p| p.0[0] > 150 && p.0[2] < 100)
            .count();
        assert!(
            orange > 50,
            "the agency's name is written in its colour ({orange})"
        );
    }

    #[test]
    fn long_lines_wrap_to_their_column_and_long_words_are_cut() {
        let font = FontRef::try_from_slice(REGULAR_TTF).unwrap();
        let lines = wrap(
            &font,
            14.0,
            "une zone d'intérêt au nom assez long pour passer à la ligne",
            120.0,
        );
        assert!(lines.len() > 2, "{lines:?}");
        assert!(lines.iter().all(|l| measure(&font, 14.0, l) <= 120.0));
        let cut = wrap(&font, 14.0, &"x".repeat(80), 100.0);
        assert_eq!(cut.len(), 1);
        assert!(cut[0].ends_with('…'));
    }
}
