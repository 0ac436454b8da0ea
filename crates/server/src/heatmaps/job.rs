//! The `heatmap_item` job: computes one item of a heatmap.
//!
//! 1. Mark the item `processing` (nothing to do if it is gone or finished) and tell the tabs.
//! 2. Read the source's preview from storage; a missing object fails the item
//!    (`source_missing`), other storage errors are transient (retried).
//! 3. Compute on the blocking pool; an undecodable source fails the item (`invalid_image`).
//! 4. Store the outputs (content-addressed, like uploads), then save the item and its output
//!    media rows in one transaction guarded by the item's status. If the heatmap was deleted
//!    meanwhile, nothing is saved and the stored objects are removed again.
//! 5. Tell the tabs (`done` with the score, or `failed`).

use crate::codes::JobErrorCode;
use serde::Serialize;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use super::ItemStatus;
use super::compute::{self, ComputeError, Computed, Encoded};
use crate::db::heatmaps::{self as hdb, ItemOutputs};
use crate::db::jobs::ClaimedJob;
use crate::db::media::MediaRow;
use crate::db::{self, DbError};
use crate::events::{Event, EventName};
use crate::jobs::{Cancel, Context, JobError, JobFailure};
use crate::media::{self, VariantKind};
use crate::storage::{StorageError, StorageKey};

fn transient(err: impl std::fmt::Display) -> JobError {
    JobError::Transient(err.to_string())
}

/// `data` of a `heatmap_item` live event: one status change of a heatmap item.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct HeatmapItemEvent {
    pub heatmap_id: String,
    pub item_id: String,
    pub status: ItemStatus,
    /// The attention score, once `done`.
    pub score: Option<f64>,
    /// Why it failed (`failed` only).
    pub error: Option<JobFailure>,
}

/// Tells the owner's tabs that an item changed.
pub async fn publish(
    ctx: &Context,
    owner_id: &str,
    heatmap_id: &str,
    item_id: &str,
    status: ItemStatus,
    score: Option<f64>,
    error: Option<(JobErrorCode, &str)>,
) {
    let event = HeatmapItemEvent {
        heatmap_id: heatmap_id.to_owned(),
        item_id: item_id.to_owned(),
        status,
        score,
        error: error.map(|(code, message)| JobFailure {
            code,
            message: message.to_owned(),
        }),
    };
    // A struct of strings and numbers always serialises; the bus carries JSON across nodes.
    ctx.bus
        .publish(Event::for_workspace(
            owner_id,
            EventName::HeatmapItem,
            &event,
        ))
        .await;
}

/// The heatmap item job: computes one image's maps and analysis. Registered in the job handlers at start.
pub struct ItemJob;

#[async_trait::async_trait]
impl crate::jobs::Handler for ItemJob {
    fn kind(&self) -> &'static str {
        hdb::ITEM_JOB
    }

    async fn run(&self, ctx: &Context, job: &ClaimedJob, cancel: &Cancel) -> Result<(), JobError> {
        run(ctx, job, cancel).await
    }

    async fn retrying(&self, ctx: &Context, job: &ClaimedJob) {
        retrying(ctx, job).await;
    }

    async fn given_up(&self, ctx: &Context, job: &ClaimedJob, error: &str) {
        given_up(ctx, job, error).await;
    }
}

