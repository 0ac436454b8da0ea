//! Creatives: `POST /creatives`, `GET /creatives?limit=&cursor=&q=&sort=&brand=&campaign=`,
//! `GET /creatives/facets`, and
//! `GET`/`PATCH`/`DELETE /creatives/{id}`. A creative is one of the user's uploaded images with
//! a name and optional brand, campaign and notes.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use super::error::ApiError;
use super::error::FieldErrors;
use super::input::{
    ApiUser, Fields, JsonObject, Page, Patch, decode_cursor, encode_cursor, parse_id, rfc3339,
};
use super::media::{media_json, now_secs, release};
use crate::db::creatives::{Sort, SortKey, SortedPage};
use crate::db::{self, creatives::CreativeRow, creatives::CreativeWithMedia};
use crate::state::AppState;

/// Longest name, brand and campaign, in characters.
pub const MAX_NAME: usize = 200;
/// Longest notes, in characters.
pub const MAX_NOTES: usize = 5000;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/creatives", get(list).post(create))
        .route("/creatives/facets", get(facets))
        .route(
            "/creatives/{id}",
            get(get_one).patch(update).delete(delete_one),
        )
}

fn creative_json(item: &CreativeWithMedia, now: u64, state: &AppState) -> Value {
    let c = &item.creative;
    json!({
        "id": c.id,
        "name": c.name,
        "brand": c.brand,
        "campaign": c.campaign,
        "notes": c.notes,
        "media": media_json(&state.signer, &item.media, now),
        "created_at": rfc3339(c.created_at),
        "updated_at": rfc3339(c.updated_at),
    })
}

/// The editable fields of a body, read and checked.
struct Edits {
    name: Patch<String>,
    brand: Patch<String>,
    campaign: Patch<String>,
    notes: Patch<String>,
}

fn read_edits(fields: &mut Fields) -> Edits {
    Edits {
        name: fields.text("name", MAX_NAME, false),
        brand: fields.text("brand", MAX_NAME, false),
        campaign: fields.text("campaign", MAX_NAME, false),
        notes: fields.text("notes", MAX_NOTES, true),
    }
}

/// A default name: the uploaded file's name without its extension.
fn name_from_file(original_name: Option<&str>) -> Option<String> {
    let stem: String = crate::media::file_stem(original_name?)
        .trim()
        .chars()
        .take(MAX_NAME)
        .collect();
    (!stem.is_empty()).then_some(stem)
}

/// `POST /creatives {media_id, name?, brand?, campaign?, notes?}` → 201.
async fn create(
    State(state): State<AppState>,
    user: ApiUser,
    JsonObject(mut fields): JsonObject,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let media_id = fields.text("media_id", 64, false);
    let edits = read_edits(&mut fields);
    let media = match media_id {
        Patch::Value(id) => match uuid::Uuid::parse_str(&id) {
            Ok(id) => {
                db::media::find_owned(&state.db, user.id(), &id.hyphenated().to_string()).await?
            }
            Err(_) => None,
        },
        _ => {
            if !fields.has_error("media_id") {
                fields.error("media_id", "required");
            }
            None
        }
    };
    if media.is_none() && !fields.has_error("media_id") {
        fields.error("media_id", "not_found");
    }
    let name = match (&edits.name, &media) {
        (Patch::Value(name), _) => Some(name.clone()),
        (Patch::Absent | Patch::Null, Some(media)) => {
            name_from_file(media.original_name.as_deref())
        }
        _ => None,
    };
    if name.is_none() && !fields.has_error("name") && media.is_some() {
        fields.error("name", "required");
    }
    fields.finish()?;
    let (Some(media), Some(name)) = (media, name) else {
        return Err(ApiError::internal(
            "creative validation let a missing field through",
        ));
    };
    let now = db::now_ms();
    let creative = CreativeRow {
        id: uuid::Uuid::new_v4().to_string(),
        owner_id: user.id().to_owned(),
        media_id: media.id.clone(),
        name,
        brand: edits.brand.apply(None),
        campaign: edits.campaign.apply(None),
        notes: edits.notes.apply(None),
        created_at: now,
        updated_at: now,
    };
    db::creatives::insert(&state.db, &creative).await?;
    let item = CreativeWithMedia { creative, media };
    let mut body = creative_json(&item, now_secs(), &state);
    body["simulation_count"] = json!(0);
    Ok((StatusCode::CREATED, Json(body)))
}

/// `GET /creatives?limit=&cursor=&q=` → `{items, next_cursor}`, newest first.
/// `GET /creatives?limit=&cursor=&q=&sort=&brand=&campaign=`: one page of the library.
/// `sort`: `newest` (the default), `oldest`, `name`, `name_desc`, `largest`, `smallest`
/// (pixels); `brand` and `campaign` keep the creatives with exactly that value. A cursor
/// continues the order it was made in; one from another order is refused.
async fn list(
    State(state): State<AppState>,
    user: ApiUser,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    let get = |key: &str| {
        params
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.trim().is_empty())
    };
    let limit = Page::parse(get("limit"), None)?.limit;
    let mut errors = FieldErrors::new();
    let sort = match get("sort") {
        None => Sort::Newest,
        Some(text) => Sort::parse(text).unwrap_or_else(|| {
            errors.insert("sort".into(), "invalid");
            Sort::Newest
        }),
    };
    let after = match get("cursor") {
        None => None,
        Some(raw) => {
            let decoded = decode_sorted_cursor(sort, raw);
            if decoded.is_none() {
                errors.insert("cursor".into(), "invalid_value");
            }
            decoded
        }
    };
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let page = SortedPage {
        sort,
        limit,
        after: after.as_ref().map(|(key, id)| (key.clone(), id.as_str())),
        query: get("q").unwrap_or(""),
        brand: get("brand"),
        campaign: get("campaign"),
    };
    let mut rows = db::creatives::list_sorted(&state.db, user.id(), &page).await?;
    let more = rows.len() as i64 > limit;
    rows.truncate(usize::try_from(limit).unwrap_or(0));
    let next_cursor = match rows.last() {
        Some((last, key)) if more => json!(encode_sorted_cursor(sort, last, key)),
        _ => Value::Null,
    };
    let now = now_secs();
    let items: Vec<Value> = rows
        .iter()
        .map(|(item, _)| creative_json(item, now, &state))
        .collect();
    Ok(Json(json!({"items": items, "next_cursor": next_cursor})))
}

