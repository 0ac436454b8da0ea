//! Media ingest: turns the bytes of an uploaded image into what Regard stores — a validated,
//! correctly oriented original without metadata, its content hash, and thumbnail and preview
//! variants — plus the facts the database records (format, size, GPS position).
//!
//! No HTTP and no database here; `POST /api/v1/media` composes [`collect_upload`], [`ingest`]
//! (CPU-bound: run it in `spawn_blocking`) and [`store`]. Validation follows pict-rs: the format
//! is probed from the bytes, and size, width, height and area are checked from the header before
//! any pixel is decoded; the decoder then runs under `image::Limits` as a second guard.

mod error;
mod exif_gps;
mod jpeg;
mod orient;
mod store;
mod strip;
mod variants;

use std::io::Cursor;

use bytes::Bytes;
use futures::StreamExt;
use image::metadata::Orientation;
use image::{DynamicImage, GenericImageView, ImageDecoder, ImageFormat, ImageReader};
use sha2::{Digest, Sha256};

pub use error::MediaError;
pub use store::{StoredMedia, VariantKind, object_key, store};
pub use variants::{PREVIEW_SIDE, THUMBNAIL_SIDE};

/// Upload limits. Checked before decoding, from the file size and the image header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MediaLimits {
    /// Largest accepted file, in bytes (default 50 MiB).
    pub max_bytes: u64,
    /// Largest accepted area, width × height in pixels (default 100 megapixels).
    pub max_pixels: u64,
    /// Largest accepted width or height, in pixels (default 30,000), so a 100 MP image cannot
    /// be a 1 × 100,000,000 strip that some code paths handle badly.
    pub max_side: u32,
}

impl Default for MediaLimits {
    fn default() -> Self {
        Self {
            max_bytes: 50 * 1024 * 1024,
            max_pixels: 100_000_000,
            max_side: 30_000,
        }
    }
}

impl MediaLimits {
    /// The decoder's own limits, a second guard behind the header checks: the largest image we
    /// accept, at the widest pixel type (RGBA, 16 bits per channel), plus room for the decoder.
    fn decoder_limits(&self) -> image::Limits {
        let mut limits = image::Limits::default();
        limits.max_image_width = Some(self.max_side);
        limits.max_image_height = Some(self.max_side);
        limits.max_alloc = Some(self.max_pixels.saturating_mul(8).saturating_add(64 << 20));
        limits
    }
}

/// The image formats Regard accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MediaFormat {
    /// JPEG (`image/jpeg`).
    Jpeg,
    /// PNG (`image/png`).
    Png,
    /// WebP (`image/webp`).
    WebP,
}

impl MediaFormat {
    /// The MIME type.
    pub fn mime(self) -> &'static str {
        match self {
            Self::Jpeg => "image/jpeg",
            Self::Png => "image/png",
            Self::WebP => "image/webp",
        }
    }

    /// The usual file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Jpeg => "jpg",
            Self::Png => "png",
            Self::WebP => "webp",
        }
    }

    fn image_format(self) -> ImageFormat {
        match self {
            Self::Jpeg => ImageFormat::Jpeg,
            Self::Png => ImageFormat::Png,
            Self::WebP => ImageFormat::WebP,
        }
    }

    /// Detects the format from the first bytes (magic numbers), never from a name.
    pub fn detect(data: &[u8]) -> Option<Self> {
        match image::guess_format(data).ok()? {
            ImageFormat::Jpeg => Some(Self::Jpeg),
            ImageFormat::Png => Some(Self::Png),
            ImageFormat::WebP => Some(Self::WebP),
            _ => None,
        }
    }
}

/// What the header says, known before decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    /// The detected format.
    pub format: MediaFormat,
    /// Stored width in pixels, before EXIF orientation.
    pub width: u32,
    /// Stored height in pixels, before EXIF orientation.
    pub height: u32,
}

/// A GPS position read from EXIF, in decimal degrees (WGS 84; south and west negative).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpsCoordinates {
    /// Latitude, -90..=90.
    pub latitude: f64,
    /// Longitude, -180..=180.
    pub longitude: f64,
}

/// An encoded image ready to store: the original or a variant.
#[derive(Debug, Clone)]
pub struct EncodedImage {
    /// The format of `data`.
    pub format: MediaFormat,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The encoded file.
    pub data: Bytes,
}

impl EncodedImage {
    /// The MIME type of `data`.
    pub fn mime(&self) -> &'static str {
        self.format.mime()
    }
}

/// The result of [`ingest`]: everything to store and to record about one upload.
#[derive(Debug, Clone)]
pub struct IngestedMedia {
    /// The stored original: same format as the upload, upright, without metadata.
    pub original: EncodedImage,
    /// SHA-256 of `original.data`, lowercase hex. Objects are stored under this hash.
    pub sha256: String,
    /// GPS position from the upload's EXIF, when present and plausible.
    pub gps: Option<GpsCoordinates>,
    /// Whether the original was re-encoded (to apply an EXIF orientation) rather than copied
    /// with its metadata segments removed.
    pub reencoded: bool,
    /// Longest side at most [`THUMBNAIL_SIDE`]; JPEG, or lossless WebP when transparent.
    pub thumbnail: EncodedImage,
    /// Longest side at most [`PREVIEW_SIDE`]; JPEG, or lossless WebP when transparent.
    pub preview: EncodedImage,
}

