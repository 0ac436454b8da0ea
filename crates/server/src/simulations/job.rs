//! The `render_simulation` job: renders one simulation at the photo's full resolution.
//!
//! 1. Mark the simulation `rendering`, guarded by the job's `render_token` (nothing to do if
//!    it was deleted, updated since, or finished) and tell the tabs.
//! 2. Read the creative's original, the photo's original and the mask from storage; a missing
//!    object or a deleted creative/location fails the render (`source_missing`), other storage
//!    errors are transient (retried).
//! 3. Render and encode on the blocking pool (`invalid_image` for an undecodable source).
//! 4. Store the JPEG (with preview and thumbnail) and the PNG content-addressed, as media of
//!    kind `render`, then save in one transaction guarded by status and token. A render that is
//!    no longer wanted saves nothing and removes what it stored. The previous output is
//!    released (kept if a heatmap uses it).
//! 5. Tell the tabs (`done`, or `failed` with the error).

use crate::codes::JobErrorCode;
use regard_vision::composite::{Site, view};
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use super::SimulationStatus;
use super::compute::{self, RenderFailure, RenderInput, Rendered};
use crate::db::jobs::ClaimedJob;
use crate::db::media::MediaRow;
use crate::db::simulations::{self as sdb, SimulationView};
use crate::db::{self, DbError};
use crate::events::{Event, EventName};
use crate::jobs::{Cancel, Context, JobError, JobFailure};
use crate::media::{self, EncodedImage, VariantKind};
use crate::storage::{StorageError, StorageKey};

fn transient(err: impl std::fmt::Display) -> JobError {
    JobError::Transient(err.to_string())
}

/// `data` of a `simulation` live event: one status change of a simulation.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SimulationEvent {
    pub simulation_id: String,
    pub status: SimulationStatus,
    /// Why its render failed (`failed` only).
    pub error: Option<JobFailure>,
}

/// Tells the owner's tabs that a simulation changed.
pub async fn publish(
    ctx: &Context,
    owner_id: &str,
    simulation_id: &str,
    status: SimulationStatus,
    error: Option<(JobErrorCode, &str)>,
) {
    let event = SimulationEvent {
        simulation_id: simulation_id.to_owned(),
        status,
        error: error.map(|(code, message)| JobFailure {
            code,
            message: message.to_owned(),
        }),
    };
    // A struct of strings always serialises; the bus carries JSON across nodes.
    ctx.bus
        .publish(Event::for_workspace(
            owner_id,
            EventName::Simulation,
            &event,
        ))
        .await;
}

/// The simulation and token a job renders (its payload).
fn payload(job: &ClaimedJob) -> Result<(String, String), JobError> {
    let value: Value = serde_json::from_str(&job.payload)
        .map_err(|e| JobError::Permanent(format!("bad payload: {e}")))?;
    match (
        value["simulation_id"].as_str(),
        value["render_token"].as_str(),
    ) {
        (Some(id), Some(token)) => Ok((id.to_owned(), token.to_owned())),
        _ => Err(JobError::Permanent("bad payload: missing fields".into())),
    }
}

/// A `#rrggbb` colour (validated by the API; black if a stored value is ever malformed).
pub fn parse_colour(text: &str) -> [u8; 3] {
    let channel = |i: usize| {
        text.get(1 + 2 * i..3 + 2 * i)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .unwrap_or(0)
    };
    [channel(0), channel(1), channel(2)]
}

/// What the job reads besides pixels, or the failure to report.
struct Plan {
    input_keys: (StorageKey, StorageKey, Option<StorageKey>),
    quad: [(f64, f64); 4],
    panel_aspect: Option<f64>,
    site: Option<Site>,
}

