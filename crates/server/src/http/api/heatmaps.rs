//! Heatmaps: `POST /heatmaps` (202: the work is queued as jobs), `GET /heatmaps`,
//! `GET`/`DELETE /heatmaps/{id}`, `POST /heatmaps/{id}/items/{item_id}/retry`, and
//! `GET /media/{id}/heatmap` (the latest result for one image). Shapes:
//! docs/architecture/heatmaps.md.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};

use super::error::ApiError;
use super::input::{ApiUser, JsonObject, ListQuery, Patch, parse_id, rfc3339};
use super::media::{media_json, now_secs, release};
use crate::codes::{ErrorCode, FieldCode};
use crate::db::aois::AoiRow;
use crate::db::heatmaps::{
    self as hdb, HeatmapRow, HeatmapSummary, HeatmapWithItems, ItemRow, NewItem, Retry,
};
use crate::db::media::MediaLabel;
use crate::db::{self};
use crate::heatmaps::aoi::{ItemAttention, bounds_json, stored_points};
use crate::heatmaps::job;
use crate::state::AppState;

/// Longest heatmap name, in characters.
pub const MAX_NAME: usize = 200;
/// Most images in one heatmap.
pub const MAX_ITEMS: usize = 20;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/heatmaps", get(list).post(create))
        .route("/heatmaps/{id}", get(get_one).delete(delete_one))
        .route("/heatmaps/{id}/items/{item_id}/retry", post(retry))
        .route("/media/{id}/heatmap", get(for_media))
}

/// An item's JSON, with signed URLs of its source and outputs, and its areas of interest with
/// what each receives of the attention (once the item is done).
pub(super) fn item_json<'a>(
    state: &AppState,
    item: &ItemRow,
    label: Option<&MediaLabel>,
    aois: impl IntoIterator<Item = &'a AoiRow>,
    now: u64,
) -> Value {
    let exp = state.signer.expiry(now);
    let mut attention = None;
    let result = match (&item.result, item.status.as_str()) {
        (Some(text), "done") => {
            let mut result: Value = serde_json::from_str(text).unwrap_or_else(|err| {
                tracing::error!(error = %err, item_id = %item.id, "stored heatmap result is not JSON");
                Value::Null
            });
            attention = ItemAttention::from_result(&result);
            let url = |id: &Option<String>, variant: &str| {
                id.as_deref()
                    .map(|id| state.signer.url(id, variant, exp))
                    .map_or(Value::Null, Value::String)
            };
            if let Some(object) = result.as_object_mut() {
                object.insert(
                    "urls".into(),
                    json!({
                        "map": url(&item.map_media_id, "original"),
                        "overlay": url(&item.overlay_media_id, "original"),
                        "fog": url(&item.fog_media_id, "original"),
                        "overlay_thumbnail": url(&item.overlay_media_id, "thumbnail"),
                    }),
                );
            }
            result
        }
        _ => Value::Null,
    };
    let error = match (&item.error_code, &item.error_message) {
        (Some(code), message) => json!({"code": code, "message": message.as_deref().unwrap_or("")}),
        _ => Value::Null,
    };
    json!({
        "id": item.id,
        "position": item.position,
        "status": item.status,
        "error": if item.status == "failed" { error } else { Value::Null },
        "source": media_json(&state.signer, &item.source, now),
        "label": label.map_or(Value::Null, |l| json!({"kind": l.kind, "id": l.id, "name": l.name})),
        "attempts": item.attempts,
        "started_at": item.started_at.map(rfc3339),
        "finished_at": item.finished_at.map(rfc3339),
        "aoi": item.aoi.as_deref().and_then(|text| serde_json::from_str::<Value>(text).ok()),
        "aois": aois
            .into_iter()
            .map(|aoi| aoi_json(aoi, attention.as_ref()))
            .collect::<Vec<_>>(),
        "result": result,
    })
}

