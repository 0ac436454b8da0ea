//! Pixel work of the ingest: re-encoding an original that had to be rotated, and making the
//! preview and thumbnail variants.
//!
//! Resizing uses `fast_image_resize` (SIMD) with a Lanczos3 convolution: the filter widens with
//! the scale factor, so every source pixel contributes and downscaling shows no aliasing or
//! moiré (unlike nearest/bilinear sampling). Transparent images are resized with premultiplied
//! alpha (the crate's default), so edges do not get dark fringes. JPEG encoding uses
//! `jpeg-encoder` (SIMD), several times faster than `image`'s own encoder on large images.

use std::io::Write;

use bytes::Bytes;
use fast_image_resize::images::{Image, ImageRef};
use fast_image_resize::{PixelType, ResizeOptions, Resizer};
use image::{DynamicImage, ExtendedColorType, ImageEncoder};
use jpeg_encoder::{ColorType, Encoder, SamplingFactor};

use super::{EncodedImage, MediaError, MediaFormat};

/// Longest side of the thumbnail variant, in pixels (grids of cards).
pub const THUMBNAIL_SIDE: u32 = 400;
/// Longest side of the preview variant, in pixels (full-screen view, rendering preview).
pub const PREVIEW_SIDE: u32 = 2048;

/// Quality of a re-encoded JPEG original: visually lossless, since it replaces the upload.
const ORIGINAL_JPEG_QUALITY: u8 = 92;
/// Quality of the JPEG variants: they are only looked at, never processed further.
const VARIANT_JPEG_QUALITY: u8 = 85;

fn internal(err: impl std::fmt::Display) -> MediaError {
    MediaError::Internal(err.to_string())
}

/// Encodes an 8-bit Luma, RGB or RGBA buffer as JPEG (alpha is ignored).
pub(crate) fn encode_jpeg(
    pixels: &[u8],
    width: u32,
    height: u32,
    color: ColorType,
    quality: u8,
    icc: Option<&[u8]>,
) -> Result<Bytes, MediaError> {
    let mut out = Vec::new();
    write_jpeg(&mut out, pixels, width, height, color, quality, icc)?;
    Ok(Bytes::from(out))
}

/// [`encode_jpeg`] into a writer, as the encoder goes.
fn write_jpeg<W: Write>(
    out: W,
    pixels: &[u8],
    width: u32,
    height: u32,
    color: ColorType,
    quality: u8,
    icc: Option<&[u8]>,
) -> Result<(), MediaError> {
    let (w, h) = (
        u16::try_from(width).map_err(internal)?,
        u16::try_from(height).map_err(internal)?,
    );
    let mut encoder = Encoder::new(out, quality);
    // 4:2:0 chroma subsampling, as cameras do: a third smaller than 4:4:4, invisible on photos.
    encoder.set_sampling_factor(SamplingFactor::F_2_2);
    if let Some(icc) = icc {
        encoder.add_icc_profile(icc).map_err(internal)?;
    }
    encoder.encode(pixels, w, h, color).map_err(internal)
}

/// Encodes 8-bit RGBA as lossless WebP (`image`'s encoder has no lossy mode).
fn encode_webp_lossless(
    pixels: &[u8],
    width: u32,
    height: u32,
    color: ExtendedColorType,
    icc: Option<&[u8]>,
) -> Result<Bytes, MediaError> {
    let mut out = Vec::new();
    write_webp_lossless(&mut out, pixels, width, height, color, icc)?;
    Ok(Bytes::from(out))
}

/// [`encode_webp_lossless`] into a writer.
fn write_webp_lossless<W: Write>(
    out: W,
    pixels: &[u8],
    width: u32,
    height: u32,
    color: ExtendedColorType,
    icc: Option<&[u8]>,
) -> Result<(), MediaError> {
    let mut encoder = image::codecs::webp::WebPEncoder::new_lossless(out);
    if let Some(icc) = icc {
        // Best effort: a profile the encoder refuses only costs colour accuracy.
        let _ = encoder.set_icc_profile(icc.to_vec());
    }
    encoder
        .write_image(pixels, width, height, color)
        .map_err(internal)
}

