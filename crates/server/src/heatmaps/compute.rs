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
//! - the analysis and a 64-cell grid of the map (JSON) for the page's drawn rectangles, and the
//!   same for the first-glance map (`glance`: the fixations that start within the first second).

use std::io::Cursor;

use bytes::Bytes;
use image::{DynamicImage, ImageBuffer, ImageFormat, Luma};
use jpeg_encoder::ColorType;
use regard_vision::{RgbImage, analyse, image::working_size, predict, render};
use serde_json::{Value, json};

use crate::media::{MediaFormat, THUMBNAIL_SIDE, encode_jpeg};

/// Long side of the grid sent to the browser for rectangle shares.
pub const GRID_SIDE: usize = 64;
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

/// Everything one item produces.
#[derive(Debug, Clone)]
pub struct Computed {
    /// Scores, hotspots, regions and grid (the item's `result` without URLs).
    pub result: Value,
    /// Attention score, 0–100.
    pub score: f64,
    pub map: Encoded,
    pub overlay: Encoded,
    pub overlay_thumbnail: Encoded,
    pub fog: Encoded,
    /// `{share, area_share, visibility}` of the area of interest, when one was given (also in
    /// `result` as `panel`).
    pub panel: Option<Value>,
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

    let overlay = jpeg(&render::overlay(&img, &prediction.map, 1.0), w, h)?;
    let fog = jpeg(&render::fog(&img, &prediction.map, 1.0), w, h)?;
    // Never larger than the overlay itself.
    let (tw, th) = working_size(w, h, (THUMBNAIL_SIDE as usize).min(w.max(h)));
    let small = image::imageops::thumbnail(&rgb, tw as u32, th as u32);
    let small_img =
        RgbImage::new(tw, th, small.as_raw()).map_err(|e| ComputeError::Internal(e.to_string()))?;
    let overlay_thumbnail = jpeg(&render::overlay(&small_img, &prediction.map, 1.0), tw, th)?;
    let map = map_png(&prediction.map)?;

    let mut result =
        serde_json::to_value(&analysis).map_err(|e| ComputeError::Internal(e.to_string()))?;
    if let Some(object) = result.as_object_mut() {
        object.insert("grid".into(), grid(&prediction.map));
        object.insert("width".into(), json!(w));
        object.insert("height".into(), json!(h));
        // Which attention model made the map (scores of different models do not compare).
        object.insert("model".into(), json!("v3"));
        // The first glance: the same analysis of the first-second map, and its grid.
        let mut first =
            serde_json::to_value(&glance).map_err(|e| ComputeError::Internal(e.to_string()))?;
        if let Some(g) = first.as_object_mut() {
            g.insert("grid".into(), grid(&prediction.glance));
        }
        object.insert("glance".into(), first);
    }
    let panel = aoi.map(|aoi| panel_json(&prediction.map, &prediction.glance, aoi));
    if let (Some(panel), Some(object)) = (&panel, result.as_object_mut()) {
        object.insert("panel".into(), panel.clone());
    }
    Ok(Computed {
        result,
        score: analysis.score,
        map,
        overlay,
        overlay_thumbnail,
        fog,
        panel,
    })
}

/// The area of interest's share of the attention, its share of the surface, their ratio
/// (`visibility` > 1: the panel draws more attention than its size alone would), its share of
/// the first second's attention and the probability that a viewer looks at it within the first
/// second.
fn panel_json(map: &regard_vision::Plane, glance: &regard_vision::Plane, aoi: &Aoi) -> Value {
    use regard_vision::analysis::{first_glance_probability, polygon_share};
    let shares = polygon_share(map, aoi);
    let visibility = (shares.area > 0.0).then(|| shares.share / shares.area);
    let first = polygon_share(glance, aoi).share;
    json!({
        "share": shares.share,
        "area_share": shares.area,
        "visibility": visibility,
        "glance_share": first,
        "first_second_probability": first_glance_probability(first),
    })
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

/// The map reduced (by area) to long side [`GRID_SIDE`], values 0..=65535 relative to the
/// grid's maximum: `{"width", "height", "values": [row-major]}`.
pub fn grid(map: &regard_vision::Plane) -> Value {
    let (gw, gh) = working_size(map.width, map.height, GRID_SIDE);
    let small = map.resize_area(gw, gh);
    let k = 65535.0 / small.max().max(f32::MIN_POSITIVE);
    let values: Vec<u16> = small
        .data
        .iter()
        .map(|&v| (v * k).round().clamp(0.0, 65535.0) as u16)
        .collect();
    json!({ "width": gw, "height": gh, "values": values })
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
        assert_eq!(
            (computed.overlay.width, computed.overlay.height),
            (640, 360)
        );
        assert_eq!((computed.fog.width, computed.fog.height), (640, 360));
        assert_eq!(computed.overlay_thumbnail.width, 400);
        assert_eq!(computed.overlay_thumbnail.height, 225);
        assert_eq!(
            MediaFormat::detect(&computed.overlay.bytes),
            Some(MediaFormat::Jpeg)
        );
        // The map decodes as 16-bit grey at working size.
        let map = image::load_from_memory(&computed.map.bytes).unwrap();
        assert_eq!(map.color(), image::ColorType::L16);
        assert_eq!(map.width(), 256);
        assert!((0.0..=100.0).contains(&computed.score));
        let grid = &computed.result["grid"];
        assert_eq!(grid["width"], 64);
        assert_eq!(grid["height"], 36);
        let values = grid["values"].as_array().unwrap();
        assert_eq!(values.len(), 64 * 36);
        assert_eq!(values.iter().filter_map(Value::as_u64).max(), Some(65535));
        assert_eq!(computed.result["width"], 640);
        assert!(
            computed.result["hotspots"]
                .as_array()
                .is_some_and(|h| !h.is_empty())
        );
    }

    #[test]
    fn the_bright_square_holds_the_first_hotspot() {
        let computed = compute(&test_jpeg(800, 450), None).unwrap();
        let first = &computed.result["hotspots"][0];
        let (x, y) = (first["x"].as_f64().unwrap(), first["y"].as_f64().unwrap());
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
