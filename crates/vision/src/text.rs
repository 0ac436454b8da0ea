//! Text-like regions: a deliberately simple, deterministic heuristic. Printed text is a band of
//! dense, strong, mostly vertical strokes (many left–right intensity alternations) with some
//! horizontal strokes, wider than tall. We threshold stroke density on the grey detail copy,
//! join letters along the line with a horizontal closing, and keep connected components shaped
//! like lines of text. It finds captions, headlines and signs; it also fires on some regular
//! textures (fences, tiles), which the fitted weight of the feature accounts for.

use crate::analysis::Rect;
use crate::image::Plane;

/// A text-like region: its box relative to the image (0..1), and a confidence in 0..1 (the
/// stroke density inside the box).
#[derive(Debug, Clone, PartialEq)]
pub struct TextRegion {
    /// Box, relative to the image.
    pub rect: Rect,
    /// Stroke density inside the box (0..1).
    pub score: f32,
}

/// Finds text-like regions in a grey plane (0..=255), typically the ~512 px detail copy: small
/// text at that size, large text (headlines) on a copy at half that size; a box found at both
/// scales is kept once.
pub fn detect(grey: &Plane) -> Vec<TextRegion> {
    let mut out = detect_at(grey);
    if grey.width >= 64 && grey.height >= 64 {
        let half = grey.resize_area(grey.width / 2, grey.height / 2);
        for r in detect_at(&half) {
            if out.iter().all(|o| overlap(&o.rect, &r.rect) < 0.3) {
                out.push(r);
            }
        }
    }
    out.sort_by(|a, b| (b.rect.width * b.rect.height).total_cmp(&(a.rect.width * a.rect.height)));
    out.truncate(32);
    out
}

/// The long side of the grey copy [`lines`] reads: twice the analysis's detail copy, so that a
/// legal line a hundredth of a creative's height still spans several pixels.
pub const LINES_LONG_SIDE: usize = 1024;

/// The least two-tone separability (Otsu's between-class share of the variance) a line of
/// [`lines`] keeps.
pub const MIN_SEPARABILITY: f32 = 0.75;

/// A line of text found in an image, with its letter height measured inside its box.
#[derive(Debug, Clone, PartialEq)]
pub struct TextLine {
    /// Box, relative to the image.
    pub rect: Rect,
    /// Height of the letters relative to the image's height: the run of rows dense with
    /// vertical strokes around the box's middle (one line's letters).
    pub letter_height: f32,
    /// Stroke density inside the box (0..1).
    pub score: f32,
}

/// The lines of text of an image (a creative) for legibility: the regions [`detect`] finds on
/// a grey copy of at most [`LINES_LONG_SIDE`] pixels, each grown to its letters' rows, then the
/// pieces of one line joined (large letters are found a few at a time, and at both scales).
pub fn lines(img: &crate::RgbImage<'_>) -> Vec<TextLine> {
    let long = LINES_LONG_SIDE.min(img.width().max(img.height()));
    let (w, h) = crate::image::working_size(img.width(), img.height(), long);
    let rgb = crate::image::downscale_rgb(img, w, h);
    let grey = Plane {
        width: w,
        height: h,
        data: (0..w * h)
            .map(|i| 0.299 * rgb[0].data[i] + 0.587 * rgb[1].data[i] + 0.114 * rgb[2].data[i])
            .collect(),
    };
    drop(rgb);
    let mut pieces: Vec<Piece> = detect(&grey)
        .into_iter()
        .map(|region| {
            let (top, bottom) = letter_band(&grey, &region.rect);
            Piece {
                x0: region.rect.x * w as f32,
                x1: (region.rect.x + region.rect.width) * w as f32,
                top: top as f32,
                bottom: bottom as f32 + 1.0,
                score: region.score,
            }
        })
        .collect();
    for piece in &mut pieces {
        piece.grow(&grey);
    }
    // Join pieces of one line until none are left to join (at most 32 pieces).
    'join: loop {
        for i in 0..pieces.len() {
            for j in i + 1..pieces.len() {
                if pieces[i].same_line(&pieces[j]) {
                    let other = pieces.swap_remove(j);
                    pieces[i].absorb(&other);
                    continue 'join;
                }
            }
        }
        break;
    }
    // Accents and punctuation found apart from their line: pieces inside a larger one's box, or
    // less than half its height just above or below it.
    let snapshot = pieces.clone();
    pieces.retain(|small| {
        !snapshot
            .iter()
            .any(|large| large.height() > small.height() && small.belongs_to(large))
    });
    // Letters are one tone on another; textures the detector fires on (foliage, hair, water)
    // are many tones. On designed creatives every line scores above 0.8, on photographs most
    // false lines below.
    pieces.retain(|p| p.separability(&grey) >= MIN_SEPARABILITY);
    let mut out: Vec<TextLine> = pieces
        .into_iter()
        .map(|p| TextLine {
            rect: Rect {
                x: p.x0 / w as f32,
                y: p.top / h as f32,
                width: (p.x1 - p.x0) / w as f32,
                height: (p.bottom - p.top) / h as f32,
            },
            letter_height: (p.bottom - p.top) / h as f32,
            score: p.score,
        })
        .collect();
    out.sort_by(|a, b| b.letter_height.total_cmp(&a.letter_height));
    out
}

