//! PNG exports of a result (no I/O): the heatmap or the fog view blended over the image at an
//! opacity, or the original, heatmap and fog side by side; and several images' views side by
//! side at the same height (a comparison). Areas of interest are outlined with their numbers
//! and the hotspots marked in viewing order, as on the page; the drawing itself is
//! `regard_vision::annotate`.

use std::io::Cursor;

use image::imageops::FilterType;
use image::{ImageFormat, RgbImage};
use regard_vision::annotate::{Canvas, blend_over};

// Read from `view=` of the PNG export by [`View::parse`].
/// What an export shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum View {
    /// The heatmap over the image (the default).
    Overlay,
    /// The image darkened where attention is low.
    Fog,
    /// Image, overlay and fog side by side (one image only).
    SideBySide,
}

impl View {
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "overlay" => Some(View::Overlay),
            "fog" => Some(View::Fog),
            "side_by_side" => Some(View::SideBySide),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            View::Overlay => "overlay",
            View::Fog => "fog",
            View::SideBySide => "side-by-side",
        }
    }
}

/// The page's opening opacities (web/src/features/heatmap/lib/view-state.ts).
pub const OVERLAY_OPACITY: f32 = 0.6;
pub const FOG_OPACITY: f32 = 0.85;

/// One image's layers, decoded: the source at preview size and its views at full strength.
pub struct Layers {
    pub source: RgbImage,
    pub overlay: Option<RgbImage>,
    pub fog: Option<RgbImage>,
}

/// What is drawn over a view: hotspot peaks in viewing order and area outlines, relative to
/// the image (0..1).
#[derive(Debug, Clone, Default)]
pub struct Marks {
    /// (rank, x, y) of each hotspot's peak.
    pub hotspots: Vec<(u32, f64, f64)>,
    /// Each area's corners, in the order the page numbers them.
    pub areas: Vec<Vec<(f64, f64)>>,
}

/// Why an export cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("a stored image cannot be decoded: {0}")]
    Decode(String),
    #[error("the view is missing from storage")]
    MissingView,
    #[error("cannot encode the PNG: {0}")]
    Encode(String),
}

/// Decodes a stored image (JPEG, PNG or WebP) to RGB8.
pub fn decode(bytes: &[u8]) -> Result<RgbImage, ExportError> {
    image::load_from_memory(bytes)
        .map(|img| img.into_rgb8())
        .map_err(|e| ExportError::Decode(e.to_string()))
}

/// Decodes a stored image with its transparency laid over white (a logo on a white band), or
/// `None` when it cannot be decoded.
pub fn decode_on_white(bytes: &[u8]) -> Option<RgbImage> {
    let rgba = image::load_from_memory(bytes).ok()?.into_rgba8();
    let (w, h) = rgba.dimensions();
    let mut out = RgbImage::new(w, h);
    for (dst, src) in out.pixels_mut().zip(rgba.pixels()) {
        let a = f32::from(src.0[3]) / 255.0;
        for c in 0..3 {
            dst.0[c] = (f32::from(src.0[c]) * a + 255.0 * (1.0 - a)).round() as u8;
        }
    }
    Some(out)
}

const AREA_COLOUR: [u8; 3] = [255, 255, 255];
const MARKER_COLOUR: [u8; 3] = [29, 78, 216];
const LABEL_COLOUR: [u8; 3] = [17, 24, 39];

/// The view (heatmap or fog) at `opacity` over the image, with `marks` drawn when given.
pub fn view_over(
    layers: &Layers,
    fog: bool,
    opacity: f32,
    marks: Option<&Marks>,
) -> Result<RgbImage, ExportError> {
    let view = if fog { &layers.fog } else { &layers.overlay };
    let view = view.as_ref().ok_or(ExportError::MissingView)?;
    let mut out = layers.source.clone();
    let (w, h) = out.dimensions();
    if view.dimensions() == (w, h) {
        blend_over(&mut out, view, opacity);
    } else {
        let resized = image::imageops::resize(view, w, h, FilterType::Triangle);
        blend_over(&mut out, &resized, opacity);
    }
    if let Some(marks) = marks {
        draw_marks(&mut out, marks);
    }
    Ok(out)
}

/// Outlines the areas (numbered at their top-left corner) and marks the hotspots, scaled to the
/// image's size.
pub fn draw_marks(img: &mut RgbImage, marks: &Marks) {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let long = w.max(h) as f32;
    let stroke = (long / 400.0).clamp(2.0, 6.0);
    let radius = (long / 60.0).clamp(9.0, 28.0);
    let mut canvas = Canvas {
        data: img.as_mut(),
        width: w,
        height: h,
    };
    let px = |(x, y): (f64, f64)| (x as f32 * w as f32, y as f32 * h as f32);
    for (n, area) in marks.areas.iter().enumerate() {
        let points: Vec<(f32, f32)> = area.iter().copied().map(px).collect();
        canvas.outline(&points, stroke, AREA_COLOUR);
        let left = points.iter().map(|p| p.0).fold(f32::INFINITY, f32::min);
        let top = points.iter().map(|p| p.1).fold(f32::INFINITY, f32::min);
        let label = radius * 1.5;
        canvas.rect(
            left,
            top,
            label * if n >= 9 { 1.5 } else { 1.0 },
            label,
            LABEL_COLOUR,
        );
        let centre = (
            left + label * if n >= 9 { 0.75 } else { 0.5 },
            top + label / 2.0,
        );
        canvas.number(n as u32 + 1, centre, label * 0.6, AREA_COLOUR);
    }
    for &(rank, x, y) in &marks.hotspots {
        canvas.marker(rank, px((x, y)), radius, MARKER_COLOUR);
    }
}

