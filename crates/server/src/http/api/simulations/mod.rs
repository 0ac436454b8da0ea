//! Simulations: `POST /simulations`, `GET /simulations?limit=&cursor=&q=&creative_id=&location_id=`,
//! `GET`/`PATCH`/`DELETE /simulations/{id}`, `POST /simulations/batch`,
//! `POST /simulations/{id}/render`, `POST /simulations/{id}/attention` and
//! `POST /simulations/renders.zip`. Shapes and codes:
//! docs/architecture/simulations.md.
//!
//! A simulation places one of the user's creatives on one of their locations' photos; every
//! change queues a render job (unless `render: false`) with a new `render_token`, so an older
//! render in flight can never overwrite the newer settings.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use regard_vision::composite::Adjustments;
use serde::Deserialize;
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::activity::record;
use super::body::{
    Body, Choice, HexColour, Id, IdList, IdPath, Line, Patch, Problems, Ref, body_pair,
};
use super::error::ApiError;
use super::input::{ListParams, ListQuery, Member, Paged};
use super::locations::QuadPoint;
use super::media::now_secs;
use super::query::{FilterId, Param, Params};
use crate::codes::{ErrorCode, FieldCode};
use crate::db::activity::{ActivityAction, ActivitySubject};
use crate::db::creatives::CreativeWithMedia;
use crate::db::locations::LocationWithPhoto;
use crate::db::simulations::{
    self as sdb, ListFilter, NewSimulation, Render, RenderChange, SimulationRow, SimulationView,
};
use crate::db::{self, media::MediaRow};
use crate::quad::{self, parse_quad, quad_json};
pub use crate::simulations::SimulationStatus;
use crate::simulations::service;
use crate::state::AppState;

/// Longest simulation name, in characters.
pub const MAX_NAME: usize = 200;
/// Most locations in one batch.
pub const MAX_BATCH: usize = 50;
/// Smallest panel accepted, in photo pixels².
pub const MIN_QUAD_AREA_PX: f64 = 4.0;

mod answer;
mod for_plan;
mod look;
mod zip;

pub use answer::{
    AttentionQueued, Downloads, ReadingCode, RenderError, Simulation, SimulationAttention,
    SimulationAudience, SimulationBatch, SimulationCreative, SimulationLegibility,
    SimulationLocation,
};
pub(super) use answer::{legibility, simulation_body};
pub(super) use for_plan::{analyse_sites, plan_sites, renderable_locations};
pub use look::{AdjustmentsBody, FitMode, NightMode};
use look::{AdjustmentsChanges, AdjustmentsInput, default_adjustments};

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(batch))
        .routes(routes!(zip::renders_zip))
        .routes(routes!(get_one, update, delete_one))
        .routes(routes!(render))
        .routes(routes!(attention))
}

body_pair! {
    /// The body of `POST /simulations`.
    #[derive(Deserialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    struct NewSimulationFields {
        /// At most 200 characters; "creative — location" when absent, `null` or empty.
        #[serde(default)]
        #[schema(value_type = Option<String>, max_length = 200, format = "line")]
        name: Patch<Line<MAX_NAME>>,
        /// The creative placed on the panel.
        #[serde(default)]
        #[schema(value_type = uuid::Uuid, required = true)]
        creative_id: Patch<Ref>,
        /// The location; it needs a photo and a panel outline.
        #[serde(default)]
        #[schema(value_type = uuid::Uuid, required = true)]
        location_id: Patch<Ref>,
    }

    /// The body of `PATCH /simulations/{id}`: absent fields stay.
    #[derive(Deserialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    struct SimulationChanges {
        /// At most 200 characters; cannot be cleared.
        #[serde(default)]
        #[schema(value_type = String, max_length = 200, format = "name")]
        name: Patch<Line<MAX_NAME>>,
        /// Another creative of the caller's.
        #[serde(default)]
        #[schema(value_type = uuid::Uuid)]
        creative_id: Patch<Ref>,
        /// Another location of the caller's, with a photo and a panel outline.
        #[serde(default)]
        #[schema(value_type = uuid::Uuid)]
        location_id: Patch<Ref>,
    }

    shared {
        /// This simulation's own panel corners (`null`: back to the location's).
        #[serde(default)]
        #[schema(value_type = Option<Vec<QuadPoint>>, min_items = 4, max_items = 4)]
        quad: Patch<Value>,
        #[serde(default)]
        #[schema(value_type = FitMode)]
        fit: Patch<Choice<FitMode, 16>>,
        /// `#rrggbb`.
        #[serde(default)]
        #[schema(value_type = String, pattern = r"^\s*#[0-9A-Fa-f]{6}\s*$")]
        background: Patch<HexColour>,
        /// Any subset (`null`: back to the defaults).
        #[serde(default)]
        #[schema(value_type = Option<AdjustmentsChanges>)]
        adjustments: Patch<AdjustmentsInput>,
        /// An uploaded grey image of the caller's (`null`: none).
        #[serde(default)]
        #[schema(value_type = Option<uuid::Uuid>)]
        mask_media_id: Patch<Ref>,
        /// `false` saves without rendering (a `draft` when render settings changed).
        #[serde(default)]
        #[schema(value_type = Option<bool>)]
        render: Patch<bool>,
    }
}