/// Re-encodes an original after its orientation was applied, in its own format, keeping its
/// ICC profile and nothing else, into `out` as the encoder goes (a large original is never
/// held encoded in memory). PNG stays lossless (and keeps 16-bit depth); WebP is written
/// lossless, as `image` has no lossy WebP encoder.
pub(super) fn write_original<W: Write>(
    out: W,
    image: &DynamicImage,
    format: MediaFormat,
    icc: Option<&[u8]>,
) -> Result<(), MediaError> {
    let (width, height) = (image.width(), image.height());
    let q = ORIGINAL_JPEG_QUALITY;
    match format {
        MediaFormat::Jpeg => match image {
            DynamicImage::ImageLuma8(grey) => {
                write_jpeg(out, grey.as_raw(), width, height, ColorType::Luma, q, icc)
            }
            DynamicImage::ImageRgb8(rgb) => {
                write_jpeg(out, rgb.as_raw(), width, height, ColorType::Rgb, q, icc)
            }
            other => {
                let rgb = other.to_rgb8();
                write_jpeg(out, rgb.as_raw(), width, height, ColorType::Rgb, q, icc)
            }
        },
        MediaFormat::Png => {
            let mut encoder = image::codecs::png::PngEncoder::new(out);
            if let Some(icc) = icc {
                let _ = encoder.set_icc_profile(icc.to_vec());
            }
            image.write_with_encoder(encoder).map_err(internal)
        }
        MediaFormat::WebP => {
            let color = if image.color().has_alpha() {
                ExtendedColorType::Rgba8
            } else {
                ExtendedColorType::Rgb8
            };
            match image {
                DynamicImage::ImageRgba8(rgba) => {
                    write_webp_lossless(out, rgba.as_raw(), width, height, color, icc)
                }
                DynamicImage::ImageRgb8(rgb) => {
                    write_webp_lossless(out, rgb.as_raw(), width, height, color, icc)
                }
                other if other.color().has_alpha() => {
                    let rgba = other.to_rgba8();
                    write_webp_lossless(out, rgba.as_raw(), width, height, color, icc)
                }
                other => {
                    let rgb = other.to_rgb8();
                    write_webp_lossless(out, rgb.as_raw(), width, height, color, icc)
                }
            }
        }
    }
}

/// Size that fits `(width, height)` within `side × side`, keeping the aspect ratio; never
/// larger than the input (variants are not upscaled).
fn fit(width: u32, height: u32, side: u32) -> (u32, u32) {
    let longest = width.max(height);
    if longest <= side {
        return (width, height);
    }
    let scale = f64::from(side) / f64::from(longest);
    let scaled = |v: u32| ((f64::from(v) * scale).round() as u32).clamp(1, side);
    (scaled(width), scaled(height))
}

/// 8-bit pixels of one variant, with their layout.
struct Pixels {
    data: Vec<u8>,
    width: u32,
    height: u32,
    alpha: bool,
}

impl Pixels {
    fn pixel_type(&self) -> PixelType {
        if self.alpha {
            PixelType::U8x4
        } else {
            PixelType::U8x3
        }
    }

    /// A copy resized to `(width, height)`, or `None` when it is that size already.
    fn resized(
        &self,
        (width, height): (u32, u32),
        resizer: &mut Resizer,
    ) -> Result<Option<Pixels>, MediaError> {
        if (width, height) == (self.width, self.height) {
            return Ok(None);
        }
        let src = ImageRef::new(self.width, self.height, &self.data, self.pixel_type())
            .map_err(internal)?;
        let mut dst = Image::new(width, height, self.pixel_type());
        // Default options: Lanczos3 convolution, premultiplied alpha for RGBA.
        resizer
            .resize(&src, &mut dst, &ResizeOptions::new())
            .map_err(internal)?;
        Ok(Some(Pixels {
            data: dst.into_vec(),
            width,
            height,
            alpha: self.alpha,
        }))
    }