/// A piece of a line of text, in pixels of the grey copy: its columns and its letters' rows.
#[derive(Debug, Clone, Copy)]
struct Piece {
    x0: f32,
    x1: f32,
    top: f32,
    bottom: f32,
    score: f32,
}

impl Piece {
    fn height(&self) -> f32 {
        self.bottom - self.top
    }

    /// Letters of about the same size (within 2×), on the same rows (sharing half the smaller
    /// height), at most a word space apart (one and a half letter heights).
    fn same_line(&self, other: &Piece) -> bool {
        let (small, large) = if self.height() < other.height() {
            (self.height(), other.height())
        } else {
            (other.height(), self.height())
        };
        let shared = self.bottom.min(other.bottom) - self.top.max(other.top);
        let gap = self.x0.max(other.x0) - self.x1.min(other.x1);
        large <= 2.0 * small && shared >= 0.5 * small && gap <= 1.5 * large
    }

    /// Widens the piece over the letters its line holds beyond the detector's box (large,
    /// sparse capitals fall under its stroke density): columns with a vertical stroke edge in
    /// the piece's rows, across blank runs up to a letter height (a word space).
    fn grow(&mut self, grey: &Plane) {
        let (w, _) = (grey.width, grey.height);
        let (top, bottom) = (
            self.top as usize,
            (self.bottom as usize).max(self.top as usize + 1),
        );
        let inked =
            |x: usize| (top..bottom).any(|y| (grey.at(x + 1, y) - grey.at(x - 1, y)).abs() > 40.0);
        let space = self.height().ceil() as usize;
        let (mut x0, mut x1) = (self.x0 as usize, (self.x1 as usize).min(w - 2));
        let mut blank = 0;
        let mut x = x1 + 1;
        while x < w - 1 && blank <= space {
            if inked(x) {
                x1 = x;
                blank = 0;
            } else {
                blank += 1;
            }
            x += 1;
        }
        blank = 0;
        let mut x = x0.max(1);
        while x > 1 && blank <= space {
            x -= 1;
            if inked(x) {
                x0 = x;
                blank = 0;
            } else {
                blank += 1;
            }
        }
        (self.x0, self.x1) = (x0 as f32, (x1 + 1) as f32);
    }

    /// How well two tones explain the piece's pixels (Otsu's separability, 0..1): near 1 for
    /// letters of one colour on a ground of another, lower for textures and photographs.
    fn separability(&self, grey: &Plane) -> f32 {
        let mut hist = [0u32; 64];
        let (mut n, mut sum, mut sum2) = (0f64, 0f64, 0f64);
        for y in self.top as usize..(self.bottom as usize).min(grey.height) {
            for x in self.x0 as usize..(self.x1 as usize).min(grey.width) {
                let v = grey.at(x, y).clamp(0.0, 255.0);
                hist[(v as usize) >> 2] += 1;
                n += 1.0;
                sum += f64::from(v);
                sum2 += f64::from(v) * f64::from(v);
            }
        }
        if n < 2.0 {
            return 0.0;
        }
        let total = sum2 / n - (sum / n).powi(2);
        if total <= 1e-6 {
            return 0.0;
        }
        let (mut w0, mut s0, mut best) = (0f64, 0f64, 0f64);
        for (bin, &count) in hist.iter().enumerate() {
            w0 += f64::from(count);
            s0 += f64::from(count) * (bin as f64 * 4.0 + 2.0);
            let w1 = n - w0;
            if w0 == 0.0 || w1 == 0.0 {
                continue;
            }
            let (m0, m1) = (s0 / w0, (sum - s0) / w1);
            best = best.max(w0 * w1 / (n * n) * (m0 - m1).powi(2));
        }
        (best / total) as f32
    }

