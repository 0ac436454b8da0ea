//! Media ingest: turns the bytes of an uploaded image into what Regard stores — a validated,
//! correctly oriented original without metadata, its content hash, and thumbnail and preview
//! variants — plus the facts the database records (format, size, GPS position).
//!
//! No HTTP here. `POST /api/v1/media` reads the multipart body with [`collect_upload`] (streams
//! the upload to a temporary file) and hands it to [`accept`], which composes [`prepare`] (reads
//! the header and works out the memory decoding will take, [`PreparedUpload::cost`], refusing
//! what exceeds `max_decode_bytes`), [`PreparedUpload::finish`] (CPU-bound, on the blocking pool,
//! holding that much of the node's decoding budget, [`IngestGate`]), [`store`] (streams the
//! original from its own temporary file) and the row's insert. The database appears only in
//! `store.rs`: [`accept`], [`release`] and the orphan sweep ([`sweep_orphans`]); everything else
//! is pure. [`signing`] signs and checks the short-lived URLs of stored media.
//! Temporary files are [`NamedTempFile`]s: removed when dropped, on success and on every error
//! path. Validation follows pict-rs: the format is probed from the bytes, and size, width,
//! height, area and decoding memory are checked from the header before any pixel is decoded;
//! the decoders then run under limits as a second guard. Large PNGs are decoded row by row and
//! shrunk as they stream ([`shrink`]), so they never need their full size in memory.

mod error;
mod exif_gps;
mod jpeg;
mod orient;
pub mod quota;
mod shrink;
pub mod signing;
mod staging;
mod store;
mod strip;
mod variants;

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Cursor, Read, Seek};
use std::path::{Path, PathBuf};

use bytes::Bytes;
use image::metadata::Orientation;
use image::{DynamicImage, GenericImageView, ImageDecoder, ImageFormat, ImageReader};
use tempfile::NamedTempFile;

pub use error::MediaError;
use staging::{HashingWriter, io_error, temp_file, write_temp};
pub use staging::{STAGING_MAX_AGE, Upload, collect_upload, sweep_staging};
pub use store::{
    AcceptError, IngestGate, ORPHAN_GRACE_MS, REUSE_WINDOW_MS, Staged, StoredMedia, SweepError,
    Swept, VariantKind, accept, delete_objects_if_orphaned, object_key, prepare_gated, release,
    reusable, stage, store, sweep_orphans,
};
pub use variants::{PREVIEW_SIDE, THUMBNAIL_SIDE};
pub(crate) use variants::{encode_jpeg, make_variants};

/// An uploaded file's name without its extension (`affiche-ete.png` → `affiche-ete`); the whole
/// name when nothing would be left (`.png`).
pub fn file_stem(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((stem, _)) if !stem.trim().is_empty() => stem,
        _ => name,
    }
}

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
    /// Most memory one upload's decoding may take, in bytes (default 320 MiB), worked out from
    /// the header before decoding ([`PreparedUpload::cost`]). A server also shares this much
    /// between the uploads it processes at once.
    pub max_decode_bytes: u64,
}

impl Default for MediaLimits {
    fn default() -> Self {
        Self {
            max_bytes: 50 * 1024 * 1024,
            max_pixels: 100_000_000,
            max_side: 30_000,
            max_decode_bytes: 320 << 20,
        }
    }
}