    /// JPEG when opaque; lossless WebP when transparent (JPEG has no alpha).
    fn encode(&self) -> Result<EncodedImage, MediaError> {
        let (format, data) = if self.alpha {
            let data = encode_webp_lossless(
                &self.data,
                self.width,
                self.height,
                ExtendedColorType::Rgba8,
                None,
            )?;
            (MediaFormat::WebP, data)
        } else {
            let data = encode_jpeg(
                &self.data,
                self.width,
                self.height,
                ColorType::Rgb,
                VARIANT_JPEG_QUALITY,
                None,
            )?;
            (MediaFormat::Jpeg, data)
        };
        Ok(EncodedImage {
            format,
            width: self.width,
            height: self.height,
            data,
        })
    }
}

/// Makes `(preview, thumbnail)` from the upright image. The thumbnail is made from the preview
/// (a 5× smaller source, same filter), which costs a fraction and looks the same.
pub(crate) fn make_variants(
    image: DynamicImage,
) -> Result<(EncodedImage, EncodedImage), MediaError> {
    let size = (image.width(), image.height());
    make_variants_of(image, size)
}

/// [`make_variants`] for an upright image of `size` that `image` may be a shrunk copy of: the
/// variants get the sizes that fit `size`, whatever the copy's own.
pub(super) fn make_variants_of(
    image: DynamicImage,
    size: (u32, u32),
) -> Result<(EncodedImage, EncodedImage), MediaError> {
    // A large image is first shrunk by a whole factor (box filter) to 8-bit RGB or RGBA, and
    // released: the conversions below then copy only the smaller image.
    let image = super::shrink::for_variants(image);
    let (width, height) = (image.width(), image.height());
    // An alpha channel that is fully opaque is dropped, so such images get JPEG variants.
    let pixels = if image.color().has_alpha() {
        let rgba = image.into_rgba8();
        if rgba.pixels().all(|p| p.0[3] == u8::MAX) {
            let rgb = DynamicImage::ImageRgba8(rgba).into_rgb8();
            Pixels {
                data: rgb.into_raw(),
                width,
                height,
                alpha: false,
            }
        } else {
            Pixels {
                data: rgba.into_raw(),
                width,
                height,
                alpha: true,
            }
        }
    } else {
        // Free when the image is already 8-bit RGB (the common JPEG case): no copy.
        Pixels {
            data: image.into_rgb8().into_raw(),
            width,
            height,
            alpha: false,
        }
    };
    let mut resizer = Resizer::new();
    let preview = match pixels.resized(fit(size.0, size.1, PREVIEW_SIDE), &mut resizer)? {
        Some(smaller) => {
            // Release the full-size pixels before encoding.
            drop(pixels);
            smaller
        }
        None => pixels,
    };
    let thumbnail = preview.resized(fit(size.0, size.1, THUMBNAIL_SIDE), &mut resizer)?;
    let preview_encoded = preview.encode()?;
    let thumbnail_encoded = match thumbnail {
        Some(thumbnail) => thumbnail.encode()?,
        None => preview_encoded.clone(),
    };
    Ok((preview_encoded, thumbnail_encoded))
}

#[cfg(test)]
mod tests {
    use super::fit;

    #[test]
    fn fit_keeps_aspect_and_never_upscales() {
        assert_eq!(fit(6000, 4000, 2048), (2048, 1365));
        assert_eq!(fit(4000, 6000, 400), (267, 400));
        assert_eq!(fit(300, 200, 400), (300, 200));
        assert_eq!(fit(100_000, 1, 400), (400, 1));
    }
}
