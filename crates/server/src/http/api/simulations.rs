//! Simulations: `POST /simulations`, `GET /simulations?limit=&cursor=&q=&creative_id=&location_id=`,
//! `GET`/`PATCH`/`DELETE /simulations/{id}`, `POST /simulations/batch`,
//! `POST /simulations/{id}/render` and `POST /simulations/{id}/attention`. Shapes and codes:
//! docs/architecture/simulations.md.
//!
//! A simulation places one of the user's creatives on one of their locations' photos; every
//! change queues a render job (unless `render: false`) with a new `render_token`, so an older
//! render in flight can never overwrite the newer settings.

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use regard_vision::composite::Adjustments;
use serde_json::{Map, Value, json};
use std::collections::HashMap;

use super::error::ApiError;
use super::input::{ApiUser, Fields, JsonObject, ListQuery, Patch, parse_id, rfc3339};
use super::locations::{Point, parse_quad, quad_json};
use super::media::{media_json, now_secs, release};
use crate::codes::{ErrorCode, FieldCode};
use crate::db::creatives::CreativeWithMedia;
use crate::db::heatmaps::{self as hdb, HeatmapRow, NewItem};
use crate::db::locations::LocationWithPhoto;
use crate::db::simulations::{
    self as sdb, ListFilter, NewSimulation, Render, RenderChange, SimulationRow, SimulationView,
};
use crate::db::{self, media::MediaRow};
use crate::simulations::job;
use crate::state::AppState;

/// Longest simulation name, in characters.
pub const MAX_NAME: usize = 200;
/// Most locations in one batch.
pub const MAX_BATCH: usize = 50;
/// How the creative may fill the panel.
pub const FITS: [&str; 3] = ["stretch", "cover", "contain"];
/// Smallest panel accepted, in photo pixels².
pub const MIN_QUAD_AREA_PX: f64 = 4.0;
/// Adjustments in −1..=1.
const SIGNED: [&str; 5] = [
    "brightness",
    "contrast",
    "saturation",
    "warmth",
    "sharpness",
];
/// Adjustments in 0..=1.
const UNSIGNED: [&str; 2] = ["grain", "glare"];

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/simulations", get(list).post(create))
        .route("/simulations/batch", post(batch))
        .route(
            "/simulations/{id}",
            get(get_one).patch(update).delete(delete_one),
        )
        .route("/simulations/{id}/render", post(render))
        .route("/simulations/{id}/attention", post(attention))
}

/// Default adjustments of a new simulation: unchanged, with the automatic match to the photo
/// on (what most users want from "make it look real").
fn default_adjustments() -> Adjustments {
    Adjustments {
        auto_match: true,
        ..Adjustments::default()
    }
}

fn parse_json(text: Option<&str>) -> Value {
    text.and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or(Value::Null)
}