/// The body of `POST /simulations/batch`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct BatchFields {
    #[serde(default)]
    #[schema(value_type = uuid::Uuid, required = true)]
    creative_id: Patch<Ref>,
    /// 1 to 50 locations, each with a photo and a panel outline.
    #[serde(default)]
    #[schema(value_type = Vec<uuid::Uuid>, min_items = 1, max_items = 50, required = true)]
    location_ids: Patch<IdList<MAX_BATCH>>,
    #[serde(default)]
    #[schema(value_type = FitMode)]
    fit: Patch<Choice<FitMode, 16>>,
    /// `#rrggbb`.
    #[serde(default)]
    #[schema(value_type = String, pattern = r"^\s*#[0-9A-Fa-f]{6}\s*$")]
    background: Patch<HexColour>,
    /// Any subset (`null`: the defaults).
    #[serde(default)]
    #[schema(value_type = Option<AdjustmentsChanges>)]
    adjustments: Patch<AdjustmentsInput>,
}

/// The filters of `GET /simulations`, besides the page.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct SimulationFilters {
    /// Only the simulations of this creative.
    #[serde(default)]
    #[param(value_type = Option<String>)]
    creative_id: Param<FilterId>,
    /// Only the simulations at this location.
    #[serde(default)]
    #[param(value_type = Option<String>)]
    location_id: Param<FilterId>,
}

async fn find_creative(
    state: &AppState,
    user: &Member,
    problems: &mut Problems,
    id: &str,
) -> Result<Option<CreativeWithMedia>, ApiError> {
    let found = db::creatives::find(&state.db, user.workspace_id(), id).await?;
    if found.is_none() {
        problems.add("creative_id", FieldCode::NotFound);
    }
    Ok(found)
}

/// The user's location `id`, which must have a photo (`key`: `requires_photo`).
async fn find_location(
    state: &AppState,
    user: &Member,
    problems: &mut Problems,
    key: &str,
    id: &str,
) -> Result<Option<LocationWithPhoto>, ApiError> {
    match db::locations::find(&state.db, user.workspace_id(), id).await? {
        None => {
            problems.add(key, FieldCode::NotFound);
            Ok(None)
        }
        Some(found) if found.photo.is_none() => {
            problems.add(key, FieldCode::RequiresPhoto);
            Ok(None)
        }
        Some(found) => Ok(Some(found)),
    }
}

/// The render settings a body gives (`quad`, `fit`, `background`, `adjustments`,
/// `mask_media_id`), checked against the database and applied onto `row`. The quad is checked
/// against the photo later.
struct Settings {
    quad: Patch<Value>,
    fit: Patch<Choice<FitMode, 16>>,
    background: Patch<HexColour>,
    adjustments: Patch<AdjustmentsInput>,
    mask_media_id: Patch<Ref>,
}

