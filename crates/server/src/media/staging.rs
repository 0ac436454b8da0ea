//! Staging: uploads and made files written to temporary files (removed when dropped), hashed
//! as they are written, and the sweep of the leftovers of killed processes.

use std::io::{BufWriter, Write};
use std::path::Path;

use bytes::Bytes;
use futures::StreamExt;
use sha2::{Digest, Sha256};
use tempfile::NamedTempFile;
use tokio::io::AsyncWriteExt;

use super::{MediaError, MediaLimits};

/// An upload written to a temporary file (removed when this is dropped), at most
/// `MediaLimits::max_bytes` long. Made by [`collect_upload`], or by [`Upload::from_bytes`].
#[derive(Debug)]
pub struct Upload {
    pub(super) file: NamedTempFile,
    pub(super) len: u64,
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

    /// A new temporary file in `tmp_dir` (created if missing), removed when dropped, for
    /// [`Upload::from_temp`] once written (a photo inflated from an import's archive).
    pub fn temp_file(tmp_dir: &Path) -> std::io::Result<NamedTempFile> {
        temp_file(tmp_dir)
    }

    /// The upload held in `file`, a temporary file from [`Upload::temp_file`], written and
    /// flushed.
    pub fn from_temp(file: NamedTempFile) -> std::io::Result<Self> {
        let len = file.as_file().metadata()?.len();
        Ok(Self { file, len })
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
pub(super) fn temp_file(dir: &Path) -> std::io::Result<NamedTempFile> {
    // Staging files are 0600 (tempfile's default) in a 0700 folder.
    crate::private::create_dir_all(dir)?;
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

pub(super) fn io_error(err: std::io::Error) -> MediaError {
    MediaError::Internal(format!("temporary file: {err}"))
}

/// A writer that hashes (SHA-256) and counts what goes through it.
pub(super) struct HashingWriter<W> {
    inner: W,
    hasher: Sha256,
    bytes: u64,
}

impl<W: Write> HashingWriter<W> {
    pub(super) fn new(inner: W) -> Self {
        Self {
            inner,
            hasher: Sha256::new(),
            bytes: 0,
        }
    }

    /// Flushes, and returns the lowercase hex digest and the byte count.
    pub(super) fn finish(mut self) -> Result<(String, u64), MediaError> {
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
pub(super) fn write_temp(
    dir: &Path,
    data: &[u8],
) -> Result<(NamedTempFile, String, u64), MediaError> {
    let file = temp_file(dir).map_err(io_error)?;
    let mut writer = HashingWriter::new(BufWriter::new(file.as_file()));
    writer.write_all(data).map_err(io_error)?;
    let (sha256, bytes) = writer.finish()?;
    Ok((file, sha256, bytes))
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
        let first = len == chunk.len() as u64 && len > 0;
        out.write_all(&chunk).await.map_err(io_error)?;
        if first {
            tracing::info!(staging = %file.path().display(), "receiving an upload");
        }
    }
    out.flush().await.map_err(io_error)?;
    Ok(Upload { file, len })
}