/// The simulation JSON (simulations.md), with signed URLs.
fn simulation_json(state: &AppState, view: &SimulationView, now: u64) -> Value {
    let s = &view.sim;
    let signer = &state.signer;
    let exp = signer.expiry(now);
    let location_quad = view.location.as_ref().and_then(|l| l.panel_quad.as_deref());
    let quad = parse_json(s.quad.as_deref().or(location_quad));
    let creative = view.creative.as_ref().map_or(
        Value::Null,
        |c| json!({"id": c.id, "name": c.name, "media": media_json(signer, &c.media, now)}),
    );
    let location = view.location.as_ref().map_or(Value::Null, |l| {
        json!({
            "id": l.id, "name": l.name, "city": l.city, "format": l.format,
            "illumination": l.illumination, "panel_width_cm": l.panel_width_cm,
            "panel_height_cm": l.panel_height_cm, "panel_quad": parse_json(l.panel_quad.as_deref()),
            "photo": l.photo.as_ref().map(|m| media_json(signer, m, now)),
        })
    });
    let download = |id: &Option<String>| {
        id.as_deref().map_or(Value::Null, |id| {
            Value::String(format!("{}&download=1", signer.url(id, "original", exp)))
        })
    };
    let downloads = match &view.output {
        Some(_) => {
            json!({"jpeg": download(&s.output_media_id), "png": download(&s.output_png_media_id)})
        }
        None => Value::Null,
    };
    let attention = view.attention.as_ref().map_or(Value::Null, |a| {
        let panel = parse_json(a.panel.as_deref());
        let done = a.status == "done";
        let pick = |key: &str| {
            if done {
                panel[key].clone()
            } else {
                Value::Null
            }
        };
        json!({
            "heatmap_id": a.heatmap_id, "item_id": a.item_id, "status": a.status,
            "score": if done { json!(a.score) } else { Value::Null },
            "panel_share": pick("share"), "area_share": pick("area_share"),
            "visibility": pick("visibility"),
        })
    });
    let error = match (&s.error_code, s.status.as_str()) {
        (Some(code), "failed") => {
            json!({"code": code, "message": s.error_message.as_deref().unwrap_or("")})
        }
        _ => Value::Null,
    };
    json!({
        "id": s.id,
        "name": s.name,
        "creative_id": s.creative_id,
        "location_id": s.location_id,
        "creative": creative,
        "location": location,
        "quad": quad,
        "quad_override": s.quad.is_some(),
        "fit": s.fit,
        "background": s.background,
        "adjustments": parse_json(Some(&s.adjustments)),
        "mask": view.mask.as_ref().map(|m| media_json(signer, m, now)),
        "status": s.status,
        "error": error,
        "output": view.output.as_ref().map(|m| media_json(signer, m, now)),
        "downloads": downloads,
        "attention": attention,
        "rendered_at": s.rendered_at.map(rfc3339),
        "created_at": rfc3339(s.created_at),
        "updated_at": rfc3339(s.updated_at),
    })
}

/// Reads a uuid text field naming one of the user's rows; `None` (with `not_found` or a type
/// error recorded) when it does not. `Patch::Null` is returned as is.
fn id_field(fields: &mut Fields, key: &str) -> Patch<String> {
    match fields.text(key, 64, false) {
        Patch::Value(raw) => match uuid::Uuid::parse_str(&raw) {
            Ok(id) => Patch::Value(id.hyphenated().to_string()),
            Err(_) => {
                fields.error(key, FieldCode::NotFound);
                Patch::Absent
            }
        },
        other => other,
    }
}

async fn find_creative(
    state: &AppState,
    user: &ApiUser,
    fields: &mut Fields,
    id: &str,
) -> Result<Option<CreativeWithMedia>, ApiError> {
    let found = db::creatives::find(&state.db, user.id(), id).await?;
    if found.is_none() {
        fields.error("creative_id", FieldCode::NotFound);
    }
    Ok(found)
}

/// The user's location `id`, which must have a photo (`key`: `requires_photo`).
async fn find_location(
    state: &AppState,
    user: &ApiUser,
    fields: &mut Fields,
    key: &str,
    id: &str,
) -> Result<Option<LocationWithPhoto>, ApiError> {
    match db::locations::find(&state.db, user.id(), id).await? {
        None => {
            fields.error(key, FieldCode::NotFound);
            Ok(None)
        }
        Some(found) if found.photo.is_none() => {
            fields.error(key, FieldCode::RequiresPhoto);
            Ok(None)
        }
        Some(found) => Ok(Some(found)),
    }
}

/// Reads `fit`: one of [`FITS`]; `null` is `required`.
fn read_fit(fields: &mut Fields) -> Option<String> {
    match fields.text("fit", 16, false) {
        Patch::Value(fit) if FITS.contains(&fit.as_str()) => Some(fit),
        Patch::Value(_) => {
            fields.error("fit", FieldCode::InvalidValue);
            None
        }
        Patch::Null => {
            fields.error("fit", FieldCode::Required);
            None
        }
        Patch::Absent => None,
    }
}

/// Reads `background`: `#rrggbb` (stored lowercase); `null` is `required`.
fn read_background(fields: &mut Fields) -> Option<String> {
    match fields.text("background", 16, false) {
        Patch::Value(text)
            if text.len() == 7
                && text.starts_with('#')
                && text[1..].bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            Some(text.to_ascii_lowercase())
        }
        Patch::Value(_) => {
            fields.error("background", FieldCode::InvalidValue);
            None
        }
        Patch::Null => {
            fields.error("background", FieldCode::Required);
            None
        }
        Patch::Absent => None,
    }
}