    /// Whether this (smaller) piece is part of `large`: inside its box, or an accent or a mark
    /// under half its height, over its columns, within half its height above or below it.
    fn belongs_to(&self, large: &Piece) -> bool {
        let across = (self.x1.min(large.x1) - self.x0.max(large.x0)).max(0.0);
        let over = across >= 0.8 * (self.x1 - self.x0);
        let inside = self.top >= large.top && self.bottom <= large.bottom;
        let near = self.bottom <= large.top + 1.0
            && large.top - self.bottom <= 0.5 * large.height()
            || self.top + 1.0 >= large.bottom && self.top - large.bottom <= 0.5 * large.height();
        over && (inside || (near && self.height() < 0.5 * large.height()))
    }

    fn absorb(&mut self, other: &Piece) {
        self.x0 = self.x0.min(other.x0);
        self.x1 = self.x1.max(other.x1);
        self.top = self.top.min(other.top);
        self.bottom = self.bottom.max(other.bottom);
        self.score = self.score.max(other.score);
    }
}

/// The rows (first, last) of the letters of the line `rect` marks: the run of rows around the
/// box's middle where vertical strokes are at least a quarter as many as in the densest row of
/// the box. The run may leave the box, whose stroke-density threshold trims the top and bottom
/// of large letters, but not cross the blank rows between two lines.
fn letter_band(grey: &Plane, rect: &Rect) -> (usize, usize) {
    let (w, h) = (grey.width, grey.height);
    let x0 = ((rect.x * w as f32).floor() as usize).clamp(1, w - 1);
    let x1 = (((rect.x + rect.width) * w as f32).ceil() as usize).clamp(x0, w - 1);
    let y0 = ((rect.y * h as f32).floor() as usize).clamp(1, h - 2);
    let y1 = (((rect.y + rect.height) * h as f32).ceil() as usize).clamp(y0 + 1, h - 1);
    let strokes = |y: usize| {
        (x0..x1)
            .filter(|&x| (grey.at(x + 1, y) - grey.at(x - 1, y)).abs() > 40.0)
            .count()
    };
    let peak = (y0..y1).map(strokes).max().unwrap_or(0);
    let middle = (y0 + y1) / 2;
    let dense = |y: usize| peak > 0 && 4 * strokes(y) >= peak;
    if !dense(middle) {
        return (y0, y1 - 1);
    }
    let (mut top, mut bottom) = (middle, middle);
    let reach = 6 * (y1 - y0);
    while top > 1 && middle - top < reach && dense(top - 1) {
        top -= 1;
    }
    while bottom + 2 < h && bottom - middle < reach && dense(bottom + 1) {
        bottom += 1;
    }
    (top, bottom)
}

/// Intersection over the smaller box's area.
fn overlap(a: &Rect, b: &Rect) -> f32 {
    let iw = (a.x + a.width).min(b.x + b.width) - a.x.max(b.x);
    let ih = (a.y + a.height).min(b.y + b.height) - a.y.max(b.y);
    if iw <= 0.0 || ih <= 0.0 {
        return 0.0;
    }
    iw * ih / (a.width * a.height).min(b.width * b.height).max(1e-9)
}