impl IngestedMedia {
    /// MIME type of the stored original.
    pub fn mime(&self) -> &'static str {
        self.original.format.mime()
    }

    /// Width of the stored original (after orientation).
    pub fn width(&self) -> u32 {
        self.original.width
    }

    /// Height of the stored original (after orientation).
    pub fn height(&self) -> u32 {
        self.original.height
    }

    /// Size of the stored original in bytes.
    pub fn bytes(&self) -> u64 {
        self.original.data.len() as u64
    }
}

/// Checks size, format and dimensions without decoding pixels. Cheap: reads only the header.
pub fn probe(data: &[u8], limits: &MediaLimits) -> Result<Probe, MediaError> {
    let bytes = data.len() as u64;
    if bytes > limits.max_bytes {
        return Err(MediaError::FileTooLarge {
            bytes,
            max_bytes: limits.max_bytes,
        });
    }
    let format = MediaFormat::detect(data).ok_or(MediaError::UnsupportedMediaType)?;
    // No decoder limits here on purpose: reading the header allocates nothing, and our own
    // check below gives a precise error with the claimed dimensions.
    let mut reader = ImageReader::with_format(Cursor::new(data), format.image_format());
    reader.no_limits();
    let (width, height) = reader
        .into_dimensions()
        .map_err(|e| MediaError::from_image(e, (0, 0), limits))?;
    if width == 0 || height == 0 {
        return Err(MediaError::InvalidImage("zero width or height".to_owned()));
    }
    let pixels = u64::from(width) * u64::from(height);
    if pixels > limits.max_pixels || width > limits.max_side || height > limits.max_side {
        return Err(MediaError::ImageTooLarge {
            width,
            height,
            max_pixels: limits.max_pixels,
            max_side: limits.max_side,
        });
    }
    Ok(Probe {
        format,
        width,
        height,
    })
}

/// Validates, decodes, orients, strips, hashes and makes the variants of one uploaded image.
///
/// CPU-bound (0.4–0.9 s for 24 megapixels on one core): call it from `spawn_blocking`. Peak
/// memory is about twice the decoded image when an orientation must be applied, once otherwise.
pub fn ingest(data: &[u8], limits: &MediaLimits) -> Result<IngestedMedia, MediaError> {
    let probe = probe(data, limits)?;
    let data = match probe.format {
        // Cut the file at the primary image's end-of-image marker: this rejects truncated files
        // (the JPEG decoder would fill the missing part with grey) and drops trailers, which can
        // hold whole secondary images with their own EXIF (MPF, gain maps, depth maps).
        MediaFormat::Jpeg => &data[..jpeg::image_end(data)?],
        MediaFormat::Png | MediaFormat::WebP => data,
    };

    let mut reader = ImageReader::with_format(Cursor::new(data), probe.format.image_format());
    reader.limits(limits.decoder_limits());
    let size = (probe.width, probe.height);
    let mut decoder = reader
        .into_decoder()
        .map_err(|e| MediaError::from_image(e, size, limits))?;
    // A broken metadata block must not reject a good image: it just means no orientation
    // and no GPS position.
    let exif = decoder.exif_metadata().ok().flatten();
    let icc = decoder.icc_profile().ok().flatten();
    let orientation = exif
        .as_deref()
        .and_then(Orientation::from_exif_chunk)
        .unwrap_or(Orientation::NoTransforms);
    let gps = exif.as_deref().and_then(exif_gps::gps_from_exif);
    let mut image =
        DynamicImage::from_decoder(decoder).map_err(|e| MediaError::from_image(e, size, limits))?;

    let reencoded = orientation != Orientation::NoTransforms;
    let original_data = if reencoded {
        orient::apply(&mut image, orientation);
        variants::encode_original(&image, probe.format, icc.as_deref())?
    } else {
        strip::strip_metadata(data, probe.format)?
    };
    let (width, height) = image.dimensions();
    let original = EncodedImage {
        format: probe.format,
        width,
        height,
        data: original_data,
    };
    let sha256 = hex::encode(Sha256::digest(&original.data));
    // Consumes the decoded image so its memory is released as soon as the preview exists.
    let (preview, thumbnail) = variants::make_variants(image)?;
    Ok(IngestedMedia {
        original,
        sha256,
        gps,
        reencoded,
        thumbnail,
        preview,
    })
}

/// Reads an upload stream into memory, failing with [`MediaError::FileTooLarge`] as soon as it
/// passes `limits.max_bytes` (so an oversized upload is refused without being read to the end).
///
/// Holding the upload in memory is bounded by `max_bytes` (50 MiB); decoding needs it whole.
/// Any byte stream works: a [`crate::storage::ByteStream`], or a borrowed multipart field.
pub async fn collect_upload<S>(mut stream: S, limits: &MediaLimits) -> Result<Vec<u8>, MediaError>
where
    S: futures::Stream<Item = std::io::Result<Bytes>> + Unpin,
{
    let mut data = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(MediaError::Upload)?;
        let bytes = (data.len() + chunk.len()) as u64;
        if bytes > limits.max_bytes {
            return Err(MediaError::FileTooLarge {
                bytes,
                max_bytes: limits.max_bytes,
            });
        }
        data.extend_from_slice(&chunk);
    }
    Ok(data)
}
