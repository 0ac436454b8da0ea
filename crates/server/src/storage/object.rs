//! [`ObjectStorage`]: the [`Storage`] implementation over the `object_store` crate, for both the
//! local folder (`LocalFileSystem`) and S3 (`AmazonS3`).
//!
//! One implementation for both backends keeps their behaviour identical (the same test suite
//! runs against each). `LocalFileSystem` meets the atomic-write requirement on its own: it
//! writes to a staging file next to the target (`name#1`), and with `with_fsync(true)` it
//! fsyncs the file, renames it over the target and fsyncs the folder. A crash leaves at most a
//! staging file, which no [`StorageKey`] can name, so it is never visible. On S3 a single PUT or
//! a completed multipart upload is atomic by design; a failed stream aborts the upload.

use std::ops::Range;
use std::path::Path as FsPath;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use futures::StreamExt;
use object_store::aws::AmazonS3Builder;
use object_store::buffered::BufWriter;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt, PutPayload};
use tokio::io::AsyncWriteExt;

use super::{ByteStream, ObjectInfo, Storage, StorageError, StorageKey};

/// Size of the buffer (and of each multipart part) when streaming an object in. S3 parts must
/// be at least 5 MiB; objects smaller than this go up in a single PUT.
const PART_SIZE: usize = 8 * 1024 * 1024;

/// Parts uploaded at once. Bounds the memory of one upload to about `(1 + 2) × PART_SIZE`.
const PART_CONCURRENCY: usize = 2;

/// A [`Storage`] backed by any `object_store` store, with an optional key prefix.
#[derive(Clone)]
pub struct ObjectStorage {
    store: Arc<dyn ObjectStore>,
    /// Prepended to every key (`prefix/key`), empty for none. Lets several deployments or test
    /// runs share a bucket.
    prefix: String,
    description: String,
}

/// Only the description: the store's own `Debug` output is long and carries client settings
/// that have no place in logs.
impl std::fmt::Debug for ObjectStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ObjectStorage")
            .field(&self.description)
            .finish()
    }
}

impl ObjectStorage {
    /// A local folder, created if missing. Writes are fsynced and atomic.
    pub fn local(root: &FsPath) -> Result<Self, StorageError> {
        crate::private::create_dir_all(root)?;
        let store = LocalFileSystem::new_with_prefix(root)
            .map_err(StorageError::Backend)?
            .with_fsync(true);
        Ok(Self {
            store: Arc::new(store),
            prefix: String::new(),
            description: format!("file://{}", root.display()),
        })
    }

    /// S3 or an S3-compatible service, from an `s3://bucket[/prefix]?endpoint=&region=` URL.
    /// Credentials and other settings come from the `AWS_*` environment variables.
    pub fn s3(url: &url::Url) -> Result<Self, StorageError> {
        crate::tls::install_provider();
        let bucket = url
            .host_str()
            .filter(|b| !b.is_empty())
            .ok_or_else(|| StorageError::InvalidUrl("s3:// URL without a bucket".to_owned()))?;
        if !url.username().is_empty() || url.password().is_some() {
            // Refused rather than ignored: credentials in a URL end up in logs and shell history.
            return Err(StorageError::InvalidUrl(
                "credentials do not go in the s3:// URL; set AWS_ACCESS_KEY_ID and \
                 AWS_SECRET_ACCESS_KEY"
                    .to_owned(),
            ));
        }
        let prefix = url.path().trim_matches('/').to_owned();
        if !prefix.is_empty() {
            StorageKey::new(prefix.as_str())
                .map_err(|e| StorageError::InvalidUrl(format!("S3 prefix: {e}")))?;
        }
        // An endpoint that is down fails a request within seconds (a 503 `unavailable` the
        // client retries), instead of object_store's default of ten retries over three minutes.
        let retry = object_store::RetryConfig {
            backoff: object_store::BackoffConfig::default(),
            max_retries: S3_MAX_RETRIES,
            retry_timeout: S3_RETRY_TIMEOUT,
        };
        let client = object_store::ClientOptions::new().with_connect_timeout(S3_CONNECT_TIMEOUT);
        let mut builder = AmazonS3Builder::from_env()
            .with_bucket_name(bucket)
            .with_retry(retry)
            .with_client_options(client);
        let mut endpoint = None;
        for (name, value) in url.query_pairs() {
            match name.as_ref() {
                "endpoint" => {
                    // Custom endpoints (MinIO, Garage, moto, ...) rarely have per-bucket DNS
                    // names, so address buckets by path.
                    builder = builder
                        .with_endpoint(value.as_ref())
                        .with_virtual_hosted_style_request(false)
                        .with_allow_http(value.starts_with("http://"));
                    endpoint = Some(value.into_owned());
                }
                "region" => builder = builder.with_region(value.as_ref()),
                other => {
                    return Err(StorageError::InvalidUrl(format!(
                        "unknown s3:// parameter {other:?} (expected endpoint, region)"
                    )));
                }
            }
        }
        let store = builder.build().map_err(StorageError::Backend)?;
        let mut description = format!("s3://{bucket}");
        if !prefix.is_empty() {
            description.push('/');
            description.push_str(&prefix);
        }
        if let Some(endpoint) = endpoint {
            description.push_str(&format!(" (endpoint {endpoint})"));
        }
        Ok(Self {
            store: Arc::new(store),
            prefix,
            description,
        })
    }