impl MediaLimits {
    /// The decoder's own limits, a second guard behind the header checks and the decoding
    /// cost: no side above the limit, no allocation above the decoding budget.
    fn decoder_limits(&self) -> image::Limits {
        let mut limits = image::Limits::default();
        limits.max_image_width = Some(self.max_side);
        limits.max_image_height = Some(self.max_side);
        limits.max_alloc = Some(self.max_decode_bytes);
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

    /// The format of a MIME type this enum names (`None` for any other).
    pub fn from_mime(mime: &str) -> Option<Self> {
        [Self::Jpeg, Self::Png, Self::WebP]
            .into_iter()
            .find(|f| f.mime() == mime)
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

/// The original to store, in a temporary file (removed when this is dropped).
#[derive(Debug)]
pub struct OriginalFile {
    /// The format of the file.
    pub format: MediaFormat,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Size of the file in bytes.
    pub bytes: u64,
    file: NamedTempFile,
}

impl OriginalFile {
    /// The MIME type of the file.
    pub fn mime(&self) -> &'static str {
        self.format.mime()
    }

    /// Where the file is, until this is dropped.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Reads the whole file into memory (for tests and tools; [`store`] streams it).
    pub fn read(&self) -> std::io::Result<Vec<u8>> {
        std::fs::read(self.file.path())
    }

    /// A new handle on the file, positioned at its start.
    pub(crate) fn open(&self) -> std::io::Result<File> {
        self.file.reopen()
    }
}

/// `file` rewound and buffered.
fn buffered(mut file: &File) -> Result<BufReader<&File>, MediaError> {
    file.rewind().map_err(io_error)?;
    Ok(BufReader::with_capacity(64 << 10, file))
}

/// The result of [`ingest`]: everything to store and to record about one upload.
#[derive(Debug)]
pub struct IngestedMedia {
    /// The stored original: same format as the upload, upright, without metadata.
    pub original: OriginalFile,
    /// SHA-256 of the original's file, lowercase hex. Objects are stored under this hash.
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
        self.original.bytes
    }
}

/// Checks size, format and dimensions without decoding pixels. Cheap: reads only the header.
pub fn probe(data: &[u8], limits: &MediaLimits) -> Result<Probe, MediaError> {
    probe_reader(Cursor::new(data), data.len() as u64, limits)
}

/// [`probe`] from a reader positioned at the start of a file of `len` bytes.
fn probe_reader<R: BufRead + Seek>(
    mut reader: R,
    len: u64,
    limits: &MediaLimits,
) -> Result<Probe, MediaError> {
    if len > limits.max_bytes {
        return Err(MediaError::FileTooLarge {
            bytes: len,
            max_bytes: limits.max_bytes,
        });
    }
    let mut head = Vec::with_capacity(32);
    reader
        .by_ref()
        .take(32)
        .read_to_end(&mut head)
        .map_err(io_error)?;
    let format = MediaFormat::detect(&head).ok_or(MediaError::UnsupportedMediaType)?;
    reader.rewind().map_err(io_error)?;
    // No decoder limits here on purpose: reading the header allocates nothing, and our own
    // check below gives a precise error with the claimed dimensions.
    let mut reader = ImageReader::with_format(reader, format.image_format());
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

/// Validates, decodes, orients, strips, hashes and makes the variants of one uploaded image:
/// [`prepare`] then [`PreparedUpload::finish`], for callers with no memory budget to share.
pub fn ingest(upload: Upload, limits: &MediaLimits) -> Result<IngestedMedia, MediaError> {
    prepare(upload, limits)?.finish(limits)
}

/// How an upload's pixels are decoded, chosen from its header to hold as little as possible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decode {
    /// A PNG that needs no turning, not interlaced: decoded to 8 bits per channel row by row,
    /// each row going straight into the [`shrink::Shrinker`]. Memory: a few rows.
    PngRows,
    /// An interlaced PNG that needs no turning: the whole frame at 8 bits per channel (the
    /// passes of Adam7 fill it in a scattered order), then shrunk.
    PngFrame,
    /// Everything else: `image`'s decoder at the file's own depth, turned upright when the
    /// EXIF orientation asks for it (the original is then re-encoded from these pixels).
    Full(Orientation),
}

/// An upload whose header has been read: checked against the limits, its metadata read, and
/// the memory its decoding will take known ([`cost`](Self::cost)), before any pixel is
/// decoded. Made by [`prepare`]; [`finish`](Self::finish) does the rest.
#[derive(Debug)]
pub struct PreparedUpload {
    upload: Upload,
    dir: PathBuf,
    probe: Probe,
    /// A JPEG's original, already written without metadata, with its hash and size.
    stripped: Option<(NamedTempFile, String, u64)>,
    decode: Decode,
    gps: Option<GpsCoordinates>,
    cost: u64,
}

impl PreparedUpload {
    /// The bytes of memory [`finish`](Self::finish) may hold at its peak, at most
    /// `MediaLimits::max_decode_bytes`: what a server shares out between concurrent uploads.
    pub fn cost(&self) -> u64 {
        self.cost
    }

