//! Creatives: `POST /creatives`, `GET /creatives?limit=&cursor=&q=&sort=&brand=&campaign=`,
//! `GET /creatives/facets`, and
//! `GET`/`PATCH`/`DELETE /creatives/{id}`. A creative is one of the user's uploaded images with
//! a name and optional brand, campaign and notes.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::activity::record;
use super::body::{Body, Id, IdPath, Line, Lines, Patch, Ref, body_pair};
use super::error::ApiError;
use super::input::{DEFAULT_LIMIT, Member, Paged, SortOrder, rfc3339, sorted_after, sorted_page};
use super::media::{self, Media, now_secs, release};
use super::query::{Limit, Param, Params};
use crate::answers::AnswerKey;
use crate::codes::FieldCode;
use crate::db;
use crate::db::activity::{ActivityAction, ActivitySubject};
use crate::db::creatives::{CreativeCard, CreativeRow, CreativeWithMedia};
use crate::db::creatives::{Sort, SortedPage};
use crate::media::signing::MemberSigner;
use crate::state::AppState;

/// Longest name, brand and campaign, in characters.
pub const MAX_NAME: usize = 200;
/// Longest notes, in characters.
pub const MAX_NOTES: usize = 5000;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(facets))
        .routes(routes!(get_one, update, delete_one))
}

/// A creative: an uploaded image with a name and optional brand, campaign and notes.
#[derive(Debug, Serialize, ToSchema)]
pub struct Creative {
    pub id: String,
    pub name: String,
    pub brand: Option<String>,
    pub campaign: Option<String>,
    pub notes: Option<String>,
    pub media: Media,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub updated_at: String,
    /// How many simulations deleting it would also delete: on the answers about one creative;
    /// `null` in lists.
    pub simulation_count: Option<i64>,
}

fn creative_body(item: &CreativeWithMedia, now: u64, signer: &MemberSigner) -> Creative {
    card_body(
        CreativeCard {
            creative: item.creative.clone(),
            media: item.media.card(),
        },
        now,
        signer,
    )
}

/// [`creative_body`] of a list's row, whose values it takes.
fn card_body(item: CreativeCard, now: u64, signer: &MemberSigner) -> Creative {
    let c = item.creative;
    Creative {
        id: c.id,
        name: c.name,
        brand: c.brand,
        campaign: c.campaign,
        notes: c.notes,
        media: media::card_body(signer, item.media, now),
        created_at: rfc3339(c.created_at),
        updated_at: rfc3339(c.updated_at),
        simulation_count: None,
    }
}

body_pair! {
    /// The body of `POST /creatives`.
    #[derive(Deserialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    struct NewCreative {
        /// An uploaded image of the caller's.
        #[serde(default)]
        #[schema(value_type = uuid::Uuid, required = true)]
        media_id: Patch<Ref>,
        /// At most 200 characters; the file's name without its extension when absent.
        #[serde(default)]
        #[schema(value_type = Option<String>, max_length = 200, format = "line")]
        name: Patch<Line<MAX_NAME>>,
    }

    /// The body of `PATCH /creatives/{id}`: absent fields stay, `null` or `""` clears one (not
    /// the name).
    #[derive(Deserialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    struct CreativeChanges {
        /// At most 200 characters; cannot be cleared.
        #[serde(default)]
        #[schema(value_type = String, max_length = 200, format = "name")]
        name: Patch<Line<MAX_NAME>>,
    }

    shared {
        /// At most 200 characters.
        #[serde(default)]
        #[schema(value_type = Option<String>, max_length = 200, format = "line")]
        brand: Patch<Line<MAX_NAME>>,
        /// At most 200 characters.
        #[serde(default)]
        #[schema(value_type = Option<String>, max_length = 200, format = "line")]
        campaign: Patch<Line<MAX_NAME>>,
        /// At most 5000 characters, several lines.
        #[serde(default)]
        #[schema(value_type = Option<String>, max_length = 5000, format = "lines")]
        notes: Patch<Lines<MAX_NOTES>>,
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
#[utoipa::path(
    post,
    path = "/creatives",
    tag = "creatives",
    request_body = NewCreative,
    responses((status = 201, description = "The new creative", body = Creative))
)]
async fn create(
    State(state): State<AppState>,
    user: Member,
    Body(new, mut problems): Body<NewCreative>,
) -> Result<(StatusCode, Json<Creative>), ApiError> {
    let media = match problems.required("media_id", new.media_id) {
        Some(Ref(id)) => db::media::find_owned(&state.db, user.workspace_id(), &id).await?,
        None => None,
    };
    if media.is_none() {
        problems.add("media_id", FieldCode::NotFound);
    }
    let name = match (new.name, &media) {
        (Patch::Value(Line(name)), _) => Some(name),
        (Patch::Absent | Patch::Null, Some(media)) => {
            name_from_file(media.original_name.as_deref())
        }
        _ => None,
    };
    if name.is_none() && media.is_some() {
        problems.require("name");
    }
    problems.finish()?;
    let (Some(media), Some(name)) = (media, name) else {
        return Err(ApiError::internal(
            "creative validation let a missing field through",
        ));
    };
    let now = db::now_ms();
    let creative = CreativeRow {
        id: uuid::Uuid::new_v4().to_string(),
        owner_id: user.workspace_id().to_owned(),
        media_id: media.id.clone(),
        name,
        brand: new.brand.map(|b| b.0).apply(None),
        campaign: new.campaign.map(|c| c.0).apply(None),
        notes: new.notes.map(|n| n.0).apply(None),
        created_at: now,
        updated_at: now,
    };
    db::creatives::insert(&state.db, &creative).await?;
    record(
        &state,
        &user,
        ActivityAction::Created,
        ActivitySubject::Creative,
        &creative.id,
        Some(&creative.name),
    )
    .await;
    let item = CreativeWithMedia { creative, media };
    let mut body = creative_body(&item, now_secs(), &state.signer.for_member(user.user_id()));
    body.simulation_count = Some(0);
    Ok((StatusCode::CREATED, Json(body)))
}