/// Applies `fit`, `background` and `adjustments` (onto `current`); `null` for `fit` or
/// `background` is `required`, for `adjustments` the defaults.
fn apply_look(
    problems: &mut Problems,
    row: &mut SimulationRow,
    fit: Patch<Choice<FitMode, 16>>,
    background: Patch<HexColour>,
    adjustments: Patch<AdjustmentsInput>,
    current: &Adjustments,
) -> Result<(), ApiError> {
    if let Some(Choice(fit)) = problems.not_null("fit", fit) {
        row.fit = fit.as_str().to_owned();
    }
    if let Some(HexColour(background)) = problems.not_null("background", background) {
        row.background = background;
    }
    let adjustments = match adjustments {
        Patch::Value(AdjustmentsInput(Some(changes))) => Some(changes.apply(current)),
        Patch::Null => Some(default_adjustments()),
        Patch::Value(AdjustmentsInput(None)) | Patch::Absent => None,
    };
    if let Some(adjustments) = adjustments {
        row.adjustments = serde_json::to_string(&adjustments).map_err(ApiError::internal)?;
    }
    Ok(())
}

async fn read_settings(
    state: &AppState,
    user: &Member,
    problems: &mut Problems,
    settings: Settings,
    row: &mut SimulationRow,
) -> Result<(), ApiError> {
    match settings.quad {
        Patch::Value(value) => match parse_quad(&value) {
            Ok(points) => row.quad = Some(quad_json(&points).to_string()),
            Err(code) => problems.add("quad", code),
        },
        Patch::Null => row.quad = None,
        Patch::Absent => {}
    }
    let current = serde_json::from_str(&row.adjustments).unwrap_or_else(|_| default_adjustments());
    apply_look(
        problems,
        row,
        settings.fit,
        settings.background,
        settings.adjustments,
        &current,
    )?;
    match settings.mask_media_id {
        Patch::Value(Ref(id)) => {
            match db::media::find_owned(&state.db, user.workspace_id(), &id).await? {
                Some(media) if media.kind == "upload" => row.mask_media_id = Some(media.id),
                _ => problems.add("mask_media_id", FieldCode::NotFound),
            }
        }
        Patch::Null => row.mask_media_id = None,
        Patch::Absent => {}
    }
    Ok(())
}

/// Checks the quad the render will use (the override, else the location's) against the photo:
/// one must exist (`quad: required`) and cover at least [`MIN_QUAD_AREA_PX`]; and that a view
/// from a distance has the panel's size it needs (`adjustments.view: requires_size`).
fn check_renderable(problems: &mut Problems, row: &SimulationRow, location: &LocationWithPhoto) {
    // A view from a distance needs the panel's size (rendering.md §2).
    let view =
        serde_json::from_str::<Adjustments>(&row.adjustments).is_ok_and(|a| a.view.is_some());
    let l = &location.location;
    if view && crate::simulations::job::site_of(l.panel_width_cm, l.panel_height_cm, None).is_none()
    {
        problems.add("adjustments.view", FieldCode::RequiresSize);
    }
    if problems.has("quad") {
        return;
    }
    let text = row
        .quad
        .as_deref()
        .or(location.location.panel_quad.as_deref());
    let Some(quad) = text.and_then(quad::read_stored) else {
        problems.require("quad");
        return;
    };
    if let Some(photo) = &location.photo
        && quad::area_px(&quad, photo.width, photo.height) < MIN_QUAD_AREA_PX
    {
        problems.add("quad", FieldCode::TooSmall);
    }
}

/// The default name: "creative — location", at most [`MAX_NAME`] characters.
fn default_name(creative: &CreativeWithMedia, location: &LocationWithPhoto) -> String {
    format!("{} — {}", creative.creative.name, location.location.name)
        .chars()
        .take(MAX_NAME)
        .collect()
}

/// A fresh row for `owner`, queued (with a token) or a draft.
fn new_row(
    user: &Member,
    creative_id: &str,
    location_id: &str,
    render: bool,
    now: i64,
) -> SimulationRow {
    SimulationRow {
        id: uuid::Uuid::new_v4().to_string(),
        owner_id: user.workspace_id().to_owned(),
        creative_id: creative_id.to_owned(),
        location_id: location_id.to_owned(),
        fit: "cover".into(),
        background: "#ffffff".into(),
        adjustments: serde_json::to_string(&default_adjustments()).unwrap_or_default(),
        status: if render {
            SimulationStatus::Queued
        } else {
            SimulationStatus::Draft
        }
        .as_str()
        .into(),
        render_token: render.then(|| uuid::Uuid::new_v4().to_string()),
        created_at: now,
        updated_at: now,
        ..SimulationRow::default()
    }
}