fn plan(view: &SimulationView) -> Result<Plan, (JobErrorCode, String)> {
    let missing = |what: &str| {
        (
            JobErrorCode::SourceMissing,
            format!("The {what} no longer exists"),
        )
    };
    let creative = view.creative.as_ref().ok_or_else(|| missing("creative"))?;
    let location = view.location.as_ref().ok_or_else(|| missing("location"))?;
    let photo = location
        .photo
        .as_ref()
        .ok_or_else(|| missing("location's photo"))?;
    let quad = view
        .sim
        .quad
        .as_deref()
        .or(location.panel_quad.as_deref())
        .and_then(crate::quad::read_stored)
        .ok_or_else(|| {
            (
                JobErrorCode::InvalidSettings,
                "Neither the simulation nor its location has a panel quad".to_owned(),
            )
        })?;
    let key = |k: &str| StorageKey::new(k).map_err(|e| (JobErrorCode::Internal, e.to_string()));
    let mask = match &view.mask {
        Some(mask) => Some(key(&mask.original_key)?),
        None => None,
    };
    let panel_aspect = match (location.panel_width_cm, location.panel_height_cm) {
        (Some(w), Some(h)) if w > 0 && h > 0 => Some(w as f64 / h as f64),
        _ => None,
    };
    let site = site_of(
        location.panel_width_cm,
        location.panel_height_cm,
        location.viewing_distance_min_m,
    );
    Ok(Plan {
        input_keys: (
            key(&photo.original_key)?,
            key(&creative.media.original_key)?,
            mask,
        ),
        quad,
        panel_aspect,
        site,
    })
}

/// What a view from a distance needs of a location (rendering.md §2): its panel's size, and the
/// closest distance of its viewers' way (5 m when not given). `None` without a size.
pub fn site_of(
    width_cm: Option<i64>,
    height_cm: Option<i64>,
    distance_min_m: Option<f64>,
) -> Option<Site> {
    match (width_cm, height_cm) {
        (Some(w), Some(h)) if w > 0 && h > 0 => Some(Site {
            width_m: w as f64 / 100.0,
            height_m: h as f64 / 100.0,
            passing_m: distance_min_m
                .filter(|d| d.is_finite() && *d >= 0.0)
                .unwrap_or(view::DEFAULT_PASSING_M),
        }),
        _ => None,
    }
}

/// The simulation render job: renders one simulation at full resolution. Registered in the job handlers at start.
pub struct RenderJob;

#[async_trait::async_trait]
impl crate::jobs::Handler for RenderJob {
    fn kind(&self) -> &'static str {
        sdb::RENDER_JOB
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
    let (id, token) = payload(job)?;
    let Some(view) = sdb::start(&ctx.db, &id, &token, db::now_ms())
        .await
        .map_err(transient)?
    else {
        tracing::info!(simulation_id = %id, "simulation gone, updated or finished; nothing to do");
        return Ok(());
    };
    let owner_id = view.sim.owner_id.clone();
    publish(ctx, &owner_id, &id, SimulationStatus::Rendering, None).await;
    ctx.fault_hold(&job.id).await;

    let fail = |code: JobErrorCode, message: String| {
        let (id, token, owner_id) = (&id, &token, &owner_id);
        async move {
            let saved = sdb::fail(&ctx.db, id, token, code.as_str(), &message, db::now_ms())
                .await
                .map_err(transient)?;
            if saved {
                publish(
                    ctx,
                    owner_id,
                    id,
                    SimulationStatus::Failed,
                    Some((code, &message)),
                )
                .await;
            }
            Err::<(), _>(JobError::Permanent(format!("{code}: {message}")))
        }
    };

