//! The pixel part of a heatmap item, CPU-bound and without I/O (run it on the blocking pool):
//! decode the source's preview, predict attention ([`regard_vision`]), analyse the map, and
//! encode the outputs.
//!
//! The source is the stored *preview* (upright, metadata-free, long side ≤ 2048), not the
//! original: the model works at long side 256, so a 24-megapixel original would only cost a
//! slower decode, and the overlay is shown at preview size anyway.
//!
//! Outputs:
//! - the map as a 16-bit grey PNG at working resolution (linear in predicted density);
//! - the colour overlay and the fog view at full strength, as JPEG at the preview's size (both
//!   are linear in opacity, so the browser's CSS opacity gives any strength exactly), and a
//!   thumbnail of the overlay for lists;
//! - the same map, overlay and fog for the first glance (the fixations that start within the
//!   first second), so the results page can switch between the two views;
//! - the analysis and a 64-cell grid of each map ([`HeatmapResult`]) for the page's drawn
//!   areas.

use std::io::Cursor;

use bytes::Bytes;
use image::{DynamicImage, ImageBuffer, ImageFormat, Luma};
use jpeg_encoder::ColorType;
use regard_vision::{RgbImage, analyse, image::working_size, predict, render};

use super::result::{HeatmapResult, MapAnalysis, PanelShare};
use crate::media::{MediaFormat, THUMBNAIL_SIDE, encode_jpeg};

/// JPEG quality of the overlay and fog views.
const QUALITY: u8 = 85;
/// Largest source accepted (the preview is at most 2048 × 2048; this guards a stray original).
const MAX_SOURCE_PIXELS: u64 = 50_000_000;

/// An encoded output image.
#[derive(Debug, Clone)]
pub struct Encoded {
    pub bytes: Bytes,
    pub format: MediaFormat,
    pub width: u32,
    pub height: u32,
}

/// The images of one view (the full map or the first glance).
#[derive(Debug, Clone)]
pub struct ViewImages {
    /// The map, 16-bit grey PNG at working resolution.
    pub map: Encoded,
    /// The colour overlay at full strength.
    pub overlay: Encoded,
    /// The fog view at full strength.
    pub fog: Encoded,
}

/// Everything one item produces.
#[derive(Debug, Clone)]
pub struct Computed {
    /// Scores, hotspots, regions and grids of both maps, and the panel's figures.
    pub result: HeatmapResult,
    /// The full map's images.
    pub full: ViewImages,
    /// A thumbnail of the full map's overlay, for lists.
    pub overlay_thumbnail: Encoded,
    /// The first glance's images.
    pub glance: ViewImages,
}

/// Why an item could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ComputeError {
    /// The source does not decode (corrupt or not an image): retrying cannot help.
    #[error("the image cannot be decoded: {0}")]
    InvalidImage(String),
    /// Encoding an output failed (our bug or resources).
    #[error("cannot encode an output: {0}")]
    Internal(String),
}

/// An area of interest: four corners, relative to the image (0..1), in order around it.
pub type Aoi = [(f32, f32); 4];

/// Computes the outputs of one source image (the bytes of a JPEG, PNG or WebP file), and the
/// share of attention of the area of interest when one is given.
pub fn compute(source: &[u8], aoi: Option<&Aoi>) -> Result<Computed, ComputeError> {
    let rgb = decode(source)?;
    let (w, h) = (rgb.width() as usize, rgb.height() as usize);
    let img =
        RgbImage::new(w, h, rgb.as_raw()).map_err(|e| ComputeError::InvalidImage(e.to_string()))?;
    let prediction = predict(&img);
    let analysis = analyse(&prediction.map, &prediction.faces, &prediction.texts);
    let glance = analyse(&prediction.glance, &prediction.faces, &prediction.texts);

    let full = view_images(&img, &prediction.map)?;
    let first = view_images(&img, &prediction.glance)?;
    // Never larger than the overlay itself.
    let (tw, th) = working_size(w, h, (THUMBNAIL_SIDE as usize).min(w.max(h)));
    let small = image::imageops::thumbnail(&rgb, tw as u32, th as u32);
    let small_img =
        RgbImage::new(tw, th, small.as_raw()).map_err(|e| ComputeError::Internal(e.to_string()))?;
    let overlay_thumbnail = jpeg(&render::overlay(&small_img, &prediction.map, 1.0), tw, th)?;

    let result = HeatmapResult {
        map: MapAnalysis::new(&analysis, &prediction.map),
        width: w as u32,
        height: h as u32,
        // Which attention model made the map (scores of different models do not compare).
        model: "v3".to_owned(),
        panel: aoi.map(|aoi| panel_share(&prediction.map, &prediction.glance, aoi)),
        glance: Some(MapAnalysis::new(&glance, &prediction.glance)),
    };
    Ok(Computed {
        result,
        full,
        overlay_thumbnail,
        glance: first,
    })
}