/// Runs one attempt.
pub async fn run(ctx: &Context, job: &ClaimedJob, cancel: &Cancel) -> Result<(), JobError> {
    let item_id = job.subject_id.as_str();
    let Some(item) = hdb::start_item(&ctx.db, item_id, job.attempts, db::now_ms())
        .await
        .map_err(transient)?
    else {
        tracing::info!(item_id, "heatmap item gone or finished; nothing to do");
        return Ok(());
    };
    publish(
        ctx,
        &item.owner_id,
        &item.heatmap_id,
        item_id,
        ItemStatus::Processing,
        None,
        None,
    )
    .await;
    ctx.fault_hold(&job.id).await;

    let fail = |code: JobErrorCode, message: String| {
        let item = &item;
        async move {
            let saved = hdb::fail_item(&ctx.db, item_id, code.as_str(), &message, db::now_ms())
                .await
                .map_err(transient)?;
            if saved {
                publish(
                    ctx,
                    &item.owner_id,
                    &item.heatmap_id,
                    item_id,
                    ItemStatus::Failed,
                    None,
                    Some((code, &message)),
                )
                .await;
            }
            Err::<(), _>(JobError::Permanent(format!("{code}: {message}")))
        }
    };

    // The render's memory, from the process's budget, before anything is read or decoded:
    // the wait keeps the job (its lease is extended meanwhile).
    let _memory = ctx
        .render_budget
        .acquire_patiently(
            crate::render_budget::pixels_within(
                item.source.width,
                item.source.height,
                crate::media::PREVIEW_SIDE,
            )
            .saturating_mul(crate::render_budget::HEATMAP_BYTES_PER_PIXEL),
        )
        .await;
    let key = StorageKey::new(item.source.preview_key.as_str()).map_err(transient)?;
    let source = match ctx.storage.get_bytes(&key).await {
        Ok(bytes) => bytes,
        Err(StorageError::NotFound(_)) => {
            return fail(
                JobErrorCode::SourceMissing,
                "The source image's file is missing".into(),
            )
            .await;
        }
        Err(err) => return Err(transient(err)),
    };
    // A stored area of interest that no longer parses is a bug, not the user's problem: the
    // heatmap is still computed, without the panel's shares.
    let aoi = item.aoi.as_deref().and_then(|text| {
        parse_aoi(text)
            .inspect_err(|err| tracing::error!(item_id, error = %err, "stored aoi is not a quad"))
            .ok()
    });
    let computed = tokio::task::spawn_blocking(move || compute::compute(&source, aoi.as_ref()))
        .await
        .map_err(transient)?;
    let computed = match computed {
        Ok(computed) => computed,
        Err(ComputeError::InvalidImage(reason)) => {
            return fail(
                JobErrorCode::InvalidImage,
                format!("The source image cannot be read: {reason}"),
            )
            .await;
        }
        Err(err @ ComputeError::Internal(_)) => return Err(transient(err)),
    };
    if cancel.is_cancelled() {
        return Ok(());
    }
    save(ctx, &item.owner_id, &item.heatmap_id, item_id, computed).await
}

/// Reads a stored area of interest: four `{"x", "y"}` points, relative to the image.
fn parse_aoi(text: &str) -> Result<compute::Aoi, String> {
    let points: Vec<serde_json::Value> = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let mut aoi = [(0.0f32, 0.0f32); 4];
    if points.len() != 4 {
        return Err(format!("{} points", points.len()));
    }
    for (corner, point) in aoi.iter_mut().zip(&points) {
        let (Some(x), Some(y)) = (point["x"].as_f64(), point["y"].as_f64()) else {
            return Err("a point without x and y".into());
        };
        *corner = (x as f32, y as f32);
    }
    Ok(aoi)
}

/// Stores the outputs and saves the item.
async fn save(
    ctx: &Context,
    owner_id: &str,
    heatmap_id: &str,
    item_id: &str,
    computed: Computed,
) -> Result<(), JobError> {
    let now = db::now_ms();
    // The six objects are written at once: each write is fsynced (local storage) or a round
    // trip (S3), and waiting for them one after the other cost more than the encoding.
    let (map, overlay, fog, glance_map, glance_overlay, glance_fog) = tokio::try_join!(
        store(ctx, owner_id, &computed.full.map, None, now),
        store(
            ctx,
            owner_id,
            &computed.full.overlay,
            Some(&computed.overlay_thumbnail),
            now,
        ),
        store(ctx, owner_id, &computed.full.fog, None, now),
        store(ctx, owner_id, &computed.glance.map, None, now),
        store(ctx, owner_id, &computed.glance.overlay, None, now),
        store(ctx, owner_id, &computed.glance.fog, None, now),
    )?;
    let result = computed.result.to_text();
    let score = computed.result.map.score;
    let panel = computed
        .result
        .panel
        .as_ref()
        .and_then(|p| serde_json::to_string(p).ok());
    let outputs = ItemOutputs {
        result: &result,
        score,
        panel: panel.as_deref(),
        map: &map,
        overlay: &overlay,
        fog: &fog,
        glance_map: &glance_map,
        glance_overlay: &glance_overlay,
        glance_fog: &glance_fog,
    };
    match hdb::complete_item(&ctx.db, item_id, &outputs, db::now_ms()).await {
        Ok(true) => {
            publish(
                ctx,
                owner_id,
                heatmap_id,
                item_id,
                ItemStatus::Done,
                Some(score),
                None,
            )
            .await;
            Ok(())
        }
        Ok(false) => {
            // Deleted (or finished elsewhere) while we worked: drop what we stored.
            tracing::info!(
                item_id,
                "heatmap item gone before it was saved; removing its outputs"
            );
            for row in outputs.media() {
                media::delete_objects_if_orphaned(&ctx.db, ctx.storage.as_ref(), row).await;
            }
            Ok(())
        }
        Err(err) => {
            for row in outputs.media() {
                media::delete_objects_if_orphaned(&ctx.db, ctx.storage.as_ref(), row).await;
            }
            Err(transient(err))
        }
    }
}

