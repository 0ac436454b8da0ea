//! The pixel part of a render, CPU-bound and without I/O (run it on the blocking pool): decode
//! the photo's and the creative's originals (and the mask), composite with
//! [`regard_vision::composite::render`], and encode the result as a JPEG (quality 92) with
//! preview and thumbnail variants, and as a PNG.
//!
//! Originals are used, not previews: the render is made at the photo's full resolution. They
//! are already upright (ingest applies the EXIF orientation and drops it), so pixel (0, 0) is the
//! top-left corner the quad was drawn against.

use bytes::Bytes;
use image::DynamicImage;
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use jpeg_encoder::ColorType;
use regard_vision::RgbImage;
use regard_vision::composite::{self, Adjustments, Fit, Mask, RenderSpec, Site};

use crate::heatmaps::compute::{ComputeError, decode_image};
use crate::media::{EncodedImage, MediaFormat, encode_jpeg, make_variants};

/// JPEG quality of a render: visually lossless, it is the deliverable.
pub const JPEG_QUALITY: u8 = 92;

/// Everything a render needs besides storage.
#[derive(Debug, Clone)]
pub struct RenderInput {
    pub photo: Bytes,
    pub creative: Bytes,
    pub mask: Option<Bytes>,
    /// Panel corners normalised to the photo (0..1), clockwise from the top-left.
    pub quad: [(f64, f64); 4],
    pub fit: Fit,
    pub background: [u8; 3],
    /// Width / height of the panel when the location knows its size.
    pub panel_aspect: Option<f64>,
    /// The panel's size and passing distance, for a view from a distance.
    pub site: Option<Site>,
    pub adjustments: Adjustments,
    /// Largest image decoded (the upload limit).
    pub max_pixels: u64,
}

/// The encoded render.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub jpeg: EncodedImage,
    pub preview: EncodedImage,
    pub thumbnail: EncodedImage,
    pub png: EncodedImage,
}

/// Why a render failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RenderFailure {
    /// A source does not decode: retrying cannot help.
    #[error("{0}")]
    InvalidImage(String),
    /// The renderer refused the settings (e.g. the location's quad became too small).
    #[error("{0}")]
    InvalidSettings(String),
    /// Encoding failed (our bug or resources).
    #[error("{0}")]
    Internal(String),
}

fn decode(what: &str, bytes: &[u8], max_pixels: u64) -> Result<DynamicImage, RenderFailure> {
    decode_image(bytes, max_pixels).map_err(|err| match err {
        ComputeError::InvalidImage(reason) => {
            RenderFailure::InvalidImage(format!("the {what} cannot be read: {reason}"))
        }
        ComputeError::Internal(reason) => RenderFailure::Internal(reason),
    })
}

/// The quad in photo pixels (continuous coordinates, rendering.md §Conventions).
pub fn quad_pixels(quad: &[(f64, f64); 4], width: u32, height: u32) -> [[f64; 2]; 4] {
    quad.map(|(x, y)| [x * f64::from(width), y * f64::from(height)])
}

thread_local! {
    /// The renderer's reusable storage on this thread (see [`composite::Scratch`]).
    static SCRATCH: std::cell::RefCell<composite::Scratch> = Default::default();
}

/// Renders and encodes. Peak memory is a few times the photo's RGB size (decoded photo, output,
/// a copy for the variants while the PNG is encoded beside them).
pub fn render(input: &RenderInput) -> Result<Rendered, RenderFailure> {
    let photo = decode("photo", &input.photo, input.max_pixels)?.into_rgb8();
    let creative = decode("creative", &input.creative, input.max_pixels)?.into_rgb8();
    let mask = match &input.mask {
        Some(bytes) => Some(decode("mask", bytes, input.max_pixels)?.into_luma8()),
        None => None,
    };
    let (w, h) = photo.dimensions();
    let internal = |e: &dyn std::fmt::Display| RenderFailure::Internal(e.to_string());
    let creative_img = RgbImage::new(
        creative.width() as usize,
        creative.height() as usize,
        creative.as_raw(),
    )
    .map_err(|e| internal(&e))?;
    let mask_ref = mask.as_ref().map(|m| Mask {
        width: m.width() as usize,
        height: m.height() as usize,
        data: m.as_raw(),
    });
    let spec = RenderSpec {
        quad: quad_pixels(&input.quad, w, h),
        fit: input.fit,
        background: input.background,
        panel_aspect: input.panel_aspect,
        adjustments: input.adjustments,
        site: input.site,
    };
    // Rendered in the decoded photo's own buffer, with the pyramid's storage kept by this
    // (blocking-pool) thread between renders; tokio ends a thread idle for 10 s, and with it
    // that storage.
    let mut pixels = photo.into_raw();
    SCRATCH
        .with_borrow_mut(|scratch| {
            composite::render_in_place(
                &mut pixels,
                w as usize,
                h as usize,
                &creative_img,
                mask_ref.as_ref(),
                &spec,
                scratch,
            )
        })
        .map_err(|e| RenderFailure::InvalidSettings(e.to_string()))?;
    if pixels.len() != (w as usize) * (h as usize) * 3 {
        return Err(RenderFailure::Internal(
            "the renderer returned a buffer of the wrong size".into(),
        ));
    }
    encode(pixels, w, h)
}

