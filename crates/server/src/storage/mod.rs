//! Object storage for media: the [`Storage`] trait, validated [`StorageKey`]s, and
//! [`from_url`], which picks the backend from `REGARD_STORAGE_URL`.
//!
//! Two backends sit behind one implementation, [`ObjectStorage`], built on the `object_store`
//! crate: a local folder (the default, `<data dir>/media`) and S3-compatible object storage
//! (`s3://bucket/optional/prefix?endpoint=...&region=...`). Writes are atomic on both: an object
//! is either absent or complete, never half-written, whatever happens to the process.
//!
//! Streams carry `std::io::Error` in both directions: it is what `tokio_util`'s
//! `StreamReader`/`ReaderStream` and HTTP bodies speak, so callers adapt without wrappers.

mod key;
mod metered;
mod object;

use std::ops::Range;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use futures::{Stream, StreamExt};

pub use key::StorageKey;
pub use metered::Metered;
pub use object::ObjectStorage;

/// A stream of object bytes, used both to write objects and to read them back.
pub type ByteStream = Pin<Box<dyn Stream<Item = std::io::Result<Bytes>> + Send>>;

/// What [`Storage::head`] knows about a stored object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectInfo {
    /// Size of the object in bytes.
    pub size: u64,
    /// When it was last written, in unix milliseconds.
    pub modified_ms: i64,
}