/// Reads `adjustments` onto `current`: an object whose keys replace the current values (absent
/// keys stay; `null` for the whole object resets every adjustment). Each problem is reported
/// as `adjustments.<key>`.
fn read_adjustments(fields: &mut Fields, current: &Adjustments) -> Option<Adjustments> {
    let input = match fields.raw("adjustments") {
        Patch::Absent => return None,
        Patch::Null => return Some(default_adjustments()),
        Patch::Value(Value::Object(map)) => map,
        Patch::Value(_) => {
            fields.error("adjustments", FieldCode::InvalidType);
            return None;
        }
    };
    let mut merged: Map<String, Value> = match serde_json::to_value(current) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let mut ok = true;
    for (key, value) in input {
        let field = format!("adjustments.{key}");
        let mut bad = |fields: &mut Fields, code| {
            fields.error(&field, code);
            ok = false;
        };
        let range = if SIGNED.contains(&key.as_str()) {
            Some(-1.0..=1.0)
        } else if UNSIGNED.contains(&key.as_str()) {
            Some(0.0..=1.0)
        } else {
            None
        };
        match (key.as_str(), range, &value) {
            (_, Some(range), Value::Number(n)) => match n.as_f64() {
                Some(v) if range.contains(&v) => {}
                _ => bad(fields, FieldCode::OutOfRange),
            },
            (_, Some(_), _) => bad(fields, FieldCode::InvalidType),
            ("auto_match", _, Value::Bool(_)) => {}
            ("auto_match", _, _) => bad(fields, FieldCode::InvalidType),
            ("night", _, Value::Null) => {}
            ("night", _, Value::String(s)) if s == "backlit" || s == "led" => {}
            ("night", _, _) => bad(fields, FieldCode::InvalidValue),
            _ => bad(fields, FieldCode::UnknownField),
        }
        merged.insert(key, value);
    }
    if !ok {
        return None;
    }
    match serde_json::from_value(Value::Object(merged)) {
        Ok(adjustments) => Some(adjustments),
        Err(_) => {
            fields.error("adjustments", FieldCode::InvalidValue);
            None
        }
    }
}

/// Reads `render`: a boolean, `true` when absent.
fn read_render(fields: &mut Fields) -> bool {
    match fields.raw("render") {
        Patch::Value(Value::Bool(render)) => render,
        Patch::Absent | Patch::Null => true,
        Patch::Value(_) => {
            fields.error("render", FieldCode::InvalidType);
            true
        }
    }
}

/// Area of a quad given in normalised coordinates, in pixels² of a `width × height` photo.
fn area_px(quad: &[Point; 4], width: i64, height: i64) -> f64 {
    let (w, h) = (width as f64, height as f64);
    let twice: f64 = (0..4)
        .map(|i| {
            let (a, b) = (quad[i], quad[(i + 1) % 4]);
            a.0 * w * b.1 * h - b.0 * w * a.1 * h
        })
        .sum();
    twice.abs() / 2.0
}

/// The render settings of a body, applied onto `row`: `quad`, `fit`, `background`,
/// `adjustments`, `mask_media_id`. The quad is checked against the photo later.
async fn read_settings(
    state: &AppState,
    user: &ApiUser,
    fields: &mut Fields,
    row: &mut SimulationRow,
) -> Result<(), ApiError> {
    match fields.raw("quad") {
        Patch::Value(value) => match parse_quad(&value) {
            Ok(points) => row.quad = Some(quad_json(&points).to_string()),
            Err(code) => fields.error("quad", code),
        },
        Patch::Null => row.quad = None,
        Patch::Absent => {}
    }
    if let Some(fit) = read_fit(fields) {
        row.fit = fit;
    }
    if let Some(background) = read_background(fields) {
        row.background = background;
    }
    let current = serde_json::from_str(&row.adjustments).unwrap_or_else(|_| default_adjustments());
    if let Some(adjustments) = read_adjustments(fields, &current) {
        row.adjustments = serde_json::to_string(&adjustments).map_err(ApiError::internal)?;
    }
    match id_field(fields, "mask_media_id") {
        Patch::Value(id) => match db::media::find_owned(&state.db, user.id(), &id).await? {
            Some(media) if media.kind == "upload" => row.mask_media_id = Some(media.id),
            _ => fields.error("mask_media_id", FieldCode::NotFound),
        },
        Patch::Null => row.mask_media_id = None,
        Patch::Absent => {}
    }
    Ok(())
}

