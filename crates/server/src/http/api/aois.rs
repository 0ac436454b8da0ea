//! Areas of interest on heatmap items: `POST /heatmaps/{id}/items/{item_id}/aois`,
//! `PATCH`/`DELETE /heatmaps/{id}/items/{item_id}/aois/{aoi_id}`, and
//! `POST /heatmaps/{id}/aois/copy` (the same areas on the other images). Shapes and codes:
//! docs/architecture/heatmaps.md.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde_json::{Value, json};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ApiError;
use super::heatmaps::{Aoi, Heatmap, Point, aoi_body, heatmap_body};
use super::input::{ApiUser, Fields, JsonObject, Patch, parse_id};
use super::media::now_secs;
use crate::codes::{ErrorCode, FieldCode};
use crate::db::aois::{self as adb, AoiRow, AoiShape, AoiWriteError};
use crate::db::heatmaps::{self as hdb, HeatmapWithItems, ItemRow};
use crate::db::{self};
use crate::heatmaps::aoi::{ItemAttention, Shape, parse_polygon, parse_rect};
use crate::heatmaps::result::HeatmapResult;
use crate::state::AppState;

/// Longest area name, in characters.
pub const MAX_NAME: usize = 80;
/// Most areas on one image.
pub const MAX_PER_ITEM: i64 = 30;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create))
        .routes(routes!(update, delete_one))
        .routes(routes!(copy))
}

/// A rectangle relative to the image.
#[derive(ToSchema)]
#[allow(dead_code)] // Read by `parse_rect`; this type describes it.
struct RectInput {
    x: f64,
    y: f64,
    width: f64,
    height: f64,
}

/// The body of `POST …/aois` (`name` and one of `rect` or `points` required) and of
/// `PATCH …/aois/{aoi_id}` (any of them).
#[derive(ToSchema)]
#[allow(dead_code)] // Read field by field (see `shape_field`); this type describes it.
struct AoiInput {
    /// At most 80 characters, unique on the image.
    name: Option<String>,
    /// A rectangle, at least 1% of the image.
    rect: Option<RectInput>,
    /// A polygon of 3 to 32 points inside the image, at least 1% of it.
    points: Option<Vec<Point>>,
}

/// The body of `POST /heatmaps/{id}/aois/copy`.
#[derive(ToSchema)]
#[allow(dead_code)] // Read field by field in `copy`; this type describes it.
struct AoiCopy {
    /// The image whose areas are copied.
    from_item_id: String,
    /// Which of its areas (all by default).
    aoi_ids: Option<Vec<String>>,
    /// Onto which images (every other one by default).
    to_item_ids: Option<Vec<String>>,
}