    fn path(&self, key: &StorageKey) -> Result<Path, StorageError> {
        let full = if self.prefix.is_empty() {
            key.as_str().to_owned()
        } else {
            format!("{}/{}", self.prefix, key)
        };
        // StorageKey's rules are stricter than object_store's, so this cannot fail in practice.
        Path::parse(full).map_err(|_| StorageError::InvalidKey {
            key: key.to_string(),
            reason: "rejected by the backend",
        })
    }

    async fn get_with(
        &self,
        key: &StorageKey,
        options: GetOptions,
    ) -> Result<ByteStream, StorageError> {
        let path = self.path(key)?;
        let result = self
            .store
            .get_opts(&path, options)
            .await
            .map_err(|e| not_found_or_backend(e, key))?;
        Ok(Box::pin(result.into_stream().map(|chunk| {
            chunk.map_err(|e| std::io::Error::other(StorageError::Backend(e)))
        })))
    }
}

fn not_found_or_backend(err: object_store::Error, key: &StorageKey) -> StorageError {
    match err {
        object_store::Error::NotFound { .. } => StorageError::NotFound(key.to_string()),
        other => StorageError::Backend(other),
    }
}

/// Retries of a failed S3 request (network errors, 5xx answers), within [`S3_RETRY_TIMEOUT`].
const S3_MAX_RETRIES: usize = 3;
/// How long a request may keep being retried.
const S3_RETRY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// How long connecting to the S3 endpoint may take.
const S3_CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

fn info(meta: &object_store::ObjectMeta) -> ObjectInfo {
    ObjectInfo {
        size: meta.size,
        modified_ms: meta.last_modified.timestamp_millis(),
    }
}

#[async_trait]
impl Storage for ObjectStorage {
    async fn put_stream(
        &self,
        key: &StorageKey,
        mut stream: ByteStream,
    ) -> Result<u64, StorageError> {
        let path = self.path(key)?;
        // BufWriter sends a single PUT when the object fits in one buffer and switches to a
        // multipart upload otherwise; either way nothing is visible until `shutdown` succeeds.
        let mut writer = BufWriter::with_capacity(self.store.clone(), path, PART_SIZE)
            .with_max_concurrency(PART_CONCURRENCY);
        let mut written = 0u64;
        while let Some(chunk) = stream.next().await {
            let result = match chunk {
                Ok(bytes) => {
                    written += bytes.len() as u64;
                    writer.put(bytes).await.map_err(StorageError::Backend)
                }
                Err(e) => Err(StorageError::Source(e)),
            };
            if let Err(e) = result {
                // Removes the staging file or aborts the multipart upload, so neither a half
                // object nor orphaned parts remain. A failure here changes nothing visible.
                let _ = writer.abort().await;
                return Err(e);
            }
        }
        // No abort after a failed shutdown (BufWriter forbids it): the object is not visible
        // either way, and S3 drops incomplete multipart uploads through lifecycle rules.
        writer.shutdown().await.map_err(StorageError::Io)?;
        Ok(written)
    }

    async fn put_bytes(&self, key: &StorageKey, bytes: Bytes) -> Result<(), StorageError> {
        let path = self.path(key)?;
        self.store
            .put(&path, PutPayload::from(bytes))
            .await
            .map_err(StorageError::Backend)?;
        Ok(())
    }

    async fn get(&self, key: &StorageKey) -> Result<ByteStream, StorageError> {
        self.get_with(key, GetOptions::default()).await
    }

    async fn get_range(
        &self,
        key: &StorageKey,
        range: Range<u64>,
    ) -> Result<ByteStream, StorageError> {
        let invalid = StorageError::InvalidRange {
            start: range.start,
            end: range.end,
        };
        if range.start >= range.end {
            return Err(invalid);
        }
        let options = GetOptions {
            range: Some(GetRange::Bounded(range.clone())),
            ..GetOptions::default()
        };
        match self.get_with(key, options).await {
            Ok(stream) => Ok(stream),
            Err(StorageError::Backend(e)) => {
                // Backends report an unsatisfiable range in different ways (a local error, an
                // HTTP 416); tell it apart from a real failure by looking at the object's size.
                match self.head(key).await {
                    Ok(Some(info)) if range.start >= info.size => Err(invalid),
                    Ok(None) => Err(StorageError::NotFound(key.to_string())),
                    _ => Err(StorageError::Backend(e)),
                }
            }
            Err(other) => Err(other),
        }
    }

    async fn head(&self, key: &StorageKey) -> Result<Option<ObjectInfo>, StorageError> {
        let path = self.path(key)?;
        match self.store.head(&path).await {
            Ok(meta) => Ok(Some(info(&meta))),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(StorageError::Backend(e)),
        }
    }

    async fn delete(&self, key: &StorageKey) -> Result<(), StorageError> {
        let path = self.path(key)?;
        match self.store.delete(&path).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(StorageError::Backend(e)),
        }
    }

    async fn list_objects(&self) -> Result<Vec<(String, ObjectInfo)>, StorageError> {
        let prefix = (!self.prefix.is_empty()).then(|| Path::from(self.prefix.as_str()));
        let mut stream = self.store.list(prefix.as_ref());
        let mut objects = Vec::new();
        while let Some(meta) = stream.next().await {
            let meta = meta.map_err(StorageError::Backend)?;
            let location = meta.location.to_string();
            let key = match prefix {
                Some(_) => location
                    .strip_prefix(&format!("{}/", self.prefix))
                    .map(str::to_owned)
                    .unwrap_or(location),
                None => location,
            };
            objects.push((key, info(&meta)));
        }
        objects.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(objects)
    }

    fn describe(&self) -> String {
        self.description.clone()
    }
}