/// Checks the quad the render will use (the override, else the location's) against the photo:
/// one must exist (`quad: required`) and cover at least [`MIN_QUAD_AREA_PX`].
fn check_render_quad(fields: &mut Fields, row: &SimulationRow, location: &LocationWithPhoto) {
    if fields.has_error("quad") {
        return;
    }
    let text = row
        .quad
        .as_deref()
        .or(location.location.panel_quad.as_deref());
    let Some(quad) = text.and_then(job::parse_quad) else {
        fields.error("quad", FieldCode::Required);
        return;
    };
    if let Some(photo) = &location.photo
        && area_px(&quad, photo.width, photo.height) < MIN_QUAD_AREA_PX
    {
        fields.error("quad", FieldCode::TooSmall);
    }
}

/// The default name: "creative — location", at most [`MAX_NAME`] characters.
fn default_name(creative: &CreativeWithMedia, location: &LocationWithPhoto) -> String {
    format!("{} — {}", creative.creative.name, location.location.name)
        .chars()
        .take(MAX_NAME)
        .collect()
}

fn max_attempts(state: &AppState) -> i64 {
    i64::from(state.config.job_max_attempts.max(1))
}

/// A fresh row for `owner`, queued (with a token) or a draft.
fn new_row(
    user: &ApiUser,
    creative_id: &str,
    location_id: &str,
    render: bool,
    now: i64,
) -> SimulationRow {
    SimulationRow {
        id: uuid::Uuid::new_v4().to_string(),
        owner_id: user.id().to_owned(),
        creative_id: creative_id.to_owned(),
        location_id: location_id.to_owned(),
        fit: "cover".into(),
        background: "#ffffff".into(),
        adjustments: serde_json::to_string(&default_adjustments()).unwrap_or_default(),
        status: if render { "queued" } else { "draft" }.into(),
        render_token: render.then(|| uuid::Uuid::new_v4().to_string()),
        created_at: now,
        updated_at: now,
        ..SimulationRow::default()
    }
}

async fn find(state: &AppState, user: &ApiUser, id: &str) -> Result<SimulationView, ApiError> {
    let id = parse_id(id)?;
    sdb::find(&state.db, user.id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)
}