/// Single-scale detection.
fn detect_at(grey: &Plane) -> Vec<TextRegion> {
    let (w, h) = (grey.width, grey.height);
    if w < 16 || h < 16 {
        return Vec::new();
    }
    // Strong vertical (|gx|) and horizontal (|gy|) strokes.
    let mut vert = vec![0u8; w * h];
    let mut horiz = vec![0u8; w * h];
    const T: f32 = 40.0;
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let gx = grey.at(x + 1, y) - grey.at(x - 1, y);
            let gy = grey.at(x, y + 1) - grey.at(x, y - 1);
            if gx.abs() > T && gx.abs() > 0.5 * gy.abs() {
                vert[y * w + x] = 1;
            }
            if gy.abs() > T {
                horiz[y * w + x] = 1;
            }
        }
    }
    // Stroke densities over a window about a letter high and two letters wide.
    let (rx, ry) = ((w / 64).max(3), (w / 256).max(1));
    let dv = box_density(&vert, w, h, rx, ry);
    let dh = box_density(&horiz, w, h, rx, ry);
    let mut mask = vec![false; w * h];
    for i in 0..w * h {
        mask[i] = dv[i] > 0.22 && dh[i] > 0.06;
    }
    // Horizontal closing joins the letters of a line.
    let mask = close_h(&mask, w, h, (w / 100).max(2));
    let mut out = Vec::new();
    for (x0, y0, x1, y1, n) in components(&mask, w, h) {
        let (bw, bh) = (x1 - x0 + 1, y1 - y0 + 1);
        let fill = n as f32 / (bw * bh) as f32;
        let line_like = bw >= 2 * bh && bh >= 5 && bh <= h / 6 && bw >= w / 25;
        if line_like && fill > 0.45 {
            let mut d = 0.0f32;
            for y in y0..=y1 {
                for x in x0..=x1 {
                    d += dv[y * w + x];
                }
            }
            out.push(TextRegion {
                rect: Rect {
                    x: x0 as f32 / w as f32,
                    y: y0 as f32 / h as f32,
                    width: bw as f32 / w as f32,
                    height: bh as f32 / h as f32,
                },
                score: (d / (bw * bh) as f32).min(1.0),
            });
        }
    }
    out
}

/// Feature map for the model: 1 inside each text-like box, 0 elsewhere (the model blurs it).
pub fn text_map(regions: &[TextRegion], width: usize, height: usize) -> Plane {
    let mut p = Plane::filled(width, height, 0.0);
    for r in regions {
        let x0 = (r.rect.x * width as f32).floor() as usize;
        let y0 = (r.rect.y * height as f32).floor() as usize;
        let x1 = (((r.rect.x + r.rect.width) * width as f32).ceil() as usize).min(width);
        let y1 = (((r.rect.y + r.rect.height) * height as f32).ceil() as usize).min(height);
        for y in y0..y1 {
            for x in x0..x1 {
                p.data[y * width + x] = 1.0;
            }
        }
    }
    p
}

fn box_density(m: &[u8], w: usize, h: usize, rx: usize, ry: usize) -> Vec<f32> {
    // Summed-area table for O(1) window sums.
    let mut sat = vec![0u32; (w + 1) * (h + 1)];
    for y in 0..h {
        let mut row = 0u32;
        for x in 0..w {
            row += m[y * w + x] as u32;
            sat[(y + 1) * (w + 1) + x + 1] = sat[y * (w + 1) + x + 1] + row;
        }
    }
    let mut out = vec![0.0; w * h];
    for y in 0..h {
        let (y0, y1) = (y.saturating_sub(ry), (y + ry + 1).min(h));
        for x in 0..w {
            let (x0, x1) = (x.saturating_sub(rx), (x + rx + 1).min(w));
            let s = sat[y1 * (w + 1) + x1] + sat[y0 * (w + 1) + x0]
                - sat[y0 * (w + 1) + x1]
                - sat[y1 * (w + 1) + x0];
            out[y * w + x] = s as f32 / ((y1 - y0) * (x1 - x0)) as f32;
        }
    }
    out
}

fn close_h(m: &[bool], w: usize, h: usize, r: usize) -> Vec<bool> {
    let run = |src: &[bool], want: bool| -> Vec<bool> {
        // Dilation (want = true) or erosion (want = false) along rows with radius r.
        let mut out = vec![!want; w * h];
        for y in 0..h {
            let row = &src[y * w..(y + 1) * w];
            let mut last: Option<usize> = None;
            let mut near = vec![usize::MAX; w];
            for x in 0..w {
                if row[x] == want {
                    last = Some(x);
                }
                if let Some(l) = last {
                    near[x] = x - l;
                }
            }
            last = None;
            for x in (0..w).rev() {
                if row[x] == want {
                    last = Some(x);
                }
                let d = last.map_or(usize::MAX, |l| l - x).min(near[x]);
                out[y * w + x] = if d <= r { want } else { !want };
            }
        }
        out
    };
    let dil = run(m, true);
    run(&dil, false)
}