/// The caller's heatmap and one of its items, or 404.
async fn owned_item(
    state: &AppState,
    user: &ApiUser,
    id: &str,
    item_id: &str,
) -> Result<(HeatmapWithItems, ItemRow), ApiError> {
    let (id, item_id) = (parse_id(id)?, parse_id(item_id)?);
    let found = hdb::find_owned(&state.db, user.id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let item = found
        .items
        .iter()
        .find(|i| i.id == item_id)
        .cloned()
        .ok_or_else(ApiError::not_found)?;
    Ok((found, item))
}

/// Runs a shape parser on a field's value, recording its error code.
fn parsed(
    fields: &mut Fields,
    key: &str,
    value: &Value,
    parse: fn(&Value) -> Result<Shape, FieldCode>,
) -> Option<Shape> {
    match parse(value) {
        Ok(shape) => Some(shape),
        Err(code) => {
            fields.error(key, code);
            None
        }
    }
}

/// Reads the shape: exactly one of `rect` (`{x, y, width, height}`) or `points` (a polygon).
/// `required` says whether it may be absent (a rename).
fn shape_field(fields: &mut Fields, required: bool) -> Option<Shape> {
    let rect = fields.raw("rect");
    let points = fields.raw("points");
    match (rect, points) {
        (Patch::Value(_), Patch::Value(_)) => {
            fields.error("points", FieldCode::Conflict);
            None
        }
        (Patch::Value(value), Patch::Absent) => parsed(fields, "rect", &value, parse_rect),
        (Patch::Absent, Patch::Value(value)) => parsed(fields, "points", &value, parse_polygon),
        (Patch::Null, _) => {
            fields.error("rect", FieldCode::InvalidType);
            None
        }
        (_, Patch::Null) => {
            fields.error("points", FieldCode::InvalidType);
            None
        }
        (Patch::Absent, Patch::Absent) => {
            if required {
                fields.error("rect", FieldCode::Required);
            }
            None
        }
    }
}

fn name_field(fields: &mut Fields, required: bool) -> Option<String> {
    match fields.text("name", MAX_NAME, false) {
        Patch::Value(name) => Some(name),
        Patch::Null => {
            fields.error("name", FieldCode::Required);
            None
        }
        Patch::Absent => {
            if required && !fields.has_error("name") {
                fields.error("name", FieldCode::Required);
            }
            None
        }
    }
}

fn write_error(err: AoiWriteError) -> ApiError {
    match err {
        AoiWriteError::NameTaken => ApiError::field("name", FieldCode::Taken),
        AoiWriteError::TooMany => {
            ApiError::new(ErrorCode::TooManyAois).with_details(json!({ "max": MAX_PER_ITEM }))
        }
        AoiWriteError::Db(err) => err.into(),
    }
}

/// An area as answered, with what it receives of its item's attention.
fn answer(item: &ItemRow, aoi: &AoiRow) -> Aoi {
    let attention = item
        .result
        .as_deref()
        .filter(|_| item.status == "done")
        .and_then(|text| HeatmapResult::parse(text, &item.id))
        .and_then(|result| ItemAttention::from_result(&result));
    aoi_body(aoi, attention.as_ref())
}

/// `POST /heatmaps/{id}/items/{item_id}/aois {name, rect | points}` → 201 with the area.
#[utoipa::path(
    post,
    path = "/heatmaps/{id}/items/{item_id}/aois",
    tag = "areas",
    params(
        ("id" = String, Path, description = "The heatmap's id"),
        ("item_id" = String, Path, description = "The image's id"),
    ),
    request_body = AoiInput,
    responses((status = 201, description = "The new area", body = Aoi))
)]
async fn create(
    State(state): State<AppState>,
    user: ApiUser,
    Path((id, item_id)): Path<(String, String)>,
    JsonObject(mut fields): JsonObject,
) -> Result<(StatusCode, Json<Aoi>), ApiError> {
    let (found, item) = owned_item(&state, &user, &id, &item_id).await?;
    let name = name_field(&mut fields, true);
    let shape = shape_field(&mut fields, true);
    fields.finish()?;
    let (Some(name), Some(shape)) = (name, shape) else {
        return Err(ApiError::internal(
            "area validation let a missing field through",
        ));
    };
    let now = db::now_ms();
    let aoi = AoiRow {
        id: uuid::Uuid::new_v4().to_string(),
        item_id: item.id.clone(),
        heatmap_id: found.heatmap.id.clone(),
        owner_id: user.id().to_owned(),
        name,
        shape: shape.kind.to_owned(),
        points: shape.points_json().to_string(),
        created_at: now,
        updated_at: now,
    };
    adb::insert(&state.db, &aoi, MAX_PER_ITEM)
        .await
        .map_err(write_error)?;
    Ok((StatusCode::CREATED, Json(answer(&item, &aoi))))
}

/// `PATCH /heatmaps/{id}/items/{item_id}/aois/{aoi_id} {name?, rect? | points?}` → 200.
#[utoipa::path(
    patch,
    path = "/heatmaps/{id}/items/{item_id}/aois/{aoi_id}",
    tag = "areas",
    params(
        ("id" = String, Path, description = "The heatmap's id"),
        ("item_id" = String, Path, description = "The image's id"),
        ("aoi_id" = String, Path, description = "The area's id"),
    ),
    request_body = AoiInput,
    responses((status = 200, description = "The area, changed", body = Aoi))
)]
async fn update(
    State(state): State<AppState>,
    user: ApiUser,
    Path((id, item_id, aoi_id)): Path<(String, String, String)>,
    JsonObject(mut fields): JsonObject,
) -> Result<Json<Aoi>, ApiError> {
    let (found, item) = owned_item(&state, &user, &id, &item_id).await?;
    let aoi_id = parse_id(&aoi_id)?;
    if !found.aois_of(&item.id).any(|a| a.id == aoi_id) {
        return Err(ApiError::not_found());
    }
    let name = name_field(&mut fields, false);
    let shape = shape_field(&mut fields, false);
    fields.finish()?;
    let shape = shape.map(|s| AoiShape {
        shape: s.kind,
        points: s.points_json().to_string(),
    });
    adb::update(
        &state.db,
        user.id(),
        &aoi_id,
        name.as_deref(),
        shape.as_ref(),
        db::now_ms(),
    )
    .await
    .map_err(write_error)?
    .ok_or_else(ApiError::not_found)?;
    let saved = adb::find_owned(&state.db, user.id(), &found.heatmap.id, &item.id, &aoi_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(Json(answer(&item, &saved)))
}

/// `DELETE /heatmaps/{id}/items/{item_id}/aois/{aoi_id}` → 204.
#[utoipa::path(
    delete,
    path = "/heatmaps/{id}/items/{item_id}/aois/{aoi_id}",
    tag = "areas",
    params(
        ("id" = String, Path, description = "The heatmap's id"),
        ("item_id" = String, Path, description = "The image's id"),
        ("aoi_id" = String, Path, description = "The area's id"),
    ),
    responses((status = 204, description = "Deleted"))
)]
async fn delete_one(
    State(state): State<AppState>,
    user: ApiUser,
    Path((id, item_id, aoi_id)): Path<(String, String, String)>,
) -> Result<StatusCode, ApiError> {
    let (_, item) = owned_item(&state, &user, &id, &item_id).await?;
    let aoi_id = parse_id(&aoi_id)?;
    if adb::delete(&state.db, user.id(), &item.id, &aoi_id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found())
    }
}