fn summary_fields(
    heatmap: &HeatmapRow,
    counts: hdb::ItemCounts,
    (score, best_score): (Option<f64>, Option<f64>),
    thumbnail: Value,
) -> Value {
    json!({
        "id": heatmap.id,
        "name": heatmap.name,
        "status": counts.status(),
        "item_count": counts.total,
        "done_count": counts.done,
        "failed_count": counts.failed,
        "score": score,
        "best_score": best_score,
        "thumbnail": thumbnail,
        "created_at": rfc3339(heatmap.created_at),
        "updated_at": rfc3339(heatmap.updated_at),
    })
}

fn summary_json(state: &AppState, row: &HeatmapSummary, now: u64) -> Value {
    let thumbnail = row.first_source.as_ref().map_or(Value::Null, |m| {
        Value::String(
            state
                .signer
                .url(&m.id, "thumbnail", state.signer.expiry(now)),
        )
    });
    summary_fields(
        &row.heatmap,
        row.counts,
        (row.score, row.best_score),
        thumbnail,
    )
}

pub(super) fn heatmap_json(state: &AppState, found: &HeatmapWithItems, now: u64) -> Value {
    let thumbnail = found.items.first().map_or(Value::Null, |i| {
        Value::String(
            state
                .signer
                .url(&i.source.id, "thumbnail", state.signer.expiry(now)),
        )
    });
    let mut body = summary_fields(
        &found.heatmap,
        found.counts(),
        (found.score(), found.best_score()),
        thumbnail,
    );
    body["items"] = found
        .items
        .iter()
        .map(|item| {
            let label = found.labels.get(&item.source.id);
            item_json(state, item, label, found.aois_of(&item.id), now)
        })
        .collect();
    body
}

/// An area of interest's JSON: its shape, and what it receives of the attention (null until
/// its item is done).
pub(super) fn aoi_json(aoi: &AoiRow, attention: Option<&ItemAttention>) -> Value {
    let points = stored_points(&aoi.points);
    json!({
        "id": aoi.id,
        "item_id": aoi.item_id,
        "name": aoi.name,
        "shape": aoi.shape,
        "points": points.iter().map(|(x, y)| json!({"x": x, "y": y})).collect::<Vec<_>>(),
        "rect": bounds_json(&points),
        "attention": attention.map_or(Value::Null, |a| a.of(&points)),
        "created_at": rfc3339(aoi.created_at),
        "updated_at": rfc3339(aoi.updated_at),
    })
}

/// `POST /heatmaps {name, media_ids}` → 202 with the heatmap and its queued items.
async fn create(
    State(state): State<AppState>,
    user: ApiUser,
    JsonObject(mut fields): JsonObject,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let name = match fields.text("name", MAX_NAME, false) {
        Patch::Value(name) => Some(name),
        Patch::Null | Patch::Absent => {
            if !fields.has_error("name") {
                fields.error("name", FieldCode::Required);
            }
            None
        }
    };
    let ids = fields.id_list("media_ids", MAX_ITEMS);
    let mut sources = Vec::new();
    if let Some(ids) = &ids {
        for id in ids {
            match db::media::find_owned(&state.db, user.id(), id).await? {
                // Only images the user can see as images: uploads and renders, not our outputs.
                Some(media) if media.kind != "heatmap" => sources.push(media),
                _ => {
                    fields.error("media_ids", FieldCode::NotFound);
                    break;
                }
            }
        }
    }
    fields.finish()?;
    let Some(name) = name else {
        return Err(ApiError::internal(
            "heatmap validation let a missing name through",
        ));
    };
    let now = db::now_ms();
    let heatmap = HeatmapRow {
        id: uuid::Uuid::new_v4().to_string(),
        owner_id: user.id().to_owned(),
        name,
        created_at: now,
        updated_at: now,
    };
    let items: Vec<NewItem> = sources
        .iter()
        .map(|media| NewItem {
            id: uuid::Uuid::new_v4().to_string(),
            source_media_id: media.id.clone(),
            job_id: uuid::Uuid::new_v4().to_string(),
            aoi: None,
        })
        .collect();
    hdb::create(
        &state.db,
        &heatmap,
        &items,
        i64::from(state.config.job_max_attempts.max(1)),
    )
    .await?;
    state.bus.jobs_enqueued().await;
    let found = hdb::find_owned(&state.db, user.id(), &heatmap.id)
        .await?
        .ok_or_else(|| ApiError::internal("a heatmap vanished right after its creation"))?;
    Ok((
        StatusCode::ACCEPTED,
        Json(heatmap_json(&state, &found, now_secs())),
    ))
}