/// 4-connected components of `m`: (x0, y0, x1, y1, pixel count) each.
fn components(m: &[bool], w: usize, h: usize) -> Vec<(usize, usize, usize, usize, usize)> {
    let mut seen = vec![false; w * h];
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for start in 0..w * h {
        if !m[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let (mut x0, mut y0, mut x1, mut y1, mut n) = (w, h, 0, 0, 0);
        while let Some(i) = stack.pop() {
            let (x, y) = (i % w, i / w);
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
            n += 1;
            let mut push = |j: usize| {
                if m[j] && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            };
            if x > 0 {
                push(i - 1);
            }
            if x + 1 < w {
                push(i + 1);
            }
            if y > 0 {
                push(i - w);
            }
            if y + 1 < h {
                push(i + w);
            }
        }
        out.push((x0, y0, x1, y1, n));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// White page with one line of fake glyphs (boxes with a hole: vertical and horizontal
    /// strokes) from x0 to x1 at row y, glyphs `g` px high.
    fn page(w: usize, h: usize, y: usize, g: usize) -> Plane {
        let mut p = Plane::filled(w, h, 255.0);
        let pitch = g * 3 / 4;
        let mut x = w / 5;
        while x + pitch < 4 * w / 5 {
            for yy in y..y + g {
                for xx in x..x + pitch / 2 {
                    let edge =
                        xx == x || xx == x + 1 || yy == y || yy == y + g - 1 || yy == y + g / 2;
                    if edge {
                        p.data[yy * w + xx] = 0.0;
                    }
                }
            }
            x += pitch;
        }
        p
    }

    #[test]
    fn finds_a_line_of_glyphs_and_nothing_on_a_blank_page() {
        let p = page(512, 384, 100, 12);
        let found = detect(&p);
        assert!(!found.is_empty());
        let r = found[0].rect;
        assert!(
            r.y < 100.0 / 384.0 + 0.02 && r.y + r.height > 112.0 / 384.0 - 0.02,
            "{r:?}"
        );
        assert!(r.width > 0.4, "{r:?}");
        assert!(detect(&Plane::filled(512, 384, 128.0)).is_empty());
    }

    /// An RGB image `w × h` with lines of capitals: (row, letter height) each, alternating an
    /// H and an E with strokes an eighth of the height thick, as a bold sans-serif.
    fn creative(w: usize, h: usize, rows: &[(usize, usize)]) -> Vec<u8> {
        let mut grey = vec![255u8; w * h];
        for &(top, g) in rows {
            let (t, glyph, gap) = ((g / 8).max(2), g * 6 / 10, g / 4);
            let mut x = w / 8;
            let mut e = false;
            while x + glyph < 7 * w / 8 {
                for y in top..top + g {
                    for dx in 0..glyph {
                        let (left, right) = (dx < t, dx >= glyph - t);
                        let (upper, lower) = (y < top + t, y >= top + g - t);
                        let middle = y >= top + g / 2 - t / 2 && y < top + g / 2 + t - t / 2;
                        let ink = if e {
                            left || upper || middle || lower
                        } else {
                            left || right || middle
                        };
                        if ink {
                            grey[y * w + x + dx] = 0;
                        }
                    }
                }
                x += glyph + gap;
                e = !e;
            }
        }
        grey.iter().flat_map(|&v| [v; 3]).collect()
    }

    #[test]
    fn lines_measure_a_headline_and_a_legal_line() {
        // A 1920 × 1080 creative: a 96 px headline and a 16 px legal line.
        let pixels = creative(1920, 1080, &[(200, 96), (980, 16)]);
        let img = crate::RgbImage::new(1920, 1080, &pixels).unwrap();
        let found = lines(&img);
        let near = |top: usize, g: usize| {
            found.iter().find(|l| {
                let (y0, y1) = (l.rect.y * 1080.0, (l.rect.y + l.rect.height) * 1080.0);
                y0 <= (top + g / 2) as f32 && y1 >= (top + g / 2) as f32
            })
        };
        // One line each, however many pieces the detector found them in.
        assert_eq!(found.len(), 2, "{found:?}");
        let headline = near(200, 96).expect("the headline is found");
        let legal = near(980, 16).expect("the legal line is found");
        let measured = |l: &TextLine| l.letter_height * 1080.0;
        assert!(
            (measured(headline) - 96.0).abs() <= 96.0 * 0.15,
            "{headline:?}"
        );
        assert!((measured(legal) - 16.0).abs() <= 16.0 * 0.3, "{legal:?}");
        // Nothing on a blank creative.
        let blank = vec![200u8; 640 * 480 * 3];
        assert!(lines(&crate::RgbImage::new(640, 480, &blank).unwrap()).is_empty());
    }
}