async fn find(state: &AppState, user: &Member, id: &str) -> Result<SimulationView, ApiError> {
    sdb::find(&state.db, user.workspace_id(), id)
        .await?
        .ok_or_else(ApiError::not_found)
}

/// Answers a simulation read back after a write.
async fn respond(state: &AppState, user: &Member, id: &str) -> Result<Simulation, ApiError> {
    let view = sdb::find(&state.db, user.workspace_id(), id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let mut body = simulation_body(&state.signer.for_member(user.user_id()), &view, now_secs());
    body.legibility = legibility(state, &view).await;
    Ok(body)
}

/// `POST /simulations` → 201 (`queued`, or `draft` with `render: false`).
#[utoipa::path(
    post,
    path = "/simulations",
    tag = "simulations",
    request_body = NewSimulationFields,
    responses((status = 201, description = "The new simulation", body = Simulation))
)]
async fn create(
    State(state): State<AppState>,
    user: Member,
    Body(body, mut problems): Body<NewSimulationFields>,
) -> Result<(StatusCode, Json<Simulation>), ApiError> {
    // `render` is `true` when absent or `null`.
    let render = !matches!(body.render, Patch::Value(false));
    let now = db::now_ms();
    let mut row = new_row(&user, "", "", render, now);
    let settings = Settings {
        quad: body.quad,
        fit: body.fit,
        background: body.background,
        adjustments: body.adjustments,
        mask_media_id: body.mask_media_id,
    };
    read_settings(&state, &user, &mut problems, settings, &mut row).await?;
    let creative = match problems.required("creative_id", body.creative_id) {
        Some(Ref(id)) => find_creative(&state, &user, &mut problems, &id).await?,
        None => None,
    };
    let location = match problems.required("location_id", body.location_id) {
        Some(Ref(id)) => find_location(&state, &user, &mut problems, "location_id", &id).await?,
        None => None,
    };
    if let Some(location) = &location {
        check_renderable(&mut problems, &row, location);
    }
    problems.finish()?;
    let (Some(creative), Some(location)) = (creative, location) else {
        return Err(ApiError::internal(
            "simulation validation let a missing field through",
        ));
    };
    row.creative_id = creative.creative.id.clone();
    row.location_id = location.location.id.clone();
    row.name = match body.name {
        Patch::Value(Line(name)) => name,
        _ => default_name(&creative, &location),
    };
    let job_id = render.then(|| uuid::Uuid::new_v4().to_string());
    let id = row.id.clone();
    service::create(
        &state.job_context(),
        user.workspace_id(),
        &[NewSimulation { row, job_id }],
    )
    .await?;
    let created = respond(&state, &user, &id).await?;
    record(
        &state,
        &user,
        ActivityAction::Created,
        ActivitySubject::Simulation,
        &id,
        Some(&created.name),
    )
    .await;
    Ok((StatusCode::CREATED, Json(created)))
}