    /// Decodes the pixels within [`cost`](Self::cost), writes the original (stripped, or
    /// re-encoded upright) and makes the variants. CPU-bound (0.4–0.9 s for 24 megapixels on
    /// one core): call it from `spawn_blocking`. The upload's file is removed when this returns.
    pub fn finish(self, limits: &MediaLimits) -> Result<IngestedMedia, MediaError> {
        let Self {
            upload,
            dir,
            probe,
            stripped,
            decode,
            gps,
            cost,
        } = self;
        let file = upload.file.as_file();
        let size = (probe.width, probe.height);
        let mut reencoded = false;
        let (original, image) = match decode {
            Decode::PngRows | Decode::PngFrame => {
                // Metadata first, while nothing is decoded: img-parts needs the whole file.
                let original = strip_in_memory(file, upload.len, probe.format, &dir)?;
                let image = decode_png_shrunk(file, probe, decode == Decode::PngFrame, cost)?;
                (original, image)
            }
            Decode::Full(orientation) => {
                // Upright: the original is the upload without its metadata, ready before
                // decoding. Turned: it is re-encoded from the decoded pixels below.
                let original = if orientation == Orientation::NoTransforms {
                    Some(match stripped {
                        Some(stripped) => stripped,
                        None => strip_in_memory(file, upload.len, probe.format, &dir)?,
                    })
                } else {
                    drop(stripped);
                    None
                };
                let mut reader =
                    ImageReader::with_format(buffered(file)?, probe.format.image_format());
                reader.limits(limits.decoder_limits());
                let mut decoder = reader
                    .into_decoder()
                    .map_err(|e| MediaError::from_image(e, size, limits))?;
                let icc = decoder.icc_profile().ok().flatten();
                let mut image = DynamicImage::from_decoder(decoder)
                    .map_err(|e| MediaError::from_image(e, size, limits))?;
                let original = match original {
                    Some(original) => original,
                    None => {
                        reencoded = true;
                        orient::apply(&mut image, orientation);
                        let out = temp_file(&dir).map_err(io_error)?;
                        let mut writer =
                            HashingWriter::new(BufWriter::with_capacity(64 << 10, out.as_file()));
                        variants::write_original(
                            &mut writer,
                            &image,
                            probe.format,
                            icc.as_deref(),
                        )?;
                        let (sha256, bytes) = writer.finish()?;
                        (out, sha256, bytes)
                    }
                };
                (original, image)
            }
        };
        drop(upload);
        let (original_file, sha256, bytes) = original;
        // Upright size: a turn of 90° swaps the header's width and height.
        let (width, height) = match decode {
            Decode::Full(_) => image.dimensions(),
            Decode::PngRows | Decode::PngFrame => size,
        };
        let original = OriginalFile {
            format: probe.format,
            width,
            height,
            bytes,
            file: original_file,
        };
        // Consumes the decoded image so its memory is released as soon as the preview exists.
        let (preview, thumbnail) = variants::make_variants_of(image, (width, height))?;
        Ok(IngestedMedia {
            original,
            sha256,
            gps,
            reencoded,
            thumbnail,
            preview,
        })
    }
}

/// Reads an upload's header and metadata and works out how to decode it within
/// `limits.max_decode_bytes`, refusing with [`MediaError::TooLargeToDecode`] what cannot be.
/// A JPEG is also checked structurally and written without its metadata (one streaming pass).
/// Cheap next to [`PreparedUpload::finish`], but it reads the file: call it from
/// `spawn_blocking`.
pub fn prepare(upload: Upload, limits: &MediaLimits) -> Result<PreparedUpload, MediaError> {
    let dir = upload
        .file
        .path()
        .parent()
        .map_or_else(std::env::temp_dir, Path::to_path_buf);
    let file = upload.file.as_file();
    let probe = probe_reader(buffered(file)?, upload.len, limits)?;
    let (stripped, jpeg) = match probe.format {
        // One pass over the file that checks its structure and writes it without metadata
        // segments. It rejects truncated files (the JPEG decoder would fill the missing part
        // with grey) and stops at the primary image's end-of-image marker: trailers, which can
        // hold whole secondary images with their own EXIF (MPF, gain maps, depth maps), are cut
        // from the upload before decoding and never reach the original.
        MediaFormat::Jpeg => {
            let out = temp_file(&dir).map_err(io_error)?;
            let mut writer = HashingWriter::new(BufWriter::with_capacity(64 << 10, out.as_file()));
            let layout = jpeg::strip_stream(buffered(file)?, &mut writer)?;
            let (sha256, bytes) = writer.finish()?;
            if layout.end < upload.len {
                file.set_len(layout.end).map_err(io_error)?;
            }
            (Some((out, sha256, bytes)), Some(layout))
        }
        MediaFormat::Png | MediaFormat::WebP => (None, None),
    };
    let len = file.metadata().map_err(io_error)?.len();

    let size = (probe.width, probe.height);
    // EXIF, and the pixel type the full decoder gives, from one read of the headers.
    let (exif, color, interlaced) = match (&jpeg, probe.format) {
        // From the marker walk: `image`'s decoder would read the whole file into memory, outside
        // the budget, just to tell what the frame header already says.
        (Some(layout), _) => {
            let color = if layout.components == 1 {
                image::ColorType::L8
            } else {
                image::ColorType::Rgb8
            };
            (layout.exif.clone(), color, false)
        }
        (None, MediaFormat::Png) => png_header(file)?,
        (None, _) => {
            let mut reader = ImageReader::with_format(buffered(file)?, probe.format.image_format());
            reader.limits(limits.decoder_limits());
            let mut decoder = reader
                .into_decoder()
                .map_err(|e| MediaError::from_image(e, size, limits))?;
            // A broken metadata block must not reject a good image: it just means no
            // orientation and no GPS position.
            let exif = decoder.exif_metadata().ok().flatten();
            (exif, decoder.color_type(), false)
        }
    };
    let orientation = exif
        .as_deref()
        .and_then(Orientation::from_exif_chunk)
        .unwrap_or(Orientation::NoTransforms);
    let gps = exif.as_deref().and_then(exif_gps::gps_from_exif);

    let decode = match probe.format {
        MediaFormat::Png if orientation == Orientation::NoTransforms && interlaced => {
            Decode::PngFrame
        }
        MediaFormat::Png if orientation == Orientation::NoTransforms => Decode::PngRows,
        _ => Decode::Full(orientation),
    };
    let cost = decode_cost(probe, len, decode, color, jpeg.as_ref());
    if cost > limits.max_decode_bytes {
        return Err(MediaError::TooLargeToDecode {
            width: probe.width,
            height: probe.height,
            bytes: cost,
            max_bytes: limits.max_decode_bytes,
        });
    }
    Ok(PreparedUpload {
        upload,
        dir,
        probe,
        stripped,
        decode,
        gps,
        cost,
    })
}

/// A PNG's EXIF block, the pixel type `image`'s decoder gives it (palettes and bit depths
/// under 8 expanded, 16 bits kept) and whether it is interlaced (Adam7), from its header.
fn png_header(file: &File) -> Result<(Option<Vec<u8>>, image::ColorType, bool), MediaError> {
    use image::ColorType as C;
    let mut decoder = png::Decoder::new(buffered(file)?);
    decoder.set_transformations(png::Transformations::EXPAND);
    let reader = decoder.read_info().map_err(png_error)?;
    let (kind, depth) = reader.output_color_type();
    let sixteen = depth == png::BitDepth::Sixteen;
    let color = match kind {
        png::ColorType::Grayscale if sixteen => C::L16,
        png::ColorType::Grayscale => C::L8,
        png::ColorType::GrayscaleAlpha if sixteen => C::La16,
        png::ColorType::GrayscaleAlpha => C::La8,
        png::ColorType::Rgb if sixteen => C::Rgb16,
        png::ColorType::Rgb => C::Rgb8,
        // RGBA, and a palette with transparency once expanded.
        _ if sixteen => C::Rgba16,
        _ => C::Rgba8,
    };
    let info = reader.info();
    let exif = info.exif_metadata.as_ref().map(|exif| exif.to_vec());
    Ok((exif, color, info.interlaced))
}

fn png_error(err: png::DecodingError) -> MediaError {
    match err {
        png::DecodingError::LimitsExceeded => {
            MediaError::Internal("PNG decoder limit reached within the budget".to_owned())
        }
        other => MediaError::InvalidImage(other.to_string()),
    }
}

/// The most memory, in bytes, that decoding an image this way and making its variants can
/// hold at once, worked out from what each decoder allocates and checked against measured
/// peaks (`examples/bench_ingest_memory.rs`, docs/operations.md). Uploads are refused on it,
/// so it errs high.
fn decode_cost(
    probe: Probe,
    len: u64,
    decode: Decode,
    color: image::ColorType,
    jpeg: Option<&jpeg::JpegLayout>,
) -> u64 {
    let (width, height) = (u64::from(probe.width), u64::from(probe.height));
    let pixels = width * height;
    let factor = shrink::factor_for(probe.width, probe.height);
    let (sw, sh) = shrink::shrunk_size(probe.width, probe.height, factor);
    // The shrunk image as RGBA, the same again for its 8-bit RGB copy or the preview's resize,
    // and room for encoding the variants.
    let variants = u64::from(sw) * u64::from(sh) * 4 * 2 + (16 << 20);
    let decoding = match decode {
        // The decoder's current and previous rows, its output row, and zlib's window.
        Decode::PngRows => width * 8 * 4 + (1 << 20),
        Decode::PngFrame => pixels * u64::from(color.channel_count()),
        Decode::Full(orientation) => {
            let decoded = pixels * color.bytes_per_pixel() as u64;
            let overhead = match (probe.format, jpeg) {
                // `image` reads the whole file before decoding; a progressive frame holds
                // every coefficient, 2 bytes a sample.
                (MediaFormat::Jpeg, Some(layout)) => {
                    let coefficients = if layout.progressive {
                        pixels * u64::from(layout.samples_x64) * 2 / 64
                    } else {
                        0
                    };
                    // CMYK and YCCK are decoded to four channels, then converted.
                    let cmyk = if layout.components == 4 { pixels } else { 0 };
                    len + coefficients + cmyk
                }
                // The decoder's own frame buffers (YUV for lossy, ARGB words for lossless).
                (MediaFormat::WebP, _) => pixels * 4,
                _ => 0,
            };
            // A quarter or three-quarter turn writes a second buffer; flips work in place.
            // The decoder is gone by then, and the variants are made after the turn: the
            // decoded pixels plus the largest of the three.
            let turned = if orient::transposes(orientation) {
                decoded
            } else {
                0
            };
            return decoded + overhead.max(turned).max(variants) + WORKING_MARGIN;
        }
    };
    // PNG and WebP are stripped of their metadata in memory, the file and its copy, before
    // decoding; a re-encoded original is not stripped.
    let stripping = match decode {
        _ if probe.format == MediaFormat::Jpeg => 0,
        Decode::Full(orientation) if orientation != Orientation::NoTransforms => 0,
        _ => len * 2,
    };
    decoding.max(stripping) + variants + WORKING_MARGIN
}

/// Decoders' and encoders' own working buffers and the allocator's slack, beyond the pixel
/// buffers counted above (`examples/bench_ingest_memory.rs` saw up to 11 MiB).
const WORKING_MARGIN: u64 = 16 << 20;

/// The PNG's pixels at 8 bits per channel, shrunk for the variants as they are decoded.
fn decode_png_shrunk(
    file: &File,
    probe: Probe,
    interlaced: bool,
    budget: u64,
) -> Result<DynamicImage, MediaError> {
    let limits = png::Limits {
        bytes: usize::try_from(budget).unwrap_or(usize::MAX),
    };
    let mut decoder = png::Decoder::new_with_limits(buffered(file)?, limits);
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(png_error)?;
    let channels = reader.output_color_type().0.samples();
    let factor = shrink::factor_for(probe.width, probe.height);
    let mut shrinker = shrink::Shrinker::new(probe.width, probe.height, channels, factor);
    let row_len = probe.width as usize * channels;
    let mut rows = 0u32;
    if interlaced {
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| MediaError::Internal("PNG frame size overflows".to_owned()))?;
        let mut frame = vec![0; size];
        reader.next_frame(&mut frame).map_err(png_error)?;
        for row in frame.chunks_exact(row_len).take(probe.height as usize) {
            shrinker.push_row(row);
            rows += 1;
        }
    } else {
        while let Some(row) = reader.next_row().map_err(png_error)? {
            shrinker.push_row(&row.data()[..row_len]);
            rows += 1;
        }
    }
    if rows != probe.height {
        return Err(MediaError::InvalidImage(format!(
            "{rows} rows decoded of {}",
            probe.height
        )));
    }
    Ok(shrinker.finish())
}

/// A PNG or WebP original without its metadata, written to a temporary file in `dir`.
fn strip_in_memory(
    file: &File,
    len: u64,
    format: MediaFormat,
    dir: &Path,
) -> Result<(NamedTempFile, String, u64), MediaError> {
    let mut data = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    buffered(file)?.read_to_end(&mut data).map_err(io_error)?;
    let data = strip::strip_metadata(&data, format)?;
    write_temp(dir, &data)
}
