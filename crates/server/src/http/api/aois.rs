//! Areas of interest on heatmap items: `POST /heatmaps/{id}/items/{item_id}/aois`,
//! `PATCH`/`DELETE /heatmaps/{id}/items/{item_id}/aois/{aoi_id}`, and
//! `POST /heatmaps/{id}/aois/copy` (the same areas on the other images). Shapes and codes:
//! docs/architecture/heatmaps.md.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::body::{Body, Id, IdList, IdPath, Line, Patch, Problems, body_pair};
use super::error::ApiError;
use super::heatmaps::{Aoi, Heatmap, Point, Rect, aoi_body, heatmap_body};
use super::input::Member;
use super::media::now_secs;
use crate::codes::{ErrorCode, FieldCode};
use crate::db::aois::{self as adb, AoiRow, AoiShape, AoiWriteError};
use crate::db::heatmaps::{self as hdb, HeatmapWithItems, ItemRow};
use crate::db::{self};
use crate::heatmaps::ItemStatus;
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

body_pair! {
    /// The body of `POST …/aois`: `name` and one of `rect` or `points`.
    #[derive(Deserialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    struct NewAoi {
        /// At most 80 characters, unique on the image.
        #[serde(default)]
        #[schema(value_type = String, max_length = 80, format = "name", required = true)]
        name: Patch<Line<MAX_NAME>>,
    }

    /// The body of `PATCH …/aois/{aoi_id}`: any of the fields of [`NewAoi`].
    #[derive(Deserialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    struct AoiChanges {
        /// At most 80 characters, unique on the image; cannot be cleared.
        #[serde(default)]
        #[schema(value_type = String, max_length = 80, format = "name")]
        name: Patch<Line<MAX_NAME>>,
    }

    shared {
        /// A rectangle, at least 1% of the image; not with `points`.
        #[serde(default)]
        #[schema(value_type = Rect)]
        rect: Patch<Value>,
        /// A polygon of 3 to 32 points inside the image, at least 1% of it; not with `rect`.
        #[serde(default)]
        #[schema(value_type = Vec<Point>, min_items = 3, max_items = 32)]
        points: Patch<Value>,
    }
}

/// The body of `POST /heatmaps/{id}/aois/copy`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct AoiCopy {
    /// The image whose areas are copied.
    #[serde(default)]
    #[schema(value_type = uuid::Uuid, required = true)]
    from_item_id: Patch<String>,
    /// Which of its areas (all by default).
    #[serde(default)]
    #[schema(value_type = Vec<uuid::Uuid>, min_items = 1, max_items = 30)]
    aoi_ids: Patch<IdList<{ MAX_PER_ITEM as usize }>>,
    /// Onto which images (every other one by default).
    #[serde(default)]
    #[schema(value_type = Vec<uuid::Uuid>, min_items = 1, max_items = 20)]
    to_item_ids: Patch<IdList<{ super::heatmaps::MAX_ITEMS }>>,
}

/// The caller's heatmap and one of its items, or 404.
async fn owned_item(
    state: &AppState,
    user: &Member,
    id: &str,
    item_id: &str,
) -> Result<(HeatmapWithItems, ItemRow), ApiError> {
    let found = hdb::find_owned(&state.db, user.workspace_id(), id)
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
    problems: &mut Problems,
    key: &str,
    value: &Value,
    parse: fn(&Value) -> Result<Shape, FieldCode>,
) -> Option<Shape> {
    match parse(value) {
        Ok(shape) => Some(shape),
        Err(code) => {
            problems.add(key, code);
            None
        }
    }
}

/// Reads the shape: exactly one of `rect` (`{x, y, width, height}`) or `points` (a polygon).
/// `required` says whether it may be absent (a rename).
fn shape_field(
    problems: &mut Problems,
    rect: Patch<Value>,
    points: Patch<Value>,
    required: bool,
) -> Option<Shape> {
    match (rect, points) {
        (Patch::Value(_), Patch::Value(_)) => {
            problems.add("points", FieldCode::Conflict);
            None
        }
        (Patch::Value(value), Patch::Absent) => parsed(problems, "rect", &value, parse_rect),
        (Patch::Absent, Patch::Value(value)) => parsed(problems, "points", &value, parse_polygon),
        (Patch::Null, _) => {
            problems.add("rect", FieldCode::InvalidType);
            None
        }
        (_, Patch::Null) => {
            problems.add("points", FieldCode::InvalidType);
            None
        }
        (Patch::Absent, Patch::Absent) => {
            if required {
                problems.require("rect");
            }
            None
        }
    }
}