    let plan = match plan(&view) {
        Ok(plan) => plan,
        Err((code, message)) => return fail(code, message).await,
    };
    // The render's memory, from the process's budget, before anything is read or decoded:
    // the wait keeps the job (its lease is extended meanwhile).
    let pixels =
        |m: &crate::db::media::MediaRow| (m.width.max(0) as u64) * (m.height.max(0) as u64);
    let photo_pixels = view
        .location
        .as_ref()
        .and_then(|l| l.photo.as_ref())
        .map_or(0, pixels);
    let creative_pixels = view.creative.as_ref().map_or(0, |c| pixels(&c.media));
    let _memory = ctx
        .render_budget
        .acquire_patiently(
            (photo_pixels + creative_pixels)
                .saturating_mul(crate::render_budget::SIMULATION_BYTES_PER_PIXEL),
        )
        .await;
    let (photo_key, creative_key, mask_key) = &plan.input_keys;
    let mut sources = Vec::with_capacity(3);
    for key in [Some(photo_key), Some(creative_key), mask_key.as_ref()]
        .into_iter()
        .flatten()
    {
        match ctx.storage.get_bytes(key).await {
            Ok(bytes) => sources.push(bytes),
            Err(StorageError::NotFound(_)) => {
                return fail(
                    JobErrorCode::SourceMissing,
                    "A source image's file is missing".into(),
                )
                .await;
            }
            Err(err) => return Err(transient(err)),
        }
    }
    let mask = (sources.len() == 3).then(|| sources[2].clone());
    let adjustments = serde_json::from_str(&view.sim.adjustments).unwrap_or_else(|err| {
        tracing::error!(simulation_id = %id, error = %err, "stored adjustments do not parse");
        Default::default()
    });
    let fit = serde_json::from_value(Value::String(view.sim.fit.clone())).unwrap_or_default();
    let input = RenderInput {
        photo: sources[0].clone(),
        creative: sources[1].clone(),
        mask,
        quad: plan.quad,
        fit,
        background: parse_colour(&view.sim.background),
        panel_aspect: plan.panel_aspect,
        site: plan.site,
        adjustments,
        max_pixels: ctx.config.media_max_pixels,
    };
    drop(sources);
    let rendered = tokio::task::spawn_blocking(move || compute::render(&input))
        .await
        .map_err(transient)?;
    let rendered = match rendered {
        Ok(rendered) => rendered,
        Err(RenderFailure::InvalidImage(reason)) => {
            return fail(
                JobErrorCode::InvalidImage,
                format!("A source image cannot be read: {reason}"),
            )
            .await;
        }
        Err(RenderFailure::InvalidSettings(reason)) => {
            return fail(
                JobErrorCode::InvalidSettings,
                format!("The panel cannot be rendered: {reason}"),
            )
            .await;
        }
        Err(err @ RenderFailure::Internal(_)) => return Err(transient(err)),
    };
    if cancel.is_cancelled() {
        return Ok(());
    }
    save(ctx, &view, &token, rendered).await
}

/// The download name of a render: the simulation's name without path separators or control
/// characters (at most 200 characters), and the format's extension.
pub fn file_name(name: &str, extension: &str) -> String {
    let clean: String = name
        .chars()
        .filter(|c| !c.is_control() && !matches!(c, '/' | '\\'))
        .take(200)
        .collect();
    let clean = clean.trim().trim_matches('.');
    let stem = if clean.is_empty() { "render" } else { clean };
    format!("{stem}.{extension}")
}

/// Stores the outputs and saves the simulation.
async fn save(
    ctx: &Context,
    view: &SimulationView,
    token: &str,
    rendered: Rendered,
) -> Result<(), JobError> {
    let sim = &view.sim;
    let now = db::now_ms();
    let jpeg = store(
        ctx,
        &sim.owner_id,
        &sim.name,
        &rendered.jpeg,
        &rendered,
        now,
    )
    .await?;
    let png = match store(ctx, &sim.owner_id, &sim.name, &rendered.png, &rendered, now).await {
        Ok(png) => png,
        Err(err) => {
            media::delete_objects_if_orphaned(&ctx.db, ctx.storage.as_ref(), &jpeg).await;
            return Err(err);
        }
    };
    let cleanup = || async {
        for row in [&jpeg, &png] {
            media::delete_objects_if_orphaned(&ctx.db, ctx.storage.as_ref(), row).await;
        }
    };
    match sdb::complete(&ctx.db, &sim.id, token, &jpeg, &png, db::now_ms()).await {
        Ok(Some(previous)) => {
            for media_id in previous {
                media::release(&ctx.db, ctx.storage.as_ref(), &media_id).await;
            }
            publish(ctx, &sim.owner_id, &sim.id, SimulationStatus::Done, None).await;
            analyse_for_plans(ctx, &sim.owner_id, &sim.id).await;
            Ok(())
        }
        Ok(None) => {
            // Updated or deleted while we rendered: a newer job (or nobody) wants this result.
            tracing::info!(simulation_id = %sim.id, "render no longer wanted; removing its outputs");
            cleanup().await;
            Ok(())
        }
        Err(err) => {
            cleanup().await;
            Err(transient(err))
        }
    }
}

/// A site of a campaign plan gets its new render's attention analysed (its noticed contacts
/// come from it). Failures are logged: the render itself is saved.
async fn analyse_for_plans(ctx: &Context, owner_id: &str, simulation_id: &str) {
    match crate::db::plans::has_simulation(&ctx.db, simulation_id).await {
        Ok(true) => {}
        Ok(false) => return,
        Err(err) => {
            tracing::warn!(simulation_id, error = %err, "could not tell whether a render is a plan's");
            return;
        }
    }
    match sdb::find(&ctx.db, owner_id, simulation_id).await {
        Ok(Some(view)) => super::service::analyse_render(ctx, &view).await,
        Ok(None) => {}
        Err(err) => {
            tracing::warn!(simulation_id, error = %err, "could not read a plan's render back");
        }
    }
}

