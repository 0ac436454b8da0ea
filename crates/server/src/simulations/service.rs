//! What the simulation endpoints do once a request is read, checked and authorised: create
//! simulations with their render jobs, queue a render again, change one (a new render token
//! makes a render in flight save nothing), delete one with its media, and analyse a render's
//! attention. The handlers (`http/api/simulations/`) parse bodies and check the rules between
//! fields and the photo, call these and shape the answer.

use crate::db::simulations::{
    self as sdb, NewSimulation, Render, RenderChange, SimulationRow, SimulationView,
};
use crate::db::{DbError, media::MediaRow};
use crate::heatmaps::service::{self as heatmaps, NewImage};
use crate::jobs::Context;

use super::job;

fn max_attempts(ctx: &Context) -> i64 {
    i64::from(ctx.config.job_max_attempts.max(1))
}

/// Tells the owner's tabs that renders are queued, then wakes the workers, so tabs see
/// `queued` before `rendering`.
async fn announce_queued(ctx: &Context, owner_id: &str, ids: &[&str]) {
    for id in ids {
        job::publish(ctx, owner_id, id, super::SimulationStatus::Queued, None).await;
    }
    ctx.bus.jobs_enqueued().await;
}

/// Inserts simulations (each queued with its job, or a draft) in one transaction.
pub async fn create(ctx: &Context, owner_id: &str, new: &[NewSimulation]) -> Result<(), DbError> {
    sdb::create(&ctx.db, new, max_attempts(ctx)).await?;
    let queued: Vec<&str> = new
        .iter()
        .filter(|n| n.job_id.is_some())
        .map(|n| n.row.id.as_str())
        .collect();
    if !queued.is_empty() {
        announce_queued(ctx, owner_id, &queued).await;
    }
    Ok(())
}

/// Saves a changed simulation as `change` says, then releases a replaced mask and tells the
/// tabs. `before` is the row as it was. `false` when the row is gone.
pub async fn update(
    ctx: &Context,
    owner_id: &str,
    before: &SimulationRow,
    row: &SimulationRow,
    change: &RenderChange,
) -> Result<bool, DbError> {
    if !sdb::update(&ctx.db, row, change, max_attempts(ctx)).await? {
        return Ok(false);
    }
    if let Some(old) = &before.mask_media_id
        && row.mask_media_id.as_ref() != Some(old)
    {
        crate::media::release(&ctx.db, ctx.storage.as_ref(), old).await;
    }
    match change {
        RenderChange::Queue { .. } => announce_queued(ctx, owner_id, &[&row.id]).await,
        RenderChange::Draft if before.status != "draft" => {
            job::publish(ctx, owner_id, &row.id, super::SimulationStatus::Draft, None).await;
        }
        _ => {}
    }
    Ok(true)
}

/// Queues a render again with a new token and job (after a failure, or for a draft).
pub async fn queue_render(ctx: &Context, owner_id: &str, id: &str) -> Result<Render, DbError> {
    let token = uuid::Uuid::new_v4().to_string();
    let job_id = uuid::Uuid::new_v4().to_string();
    let outcome =
        sdb::queue_render(&ctx.db, owner_id, id, &token, &job_id, max_attempts(ctx)).await?;
    if outcome == Render::Queued {
        announce_queued(ctx, owner_id, &[id]).await;
    }
    Ok(outcome)
}

/// Deletes the owner's simulation with its jobs, then releases its output and mask (a render a
/// heatmap uses stays there). `false` when there is no such simulation.
pub async fn delete(ctx: &Context, owner_id: &str, id: &str) -> Result<bool, DbError> {
    let Some(media) = sdb::delete(&ctx.db, owner_id, id).await? else {
        return Ok(false);
    };
    for media_id in media {
        crate::media::release(&ctx.db, ctx.storage.as_ref(), &media_id).await;
    }
    Ok(true)
}

/// Queues a one-image heatmap of a render, named like the simulation, with the panel's quad
/// (stored form) as its area of interest; returns the heatmap's id.
pub async fn analyse(
    ctx: &Context,
    owner_id: &str,
    name: &str,
    output: &MediaRow,
    quad: String,
) -> Result<String, DbError> {
    let image = NewImage {
        media_id: output.id.clone(),
        aoi: Some(quad),
    };
    let heatmap = heatmaps::create(ctx, owner_id, name.to_owned(), &[image]).await?;
    Ok(heatmap.heatmap.id)
}

/// Queues the attention analysis of a simulation's current render, with its panel (the
/// simulation's quad, else the location's) as the area of interest: for the sites of campaign
/// plans, whose noticed contacts come from it. Logged, not raised, when it cannot be queued
/// (the plan shows no noticed contacts for the site until its render is analysed).
pub async fn analyse_render(ctx: &Context, view: &SimulationView) {
    let Some(output) = &view.output else {
        return;
    };
    let location_quad = view.location.as_ref().and_then(|l| l.panel_quad.as_deref());
    let Some(aoi) = view
        .sim
        .quad
        .as_deref()
        .or(location_quad)
        .and_then(crate::quad::read_stored)
        .map(|quad| crate::quad::quad_json(&quad).to_string())
    else {
        return;
    };
    if let Err(err) = analyse(ctx, &view.sim.owner_id, &view.sim.name, output, aoi).await {
        tracing::warn!(simulation_id = %view.sim.id, error = %err, "could not queue the attention of a plan's render");
    }
}