/// A map's 16-bit PNG and its overlay and fog over the image.
fn view_images(img: &RgbImage, map: &regard_vision::Plane) -> Result<ViewImages, ComputeError> {
    let (w, h) = (img.width(), img.height());
    let (overlay, fog) = render::overlay_and_fog(img, map);
    Ok(ViewImages {
        map: map_png(map)?,
        overlay: jpeg(&overlay, w, h)?,
        fog: jpeg(&fog, w, h)?,
    })
}

/// The area of interest's share of the attention, its share of the surface, their ratio
/// (`visibility` > 1: the panel draws more attention than its size alone would), its share of
/// the first second's attention and the probability that a viewer looks at it within the first
/// second.
fn panel_share(map: &regard_vision::Plane, glance: &regard_vision::Plane, aoi: &Aoi) -> PanelShare {
    use regard_vision::analysis::{first_glance_probability, polygon_share};
    let shares = polygon_share(map, aoi);
    let first = polygon_share(glance, aoi).share;
    PanelShare {
        share: shares.share,
        area_share: shares.area,
        visibility: (shares.area > 0.0).then(|| shares.share / shares.area),
        glance_share: Some(first),
        first_second_probability: Some(first_glance_probability(first)),
    }
}

/// Decodes JPEG, PNG or WebP (detected from the bytes) to 8-bit RGB, under decoder limits.
fn decode(source: &[u8]) -> Result<image::RgbImage, ComputeError> {
    Ok(decode_image(source, MAX_SOURCE_PIXELS)?.into_rgb8())
}

/// Decodes JPEG, PNG or WebP (detected from the bytes), refusing images whose decoding would
/// need more than about `max_pixels` RGBA16 pixels. Stored media are already upright (ingest
/// applies the EXIF orientation and strips it), so no orientation is applied here.
pub fn decode_image(source: &[u8], max_pixels: u64) -> Result<DynamicImage, ComputeError> {
    let invalid = |e: &dyn std::fmt::Display| ComputeError::InvalidImage(e.to_string());
    let format = MediaFormat::detect(source)
        .ok_or_else(|| ComputeError::InvalidImage("not a JPEG, PNG or WebP image".into()))?;
    let mut reader = image::ImageReader::new(Cursor::new(source));
    reader.set_format(match format {
        MediaFormat::Jpeg => ImageFormat::Jpeg,
        MediaFormat::Png => ImageFormat::Png,
        MediaFormat::WebP => ImageFormat::WebP,
    });
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(max_pixels.saturating_mul(8));
    reader.limits(limits);
    let decoded = reader.decode().map_err(|e| invalid(&e))?;
    if decoded.width() == 0 || decoded.height() == 0 {
        return Err(ComputeError::InvalidImage("the image is empty".into()));
    }
    Ok(decoded)
}

fn jpeg(rgb: &[u8], width: usize, height: usize) -> Result<Encoded, ComputeError> {
    let bytes = encode_jpeg(
        rgb,
        width as u32,
        height as u32,
        ColorType::Rgb,
        QUALITY,
        None,
    )
    .map_err(|e| ComputeError::Internal(e.to_string()))?;
    Ok(Encoded {
        bytes,
        format: MediaFormat::Jpeg,
        width: width as u32,
        height: height as u32,
    })
}