/// Writes one output's objects (the original last, see `media::store`), with the render's
/// preview and thumbnail stored under its own hash (so each row's objects live and die with
/// it), and returns the media row to insert.
async fn store(
    ctx: &Context,
    owner_id: &str,
    name: &str,
    image: &EncodedImage,
    rendered: &Rendered,
    now: i64,
) -> Result<MediaRow, JobError> {
    let sha256 = hex::encode(Sha256::digest(&image.data));
    let key = |kind, format| media::object_key(&sha256, kind, format).map_err(transient);
    let original = key(VariantKind::Original, image.format)?;
    let preview = key(VariantKind::Preview, rendered.preview.format)?;
    let thumbnail = key(VariantKind::Thumbnail, rendered.thumbnail.format)?;
    // Content written recently is reused; older content is written again, so the orphan
    // sweep cannot remove it before this row names it (media::REUSE_WINDOW_MS).
    if !media::reusable(ctx.storage.as_ref(), &original, db::now_ms())
        .await
        .map_err(transient)?
    {
        for (key, variant) in [
            (&thumbnail, &rendered.thumbnail),
            (&preview, &rendered.preview),
        ] {
            ctx.storage
                .put_bytes(key, variant.data.clone())
                .await
                .map_err(transient)?;
        }
        ctx.storage
            .put_bytes(&original, image.data.clone())
            .await
            .map_err(transient)?;
    }
    Ok(MediaRow {
        id: uuid::Uuid::new_v4().to_string(),
        owner_id: owner_id.to_owned(),
        kind: "render".into(),
        mime: image.format.mime().to_owned(),
        width: i64::from(image.width),
        height: i64::from(image.height),
        bytes: image.data.len() as i64,
        sha256,
        original_name: Some(file_name(name, image.format.extension())),
        original_key: original.as_str().to_owned(),
        preview_key: preview.as_str().to_owned(),
        preview_mime: rendered.preview.format.mime().to_owned(),
        thumbnail_key: thumbnail.as_str().to_owned(),
        thumbnail_mime: rendered.thumbnail.format.mime().to_owned(),
        gps_latitude: None,
        gps_longitude: None,
        created_at: now,
    })
}

/// Another attempt will follow: the simulation shows as queued again.
pub async fn retrying(ctx: &Context, job: &ClaimedJob) {
    let Ok((id, token)) = payload(job) else {
        return;
    };
    if let Err(err) = requeue(ctx, &id, &token).await {
        tracing::error!(error = %err, simulation_id = %id, "cannot requeue a simulation");
    }
}

async fn requeue(ctx: &Context, id: &str, token: &str) -> Result<(), DbError> {
    if sdb::requeue(&ctx.db, id, token, db::now_ms()).await?
        && let Some(view) = sdb::find_any(&ctx.db, id).await?
    {
        publish(ctx, &view.sim.owner_id, id, SimulationStatus::Queued, None).await;
    }
    Ok(())
}

/// The job was given up: the simulation fails with `internal`.
pub async fn given_up(ctx: &Context, job: &ClaimedJob, error: &str) {
    let Ok((id, token)) = payload(job) else {
        return;
    };
    tracing::error!(simulation_id = %id, error, "render given up");
    let message = "The render could not be made";
    match sdb::fail(
        &ctx.db,
        &id,
        &token,
        JobErrorCode::Internal.as_str(),
        message,
        db::now_ms(),
    )
    .await
    {
        Ok(true) => {
            if let Ok(Some(view)) = sdb::find_any(&ctx.db, &id).await {
                publish(
                    ctx,
                    &view.sim.owner_id,
                    &id,
                    SimulationStatus::Failed,
                    Some((JobErrorCode::Internal, message)),
                )
                .await;
            }
        }
        Ok(false) => {}
        Err(err) => tracing::error!(error = %err, simulation_id = %id, "cannot fail a simulation"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_safe() {
        assert_eq!(file_name("Été 2026 — Gare", "jpg"), "Été 2026 — Gare.jpg");
        assert_eq!(file_name("a/b\\c\n", "png"), "abc.png");
        assert_eq!(file_name(" .. ", "jpg"), "render.jpg");
    }

    #[test]
    fn colours_parse() {
        assert_eq!(parse_colour("#ff8000"), [255, 128, 0]);
    }
}