/// `POST /simulations/batch {creative_id, location_ids, fit?, adjustments?, background?}` →
/// 201 `{items}`: one queued simulation per location, in the given order, in one transaction.
#[utoipa::path(
    post,
    path = "/simulations/batch",
    tag = "simulations",
    request_body = BatchFields,
    responses((status = 201, description = "One simulation per location", body = SimulationBatch))
)]
async fn batch(
    State(state): State<AppState>,
    user: Member,
    Body(body, mut problems): Body<BatchFields>,
) -> Result<(StatusCode, Json<SimulationBatch>), ApiError> {
    let creative_id = problems.required("creative_id", body.creative_id);
    let location_ids = problems
        .required("location_ids", body.location_ids)
        .map(|ids| ids.0);
    let now = db::now_ms();
    let mut template = new_row(&user, "", "", true, now);
    apply_look(
        &mut problems,
        &mut template,
        body.fit,
        body.background,
        body.adjustments,
        &default_adjustments(),
    )?;
    let creative = match creative_id {
        Some(Ref(id)) => find_creative(&state, &user, &mut problems, &id).await?,
        None => None,
    };
    let mut locations = Vec::new();
    for id in location_ids.iter().flatten() {
        let Some(location) =
            find_location(&state, &user, &mut problems, "location_ids", id).await?
        else {
            break;
        };
        // The batch has no quad override: each location's own quad is used.
        let mut probe = Problems::default();
        check_renderable(&mut probe, &template, &location);
        if probe.has("adjustments.view") {
            problems.add("adjustments.view", FieldCode::RequiresSize);
            break;
        }
        if probe.has("quad") {
            let code = if location.location.panel_quad.is_none() {
                FieldCode::RequiresQuad
            } else {
                FieldCode::TooSmall
            };
            problems.add("location_ids", code);
            break;
        }
        locations.push(location);
    }
    problems.finish()?;
    let Some(creative) = creative else {
        return Err(ApiError::internal(
            "batch validation let a missing creative through",
        ));
    };
    let new: Vec<NewSimulation> = locations
        .iter()
        .enumerate()
        .map(|(i, location)| {
            let mut row = template.clone();
            row.id = uuid::Uuid::new_v4().to_string();
            row.render_token = Some(uuid::Uuid::new_v4().to_string());
            row.name = default_name(&creative, location);
            row.creative_id = creative.creative.id.clone();
            row.location_id = location.location.id.clone();
            // One millisecond apart, so "newest first" keeps the batch's order reversed and
            // stable rather than tied.
            row.created_at = now + i as i64;
            row.updated_at = row.created_at;
            NewSimulation {
                row,
                job_id: Some(uuid::Uuid::new_v4().to_string()),
            }
        })
        .collect();
    service::create(&state.job_context(), user.workspace_id(), &new).await?;
    for n in &new {
        record(
            &state,
            &user,
            ActivityAction::Created,
            ActivitySubject::Simulation,
            &n.row.id,
            Some(&n.row.name),
        )
        .await;
    }
    let ids: Vec<&str> = new.iter().map(|n| n.row.id.as_str()).collect();
    let mut items = Vec::with_capacity(ids.len());
    for id in &ids {
        items.push(respond(&state, &user, id).await?);
    }
    Ok((StatusCode::CREATED, Json(SimulationBatch { items })))
}

/// `GET /simulations?limit=&cursor=&q=&creative_id=&location_id=` → `{items, next_cursor}`.
#[utoipa::path(
    get,
    path = "/simulations",
    tag = "simulations",
    params(ListParams, SimulationFilters),
    responses((status = 200, description = "One page of simulations, newest first", body = Paged<Simulation>))
)]
async fn list(
    State(state): State<AppState>,
    user: Member,
    list: ListQuery,
    Params(filters): Params<SimulationFilters>,
) -> Result<Json<Paged<Simulation>>, ApiError> {
    let filter = ListFilter {
        creative_id: filters.creative_id.0.as_ref().map(FilterId::as_str),
        location_id: filters.location_id.0.as_ref().map(FilterId::as_str),
    };
    let rows = sdb::list(
        &state.db,
        user.workspace_id(),
        list.page.limit,
        list.after(),
        &list.q,
        &filter,
    )
    .await?;
    let now = now_secs();
    Ok(Json(list.page.paged(
        rows,
        |v| (v.sim.created_at, v.sim.id.as_str()),
        |v| simulation_body(&state.signer.for_member(user.user_id()), v, now),
    )))
}

/// `GET /simulations/{id}`.
#[utoipa::path(
    get,
    path = "/simulations/{id}",
    tag = "simulations",
    params(("id" = String, Path, description = "The simulation's id")),
    responses((status = 200, description = "The simulation", body = Simulation))
)]
async fn get_one(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
) -> Result<Json<Simulation>, ApiError> {
    let view = find(&state, &user, &id).await?;
    let mut body = simulation_body(&state.signer.for_member(user.user_id()), &view, now_secs());
    body.legibility = legibility(&state, &view).await;
    Ok(Json(body))
}