/// Errors of the storage layer. None of them is meant for an API response body as is: the HTTP
/// layer maps `NotFound` to 404 and logs the rest as internal errors.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// No object under this key.
    #[error("object not found: {0}")]
    NotFound(String),
    /// The key is not acceptable (empty, absolute, `..`, odd characters, ...).
    #[error("invalid storage key {key:?}: {reason}")]
    InvalidKey {
        /// The rejected key.
        key: String,
        /// Why it was rejected.
        reason: &'static str,
    },
    /// The requested byte range is empty or starts at or past the end of the object.
    #[error("invalid byte range {start}..{end}")]
    InvalidRange {
        /// First byte requested.
        start: u64,
        /// One past the last byte requested.
        end: u64,
    },
    /// `REGARD_STORAGE_URL` could not be understood.
    #[error("invalid storage URL: {0}")]
    InvalidUrl(String),
    /// The stream being stored failed; nothing was written.
    #[error("the input stream failed: {0}")]
    Source(#[source] std::io::Error),
    /// A local I/O error outside the backend (creating the storage folder, ...).
    #[error("storage I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The backend (file system or S3) failed.
    #[error("storage backend error: {0}")]
    Backend(#[source] object_store::Error),
}

impl StorageError {
    /// The backend could not be reached or failed for a reason of its own (a network error,
    /// an S3 endpoint down, a full disk): worth trying again shortly, unlike a missing object
    /// or a bad key.
    pub fn is_unavailable(&self) -> bool {
        match self {
            StorageError::Io(_) => true,
            StorageError::Backend(err) => matches!(err, object_store::Error::Generic { .. }),
            _ => false,
        }
    }
}

impl From<StorageError> for std::io::Error {
    fn from(err: StorageError) -> Self {
        let kind = match &err {
            StorageError::NotFound(_) => std::io::ErrorKind::NotFound,
            StorageError::InvalidKey { .. } | StorageError::InvalidRange { .. } => {
                std::io::ErrorKind::InvalidInput
            }
            _ => std::io::ErrorKind::Other,
        };
        std::io::Error::new(kind, err)
    }
}

/// Where media objects live. Object-safe: the application holds an `Arc<dyn Storage>`.
///
/// Every write is atomic (readers see the old object, the new one, or nothing) and durable once
/// it returns. Keys are [`StorageKey`]s, so no implementation ever sees `..` or an absolute path.
#[async_trait]
pub trait Storage: Send + Sync + std::fmt::Debug {
    /// Stores the stream under `key`, replacing any object there, without holding it in memory
    /// (at most a few MiB are buffered). Returns the number of bytes written. If the stream
    /// yields an error, nothing becomes visible and the error is returned as
    /// [`StorageError::Source`].
    async fn put_stream(&self, key: &StorageKey, stream: ByteStream) -> Result<u64, StorageError>;

    /// Stores `bytes` under `key`, replacing any object there.
    async fn put_bytes(&self, key: &StorageKey, bytes: Bytes) -> Result<(), StorageError>;

    /// Reads the whole object as a stream.
    async fn get(&self, key: &StorageKey) -> Result<ByteStream, StorageError>;

    /// Reads bytes `range.start..range.end` of the object. An `end` past the end of the object
    /// is clamped to it (like HTTP `Range`); an empty range or a `start` at or past the end is
    /// [`StorageError::InvalidRange`].
    async fn get_range(
        &self,
        key: &StorageKey,
        range: Range<u64>,
    ) -> Result<ByteStream, StorageError>;

    /// The object's size, or `None` when there is no object under `key`.
    async fn head(&self, key: &StorageKey) -> Result<Option<ObjectInfo>, StorageError>;

    /// Deletes the object. Deleting a missing object succeeds (idempotent).
    async fn delete(&self, key: &StorageKey) -> Result<(), StorageError>;

    /// Every object in the storage with its size and age, sorted by key. For maintenance sweeps
    /// and tests, not request paths: it walks the whole folder or bucket prefix.
    async fn list_objects(&self) -> Result<Vec<(String, ObjectInfo)>, StorageError>;

    /// Every key in the storage, sorted (see [`Storage::list_objects`]).
    async fn list(&self) -> Result<Vec<String>, StorageError> {
        Ok(self
            .list_objects()
            .await?
            .into_iter()
            .map(|(key, _)| key)
            .collect())
    }

    /// Reads the whole object into memory. Meant for small objects (media variants, or originals
    /// already bounded by the upload limit).
    async fn get_bytes(&self, key: &StorageKey) -> Result<Bytes, StorageError> {
        let mut stream = self.get(key).await?;
        let mut buf = Vec::new();
        while let Some(chunk) = stream.next().await {
            buf.extend_from_slice(&chunk.map_err(StorageError::Io)?);
        }
        Ok(Bytes::from(buf))
    }

    /// Whether an object exists under `key`.
    async fn exists(&self, key: &StorageKey) -> Result<bool, StorageError> {
        Ok(self.head(key).await?.is_some())
    }

    /// A short description for logs (`file:///var/lib/regard/media`, `s3://bucket/prefix`),
    /// never containing credentials.
    fn describe(&self) -> String;
}

/// Builds the storage selected by `REGARD_STORAGE_URL`.
///
/// - absent or empty: a local folder, `<data_dir>/media` (created if missing);
/// - `file:///absolute/path`: a local folder at that path (created if missing);
/// - `s3://bucket[/prefix]?endpoint=http://127.0.0.1:9000&region=us-east-1`: S3 or any
///   S3-compatible service. Credentials come from the usual `AWS_*` environment variables
///   (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`, ...).
///   With a custom `endpoint`, requests are path-style and `http://` endpoints are allowed.
pub fn from_url(url: Option<&str>, data_dir: &Path) -> Result<Arc<dyn Storage>, StorageError> {
    match url.map(str::trim).filter(|u| !u.is_empty()) {
        None => Ok(Arc::new(ObjectStorage::local(&data_dir.join("media"))?)),
        Some(raw) => {
            let parsed = url::Url::parse(raw)
                .map_err(|e| StorageError::InvalidUrl(format!("{}: {e}", redact(raw))))?;
            match parsed.scheme() {
                "file" => {
                    let path = parsed.to_file_path().map_err(|()| {
                        StorageError::InvalidUrl(format!(
                            "{}: a file URL needs an absolute path (file:///...)",
                            redact(raw)
                        ))
                    })?;
                    Ok(Arc::new(ObjectStorage::local(&path)?))
                }
                "s3" => Ok(Arc::new(ObjectStorage::s3(&parsed)?)),
                other => Err(StorageError::InvalidUrl(format!(
                    "unsupported scheme {other:?} (expected file:// or s3://)"
                ))),
            }
        }
    }
}

/// Drops any user:password part so a URL can go into an error message or a log line.
fn redact(raw: &str) -> String {
    match url::Url::parse(raw) {
        Ok(mut u) if !u.username().is_empty() || u.password().is_some() => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.to_string()
        }
        Ok(u) => u.to_string(),
        Err(_) => "<unparseable URL>".to_owned(),
    }
}