/// Writes an output's objects (unless identical content is already stored) and returns the
/// media row to insert. The original is written last (see `media::store`).
async fn store(
    ctx: &Context,
    owner_id: &str,
    image: &Encoded,
    thumbnail: Option<&Encoded>,
    now: i64,
) -> Result<MediaRow, JobError> {
    let sha256 = hex::encode(Sha256::digest(&image.bytes));
    let original =
        media::object_key(&sha256, VariantKind::Original, image.format).map_err(transient)?;
    let thumb_key = match thumbnail {
        Some(t) => {
            media::object_key(&sha256, VariantKind::Thumbnail, t.format).map_err(transient)?
        }
        None => original.clone(),
    };
    // Content written recently is reused; older content is written again, so the orphan
    // sweep cannot remove it before this row names it (media::REUSE_WINDOW_MS).
    if !media::reusable(ctx.storage.as_ref(), &original, db::now_ms())
        .await
        .map_err(transient)?
    {
        if let Some(t) = thumbnail {
            ctx.storage
                .put_bytes(&thumb_key, t.bytes.clone())
                .await
                .map_err(transient)?;
        }
        ctx.storage
            .put_bytes(&original, image.bytes.clone())
            .await
            .map_err(transient)?;
    }
    let mime = image.format.mime().to_owned();
    Ok(MediaRow {
        id: uuid::Uuid::new_v4().to_string(),
        owner_id: owner_id.to_owned(),
        kind: "heatmap".into(),
        mime: mime.clone(),
        width: i64::from(image.width),
        height: i64::from(image.height),
        bytes: image.bytes.len() as i64,
        sha256,
        original_name: None,
        original_key: original.as_str().to_owned(),
        preview_key: original.as_str().to_owned(),
        preview_mime: mime.clone(),
        thumbnail_key: thumb_key.as_str().to_owned(),
        thumbnail_mime: thumbnail.map_or(mime, |t| t.format.mime().to_owned()),
        gps_latitude: None,
        gps_longitude: None,
        created_at: now,
    })
}

/// Another attempt will follow: the item shows as queued again.
pub async fn retrying(ctx: &Context, job: &ClaimedJob) {
    if let Err(err) = requeue(ctx, &job.subject_id).await {
        tracing::error!(error = %err, item_id = %job.subject_id, "cannot requeue a heatmap item");
    }
}

async fn requeue(ctx: &Context, item_id: &str) -> Result<(), DbError> {
    if hdb::requeue_item(&ctx.db, item_id, db::now_ms()).await?
        && let Some(item) = hdb::find_item(&ctx.db, item_id).await?
    {
        publish(
            ctx,
            &item.owner_id,
            &item.heatmap_id,
            item_id,
            ItemStatus::Queued,
            None,
            None,
        )
        .await;
    }
    Ok(())
}

/// The job was given up: the item fails with `internal`.
pub async fn given_up(ctx: &Context, job: &ClaimedJob, error: &str) {
    tracing::error!(item_id = %job.subject_id, error, "heatmap item given up");
    let message = "The heatmap could not be generated";
    match hdb::fail_item(
        &ctx.db,
        &job.subject_id,
        JobErrorCode::Internal.as_str(),
        message,
        db::now_ms(),
    )
    .await
    {
        Ok(true) => {
            if let Ok(Some(item)) = hdb::find_item(&ctx.db, &job.subject_id).await {
                publish(
                    ctx,
                    &item.owner_id,
                    &item.heatmap_id,
                    &item.id,
                    ItemStatus::Failed,
                    None,
                    Some((JobErrorCode::Internal, message)),
                )
                .await;
            }
        }
        Ok(false) => {}
        Err(err) => {
            tracing::error!(error = %err, item_id = %job.subject_id, "cannot fail a heatmap item")
        }
    }
}
