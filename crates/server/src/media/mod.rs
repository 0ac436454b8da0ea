//! Media ingest: turns the bytes of an uploaded image into what Regard stores — a validated,
//! correctly oriented original without metadata, its content hash, and thumbnail and preview
//! variants — plus the facts the database records (format, size, GPS position).
//!
//! No HTTP and no database here; `POST /api/v1/media` composes [`collect_upload`] (streams the
//! upload to a temporary file), [`ingest`] (CPU-bound, reads that file: run it in
//! `spawn_blocking`) and [`store`] (streams the original from its own temporary file). Temporary
//! files are [`NamedTempFile`]s: removed when dropped, on success and on every error path. Validation follows pict-rs: the format
//! is probed from the bytes, and size, width, height and area are checked from the header before
//! any pixel is decoded; the decoder then runs under `image::Limits` as a second guard.

mod error;
mod exif_gps;
mod jpeg;
mod orient;
mod store;
mod strip;
mod variants;

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Cursor, Read, Seek, Write};
use std::path::Path;

use bytes::Bytes;
use futures::StreamExt;
use image::metadata::Orientation;
use image::{DynamicImage, GenericImageView, ImageDecoder, ImageFormat, ImageReader};
use sha2::{Digest, Sha256};
use tempfile::NamedTempFile;
use tokio::io::AsyncWriteExt;

pub use error::MediaError;
pub use store::{StoredMedia, VariantKind, delete_objects_if_orphaned, object_key, release, store};
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

/// An upload written to a temporary file (removed when this is dropped), at most
/// `MediaLimits::max_bytes` long. Made by [`collect_upload`], or by [`Upload::from_bytes`].
#[derive(Debug)]
pub struct Upload {
    file: NamedTempFile,
    len: u64,
}

impl Upload {
    /// Writes `data` to a new temporary file in `tmp_dir` (created if missing). For tests and
    /// tools; the size limit is checked by [`ingest`].
    pub fn from_bytes(data: &[u8], tmp_dir: &Path) -> std::io::Result<Self> {
        let mut file = temp_file(tmp_dir)?;
        file.write_all(data)?;
        file.flush()?;
        Ok(Self {
            file,
            len: data.len() as u64,
        })
    }

    /// Size in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the upload is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Where the file is, until this is dropped.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Reads the whole upload into memory (for tests and tools).
    pub fn read(&self) -> std::io::Result<Vec<u8>> {
        std::fs::read(self.file.path())
    }
}

/// A new temporary file in `dir` (created if missing), removed when dropped.
fn temp_file(dir: &Path) -> std::io::Result<NamedTempFile> {
    std::fs::create_dir_all(dir)?;
    tempfile::Builder::new().prefix(".regard-").tempfile_in(dir)
}

/// How old a staging file must be before [`sweep_staging`] takes it for a leftover: far longer
/// than any upload takes, so a file still being written is never removed.
pub const STAGING_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(3600);

/// Removes the staging files (`.regard-*`) in `dir` last written more than `max_age` ago: the
/// temporary files of uploads and renders whose process was killed before it could remove
/// them. Returns how many went; a missing folder is nothing to sweep.
pub fn sweep_staging(dir: &Path, max_age: std::time::Duration) -> std::io::Result<usize> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(err) => return Err(err),
    };
    let now = std::time::SystemTime::now();
    let mut removed = 0;
    for entry in entries {
        let entry = entry?;
        let is_staging = entry.file_name().to_string_lossy().starts_with(".regard-");
        let metadata = entry.metadata()?;
        let age = metadata
            .modified()
            .ok()
            .and_then(|at| now.duration_since(at).ok())
            .unwrap_or_default();
        if is_staging && metadata.is_file() && age > max_age {
            match std::fs::remove_file(entry.path()) {
                Ok(()) => removed += 1,
                // Another node sharing the folder swept it first.
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => return Err(err),
            }
        }
    }
    Ok(removed)
}

fn io_error(err: std::io::Error) -> MediaError {
    MediaError::Internal(format!("temporary file: {err}"))
}

/// `file` rewound and buffered.
fn buffered(mut file: &File) -> Result<BufReader<&File>, MediaError> {
    file.rewind().map_err(io_error)?;
    Ok(BufReader::with_capacity(64 << 10, file))
}

/// A writer that hashes (SHA-256) and counts what goes through it.
struct HashingWriter<W> {
    inner: W,
    hasher: Sha256,
    bytes: u64,
}

impl<W: Write> HashingWriter<W> {
    fn new(inner: W) -> Self {
        Self {
            inner,
            hasher: Sha256::new(),
            bytes: 0,
        }
    }