/// `GET /heatmaps?limit=&cursor=&q=` → `{items, next_cursor}`, newest first.
async fn list(
    State(state): State<AppState>,
    user: ApiUser,
    list: ListQuery,
) -> Result<Json<Value>, ApiError> {
    let rows = hdb::list(&state.db, user.id(), list.page.limit, list.after(), &list.q).await?;
    let now = now_secs();
    Ok(Json(list.page.respond(
        rows,
        |row| (row.heatmap.created_at, row.heatmap.id.as_str()),
        |row| summary_json(&state, row, now),
    )))
}

/// `GET /heatmaps/{id}` → the heatmap with its items.
async fn get_one(
    State(state): State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id)?;
    let found = hdb::find_owned(&state.db, user.id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(Json(heatmap_json(&state, &found, now_secs())))
}

/// `DELETE /heatmaps/{id}` → 204. Queued work is cancelled with the rows; a worker busy with
/// an item finds it gone when it saves, and removes what it stored.
async fn delete_one(
    State(state): State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = parse_id(&id)?;
    let media = hdb::delete(&state.db, user.id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    for media_id in media {
        release(&state, &media_id).await;
    }
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /heatmaps/{id}/items/{item_id}/retry` → 202 with the item, queued again; 409
/// `not_failed` unless the item failed.
async fn retry(
    State(state): State<AppState>,
    user: ApiUser,
    Path((id, item_id)): Path<(String, String)>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let (id, item_id) = (parse_id(&id)?, parse_id(&item_id)?);
    let job_id = uuid::Uuid::new_v4().to_string();
    let max_attempts = i64::from(state.config.job_max_attempts.max(1));
    match hdb::retry_item(&state.db, user.id(), &id, &item_id, &job_id, max_attempts).await? {
        Retry::NotFound => return Err(ApiError::not_found()),
        Retry::NotFailed => {
            return Err(ApiError::new(ErrorCode::NotFailed));
        }
        Retry::Queued => {}
    }
    // Published before the workers are woken, so tabs see `queued` before `processing`.
    job::publish(
        &state.job_context(),
        user.id(),
        &id,
        &item_id,
        "queued",
        None,
        None,
    )
    .await;
    state.bus.jobs_enqueued().await;
    let item = hdb::find_item(&state.db, &item_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let aois = db::aois::for_item(&state.db, &item_id).await?;
    let labels =
        db::media::labels(&state.db, user.id(), std::slice::from_ref(&item.source.id)).await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(item_json(
            &state,
            &item,
            labels.get(&item.source.id),
            &aois,
            now_secs(),
        )),
    ))
}

/// `GET /media/{id}/heatmap` → `{media, heatmap, item}`: the latest item made from this image
/// (`heatmap` and `item` null when there is none yet).
async fn for_media(
    State(state): State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id)?;
    let media = db::media::find_owned(&state.db, user.id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let now = now_secs();
    let latest = hdb::latest_for_media(&state.db, user.id(), &id).await?;
    let (heatmap, item) = match &latest {
        Some((heatmap, item)) => (
            json!({"id": heatmap.id, "name": heatmap.name, "created_at": rfc3339(heatmap.created_at)}),
            item_json(
                &state,
                item,
                db::media::labels(&state.db, user.id(), std::slice::from_ref(&id))
                    .await?
                    .get(&id),
                &db::aois::for_item(&state.db, &item.id).await?,
                now,
            ),
        ),
        None => (Value::Null, Value::Null),
    };
    Ok(Json(json!({
        "media": media_json(&state.signer, &media, now),
        "heatmap": heatmap,
        "item": item,
    })))
}