fn name_field(
    problems: &mut Problems,
    name: Patch<Line<MAX_NAME>>,
    required: bool,
) -> Option<String> {
    match name {
        Patch::Value(Line(name)) => Some(name),
        Patch::Null => {
            problems.require("name");
            None
        }
        Patch::Absent => {
            if required {
                problems.require("name");
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
        .filter(|_| ItemStatus::has_result(&item.status))
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
    request_body = NewAoi,
    responses((status = 201, description = "The new area", body = Aoi))
)]
async fn create(
    State(state): State<AppState>,
    user: Member,
    IdPath((id, item_id)): IdPath<(Id, Id)>,
    Body(input, mut problems): Body<NewAoi>,
) -> Result<(StatusCode, Json<Aoi>), ApiError> {
    let (found, item) = owned_item(&state, &user, &id, &item_id).await?;
    let name = name_field(&mut problems, input.name, true);
    let shape = shape_field(&mut problems, input.rect, input.points, true);
    problems.finish()?;
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
        owner_id: user.workspace_id().to_owned(),
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
    request_body = AoiChanges,
    responses((status = 200, description = "The area, changed", body = Aoi))
)]
async fn update(
    State(state): State<AppState>,
    user: Member,
    IdPath((id, item_id, Id(aoi_id))): IdPath<(Id, Id, Id)>,
    Body(input, mut problems): Body<AoiChanges>,
) -> Result<Json<Aoi>, ApiError> {
    let (found, item) = owned_item(&state, &user, &id, &item_id).await?;
    if !found.aois_of(&item.id).any(|a| a.id == aoi_id) {
        return Err(ApiError::not_found());
    }
    let name = name_field(&mut problems, input.name, false);
    let shape = shape_field(&mut problems, input.rect, input.points, false);
    problems.finish()?;
    let shape = shape.map(|s| AoiShape {
        shape: s.kind,
        points: s.points_json().to_string(),
    });
    adb::update(
        &state.db,
        user.workspace_id(),
        &aoi_id,
        name.as_deref(),
        shape.as_ref(),
        db::now_ms(),
    )
    .await
    .map_err(write_error)?
    .ok_or_else(ApiError::not_found)?;
    let saved = adb::find_owned(
        &state.db,
        user.workspace_id(),
        &found.heatmap.id,
        &item.id,
        &aoi_id,
    )
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
    user: Member,
    IdPath((id, item_id, aoi_id)): IdPath<(Id, Id, Id)>,
) -> Result<StatusCode, ApiError> {
    let (_, item) = owned_item(&state, &user, &id, &item_id).await?;
    if adb::delete(&state.db, user.workspace_id(), &item.id, &aoi_id).await? {
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
    user: Member,
    IdPath(id): IdPath<Id>,
    Body(copy, mut problems): Body<AoiCopy>,
) -> Result<Json<Heatmap>, ApiError> {
    let found = hdb::find_owned(&state.db, user.workspace_id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let item_of = |raw: &str| {
        uuid::Uuid::parse_str(raw.trim())
            .ok()
            .map(|id| id.hyphenated().to_string())
            .filter(|id| found.items.iter().any(|i| &i.id == id))
    };
    let from = match problems.required("from_item_id", copy.from_item_id) {
        Some(raw) => {
            let from = item_of(&raw);
            if from.is_none() {
                problems.add("from_item_id", FieldCode::NotFound);
            }
            from
        }
        None => None,
    };
    // Absent: the defaults; `null` is no list.
    let aoi_ids = problems.not_null("aoi_ids", copy.aoi_ids).map(|ids| ids.0);
    let to_ids = problems
        .not_null("to_item_ids", copy.to_item_ids)
        .map(|ids| ids.0);
    let mut sources: Vec<AoiRow> = Vec::new();
    if let Some(from) = &from {
        sources = found.aois_of(from).cloned().collect();
        if let Some(ids) = &aoi_ids {
            if ids.iter().any(|id| !sources.iter().any(|a| &a.id == id)) {
                problems.add("aoi_ids", FieldCode::NotFound);
            }
            sources.retain(|a| ids.contains(&a.id));
        }
    }
    let targets: Vec<String> = match &to_ids {
        Some(ids) => {
            if ids.iter().any(|id| item_of(id).is_none()) {
                problems.add("to_item_ids", FieldCode::NotFound);
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
    problems.finish()?;
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
    let found = hdb::find_owned(&state.db, user.workspace_id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(Json(heatmap_body(
        &state.signer.for_member(user.user_id()),
        &found,
        now_secs(),
    )))
}