/// The map as a 16-bit grey PNG at its own (working) resolution, brightest = 65535.
fn map_png(map: &regard_vision::Plane) -> Result<Encoded, ComputeError> {
    let k = 65535.0 / map.max().max(f32::MIN_POSITIVE);
    let values: Vec<u16> = map
        .data
        .iter()
        .map(|&v| (v * k).round().clamp(0.0, 65535.0) as u16)
        .collect();
    let (w, h) = (map.width as u32, map.height as u32);
    let buffer = ImageBuffer::<Luma<u16>, _>::from_raw(w, h, values)
        .ok_or_else(|| ComputeError::Internal("map buffer size".into()))?;
    let mut out = Cursor::new(Vec::new());
    DynamicImage::ImageLuma16(buffer)
        .write_to(&mut out, ImageFormat::Png)
        .map_err(|e| ComputeError::Internal(e.to_string()))?;
    Ok(Encoded {
        bytes: Bytes::from(out.into_inner()),
        format: MediaFormat::Png,
        width: w,
        height: h,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_jpeg(width: u32, height: u32) -> Vec<u8> {
        // A dark image with one bright square: attention must go to the square.
        let img = image::RgbImage::from_fn(width, height, |x, y| {
            if (width / 2..width / 2 + width / 8).contains(&x)
                && (height / 3..height / 3 + height / 8).contains(&y)
            {
                image::Rgb([250, 40, 40])
            } else {
                image::Rgb([40, 60, 70])
            }
        });
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, ImageFormat::Jpeg).unwrap();
        out.into_inner()
    }

    #[test]
    fn computes_every_output_at_the_right_size() {
        let computed = compute(&test_jpeg(640, 360), None).unwrap();
        for view in [&computed.full, &computed.glance] {
            assert_eq!((view.overlay.width, view.overlay.height), (640, 360));
            assert_eq!((view.fog.width, view.fog.height), (640, 360));
            assert_eq!(
                MediaFormat::detect(&view.fog.bytes),
                Some(MediaFormat::Jpeg)
            );
            let map = image::load_from_memory(&view.map.bytes).unwrap();
            assert_eq!(map.color(), image::ColorType::L16);
        }
        // The two views are two different maps.
        assert_ne!(computed.full.map.bytes, computed.glance.map.bytes);
        assert_eq!(computed.overlay_thumbnail.width, 400);
        assert_eq!(computed.overlay_thumbnail.height, 225);
        assert_eq!(
            MediaFormat::detect(&computed.full.overlay.bytes),
            Some(MediaFormat::Jpeg)
        );
        // The map decodes as 16-bit grey at working size.
        let map = image::load_from_memory(&computed.full.map.bytes).unwrap();
        assert_eq!(map.width(), 256);
        let result = &computed.result;
        assert!((0.0..=100.0).contains(&result.map.score));
        let glance = result.glance.as_ref().unwrap();
        for grid in [&result.map.grid, &glance.grid] {
            assert_eq!((grid.width, grid.height), (64, 36));
            assert_eq!(grid.values.len(), 64 * 36);
            assert_eq!(grid.values.iter().max(), Some(&65535));
        }
        assert_eq!((result.width, result.height), (640, 360));
        assert_eq!(result.model, "v3");
        assert!(!result.map.hotspots.is_empty());
        assert!(!glance.hotspots.is_empty());
        assert_eq!(result.panel, None);
    }

    #[test]
    fn the_bright_square_holds_the_first_hotspot() {
        let computed = compute(&test_jpeg(800, 450), None).unwrap();
        let first = &computed.result.map.hotspots[0];
        let (x, y) = (first.x, first.y);
        assert!((0.45..=0.7).contains(&x), "x = {x}");
        assert!((0.28..=0.5).contains(&y), "y = {y}");
    }

    #[test]
    fn corrupt_and_foreign_bytes_are_invalid_images() {
        let mut truncated = test_jpeg(320, 200);
        truncated.truncate(200);
        assert!(matches!(
            compute(&truncated, None),
            Err(ComputeError::InvalidImage(_))
        ));
        assert!(matches!(
            compute(b"GIF89a not what we take", None),
            Err(ComputeError::InvalidImage(_))
        ));
    }
}