/// `PATCH /simulations/{id}`: absent fields stay, `null` clears (`quad`: back to the
/// location's; `mask_media_id`: none; `adjustments`: defaults). Any change queues a new render
/// (new token: a render in flight is discarded when it saves) unless `render: false`, which
/// leaves a `draft` when render settings changed.
#[utoipa::path(
    patch,
    path = "/simulations/{id}",
    tag = "simulations",
    params(("id" = String, Path, description = "The simulation's id")),
    request_body = SimulationChanges,
    responses((status = 200, description = "The simulation, changed", body = Simulation))
)]
async fn update(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
    Body(body, mut problems): Body<SimulationChanges>,
) -> Result<Json<Simulation>, ApiError> {
    let view = find(&state, &user, &id).await?;
    let before = view.sim.clone();
    let mut row = before.clone();
    if let Some(Line(name)) = problems.not_null("name", body.name) {
        row.name = name;
    }
    let render = match body.render {
        Patch::Value(render) => Some(render),
        Patch::Absent | Patch::Null => None,
    };
    let settings = Settings {
        quad: body.quad,
        fit: body.fit,
        background: body.background,
        adjustments: body.adjustments,
        mask_media_id: body.mask_media_id,
    };
    read_settings(&state, &user, &mut problems, settings, &mut row).await?;
    if let Some(Ref(id)) = problems.not_null("creative_id", body.creative_id)
        && find_creative(&state, &user, &mut problems, &id)
            .await?
            .is_some()
    {
        row.creative_id = id;
    }
    let location = match body.location_id {
        Patch::Value(Ref(id)) => {
            find_location(&state, &user, &mut problems, "location_id", &id).await?
        }
        Patch::Null => {
            problems.require("location_id");
            None
        }
        Patch::Absent => {
            db::locations::find(&state.db, user.workspace_id(), &row.location_id).await?
        }
    };
    if let Some(location) = &location {
        row.location_id = location.location.id.clone();
        check_renderable(&mut problems, &row, location);
    }
    problems.finish()?;
    let settings_changed = row.creative_id != before.creative_id
        || row.location_id != before.location_id
        || row.quad != before.quad
        || row.fit != before.fit
        || row.background != before.background
        || row.adjustments != before.adjustments
        || row.mask_media_id != before.mask_media_id;
    let changed = settings_changed || row.name != before.name;
    let change = match render {
        Some(false) if settings_changed => RenderChange::Draft,
        Some(false) => RenderChange::Keep,
        Some(true) => RenderChange::Queue {
            job_id: uuid::Uuid::new_v4().to_string(),
        },
        None if changed => RenderChange::Queue {
            job_id: uuid::Uuid::new_v4().to_string(),
        },
        None => RenderChange::Keep,
    };
    match change {
        RenderChange::Keep => {}
        RenderChange::Draft => {
            row.status = SimulationStatus::Draft.as_str().into();
            row.render_token = None;
            row.error_code = None;
            row.error_message = None;
        }
        RenderChange::Queue { .. } => {
            row.status = SimulationStatus::Queued.as_str().into();
            row.render_token = Some(uuid::Uuid::new_v4().to_string());
            row.error_code = None;
            row.error_message = None;
        }
    }
    row.updated_at = db::now_ms().max(row.updated_at);
    if !service::update(
        &state.job_context(),
        user.workspace_id(),
        &before,
        &row,
        &change,
    )
    .await?
    {
        return Err(ApiError::not_found());
    }
    let action = match change {
        RenderChange::Queue { .. } => ActivityAction::Rendered,
        _ => ActivityAction::Changed,
    };
    record(
        &state,
        &user,
        action,
        ActivitySubject::Simulation,
        &row.id,
        Some(&row.name),
    )
    .await;
    Ok(Json(respond(&state, &user, &row.id).await?))
}

/// `DELETE /simulations/{id}` → 204; its jobs go with it, its output and mask are released
/// (a render that a heatmap uses stays there).
#[utoipa::path(
    delete,
    path = "/simulations/{id}",
    tag = "simulations",
    params(("id" = String, Path, description = "The simulation's id")),
    responses((status = 204, description = "Deleted"))
)]
async fn delete_one(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
) -> Result<StatusCode, ApiError> {
    let name = find(&state, &user, &id).await?.sim.name;
    if service::delete(&state.job_context(), user.workspace_id(), &id).await? {
        record(
            &state,
            &user,
            ActivityAction::Deleted,
            ActivitySubject::Simulation,
            &id,
            Some(&name),
        )
        .await;
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found())
    }
}

