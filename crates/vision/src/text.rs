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
}
