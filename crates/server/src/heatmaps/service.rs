//! What the heatmap endpoints do once a request is read and authorised: create a heatmap with
//! its items queued as jobs, delete one with its work and media, queue a failed item again. The
//! handlers (`http/api/heatmaps.rs`) parse, check ownership of what is named, call these and
//! shape the answer; a simulation's attention analysis uses [`create`] too.

use crate::db::heatmaps::{self as hdb, HeatmapRow, HeatmapWithItems, NewItem, Retry};
use crate::db::{self, DbError};
use crate::jobs::Context;

use super::job;

/// One image of a new heatmap: the media analysed, and the area of interest its panel is (a
/// simulation's quad, stored form) when there is one.
#[derive(Debug, Clone)]
pub struct NewImage {
    pub media_id: String,
    pub aoi: Option<String>,
}

fn max_attempts(ctx: &Context) -> i64 {
    i64::from(ctx.config.job_max_attempts.max(1))
}

/// Creates the heatmap and its items, each with its job, in one transaction, then wakes the
/// workers. The caller has checked that the media are the owner's images.
pub async fn create(
    ctx: &Context,
    owner_id: &str,
    name: String,
    images: &[NewImage],
) -> Result<HeatmapWithItems, DbError> {
    let now = db::now_ms();
    let heatmap = HeatmapRow {
        id: uuid::Uuid::new_v4().to_string(),
        owner_id: owner_id.to_owned(),
        name,
        created_at: now,
        updated_at: now,
    };
    let items: Vec<NewItem> = images
        .iter()
        .map(|image| NewItem {
            id: uuid::Uuid::new_v4().to_string(),
            source_media_id: image.media_id.clone(),
            job_id: uuid::Uuid::new_v4().to_string(),
            aoi: image.aoi.clone(),
        })
        .collect();
    hdb::create(&ctx.db, &heatmap, &items, max_attempts(ctx)).await?;
    ctx.bus.jobs_enqueued().await;
    hdb::find_owned(&ctx.db, owner_id, &heatmap.id)
        .await?
        .ok_or_else(|| DbError::Sqlx(sqlx::Error::RowNotFound))
}

/// Deletes the owner's heatmap: its items, their queued jobs and areas in one transaction, then
/// the media only it used. A worker busy with an item finds it gone when it saves, and removes
/// what it stored. `false` when there is no such heatmap.
pub async fn delete(ctx: &Context, owner_id: &str, id: &str) -> Result<bool, DbError> {
    let Some(media) = hdb::delete(&ctx.db, owner_id, id).await? else {
        return Ok(false);
    };
    for media_id in media {
        crate::media::release(&ctx.db, ctx.storage.as_ref(), &media_id).await;
    }
    Ok(true)
}

/// Queues a failed item again with a new job; tabs hear `queued` before the workers wake.
pub async fn retry(
    ctx: &Context,
    owner_id: &str,
    id: &str,
    item_id: &str,
) -> Result<Retry, DbError> {
    let job_id = uuid::Uuid::new_v4().to_string();
    let outcome =
        hdb::retry_item(&ctx.db, owner_id, id, item_id, &job_id, max_attempts(ctx)).await?;
    if outcome == Retry::Queued {
        job::publish(
            ctx,
            owner_id,
            id,
            item_id,
            super::ItemStatus::Queued,
            None,
            None,
        )
        .await;
        ctx.bus.jobs_enqueued().await;
    }
    Ok(outcome)
}
