//! Drawing on a page: the result images (heatmap and fog views), the areas of interest, the
//! panel and the fixation order over them.

use krilla::color::rgb;
use krilla::geom::{PathBuilder, Point, Rect, Size, Transform};
use krilla::image::Image;
use krilla::num::NormalizedF32;
use krilla::paint::Stroke;
use krilla::surface::Surface;

use super::super::png::Marks;
use super::*;

/// Opacities the views are drawn at over the image, as the results page opens them.
pub(super) const OVERLAY_OPACITY: f32 = 0.6;
pub(super) const FOG_OPACITY: f32 = 0.85;

/// Decodes a stored image: JPEG, or the lossless WebP (or PNG) previews of graphics.
pub(super) fn image_of(bytes: &[u8]) -> Option<Image> {
    let data = || bytes.to_vec().into();
    match bytes {
        [0xFF, 0xD8, ..] => Image::from_jpeg(data(), true),
        [
            b'R',
            b'I',
            b'F',
            b'F',
            _,
            _,
            _,
            _,
            b'W',
            b'E',
            b'B',
            b'P',
            ..,
        ] => Image::from_webp(data(), true),
        _ => Image::from_png(data(), true),
    }
    .ok()
}

/// Draws `view` at `opacity` over `source`, scaled to `size`, top-left corner at (x, y); the
/// view alone at full strength when the source is missing.
pub(super) fn draw_view(
    surface: &mut Surface,
    source: Option<&[u8]>,
    view: &[u8],
    opacity: f32,
    x: f32,
    y: f32,
    size: Size,
) {
    surface.push_transform(&Transform::from_translate(x, y));
    let under = source.and_then(image_of);
    let blended = under.is_some();
    if let Some(image) = under {
        surface.draw_image(image, size);
    }
    if let Some(image) = image_of(view) {
        let opacity =
            NormalizedF32::new(if blended { opacity } else { 1.0 }).unwrap_or(NormalizedF32::ONE);
        surface.push_opacity(opacity);
        surface.draw_image(image, size);
        surface.pop();
    }
    surface.pop();
}

/// A circle as four cubic arcs.
pub(super) fn circle(path: &mut PathBuilder, cx: f32, cy: f32, r: f32) {
    const K: f32 = 0.552_284_8;
    let k = K * r;
    path.move_to(cx + r, cy);
    path.cubic_to(cx + r, cy + k, cx + k, cy + r, cx, cy + r);
    path.cubic_to(cx - k, cy + r, cx - r, cy + k, cx - r, cy);
    path.cubic_to(cx - r, cy - k, cx - k, cy - r, cx, cy - r);
    path.cubic_to(cx + k, cy - r, cx + r, cy - k, cx + r, cy);
    path.close();
}

pub(super) fn stroke(surface: &mut Surface, (r, g, b): (u8, u8, u8), width: f32) {
    surface.set_stroke(Some(Stroke {
        paint: rgb::Color::new(r, g, b).into(),
        width,
        ..Default::default()
    }));
}

/// Centred bold text.
pub(super) fn centred(surface: &mut Surface, text: &str, (cx, cy): (f32, f32), size: f32) {
    let width = text_width(text, size, true);
    surface.draw_text(
        Point::from_xy(cx - width / 2.0, cy + size * 0.36),
        BOLD.clone(),
        size,
        text,
        false,
        TextDirection::Auto,
    );
}

/// The areas' outlines (numbered at their top-left corner, as in the list below) and the
/// hotspots' numbers in viewing order, over an image drawn at (x, y) with `size`: the marks
/// of the page and of the PNG exports, as vectors.
pub(super) fn draw_marks(
    surface: &mut Surface,
    marks: &Marks,
    x: f32,
    y: f32,
    size: Size,
    colour: (u8, u8, u8),
) {
    let (w, h) = (size.width(), size.height());
    let at = |(px, py): (f64, f64)| (x + px as f32 * w, y + py as f32 * h);
    for (n, area) in marks.areas.iter().enumerate() {
        let points: Vec<(f32, f32)> = area.iter().copied().map(at).collect();
        let mut path = PathBuilder::new();
        for (i, &(px, py)) in points.iter().enumerate() {
            if i == 0 {
                path.move_to(px, py);
            } else {
                path.line_to(px, py);
            }
        }
        path.close();
        if let Some(path) = path.finish() {
            surface.set_fill(None);
            stroke(surface, INK, 2.4);
            surface.draw_path(&path);
            stroke(surface, (255, 255, 255), 1.1);
            surface.draw_path(&path);
        }
        let left = points.iter().map(|p| p.0).fold(f32::INFINITY, f32::min);
        let top = points.iter().map(|p| p.1).fold(f32::INFINITY, f32::min);
        let label = (n + 1).to_string();
        let width = 4.0 + label.len() as f32 * 4.6;
        surface.set_stroke(None);
        fill(surface, INK);
        let mut path = PathBuilder::new();
        if let Some(rect) = Rect::from_xywh(left, top, width, 9.0) {
            path.push_rect(rect);
        }
        if let Some(path) = path.finish() {
            surface.draw_path(&path);
        }
        fill(surface, (255, 255, 255));
        centred(surface, &label, (left + width / 2.0, top + 4.5), 7.0);
    }
    for &(rank, px, py) in &marks.hotspots {
        let (cx, cy) = at((px, py));
        let mut path = PathBuilder::new();
        circle(&mut path, cx, cy, 6.0);
        if let Some(path) = path.finish() {
            fill(surface, colour);
            stroke(surface, (255, 255, 255), 1.0);
            surface.draw_path(&path);
        }
        surface.set_stroke(None);
        fill(surface, (255, 255, 255));
        centred(surface, &rank.to_string(), (cx, cy), 7.0);
    }
    surface.set_stroke(None);
}
