//! Content-addressed storage of an ingested image: where its objects live and how they are
//! written.
//!
//! Layout: `<sha[0..2]>/<sha>/<variant>.<ext>`, e.g. `3f/3f2a…/original.jpg`. The two-character
//! fan-out keeps local folders small. The same upload by two users is stored once; the database
//! rows (owner, name) are what differ.

use bytes::BytesMut;
use futures::StreamExt;
use tokio::io::AsyncReadExt;

use crate::db::{self, Db, media::MediaRow};
use crate::storage::{ByteStream, Storage, StorageError, StorageKey};

use super::{IngestedMedia, MediaFormat};

/// The objects stored for one image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VariantKind {
    /// The upright, metadata-free original.
    Original,
    /// Longest side ≤ `THUMBNAIL_SIDE`.
    Thumbnail,
    /// Longest side ≤ `PREVIEW_SIDE`.
    Preview,
}

impl VariantKind {
    /// Name used in keys and, later, in URLs (`original`, `thumbnail`, `preview`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Original => "original",
            Self::Thumbnail => "thumbnail",
            Self::Preview => "preview",
        }
    }
}

/// Key of one object of an image. `sha256` must be the lowercase hex digest.
pub fn object_key(
    sha256: &str,
    kind: VariantKind,
    format: MediaFormat,
) -> Result<StorageKey, StorageError> {
    let valid = sha256.len() == 64
        && sha256
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if !valid {
        return Err(StorageError::InvalidKey {
            key: sha256.to_owned(),
            reason: "not a lowercase SHA-256 hex digest",
        });
    }
    StorageKey::new(format!(
        "{}/{}/{}.{}",
        &sha256[..2],
        sha256,
        kind.as_str(),
        format.extension()
    ))
}

/// Where [`store`] put an image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMedia {
    /// Key of the original.
    pub original: StorageKey,
    /// Key of the thumbnail.
    pub thumbnail: StorageKey,
    /// Key of the preview.
    pub preview: StorageKey,
    /// True when the original was already stored (same content hash) and nothing was written.
    pub deduplicated: bool,
}

impl StoredMedia {
    /// All keys, original last, for deleting an image's objects.
    pub fn keys(&self) -> [&StorageKey; 3] {
        [&self.thumbnail, &self.preview, &self.original]
    }
}

/// Writes the image's objects (the original streamed from its file), unless an identical original is already stored.
///
/// The original is written last, so its presence implies the variants are there: that makes
/// the existence check sound, and a crash part-way leaves at worst unreferenced variants that
/// the next identical upload overwrites.
pub async fn store(
    storage: &dyn Storage,
    media: &IngestedMedia,
) -> Result<StoredMedia, StorageError> {
    let stored = StoredMedia {
        original: object_key(&media.sha256, VariantKind::Original, media.original.format)?,
        thumbnail: object_key(
            &media.sha256,
            VariantKind::Thumbnail,
            media.thumbnail.format,
        )?,
        preview: object_key(&media.sha256, VariantKind::Preview, media.preview.format)?,
        deduplicated: false,
    };
    if storage.exists(&stored.original).await? {
        return Ok(StoredMedia {
            deduplicated: true,
            ..stored
        });
    }
    storage
        .put_bytes(&stored.thumbnail, media.thumbnail.data.clone())
        .await?;
    storage
        .put_bytes(&stored.preview, media.preview.data.clone())
        .await?;
    let file = tokio::fs::File::from_std(media.original.open()?);
    storage
        .put_stream(&stored.original, original_stream(file))
        .await?;
    Ok(stored)
}

/// The original's file as a stream of chunks, read as the storage consumes it.
fn original_stream(file: tokio::fs::File) -> ByteStream {
    const CHUNK: usize = 256 << 10;
    futures::stream::try_unfold(file, |mut file| async move {
        let mut buf = BytesMut::with_capacity(CHUNK);
        let n = file.read_buf(&mut buf).await?;
        Ok((n > 0).then(|| (buf.freeze(), file)))
    })
    .boxed()
}

/// Deletes the media row unless something still references it, then its objects unless
/// another row shares them. Failures are logged, not returned: the caller's own deletion has
/// already happened, and an orphaned object is harmless.
pub async fn release(db: &Db, storage: &dyn Storage, media_id: &str) {
    let media = match db::media::find(db, media_id).await {
        Ok(Some(media)) => media,
        Ok(None) => return,
        Err(err) => {
            tracing::error!(error = %err, media_id, "cannot look up media to release");
            return;
        }
    };
    match db::media::delete_if_unreferenced(db, media_id).await {
        Ok(true) => delete_objects_if_orphaned(db, storage, &media).await,
        Ok(false) => {}
        Err(err) => tracing::error!(error = %err, media_id, "cannot delete released media"),
    }
}

/// Deletes the objects of `media` when no row with its hash remains: the original first, so
/// that "the original exists" keeps implying "the variants exist" (see [`store`]).
pub async fn delete_objects_if_orphaned(db: &Db, storage: &dyn Storage, media: &MediaRow) {
    match db::media::count_by_sha256(db, &media.sha256).await {
        Ok(0) => {}
        Ok(_) => return,
        Err(err) => {
            tracing::error!(error = %err, sha256 = %media.sha256, "cannot count media rows");
            return;
        }
    }
    let mut keys = vec![
        &media.original_key,
        &media.preview_key,
        &media.thumbnail_key,
    ];
    keys.dedup();
    for key in keys {
        let result = match StorageKey::new(key.as_str()) {
            Ok(key) => storage.delete(&key).await,
            Err(err) => Err(err),
        };
        if let Err(err) = result {
            tracing::error!(error = %err, key = %key, "cannot delete a media object");
        }
    }
}
