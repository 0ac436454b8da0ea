//! Content-addressed storage of an ingested image: where its objects live and how they are
//! written.
//!
//! Layout: `<sha[0..2]>/<sha>/<variant>.<ext>`, e.g. `3f/3f2a…/original.jpg`. The two-character
//! fan-out keeps local folders small. The same upload by two users is stored once; the database
//! rows (owner, name) are what differ.
//!
//! The orphan sweep ([`sweep_orphans`]) removes, on every node and without a leader, what a
//! crash or an abandoned page leaves: objects no media row names, and uploads nothing uses,
//! once they are [`ORPHAN_GRACE_MS`] old. Writers never lean on an object older than
//! [`REUSE_WINDOW_MS`] (see [`reusable`]), so the sweep cannot delete an object between a
//! writer's check and its row's insert.

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
    if reusable(storage, &stored.original, db::now_ms()).await? {
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

/// The shared limits of ingest on one node: how many uploads decode at once, and the memory
/// their decoding may hold together (one permit per MiB; `REGARD_MEDIA_DECODE_BUDGET`).
#[derive(Debug, Clone)]
pub struct IngestGate {
    pub slots: std::sync::Arc<tokio::sync::Semaphore>,
    pub budget: std::sync::Arc<tokio::sync::Semaphore>,
    /// The budget's size in MiB.
    pub budget_mib: u32,
}

/// Why an upload was not accepted.
#[derive(Debug, thiserror::Error)]
pub enum AcceptError {
    /// Refused (format, size, pixels, decoding budget, broken image).
    #[error(transparent)]
    Media(#[from] super::MediaError),
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error(transparent)]
    Db(#[from] db::DbError),
    /// A blocking task or a semaphore failed.
    #[error("ingest task failed: {0}")]
    Internal(String),
}

fn internal(err: &dyn std::fmt::Display) -> AcceptError {
    AcceptError::Internal(err.to_string())
}

/// Takes a received upload to a stored media row of `owner_id`: reads its headers, refuses it
/// when it breaks a limit or would need more than the whole decoding budget, waits for a slot
/// and its share of the budget, decodes and makes the variants on the blocking pool, stores
/// the objects and inserts the row. A refused upload leaves nothing behind.
pub async fn accept(
    db: &Db,
    storage: &dyn Storage,
    gate: &IngestGate,
    limits: &super::MediaLimits,
    owner_id: &str,
    original_name: Option<String>,
    upload: super::Upload,
) -> Result<MediaRow, AcceptError> {
    let slot = gate
        .slots
        .clone()
        .acquire_owned()
        .await
        .map_err(|e| internal(&e))?;
    let limits_copy = *limits;
    let prepared = tokio::task::spawn_blocking(move || super::prepare(upload, &limits_copy))
        .await
        .map_err(|e| internal(&e))??;
    let staged = finish_and_store(
        storage,
        gate,
        limits,
        slot,
        prepared,
        owner_id,
        original_name,
    )
    .await?;
    let Staged {
        row,
        stored,
        ingested,
    } = staged;
    if let Err(err) = db::media::insert(db, &row).await {
        delete_objects_if_orphaned(db, storage, &row).await;
        return Err(err.into());
    }
    if stored.deduplicated && !storage.exists(&stored.original).await? {
        // The last other row with this hash was deleted between our existence check and our
        // insert, and its objects with it: write them again.
        store(storage, &ingested).await?;
    }
    tracing::info!(media_id = %row.id, bytes = row.bytes, deduplicated = stored.deduplicated, "media stored");
    Ok(row)
}

/// An upload decoded and its objects stored, its row not inserted yet (the caller inserts it,
/// or [`delete_objects_if_orphaned`] takes the objects back).
#[derive(Debug)]
pub struct Staged {
    /// The row to insert.
    pub row: MediaRow,
    /// Where the objects are.
    pub stored: StoredMedia,
    /// What was stored, to store again should the objects vanish before the row is inserted
    /// (see [`accept`]).
    pub ingested: IngestedMedia,
}

/// [`super::prepare`] on the blocking pool, holding one of the gate's slots: an upload's
/// headers read and checked, nothing decoded yet (what an import does with each photo before
/// deciding whether to store any).
pub async fn prepare_gated(
    gate: &IngestGate,
    limits: &super::MediaLimits,
    upload: super::Upload,
) -> Result<super::PreparedUpload, AcceptError> {
    let slot = gate
        .slots
        .clone()
        .acquire_owned()
        .await
        .map_err(|e| internal(&e))?;
    let limits = *limits;
    tokio::task::spawn_blocking(move || {
        let _held = slot;
        super::prepare(upload, &limits)
    })
    .await
    .map_err(|e| internal(&e))?
    .map_err(AcceptError::from)
}

/// Decodes a prepared upload within its share of the decoding budget, holding a slot, makes
/// its variants and stores its objects; the row is left to the caller to insert ([`Staged`]).
pub async fn stage(
    storage: &dyn Storage,
    gate: &IngestGate,
    limits: &super::MediaLimits,
    prepared: super::PreparedUpload,
    owner_id: &str,
    original_name: Option<String>,
) -> Result<Staged, AcceptError> {
    let slot = gate
        .slots
        .clone()
        .acquire_owned()
        .await
        .map_err(|e| internal(&e))?;
    finish_and_store(
        storage,
        gate,
        limits,
        slot,
        prepared,
        owner_id,
        original_name,
    )
    .await
}

async fn finish_and_store(
    storage: &dyn Storage,
    gate: &IngestGate,
    limits: &super::MediaLimits,
    slot: tokio::sync::OwnedSemaphorePermit,
    prepared: super::PreparedUpload,
    owner_id: &str,
    original_name: Option<String>,
) -> Result<Staged, AcceptError> {
    let limits = *limits;
    // The decoding's memory, from the shared budget: a large upload waits until the ones
    // before it are done. `prepare` refused any upload that needs more than the whole budget.
    let mib = u32::try_from(prepared.cost().div_ceil(1 << 20)).unwrap_or(u32::MAX);
    let memory = gate
        .budget
        .clone()
        .acquire_many_owned(mib.min(gate.budget_mib).max(1))
        .await
        .map_err(|e| internal(&e))?;

    let ingested = tokio::task::spawn_blocking(move || {
        let _held = (slot, memory);
        prepared.finish(&limits)
    })
    .await
    .map_err(|e| internal(&e))??;

    let stored = store(storage, &ingested).await?;
    let row = MediaRow {
        id: uuid::Uuid::new_v4().to_string(),
        owner_id: owner_id.to_owned(),
        kind: "upload".to_owned(),
        mime: ingested.mime().to_owned(),
        width: ingested.width().into(),
        height: ingested.height().into(),
        bytes: i64::try_from(ingested.bytes()).unwrap_or(i64::MAX),
        sha256: ingested.sha256.clone(),
        original_name,
        original_key: stored.original.to_string(),
        preview_key: stored.preview.to_string(),
        preview_mime: ingested.preview.mime().to_owned(),
        thumbnail_key: stored.thumbnail.to_string(),
        thumbnail_mime: ingested.thumbnail.mime().to_owned(),
        gps_latitude: ingested.gps.map(|g| g.latitude),
        gps_longitude: ingested.gps.map(|g| g.longitude),
        created_at: db::now_ms(),
    };
    Ok(Staged {
        row,
        stored,
        ingested,
    })
}

/// How long an object no row names, or an upload nothing uses, is kept before the orphan sweep
/// removes it: far longer than any upload or job takes between writing an object and inserting
/// its row.
pub const ORPHAN_GRACE_MS: i64 = 24 * 60 * 60 * 1000;

/// How recently an object must have been written for a writer to count on it instead of
/// writing the same content again (half the grace).
///
/// The sweep deletes an object only when it is older than the grace and no row names its hash.
/// A writer that found it younger than this window inserts its row well within the other half,
/// before the object can look old enough to the sweep, which then sees the row.
pub const REUSE_WINDOW_MS: i64 = ORPHAN_GRACE_MS / 2;
const _: () = assert!(REUSE_WINDOW_MS * 2 <= ORPHAN_GRACE_MS);

/// Whether the object under `key` exists and is recent enough to be reused (see
/// [`REUSE_WINDOW_MS`]); otherwise the caller writes it (again).
pub async fn reusable(
    storage: &dyn Storage,
    key: &StorageKey,
    now_ms: i64,
) -> Result<bool, StorageError> {
    Ok(storage
        .head(key)
        .await?
        .is_some_and(|info| info.modified_ms >= now_ms - REUSE_WINDOW_MS))
}

/// What one orphan sweep removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Swept {
    /// Unused uploads (rows), with their objects when no other row shares them.
    pub media: usize,
    /// Objects whose content no media row has.
    pub objects: usize,
}

/// Why a sweep stopped early (what it removed until then stays removed).
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    #[error(transparent)]
    Db(#[from] db::DbError),
    #[error(transparent)]
    Storage(#[from] StorageError),
}

/// Uploads looked at per query.
const SWEEP_BATCH: i64 = 500;

/// Removes uploads nothing has used for [`ORPHAN_GRACE_MS`] (an image added on the heatmap page
/// and left there), then objects older than that whose content no media row has (a process
/// killed between writing objects and inserting their row). Safe to run on several nodes at
/// once: every step is a conditional delete.
pub async fn sweep_orphans(
    db: &Db,
    storage: &dyn Storage,
    now_ms: i64,
) -> Result<Swept, SweepError> {
    let cutoff = now_ms - ORPHAN_GRACE_MS;
    let mut swept = Swept::default();
    loop {
        let ids = db::media::unused_uploads(db, cutoff, SWEEP_BATCH).await?;
        let mut released = 0;
        for id in &ids {
            if let Some(media) = db::media::find(db, id).await?
                && db::media::delete_if_unreferenced(db, id).await?
            {
                delete_objects_if_orphaned(db, storage, &media).await;
                released += 1;
            }
        }
        swept.media += released;
        // A batch where nothing could be released (all taken meanwhile) ends the pass.
        if (ids.len() as i64) < SWEEP_BATCH || released == 0 {
            break;
        }
    }

    let old: Vec<(String, String)> = storage
        .list_objects()
        .await?
        .into_iter()
        .filter(|(_, info)| info.modified_ms < cutoff)
        .filter_map(|(key, _)| Some((content_hash(&key)?.to_owned(), key)))
        .collect();
    for chunk in old.chunks(SWEEP_BATCH as usize) {
        let hashes: Vec<String> = chunk.iter().map(|(hash, _)| hash.clone()).collect();
        let kept = db::media::existing_hashes(db, &hashes).await?;
        for (hash, key) in chunk {
            if !kept.contains(hash) {
                storage.delete(&StorageKey::new(key.as_str())?).await?;
                tracing::info!(key = %key, "removed an object no media row has");
                swept.objects += 1;
            }
        }
    }
    Ok(swept)
}

/// The content hash in an object key (`<sha[0..2]>/<sha>/<variant>.<ext>`); `None` for a key
/// of another shape, which the sweep leaves alone.
fn content_hash(key: &str) -> Option<&str> {
    let mut parts = key.split('/');
    let (fan, hash, _file) = (parts.next()?, parts.next()?, parts.next()?);
    let valid = parts.next().is_none()
        && hash.len() == 64
        && hash.starts_with(fan)
        && fan.len() == 2
        && hash
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    valid.then_some(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_content_keys_name_a_hash() {
        let hash = "3f".to_owned() + &"a".repeat(62);
        assert_eq!(
            content_hash(&format!("3f/{hash}/original.jpg")),
            Some(hash.as_str())
        );
        for other in [
            format!("ab/{hash}/original.jpg"),
            format!("3f/{hash}/x/original.jpg"),
            format!("3f/{hash}"),
            "notes.txt".to_owned(),
            format!("3f/{}/preview.jpg", "Z".repeat(64)),
        ] {
            assert_eq!(content_hash(&other), None, "{other}");
        }
    }
}