/// `POST /heatmaps/{id}/aois/copy {from_item_id, aoi_ids?, to_item_ids?}` → 200 with the
/// heatmap. Each chosen area of `from_item_id` (all by default) is put on each target item
/// (every other item by default) at the same relative position; a target's area of the same
/// name takes the copied shape. One transaction: all or nothing.
#[utoipa::path(
    post,
    path = "/heatmaps/{id}/aois/copy",
    tag = "areas",
    params(("id" = String, Path, description = "The heatmap's id")),
    request_body = AoiCopy,
    responses((status = 200, description = "The heatmap, with the copies", body = Heatmap))
)]
async fn copy(
    State(state): State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
    JsonObject(mut fields): JsonObject,
) -> Result<Json<Heatmap>, ApiError> {
    let id = parse_id(&id)?;
    let found = hdb::find_owned(&state.db, user.id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let item_of = |raw: &str| {
        uuid::Uuid::parse_str(raw.trim())
            .ok()
            .map(|id| id.hyphenated().to_string())
            .filter(|id| found.items.iter().any(|i| &i.id == id))
    };
    let from = match fields.raw("from_item_id") {
        Patch::Value(Value::String(raw)) => {
            let from = item_of(&raw);
            if from.is_none() {
                fields.error("from_item_id", FieldCode::NotFound);
            }
            from
        }
        Patch::Value(_) => {
            fields.error("from_item_id", FieldCode::InvalidType);
            None
        }
        Patch::Null | Patch::Absent => {
            fields.error("from_item_id", FieldCode::Required);
            None
        }
    };
    let aoi_ids = fields
        .has("aoi_ids")
        .then(|| fields.id_list("aoi_ids", MAX_PER_ITEM as usize))
        .flatten();
    let to_ids = fields
        .has("to_item_ids")
        .then(|| fields.id_list("to_item_ids", super::heatmaps::MAX_ITEMS))
        .flatten();
    let mut sources: Vec<AoiRow> = Vec::new();
    if let Some(from) = &from {
        sources = found.aois_of(from).cloned().collect();
        if let Some(ids) = &aoi_ids {
            if ids.iter().any(|id| !sources.iter().any(|a| &a.id == id)) {
                fields.error("aoi_ids", FieldCode::NotFound);
            }
            sources.retain(|a| ids.contains(&a.id));
        }
    }
    let targets: Vec<String> = match &to_ids {
        Some(ids) => {
            if ids.iter().any(|id| item_of(id).is_none()) {
                fields.error("to_item_ids", FieldCode::NotFound);
            }
            ids.iter()
                .filter(|id| Some(*id) != from.as_ref())
                .cloned()
                .collect()
        }
        None => found
            .items
            .iter()
            .map(|i| i.id.clone())
            .filter(|id| Some(id) != from.as_ref())
            .collect(),
    };
    fields.finish()?;
    adb::copy(
        &state.db,
        &sources,
        &targets,
        MAX_PER_ITEM,
        db::now_ms(),
        || uuid::Uuid::new_v4().to_string(),
    )
    .await
    .map_err(write_error)?;
    let found = hdb::find_owned(&state.db, user.id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(Json(heatmap_body(&state, &found, now_secs())))
}