/// Encodes the JPEG with its variants and, on a second thread, the PNG (the two encoders are
/// independent, and a 12-megapixel PNG takes about as long as everything else).
fn encode(pixels: Vec<u8>, w: u32, h: u32) -> Result<Rendered, RenderFailure> {
    let internal = |e: &dyn std::fmt::Display| RenderFailure::Internal(e.to_string());
    std::thread::scope(|scope| {
        let png = scope.spawn(|| encode_png(&pixels, w, h));
        let jpeg = encode_jpeg(&pixels, w, h, ColorType::Rgb, JPEG_QUALITY, None)
            .map_err(|e| internal(&e))?;
        let image = image::RgbImage::from_raw(w, h, pixels.clone())
            .ok_or_else(|| RenderFailure::Internal("render buffer size".into()))?;
        let (preview, thumbnail) =
            make_variants(DynamicImage::ImageRgb8(image)).map_err(|e| internal(&e))?;
        let png = png
            .join()
            .map_err(|_| RenderFailure::Internal("the PNG encoder panicked".into()))??;
        Ok(Rendered {
            jpeg: EncodedImage {
                format: MediaFormat::Jpeg,
                width: w,
                height: h,
                data: jpeg,
            },
            preview,
            thumbnail,
            png: EncodedImage {
                format: MediaFormat::Png,
                width: w,
                height: h,
                data: png,
            },
        })
    })
}

/// 8-bit RGB PNG with fast compression: the PNG is the lossless download, size matters less
/// than the seconds a higher level would cost on 12 megapixels.
fn encode_png(pixels: &[u8], w: u32, h: u32) -> Result<Bytes, RenderFailure> {
    use image::ImageEncoder;
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::Adaptive)
        .write_image(pixels, w, h, image::ExtendedColorType::Rgb8)
        .map_err(|e| RenderFailure::Internal(e.to_string()))?;
    Ok(Bytes::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn encoded(image: DynamicImage, format: image::ImageFormat) -> Bytes {
        let mut out = Cursor::new(Vec::new());
        image.write_to(&mut out, format).unwrap();
        Bytes::from(out.into_inner())
    }

    fn input(photo: Bytes) -> RenderInput {
        let creative = DynamicImage::ImageRgb8(image::RgbImage::from_pixel(
            40,
            30,
            image::Rgb([200, 10, 10]),
        ));
        RenderInput {
            photo,
            creative: encoded(creative, image::ImageFormat::Png),
            mask: None,
            quad: [(0.2, 0.2), (0.8, 0.2), (0.8, 0.8), (0.2, 0.8)],
            fit: Fit::Cover,
            background: [255, 255, 255],
            panel_aspect: None,
            site: None,
            adjustments: Adjustments::default(),
            max_pixels: 100_000_000,
        }
    }

    #[test]
    fn a_render_has_the_photos_size_and_every_encoding() {
        let photo = DynamicImage::ImageRgb8(image::RgbImage::from_pixel(
            300,
            200,
            image::Rgb([30, 90, 60]),
        ));
        let rendered = render(&input(encoded(photo, image::ImageFormat::Jpeg))).unwrap();
        assert_eq!((rendered.jpeg.width, rendered.jpeg.height), (300, 200));
        let jpeg = image::load_from_memory(&rendered.jpeg.data).unwrap();
        assert_eq!((jpeg.width(), jpeg.height()), (300, 200));
        let png = image::load_from_memory(&rendered.png.data).unwrap();
        assert_eq!((png.width(), png.height()), (300, 200));
        assert_eq!(
            MediaFormat::detect(&rendered.png.data),
            Some(MediaFormat::Png)
        );
        assert_eq!(
            (rendered.thumbnail.width, rendered.thumbnail.height),
            (300, 200)
        );
    }

    #[test]
    fn corrupt_sources_are_invalid_images() {
        let err = render(&input(Bytes::from_static(b"\xFF\xD8\xFF\xE0 not a jpeg"))).unwrap_err();
        assert!(matches!(err, RenderFailure::InvalidImage(m) if m.contains("photo")));
    }

    #[test]
    fn normalised_quads_become_photo_pixels() {
        let q = quad_pixels(&[(0.0, 0.0), (1.0, 0.0), (1.0, 0.5), (0.25, 1.0)], 400, 300);
        assert_eq!(
            q,
            [[0.0, 0.0], [400.0, 0.0], [400.0, 150.0], [100.0, 300.0]]
        );
    }
}