/// Answers a simulation read back after a write.
async fn respond(state: &AppState, user: &ApiUser, id: &str) -> Result<Value, ApiError> {
    let view = sdb::find(&state.db, user.id(), id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(simulation_json(state, &view, now_secs()))
}

/// Announces queued renders: `simulation` events first, then the workers' wake-up, so tabs see
/// `queued` before `rendering`.
async fn announce_queued(state: &AppState, user: &ApiUser, ids: &[&str]) {
    let ctx = state.job_context();
    for id in ids {
        job::publish(&ctx, user.id(), id, "queued", None).await;
    }
    state.bus.jobs_enqueued().await;
}

/// `POST /simulations` → 201 (`queued`, or `draft` with `render: false`).
async fn create(
    State(state): State<AppState>,
    user: ApiUser,
    JsonObject(mut fields): JsonObject,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let name = fields.text("name", MAX_NAME, false);
    let creative_id = id_field(&mut fields, "creative_id");
    let location_id = id_field(&mut fields, "location_id");
    let render = read_render(&mut fields);
    let now = db::now_ms();
    let mut row = new_row(&user, "", "", render, now);
    read_settings(&state, &user, &mut fields, &mut row).await?;
    let creative = match creative_id {
        Patch::Value(id) => find_creative(&state, &user, &mut fields, &id).await?,
        _ => {
            if !fields.has_error("creative_id") {
                fields.error("creative_id", FieldCode::Required);
            }
            None
        }
    };
    let location = match location_id {
        Patch::Value(id) => find_location(&state, &user, &mut fields, "location_id", &id).await?,
        _ => {
            if !fields.has_error("location_id") {
                fields.error("location_id", FieldCode::Required);
            }
            None
        }
    };
    if let Some(location) = &location {
        check_render_quad(&mut fields, &row, location);
    }
    fields.finish()?;
    let (Some(creative), Some(location)) = (creative, location) else {
        return Err(ApiError::internal(
            "simulation validation let a missing field through",
        ));
    };
    row.creative_id = creative.creative.id.clone();
    row.location_id = location.location.id.clone();
    row.name = match name {
        Patch::Value(name) => name,
        _ => default_name(&creative, &location),
    };
    let job_id = render.then(|| uuid::Uuid::new_v4().to_string());
    let id = row.id.clone();
    sdb::create(
        &state.db,
        &[NewSimulation { row, job_id }],
        max_attempts(&state),
    )
    .await?;
    if render {
        announce_queued(&state, &user, &[&id]).await;
    }
    Ok((
        StatusCode::CREATED,
        Json(respond(&state, &user, &id).await?),
    ))
}

/// `POST /simulations/batch {creative_id, location_ids, fit?, adjustments?, background?}` →
/// 201 `{items}`: one queued simulation per location, in the given order, in one transaction.
async fn batch(
    State(state): State<AppState>,
    user: ApiUser,
    JsonObject(mut fields): JsonObject,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let creative_id = id_field(&mut fields, "creative_id");
    let location_ids = fields.id_list("location_ids", MAX_BATCH);
    let now = db::now_ms();
    let mut template = new_row(&user, "", "", true, now);
    if let Some(fit) = read_fit(&mut fields) {
        template.fit = fit;
    }
    if let Some(background) = read_background(&mut fields) {
        template.background = background;
    }
    if let Some(adjustments) = read_adjustments(&mut fields, &default_adjustments()) {
        template.adjustments = serde_json::to_string(&adjustments).map_err(ApiError::internal)?;
    }
    let creative = match creative_id {
        Patch::Value(id) => find_creative(&state, &user, &mut fields, &id).await?,
        _ => {
            if !fields.has_error("creative_id") {
                fields.error("creative_id", FieldCode::Required);
            }
            None
        }
    };
    let mut locations = Vec::new();
    for id in location_ids.iter().flatten() {
        let Some(location) = find_location(&state, &user, &mut fields, "location_ids", id).await?
        else {
            break;
        };
        // The batch has no quad override: each location's own quad is used.
        let mut probe = Fields::default();
        check_render_quad(&mut probe, &template, &location);
        if probe.has_error("quad") {
            let code = if location.location.panel_quad.is_none() {
                FieldCode::RequiresQuad
            } else {
                FieldCode::TooSmall
            };
            fields.error("location_ids", code);
            break;
        }
        locations.push(location);
    }
    fields.finish()?;
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
    sdb::create(&state.db, &new, max_attempts(&state)).await?;
    let ids: Vec<&str> = new.iter().map(|n| n.row.id.as_str()).collect();
    announce_queued(&state, &user, &ids).await;
    let mut items = Vec::with_capacity(ids.len());
    for id in &ids {
        items.push(respond(&state, &user, id).await?);
    }
    Ok((StatusCode::CREATED, Json(json!({"items": items}))))
}

/// `GET /simulations?limit=&cursor=&q=&creative_id=&location_id=` → `{items, next_cursor}`.
async fn list(
    State(state): State<AppState>,
    user: ApiUser,
    list: ListQuery,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    // A filter id that is not a uuid matches nothing, like another user's id.
    let filter_id = |key: &str| {
        params.get(key).filter(|v| !v.trim().is_empty()).map(|v| {
            uuid::Uuid::parse_str(v.trim())
                .map(|id| id.hyphenated().to_string())
                .unwrap_or_else(|_| "-".into())
        })
    };
    let (creative_id, location_id) = (filter_id("creative_id"), filter_id("location_id"));
    let filter = ListFilter {
        creative_id: creative_id.as_deref(),
        location_id: location_id.as_deref(),
    };
    let rows = sdb::list(
        &state.db,
        user.id(),
        list.page.limit,
        list.after(),
        &list.q,
        &filter,
    )
    .await?;
    let now = now_secs();
    Ok(Json(list.page.respond(
        rows,
        |v| (v.sim.created_at, v.sim.id.as_str()),
        |v| simulation_json(&state, v, now),
    )))
}

/// `GET /simulations/{id}`.
async fn get_one(
    State(state): State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let view = find(&state, &user, &id).await?;
    Ok(Json(simulation_json(&state, &view, now_secs())))
}

/// `PATCH /simulations/{id}`: absent fields stay, `null` clears (`quad`: back to the
/// location's; `mask_media_id`: none; `adjustments`: defaults). Any change queues a new render
/// (new token: a render in flight is discarded when it saves) unless `render: false`, which
/// leaves a `draft` when render settings changed.
async fn update(
    State(state): State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
    JsonObject(mut fields): JsonObject,
) -> Result<Json<Value>, ApiError> {
    let view = find(&state, &user, &id).await?;
    let before = view.sim.clone();
    let mut row = before.clone();
    match fields.text("name", MAX_NAME, false) {
        Patch::Value(name) => row.name = name,
        Patch::Null => fields.error("name", FieldCode::Required),
        Patch::Absent => {}
    }
    let render = match fields.raw("render") {
        Patch::Value(Value::Bool(render)) => Some(render),
        Patch::Absent | Patch::Null => None,
        Patch::Value(_) => {
            fields.error("render", FieldCode::InvalidType);
            None
        }
    };
    let creative_id = id_field(&mut fields, "creative_id");
    let location_id = id_field(&mut fields, "location_id");
    read_settings(&state, &user, &mut fields, &mut row).await?;
    match creative_id {
        Patch::Value(id) => {
            if find_creative(&state, &user, &mut fields, &id)
                .await?
                .is_some()
            {
                row.creative_id = id;
            }
        }
        Patch::Null => fields.error("creative_id", FieldCode::Required),
        Patch::Absent => {}
    }
    let location = match location_id {
        Patch::Value(id) => find_location(&state, &user, &mut fields, "location_id", &id).await?,
        Patch::Null => {
            fields.error("location_id", FieldCode::Required);
            None
        }
        Patch::Absent => db::locations::find(&state.db, user.id(), &row.location_id).await?,
    };
    if let Some(location) = &location {
        row.location_id = location.location.id.clone();
        check_render_quad(&mut fields, &row, location);
    }
    fields.finish()?;
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
            row.status = "draft".into();
            row.render_token = None;
            row.error_code = None;
            row.error_message = None;
        }
        RenderChange::Queue { .. } => {
            row.status = "queued".into();
            row.render_token = Some(uuid::Uuid::new_v4().to_string());
            row.error_code = None;
            row.error_message = None;
        }
    }
    row.updated_at = db::now_ms().max(row.updated_at);
    if !sdb::update(&state.db, &row, &change, max_attempts(&state)).await? {
        return Err(ApiError::not_found());
    }
    if before.mask_media_id.is_some() && before.mask_media_id != row.mask_media_id {
        release(&state, before.mask_media_id.as_deref().unwrap_or_default()).await;
    }
    match change {
        RenderChange::Queue { .. } => announce_queued(&state, &user, &[&row.id]).await,
        RenderChange::Draft if before.status != "draft" => {
            job::publish(&state.job_context(), user.id(), &row.id, "draft", None).await;
        }
        _ => {}
    }
    Ok(Json(respond(&state, &user, &row.id).await?))
}