/// Images side by side at the height of the shortest (at most `max_height`), with a white gap.
pub fn side_by_side(images: &[RgbImage], max_height: u32) -> RgbImage {
    side_by_side_spans(images, max_height).0
}

/// [`side_by_side`], with where each image ended up: `(x, width)` of each, left to right.
pub fn side_by_side_spans(images: &[RgbImage], max_height: u32) -> (RgbImage, Vec<(u32, u32)>) {
    let height = images
        .iter()
        .map(RgbImage::height)
        .min()
        .unwrap_or(1)
        .clamp(1, max_height);
    let gap = (height / 40).max(8);
    let scaled: Vec<RgbImage> = images
        .iter()
        .map(|img| {
            if img.height() == height {
                img.clone()
            } else {
                let width = ((img.width() as f64 * height as f64 / img.height() as f64).round()
                    as u32)
                    .max(1);
                image::imageops::resize(img, width, height, FilterType::Triangle)
            }
        })
        .collect();
    let width = scaled.iter().map(RgbImage::width).sum::<u32>()
        + gap * (scaled.len().saturating_sub(1) as u32);
    let mut out = RgbImage::from_pixel(width.max(1), height, image::Rgb([255, 255, 255]));
    let mut spans = Vec::with_capacity(scaled.len());
    let mut x = 0;
    for img in &scaled {
        image::imageops::replace(&mut out, img, i64::from(x), 0);
        spans.push((x, img.width()));
        x += img.width() + gap;
    }
    (out, spans)
}

/// Original | heatmap | fog of one image, at the page's opening opacities, marks on the views.
pub fn triptych(
    layers: &Layers,
    marks: Option<&Marks>,
    max_height: u32,
) -> Result<RgbImage, ExportError> {
    let overlay = view_over(layers, false, OVERLAY_OPACITY, marks)?;
    let fog = view_over(layers, true, FOG_OPACITY, marks)?;
    Ok(side_by_side(
        &[layers.source.clone(), overlay, fog],
        max_height,
    ))
}

/// PNG bytes of an image.
pub fn encode(img: &RgbImage) -> Result<Vec<u8>, ExportError> {
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, ImageFormat::Png)
        .map_err(|e| ExportError::Encode(e.to_string()))?;
    Ok(out.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layers(w: u32, h: u32) -> Layers {
        Layers {
            source: RgbImage::from_pixel(w, h, image::Rgb([100, 100, 100])),
            overlay: Some(RgbImage::from_pixel(w, h, image::Rgb([200, 0, 0]))),
            fog: Some(RgbImage::from_pixel(w, h, image::Rgb([0, 0, 0]))),
        }
    }

    #[test]
    fn a_view_is_blended_at_its_opacity() {
        let img = view_over(&layers(40, 30), false, 0.5, None).unwrap();
        assert_eq!(img.get_pixel(10, 10).0, [150, 50, 50]);
        let img = view_over(&layers(40, 30), true, 1.0, None).unwrap();
        assert_eq!(img.get_pixel(10, 10).0, [0, 0, 0]);
    }

    #[test]
    fn marks_outline_areas_and_mark_hotspots() {
        let marks = Marks {
            hotspots: vec![(1, 0.75, 0.75)],
            areas: vec![vec![(0.1, 0.1), (0.5, 0.1), (0.5, 0.5), (0.1, 0.5)]],
        };
        let plain = view_over(&layers(400, 300), false, 0.5, None).unwrap();
        let marked = view_over(&layers(400, 300), false, 0.5, Some(&marks)).unwrap();
        // The area's right edge at x = 200, the hotspot's disc around (300, 225) (its digit in
        // the middle); the area's inside untouched.
        assert_ne!(marked.get_pixel(200, 100), plain.get_pixel(200, 100));
        assert_eq!(marked.get_pixel(293, 225).0, MARKER_COLOUR);
        assert_eq!(marked.get_pixel(120, 100), plain.get_pixel(120, 100));
    }

    #[test]
    fn side_by_side_scales_to_one_height() {
        let a = RgbImage::new(200, 100);
        let b = RgbImage::new(100, 200);
        let out = side_by_side(&[a, b], 1000);
        assert_eq!(out.height(), 100);
        assert_eq!(out.width(), 200 + 8 + 50);
        let three = triptych(&layers(120, 90), None, 60).unwrap();
        assert_eq!(three.height(), 60);
        assert_eq!(three.width(), 3 * 80 + 2 * 8);
        assert!(
            view_over(
                &Layers {
                    fog: None,
                    ..layers(10, 10)
                },
                true,
                0.5,
                None
            )
            .is_err()
        );
    }
}