/// `GET /creatives?limit=&cursor=&q=&sort=&brand=&campaign=`: one page of the library.
/// `sort`: `newest` (the default), `oldest`, `name`, `name_desc`, `largest`, `smallest`
/// (pixels); `brand` and `campaign` keep the creatives with exactly that value. A cursor
/// continues the order it was made in; one from another order is refused.
#[utoipa::path(
    get,
    path = "/creatives",
    tag = "creatives",
    params(CreativeQuery),
    responses((status = 200, description = "One page of the library", body = Paged<Creative>))
)]
async fn list(
    State(state): State<AppState>,
    user: Member,
    RawQuery(raw): RawQuery,
    Params(query): Params<CreativeQuery>,
) -> Result<Response, ApiError> {
    // The same workspace, library revision, URL expiry window and query: the same answer.
    let now = now_secs();
    let key = AnswerKey {
        route: "creatives",
        workspace_id: user.workspace_id().to_owned(),
        member: user.user_id().to_owned(),
        revision: user.1.library_revision,
        expiry: state.signer.expiry(now),
        query: raw.unwrap_or_default(),
    };
    if let Some(answer) = state.answers.get(&key) {
        return Ok(json_answer(answer));
    }
    let limit = query.limit.0.map_or(DEFAULT_LIMIT, |Limit(n)| n);
    let sort = query.sort.0.unwrap_or(Sort::Newest);
    // Blank texts filter nothing.
    let text = |param: &Param<String>| {
        param
            .0
            .as_deref()
            .filter(|text| !text.trim().is_empty())
            .map(str::to_owned)
    };
    let after = sorted_after(sort, text(&query.cursor).as_deref())?;
    let (q, brand, campaign) = (text(&query.q), text(&query.brand), text(&query.campaign));
    let page = SortedPage {
        sort,
        limit,
        after: after.as_ref().map(|(key, id)| (key.clone(), id.as_str())),
        query: q.as_deref().unwrap_or(""),
        brand: brand.as_deref(),
        campaign: campaign.as_deref(),
    };
    let rows = db::creatives::list_sorted(&state.db, user.workspace_id(), &page).await?;
    let page = sorted_page(
        sort,
        limit,
        rows,
        |row| &row.creative.id,
        |row| card_body(row, now, &state.signer.for_member(user.user_id())),
    );
    let answer = Bytes::from(serde_json::to_vec(&page).map_err(ApiError::internal)?);
    state.answers.put(key, answer.clone());
    Ok(json_answer(answer))
}

/// A JSON answer's bytes as the response.
fn json_answer(answer: Bytes) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], answer).into_response()
}

/// The query of `GET /creatives`: the page, the search, the order and the filters. The cursor
/// is read once the order is known (each order has its own).
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct CreativeQuery {
    /// Items per page, 1 to 100 (50 by default).
    #[serde(default)]
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    limit: Param<Limit>,
    /// The `next_cursor` of the previous page.
    #[serde(default)]
    #[param(value_type = Option<String>)]
    cursor: Param<String>,
    /// Search text: keeps the items whose name (or address, brand, …) holds every word,
    /// ignoring case and accents.
    #[serde(default)]
    #[param(value_type = Option<String>)]
    q: Param<String>,
    /// The order (`newest` by default).
    #[serde(default)]
    #[param(inline, value_type = Option<Sort>)]
    sort: Param<Sort>,
    /// Keeps the creatives of exactly this brand.
    #[serde(default)]
    #[param(value_type = Option<String>)]
    brand: Param<String>,
    /// Keeps the creatives of exactly this campaign.
    #[serde(default)]
    #[param(value_type = Option<String>)]
    campaign: Param<String>,
}