/// `DELETE /simulations/{id}` → 204; its jobs go with it, its output and mask are released
/// (a render that a heatmap uses stays there).
async fn delete_one(
    State(state): State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = parse_id(&id)?;
    let media = sdb::delete(&state.db, user.id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    for media_id in media {
        release(&state, &media_id).await;
    }
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /simulations/{id}/render` → 202, queued again (after a failure, or to redo a draft);
/// 409 `already_rendering` while queued or rendering.
async fn render(
    State(state): State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let view = find(&state, &user, &id).await?;
    // The settings may have become unrenderable since (the location's photo was removed).
    let mut fields = Fields::default();
    match db::locations::find(&state.db, user.id(), &view.sim.location_id).await? {
        Some(location) if location.photo.is_some() => {
            check_render_quad(&mut fields, &view.sim, &location)
        }
        _ => fields.error("location_id", FieldCode::RequiresPhoto),
    }
    fields.finish()?;
    let token = uuid::Uuid::new_v4().to_string();
    let job_id = uuid::Uuid::new_v4().to_string();
    let id = view.sim.id;
    match sdb::queue_render(
        &state.db,
        user.id(),
        &id,
        &token,
        &job_id,
        max_attempts(&state),
    )
    .await?
    {
        Render::NotFound => return Err(ApiError::not_found()),
        Render::AlreadyRendering => {
            return Err(ApiError::new(ErrorCode::AlreadyRendering));
        }
        Render::Queued => {}
    }
    announce_queued(&state, &user, &[&id]).await;
    Ok((
        StatusCode::ACCEPTED,
        Json(respond(&state, &user, &id).await?),
    ))
}

/// `POST /simulations/{id}/attention` → 202 `{heatmap_id}`: a one-image heatmap of the current
/// output, with the panel's quad as its area of interest; 409 `not_rendered` without output.
async fn attention(
    State(state): State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let view = find(&state, &user, &id).await?;
    let not_rendered = || ApiError::new(ErrorCode::NotRendered);
    let output: &MediaRow = view.output.as_ref().ok_or_else(not_rendered)?;
    let location_quad = view.location.as_ref().and_then(|l| l.panel_quad.as_deref());
    let aoi = view
        .sim
        .quad
        .as_deref()
        .or(location_quad)
        .and_then(job::parse_quad)
        .map(|quad| quad_json(&quad).to_string())
        .ok_or_else(not_rendered)?;
    let now = db::now_ms();
    let heatmap = HeatmapRow {
        id: uuid::Uuid::new_v4().to_string(),
        owner_id: user.id().to_owned(),
        name: view.sim.name.clone(),
        created_at: now,
        updated_at: now,
    };
    let item = NewItem {
        id: uuid::Uuid::new_v4().to_string(),
        source_media_id: output.id.clone(),
        job_id: uuid::Uuid::new_v4().to_string(),
        aoi: Some(aoi),
    };
    hdb::create(&state.db, &heatmap, &[item], max_attempts(&state)).await?;
    state.bus.jobs_enqueued().await;
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({"heatmap_id": heatmap.id})),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quad_areas_are_in_photo_pixels() {
        let square = [(0.0, 0.0), (0.5, 0.0), (0.5, 0.5), (0.0, 0.5)];
        assert!((area_px(&square, 400, 200) - 200.0 * 100.0).abs() < 1e-9);
        let tiny = [(0.0, 0.0), (0.001, 0.0), (0.001, 0.001), (0.0, 0.001)];
        assert!(area_px(&tiny, 1000, 1000) < MIN_QUAD_AREA_PX);
    }

    #[test]
    fn adjustments_are_checked_per_key() {
        let mut fields = Fields::new(
            json!({"adjustments": {"brightness": 2, "grain": "x", "night": "day", "bogus": 1,
                                   "contrast": 0.5}})
            .as_object()
            .unwrap()
            .clone(),
        );
        assert_eq!(read_adjustments(&mut fields, &Adjustments::default()), None);
        let err = fields.finish().unwrap_err();
        let body = format!("{err:?}");
        for key in [
            "adjustments.brightness",
            "adjustments.grain",
            "adjustments.night",
            "adjustments.bogus",
        ] {
            assert!(body.contains(key), "{key} in {body}");
        }
        assert!(!body.contains("adjustments.contrast"), "{body}");
        let mut fields = Fields::new(
            json!({"adjustments": {"contrast": 0.5, "night": "led"}})
                .as_object()
                .unwrap()
                .clone(),
        );
        let merged = read_adjustments(&mut fields, &default_adjustments()).unwrap();
        assert_eq!(merged.contrast, 0.5);
        assert!(merged.auto_match, "absent keys keep their current value");
    }
}