/// `POST /simulations/{id}/render` → 202, queued again (after a failure, or to redo a draft);
/// 409 `already_rendering` while queued or rendering.
#[utoipa::path(
    post,
    path = "/simulations/{id}/render",
    tag = "simulations",
    params(("id" = String, Path, description = "The simulation's id")),
    responses((status = 202, description = "The simulation, queued", body = Simulation))
)]
async fn render(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
) -> Result<(StatusCode, Json<Simulation>), ApiError> {
    let view = find(&state, &user, &id).await?;
    // The settings may have become unrenderable since (the location's photo was removed).
    let mut problems = Problems::default();
    match db::locations::find(&state.db, user.workspace_id(), &view.sim.location_id).await? {
        Some(location) if location.photo.is_some() => {
            check_renderable(&mut problems, &view.sim, &location)
        }
        _ => problems.add("location_id", FieldCode::RequiresPhoto),
    }
    problems.finish()?;
    let id = view.sim.id;
    match service::queue_render(&state.job_context(), user.workspace_id(), &id).await? {
        Render::NotFound => return Err(ApiError::not_found()),
        Render::AlreadyRendering => return Err(ApiError::new(ErrorCode::AlreadyRendering)),
        Render::Queued => {}
    }
    record(
        &state,
        &user,
        ActivityAction::Rendered,
        ActivitySubject::Simulation,
        &id,
        Some(&view.sim.name),
    )
    .await;
    Ok((
        StatusCode::ACCEPTED,
        Json(respond(&state, &user, &id).await?),
    ))
}

/// `POST /simulations/{id}/attention` → 202 `{heatmap_id}`: a one-image heatmap of the current
/// output, with the panel's quad as its area of interest; 409 `not_rendered` without output.
#[utoipa::path(
    post,
    path = "/simulations/{id}/attention",
    tag = "simulations",
    params(("id" = String, Path, description = "The simulation's id")),
    responses((status = 202, description = "The heatmap the analysis is queued in", body = AttentionQueued))
)]
async fn attention(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
) -> Result<(StatusCode, Json<AttentionQueued>), ApiError> {
    let view = find(&state, &user, &id).await?;
    let not_rendered = || ApiError::new(ErrorCode::NotRendered);
    let output: &MediaRow = view.output.as_ref().ok_or_else(not_rendered)?;
    let location_quad = view.location.as_ref().and_then(|l| l.panel_quad.as_deref());
    let aoi = view
        .sim
        .quad
        .as_deref()
        .or(location_quad)
        .and_then(quad::read_stored)
        .map(|quad| quad_json(&quad).to_string())
        .ok_or_else(not_rendered)?;
    let heatmap_id = service::analyse(
        &state.job_context(),
        user.workspace_id(),
        &view.sim.name,
        output,
        aoi,
    )
    .await?;
    Ok((StatusCode::ACCEPTED, Json(AttentionQueued { heatmap_id })))
}

#[cfg(test)]
mod tests {
    use super::super::body::read_object;
    use super::*;
    use regard_vision::composite::Night;
    use serde_json::json;

    fn read(body: Value) -> (SimulationChanges, String) {
        let (fields, problems) =
            read_object::<SimulationChanges>(body.as_object().unwrap().clone()).unwrap();
        let errors = format!("{:?}", problems.finish().err());
        (fields, errors)
    }

    #[test]
    fn adjustments_are_checked_per_key() {
        let (fields, errors) = read(
            json!({"adjustments": {"brightness": 2, "grain": "x", "night": "day", "bogus": 1,
                                   "contrast": 0.5}}),
        );
        assert!(matches!(
            fields.adjustments,
            Patch::Value(AdjustmentsInput(None))
        ));
        for key in [
            "adjustments.brightness",
            "adjustments.grain",
            "adjustments.night",
            "adjustments.bogus",
        ] {
            assert!(errors.contains(key), "{key} in {errors}");
        }
        assert!(!errors.contains("adjustments.contrast"), "{errors}");
        let (fields, errors) = read(json!({"adjustments": {"contrast": 0.5, "night": "led"}}));
        assert_eq!(errors, "None");
        let Patch::Value(AdjustmentsInput(Some(changes))) = fields.adjustments else {
            panic!("adjustments not read");
        };
        let merged = changes.apply(&default_adjustments());
        assert_eq!(merged.contrast, 0.5);
        assert_eq!(merged.night, Some(Night::Led));
        assert!(merged.auto_match, "absent keys keep their current value");
    }
}