/// An order as cursors name it.
impl SortOrder for Sort {
    fn name(self) -> &'static str {
        self.as_str()
    }
    fn newest(self) -> bool {
        self == Sort::Newest
    }
    fn text(self) -> bool {
        self.is_text()
    }
}

/// A value of a filter and how many creatives have it.
#[derive(Debug, Serialize, ToSchema)]
pub struct Facet {
    pub name: String,
    pub count: i64,
}

/// The values the library's filters offer.
#[derive(Debug, Serialize, ToSchema)]
pub struct Facets {
    pub brands: Vec<Facet>,
    pub campaigns: Vec<Facet>,
}

/// `GET /creatives/facets` → `{"brands": [{"name", "count"}], "campaigns": [...]}`: the values
/// the library's filters offer.
#[utoipa::path(
    get,
    path = "/creatives/facets",
    tag = "creatives",
    responses((status = 200, description = "Brands and campaigns in use", body = Facets))
)]
async fn facets(State(state): State<AppState>, user: Member) -> Result<Json<Facets>, ApiError> {
    let (brands, campaigns) = db::creatives::facets(&state.db, user.workspace_id()).await?;
    let list = |values: Vec<(String, i64)>| -> Vec<Facet> {
        values
            .into_iter()
            .map(|(name, count)| Facet { name, count })
            .collect()
    };
    Ok(Json(Facets {
        brands: list(brands),
        campaigns: list(campaigns),
    }))
}

async fn find(state: &AppState, user: &Member, id: &str) -> Result<CreativeWithMedia, ApiError> {
    db::creatives::find(&state.db, user.workspace_id(), id)
        .await?
        .ok_or_else(ApiError::not_found)
}

async fn detail_body(
    state: &AppState,
    user: &Member,
    item: &CreativeWithMedia,
) -> Result<Creative, ApiError> {
    let count =
        db::simulations::count_for_creative(&state.db, user.workspace_id(), &item.creative.id)
            .await?;
    let mut body = creative_body(item, now_secs(), &state.signer.for_member(user.user_id()));
    body.simulation_count = Some(count);
    Ok(body)
}

/// `GET /creatives/{id}`, with `simulation_count` (what deleting it would also delete).
#[utoipa::path(
    get,
    path = "/creatives/{id}",
    tag = "creatives",
    params(("id" = String, Path, description = "The creative's id")),
    responses((status = 200, description = "The creative", body = Creative))
)]
async fn get_one(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
) -> Result<Json<Creative>, ApiError> {
    let item = find(&state, &user, &id).await?;
    Ok(Json(detail_body(&state, &user, &item).await?))
}

/// `PATCH /creatives/{id} {name?, brand?, campaign?, notes?}`: absent fields stay, `null` (or
/// an empty string) clears an optional one; the name cannot be cleared.
#[utoipa::path(
    patch,
    path = "/creatives/{id}",
    tag = "creatives",
    params(("id" = String, Path, description = "The creative's id")),
    request_body = CreativeChanges,
    responses((status = 200, description = "The creative, changed", body = Creative))
)]
async fn update(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
    Body(changes, mut problems): Body<CreativeChanges>,
) -> Result<Json<Creative>, ApiError> {
    let mut item = find(&state, &user, &id).await?;
    let name = problems.not_null("name", changes.name);
    problems.finish()?;
    let c = &mut item.creative;
    if let Some(Line(name)) = name {
        c.name = name;
    }
    c.brand = changes.brand.map(|b| b.0).apply(c.brand.take());
    c.campaign = changes.campaign.map(|c| c.0).apply(c.campaign.take());
    c.notes = changes.notes.map(|n| n.0).apply(c.notes.take());
    c.updated_at = db::now_ms().max(c.updated_at);
    if !db::creatives::update(&state.db, c).await? {
        return Err(ApiError::not_found());
    }
    record(
        &state,
        &user,
        ActivityAction::Changed,
        ActivitySubject::Creative,
        &c.id,
        Some(&c.name),
    )
    .await;
    Ok(Json(detail_body(&state, &user, &item).await?))
}

/// `DELETE /creatives/{id}` → 204, with the simulations made from it (one transaction). Its
/// image and the simulations' media go too unless something else uses them.
#[utoipa::path(
    delete,
    path = "/creatives/{id}",
    tag = "creatives",
    params(("id" = String, Path, description = "The creative's id")),
    responses((status = 204, description = "Deleted, with its simulations"))
)]
async fn delete_one(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
) -> Result<StatusCode, ApiError> {
    let name = find(&state, &user, &id).await?.creative.name;
    let media = db::creatives::delete(&state.db, user.workspace_id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    record(
        &state,
        &user,
        ActivityAction::Deleted,
        ActivitySubject::Creative,
        &id,
        Some(&name),
    )
    .await;
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
