//! [`Metered`]: any [`Storage`] with its failures counted in the process's metrics
//! (`regard_storage_errors_total{operation}`). Only the backend's own failures count (I/O,
//! S3 errors, a failed input stream); a missing object or a bad key is the caller's business.

use std::ops::Range;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;

use super::{ByteStream, ObjectInfo, Storage, StorageError, StorageKey};
use crate::metrics::Metrics;

/// Wraps a storage and counts its failures.
#[derive(Debug)]
pub struct Metered {
    inner: Arc<dyn Storage>,
    metrics: Metrics,
}

impl Metered {
    /// `inner`, counted in `metrics`.
    pub fn new(inner: Arc<dyn Storage>, metrics: Metrics) -> Self {
        Self { inner, metrics }
    }

    fn count<T>(
        &self,
        operation: &'static str,
        result: Result<T, StorageError>,
    ) -> Result<T, StorageError> {
        if let Err(StorageError::Backend(_) | StorageError::Io(_) | StorageError::Source(_)) =
            &result
        {
            self.metrics.storage_error(operation);
        }
        result
    }
}

#[async_trait]
impl Storage for Metered {
    async fn put_stream(&self, key: &StorageKey, stream: ByteStream) -> Result<u64, StorageError> {
        self.count("put", self.inner.put_stream(key, stream).await)
    }

    async fn put_bytes(&self, key: &StorageKey, bytes: Bytes) -> Result<(), StorageError> {
        self.count("put", self.inner.put_bytes(key, bytes).await)
    }

    async fn get(&self, key: &StorageKey) -> Result<ByteStream, StorageError> {
        self.count("get", self.inner.get(key).await)
    }

    async fn get_range(
        &self,
        key: &StorageKey,
        range: Range<u64>,
    ) -> Result<ByteStream, StorageError> {
        self.count("get", self.inner.get_range(key, range).await)
    }

    async fn head(&self, key: &StorageKey) -> Result<Option<ObjectInfo>, StorageError> {
        self.count("head", self.inner.head(key).await)
    }

    async fn delete(&self, key: &StorageKey) -> Result<(), StorageError> {
        self.count("delete", self.inner.delete(key).await)
    }

    async fn list_objects(&self) -> Result<Vec<(String, ObjectInfo)>, StorageError> {
        self.count("list", self.inner.list_objects().await)
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }
}