    /// Flushes, and returns the lowercase hex digest and the byte count.
    fn finish(mut self) -> Result<(String, u64), MediaError> {
        self.inner.flush().map_err(io_error)?;
        Ok((hex::encode(self.hasher.finalize()), self.bytes))
    }
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes `data` to a new temporary file in `dir`; returns it, its hash and its size.
fn write_temp(dir: &Path, data: &[u8]) -> Result<(NamedTempFile, String, u64), MediaError> {
    let file = temp_file(dir).map_err(io_error)?;
    let mut writer = HashingWriter::new(BufWriter::new(file.as_file()));
    writer.write_all(data).map_err(io_error)?;
    let (sha256, bytes) = writer.finish()?;
    Ok((file, sha256, bytes))
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

/// Validates, decodes, orients, strips, hashes and makes the variants of one uploaded image.
///
/// CPU-bound (0.4–0.9 s for 24 megapixels on one core): call it from `spawn_blocking`. Peak
/// memory is about twice the decoded image when an orientation must be applied, once otherwise.
/// The upload is read from its file; an upright JPEG is stripped from that file to the
/// original's file in one streaming pass. PNG and WebP are stripped in memory (`img-parts`
/// needs the whole file), bounded by `max_bytes`. The original's file is created next to the
/// upload's; the upload's file is removed when this returns.
pub fn ingest(upload: Upload, limits: &MediaLimits) -> Result<IngestedMedia, MediaError> {
    let dir = upload
        .file
        .path()
        .parent()
        .map_or_else(std::env::temp_dir, Path::to_path_buf);
    let file = upload.file.as_file();
    let probe = probe_reader(buffered(file)?, upload.len, limits)?;
    let stripped = match probe.format {
        // One pass over the file that checks its structure and writes it without metadata
        // segments. It rejects truncated files (the JPEG decoder would fill the missing part
        // with grey) and stops at the primary image's end-of-image marker: trailers, which can
        // hold whole secondary images with their own EXIF (MPF, gain maps, depth maps), are cut
        // from the upload before decoding and never reach the original.
        MediaFormat::Jpeg => {
            let out = temp_file(&dir).map_err(io_error)?;
            let mut writer = HashingWriter::new(BufWriter::with_capacity(64 << 10, out.as_file()));
            let end = jpeg::strip_stream(buffered(file)?, &mut writer)?;
            let (sha256, bytes) = writer.finish()?;
            if end < upload.len {
                file.set_len(end).map_err(io_error)?;
            }
            Some((out, sha256, bytes))
        }
        MediaFormat::Png | MediaFormat::WebP => None,
    };

    let mut reader = ImageReader::with_format(buffered(file)?, probe.format.image_format());
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
    let (original_file, sha256, bytes) = if reencoded {
        drop(stripped);
        orient::apply(&mut image, orientation);
        let data = variants::encode_original(&image, probe.format, icc.as_deref())?;
        write_temp(&dir, &data)?
    } else if let Some(stripped) = stripped {
        stripped
    } else {
        let mut data = Vec::with_capacity(usize::try_from(upload.len).unwrap_or(0));
        buffered(file)?.read_to_end(&mut data).map_err(io_error)?;
        let data = strip::strip_metadata(&data, probe.format)?;
        write_temp(&dir, &data)?
    };
    drop(upload);
    let (width, height) = image.dimensions();
    let original = OriginalFile {
        format: probe.format,
        width,
        height,
        bytes,
        file: original_file,
    };
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

/// Writes an upload stream to a temporary file in `tmp_dir` (created if missing), chunk by
/// chunk, failing with [`MediaError::FileTooLarge`] as soon as it passes `limits.max_bytes` (so
/// an oversized upload is refused without being read to the end). The file is removed when the
/// returned [`Upload`] is dropped, and at once on any error.
///
/// Any byte stream works: a [`crate::storage::ByteStream`], or a borrowed multipart field.
pub async fn collect_upload<S>(
    mut stream: S,
    limits: &MediaLimits,
    tmp_dir: &Path,
) -> Result<Upload, MediaError>
where
    S: futures::Stream<Item = std::io::Result<Bytes>> + Unpin,
{
    let dir = tmp_dir.to_path_buf();
    let file = tokio::task::spawn_blocking(move || temp_file(&dir))
        .await
        .map_err(|e| MediaError::Internal(e.to_string()))?
        .map_err(io_error)?;
    let mut out = tokio::fs::File::from_std(file.as_file().try_clone().map_err(io_error)?);
    let mut len = 0u64;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(MediaError::Upload)?;
        len += chunk.len() as u64;
        if len > limits.max_bytes {
            return Err(MediaError::FileTooLarge {
                bytes: len,
                max_bytes: limits.max_bytes,
            });
        }
        out.write_all(&chunk).await.map_err(io_error)?;
    }
    out.flush().await.map_err(io_error)?;
    Ok(Upload { file, len })
}