/// The cursor after an item: newest-first cursors are the shared lists' (`created_at:id`),
/// others hex of `sort|id|key`.
fn encode_sorted_cursor(sort: Sort, item: &CreativeWithMedia, key: &SortKey) -> String {
    let id = &item.creative.id;
    match key {
        SortKey::Number(at) if sort == Sort::Newest => encode_cursor(*at, id),
        SortKey::Number(v) => hex::encode(format!("{}|{id}|{v}", sort.as_str())),
        SortKey::Text(v) => hex::encode(format!("{}|{id}|{v}", sort.as_str())),
    }
}

fn decode_sorted_cursor(sort: Sort, raw: &str) -> Option<(SortKey, String)> {
    if sort == Sort::Newest {
        return decode_cursor(raw).map(|(at, id)| (SortKey::Number(at), id));
    }
    let text = String::from_utf8(hex::decode(raw).ok()?).ok()?;
    let mut parts = text.splitn(3, '|');
    let (name, id, key) = (parts.next()?, parts.next()?, parts.next()?);
    if name != sort.as_str() {
        return None;
    }
    let id = uuid::Uuid::parse_str(id).ok()?.hyphenated().to_string();
    let key = if sort.is_text() {
        SortKey::Text(key.to_owned())
    } else {
        SortKey::Number(key.parse().ok()?)
    };
    Some((key, id))
}

/// `GET /creatives/facets` → `{"brands": [{"name", "count"}], "campaigns": [...]}`: the values
/// the library's filters offer.
async fn facets(State(state): State<AppState>, user: ApiUser) -> Result<Json<Value>, ApiError> {
    let (brands, campaigns) = db::creatives::facets(&state.db, user.id()).await?;
    let list = |values: Vec<(String, i64)>| -> Vec<Value> {
        values
            .into_iter()
            .map(|(name, count)| json!({"name": name, "count": count}))
            .collect()
    };
    Ok(Json(
        json!({"brands": list(brands), "campaigns": list(campaigns)}),
    ))
}

async fn find(state: &AppState, user: &ApiUser, id: &str) -> Result<CreativeWithMedia, ApiError> {
    let id = parse_id(id)?;
    db::creatives::find(&state.db, user.id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)
}

async fn detail_json(
    state: &AppState,
    user: &ApiUser,
    item: &CreativeWithMedia,
) -> Result<Value, ApiError> {
    let count =
        db::simulations::count_for_creative(&state.db, user.id(), &item.creative.id).await?;
    let mut body = creative_json(item, now_secs(), state);
    body["simulation_count"] = json!(count);
    Ok(body)
}

/// `GET /creatives/{id}`, with `simulation_count` (what deleting it would also delete).
async fn get_one(
    State(state): State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let item = find(&state, &user, &id).await?;
    Ok(Json(detail_json(&state, &user, &item).await?))
}

/// `PATCH /creatives/{id} {name?, brand?, campaign?, notes?}`: absent fields stay, `null` (or
/// an empty string) clears an optional one; the name cannot be cleared.
async fn update(
    State(state): State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
    JsonObject(mut fields): JsonObject,
) -> Result<Json<Value>, ApiError> {
    let mut item = find(&state, &user, &id).await?;
    let edits = read_edits(&mut fields);
    if edits.name == Patch::Null {
        fields.error("name", "required");
    }
    fields.finish()?;
    let c = &mut item.creative;
    if let Patch::Value(name) = edits.name {
        c.name = name;
    }
    c.brand = edits.brand.apply(c.brand.take());
    c.campaign = edits.campaign.apply(c.campaign.take());
    c.notes = edits.notes.apply(c.notes.take());
    c.updated_at = db::now_ms().max(c.updated_at);
    if !db::creatives::update(&state.db, c).await? {
        return Err(ApiError::not_found());
    }
    Ok(Json(detail_json(&state, &user, &item).await?))
}

/// `DELETE /creatives/{id}` → 204, with the simulations made from it (one transaction). Its
/// image and the simulations' media go too unless something else uses them.
async fn delete_one(
    State(state): State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = parse_id(&id)?;
    let media = db::creatives::delete(&state.db, user.id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    for media_id in media {
        release(&state, &media_id).await;
    }
    Ok(StatusCode::NO_CONTENT)
}

#[cfg(test)]
mod tests {
    use super::name_from_file;

    #[test]
    fn default_names_drop_the_extension() {
        assert_eq!(
            name_from_file(Some("Été 2026.final.jpg")).as_deref(),
            Some("Été 2026.final")
        );
        assert_eq!(name_from_file(Some(".jpg")).as_deref(), Some(".jpg"));
        assert_eq!(name_from_file(Some("poster")).as_deref(), Some("poster"));
        assert_eq!(name_from_file(None), None);
    }
}
