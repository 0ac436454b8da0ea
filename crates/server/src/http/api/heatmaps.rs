//! Heatmaps: `POST /heatmaps` (202: the work is queued as jobs), `GET /heatmaps`,
//! `GET`/`DELETE /heatmaps/{id}`, `POST /heatmaps/{id}/items/{item_id}/retry`, and
//! `GET /media/{id}/heatmap` (the latest result for one image). Shapes:
//! docs/architecture/heatmaps.md.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::activity::record;
use super::body::{Body, Id, IdList, IdPath, Line, Patch};
use super::error::ApiError;
use super::input::{DEFAULT_LIMIT, Member, Paged, SortOrder, rfc3339, sorted_after, sorted_page};
use super::media::{Media, media_body, now_secs};
use super::query::{Limit, Param, Params};
use crate::codes::{ErrorCode, FieldCode, JobErrorCode};
use crate::db::activity::{ActivityAction, ActivitySubject};
use crate::db::aois::AoiRow;
use crate::db::heatmaps::{
    self as hdb, HeatmapRow, HeatmapSort, HeatmapSummary as DbHeatmapSummary, HeatmapWithItems,
    ItemRow, Retry,
};
use crate::db::media::MediaLabel;
use crate::db::{self};
pub use crate::heatmaps::ItemStatus;
use crate::heatmaps::aoi::{ItemAttention, bounds, stored_points};
use crate::heatmaps::result::{AnsweredResult, HeatmapResult, ResultUrls, ViewUrls};
use crate::heatmaps::service::{self, NewImage};
use crate::media::signing::MemberSigner;
use crate::state::AppState;

/// Longest heatmap name, in characters.
pub const MAX_NAME: usize = 200;
/// Most images in one heatmap.
pub const MAX_ITEMS: usize = 20;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(get_one, delete_one))
        .routes(routes!(retry))
        .routes(routes!(for_media))
}

wire_enum! {
    /// Where a heatmap's images are, as a whole.
    pub enum HeatmapStatus {
        /// None started yet.
        Queued = "queued";
        /// Some still waiting or running.
        Processing = "processing";
        /// All done.
        Done = "done";
        /// All failed.
        Failed = "failed";
        /// All finished, some failed.
        Partial = "partial";
    }
}

wire_enum! {
    /// What an analysed image is in the library.
    pub enum LabelKind {
        Creative = "creative";
        Location = "location";
        Simulation = "simulation";
    }
}

wire_enum! {
    /// How an area of interest was drawn.
    pub enum AoiShapeKind {
        Rect = "rect";
        Polygon = "polygon";
    }
}

/// A point relative to the image (0..1, y downwards).
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct Point {
    #[schema(minimum = 0, maximum = 1)]
    pub x: f64,
    #[schema(minimum = 0, maximum = 1)]
    pub y: f64,
}

/// A box relative to the image (0..1); in a request, inside the image (`x + width` and
/// `y + height` at most 1) and at least 1% of it.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Rect {
    #[schema(minimum = 0, maximum = 1)]
    pub x: f64,
    #[schema(minimum = 0, maximum = 1)]
    pub y: f64,
    #[schema(exclusive_minimum = 0, maximum = 1)]
    pub width: f64,
    #[schema(exclusive_minimum = 0, maximum = 1)]
    pub height: f64,
}

/// What an area of interest receives of its image's attention.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AoiAttention {
    /// Share of all the image's attention inside the area (0..1).
    pub share: f64,
    /// Share of the image's surface the area covers (0..1).
    pub area: f64,
    /// `share / area`: 1 is attention in proportion to its size.
    pub relative: f64,
    /// The place, in the predicted viewing order, of the first hotspot inside the area.
    pub seen_rank: Option<u64>,
    /// Whether that place is among the first few.
    pub seen_early: bool,
    /// Share of the first second's attention inside the area (0..1; `null` for analyses made
    /// before model v3).
    pub glance_share: Option<f64>,
    /// The probability that a viewer looks at the area within the first second (0..1,
    /// calibrated on eye-tracking data; `null` as `glance_share`).
    pub first_second_probability: Option<f64>,
}

/// An area of interest on an image.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Aoi {
    pub id: String,
    pub item_id: String,
    pub name: String,
    pub shape: AoiShapeKind,
    /// The outline (four corners for a rectangle).
    pub points: Vec<Point>,
    /// The outline's bounding box.
    pub rect: Rect,
    /// `null` until the image is analysed.
    pub attention: Option<AoiAttention>,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub updated_at: String,
}

/// Why an image could not be analysed.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ItemError {
    pub code: JobErrorCode,
    /// English, for logs; the web app shows its translation of `code`.
    pub message: String,
}

/// What an analysed image is in the library, when it is one of its creatives, locations or
/// simulations.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SourceLabel {
    pub kind: LabelKind,
    pub id: String,
    pub name: String,
}

/// One image of a heatmap and, once analysed, its result.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct HeatmapItem {
    pub id: String,
    /// Its place in the heatmap, from 0.
    pub position: i64,
    pub status: ItemStatus,
    /// Why it failed (`failed` only).
    pub error: Option<ItemError>,
    pub source: Media,
    pub label: Option<SourceLabel>,
    /// Attempts made so far.
    pub attempts: i64,
    /// RFC 3339.
    pub started_at: Option<String>,
    /// RFC 3339.
    pub finished_at: Option<String>,
    /// The panel's outline when the image is a simulation's render.
    pub aoi: Option<Vec<Point>>,
    /// The areas of interest drawn on it.
    pub aois: Vec<Aoi>,
    /// The analysis (`done` only).
    pub result: Option<AnsweredResult>,
}

/// A heatmap in a list: its status and scores, without its images.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct HeatmapSummary {
    pub id: String,
    pub name: String,
    pub status: HeatmapStatus,
    pub item_count: i64,
    pub done_count: i64,
    pub failed_count: i64,
    /// The mean attention score of the done images, 0–100.
    pub score: Option<f64>,
    /// The best attention score of the done images, 0–100.
    pub best_score: Option<f64>,
    /// A signed link to the first image's thumbnail.
    pub thumbnail: Option<String>,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub updated_at: String,
}

/// A heatmap with its images.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Heatmap {
    #[serde(flatten)]
    pub summary: HeatmapSummary,
    pub items: Vec<HeatmapItem>,
}

/// The heatmap an image's latest analysis belongs to.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct HeatmapRef {
    pub id: String,
    pub name: String,
    /// RFC 3339.
    pub created_at: String,
}

/// The latest analysis of one image.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MediaHeatmap {
    pub media: Media,
    /// `null` when the image was never analysed.
    pub heatmap: Option<HeatmapRef>,
    pub item: Option<HeatmapItem>,
}

/// The body of `POST /heatmaps`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct NewHeatmap {
    /// At most 200 characters.
    #[serde(default)]
    #[schema(value_type = String, max_length = 200, required = true, format = "name")]
    name: Patch<Line<MAX_NAME>>,
    /// 1 to 20 of the caller's images (uploads or renders), in order.
    #[serde(default)]
    #[schema(value_type = Vec<uuid::Uuid>, min_items = 1, max_items = 20, required = true)]
    media_ids: Patch<IdList<MAX_ITEMS>>,
}

/// An item's answer, with signed URLs of its source and outputs, and its areas of interest with
/// what each receives of the attention (once the item is done).
pub(super) fn item_body<'a>(
    signer: &MemberSigner,
    item: &ItemRow,
    label: Option<&MediaLabel>,
    aois: impl IntoIterator<Item = &'a AoiRow>,
    now: u64,
) -> HeatmapItem {
    let exp = signer.expiry(now);
    let status = ItemStatus::parse(&item.status).unwrap_or(ItemStatus::Queued);
    let stored = match (&item.result, status) {
        (Some(text), ItemStatus::Done) => HeatmapResult::parse(text, &item.id),
        _ => None,
    };
    let attention = stored.as_ref().and_then(ItemAttention::from_result);
    let urls = result_urls(item, &|id, variant| signer.url(id, variant, exp));
    let result = stored
        .zip(urls)
        .map(|(result, urls)| AnsweredResult { result, urls });
    let error = match (&item.error_code, &item.error_message) {
        (Some(code), message) if status == ItemStatus::Failed => Some(ItemError {
            code: JobErrorCode::parse(code).unwrap_or(JobErrorCode::Internal),
            message: message.clone().unwrap_or_default(),
        }),
        _ => None,
    };
    HeatmapItem {
        id: item.id.clone(),
        position: item.position,
        status,
        error,
        source: media_body(signer, &item.source, now),
        label: label.map(label_body),
        attempts: item.attempts,
        started_at: item.started_at.map(rfc3339),
        finished_at: item.finished_at.map(rfc3339),
        aoi: item.aoi.as_deref().map(|text| points(&stored_points(text))),
        aois: aois
            .into_iter()
            .map(|aoi| aoi_body(aoi, attention.as_ref()))
            .collect(),
        result,
    }
}

/// Links to a done item's images, signed by `url(media_id, variant)`; `None` until the full
/// map's are stored. The first glance's are `null` for items analysed before they were stored.
pub(super) fn result_urls(
    item: &ItemRow,
    url: &dyn Fn(&str, &str) -> String,
) -> Option<ResultUrls> {
    let (Some(map), Some(overlay), Some(fog)) = (
        &item.map_media_id,
        &item.overlay_media_id,
        &item.fog_media_id,
    ) else {
        return None;
    };
    let glance = match (
        &item.glance_map_media_id,
        &item.glance_overlay_media_id,
        &item.glance_fog_media_id,
    ) {
        (Some(map), Some(overlay), Some(fog)) => Some(ViewUrls {
            map: url(map, "original"),
            overlay: url(overlay, "original"),
            fog: url(fog, "original"),
        }),
        _ => None,
    };
    Some(ResultUrls {
        map: url(map, "original"),
        overlay: url(overlay, "original"),
        fog: url(fog, "original"),
        overlay_thumbnail: url(overlay, "thumbnail"),
        glance,
    })
}

fn label_body(label: &MediaLabel) -> SourceLabel {
    SourceLabel {
        kind: LabelKind::parse(label.kind).unwrap_or(LabelKind::Creative),
        id: label.id.clone(),
        name: label.name.clone(),
    }
}

fn points(points: &[(f64, f64)]) -> Vec<Point> {
    points.iter().map(|&(x, y)| Point { x, y }).collect()
}

fn summary_body(
    heatmap: &HeatmapRow,
    counts: hdb::ItemCounts,
    (score, best_score): (Option<f64>, Option<f64>),
    thumbnail: Option<String>,
) -> HeatmapSummary {
    HeatmapSummary {
        id: heatmap.id.clone(),
        name: heatmap.name.clone(),
        status: HeatmapStatus::parse(counts.status()).unwrap_or(HeatmapStatus::Queued),
        item_count: counts.total,
        done_count: counts.done,
        failed_count: counts.failed,
        score,
        best_score,
        thumbnail,
        created_at: rfc3339(heatmap.created_at),
        updated_at: rfc3339(heatmap.updated_at),
    }
}

fn list_summary(signer: &MemberSigner, row: &DbHeatmapSummary, now: u64) -> HeatmapSummary {
    let thumbnail = row
        .first_source
        .as_ref()
        .map(|m| signer.url(&m.id, "thumbnail", signer.expiry(now)));
    summary_body(
        &row.heatmap,
        row.counts,
        (row.score, row.best_score),
        thumbnail,
    )
}

/// A heatmap with its items, as answered.
pub(super) fn heatmap_body(signer: &MemberSigner, found: &HeatmapWithItems, now: u64) -> Heatmap {
    let thumbnail = found
        .items
        .first()
        .map(|i| signer.url(&i.source.id, "thumbnail", signer.expiry(now)));
    let summary = summary_body(
        &found.heatmap,
        found.counts(),
        (found.score(), found.best_score()),
        thumbnail,
    );
    let items = found
        .items
        .iter()
        .map(|item| {
            let label = found.labels.get(&item.source.id);
            item_body(signer, item, label, found.aois_of(&item.id), now)
        })
        .collect();
    Heatmap { summary, items }
}

/// An area of interest as answered: its shape, and what it receives of the attention (null
/// until its item is done).
pub(super) fn aoi_body(aoi: &AoiRow, attention: Option<&ItemAttention>) -> Aoi {
    let outline = stored_points(&aoi.points);
    let (x, y, width, height) = bounds(&outline);
    Aoi {
        id: aoi.id.clone(),
        item_id: aoi.item_id.clone(),
        name: aoi.name.clone(),
        shape: AoiShapeKind::parse(&aoi.shape).unwrap_or(AoiShapeKind::Polygon),
        points: points(&outline),
        rect: Rect {
            x,
            y,
            width,
            height,
        },
        attention: attention.map(|a| {
            let of = a.of(&outline);
            AoiAttention {
                share: of.share,
                area: of.area,
                relative: of.relative,
                seen_rank: of.seen_rank,
                seen_early: of.seen_early,
                glance_share: of.glance_share,
                first_second_probability: of.first_second_probability,
            }
        }),
        created_at: rfc3339(aoi.created_at),
        updated_at: rfc3339(aoi.updated_at),
    }
}

/// `POST /heatmaps {name, media_ids}` → 202 with the heatmap and its queued items.
#[utoipa::path(
    post,
    path = "/heatmaps",
    tag = "heatmaps",
    request_body = NewHeatmap,
    responses((status = 202, description = "The heatmap, its images queued", body = Heatmap))
)]
async fn create(
    State(state): State<AppState>,
    user: Member,
    Body(new, mut problems): Body<NewHeatmap>,
) -> Result<(StatusCode, Json<Heatmap>), ApiError> {
    let name = problems.required("name", new.name).map(|name| name.0);
    let ids = problems.required("media_ids", new.media_ids);
    let mut sources = Vec::new();
    if let Some(IdList(ids)) = &ids {
        for id in ids {
            match db::media::find_owned(&state.db, user.workspace_id(), id).await? {
                // Only images the user can see as images: uploads and renders, not our outputs.
                Some(media) if media.kind != "heatmap" => sources.push(media),
                _ => {
                    problems.add("media_ids", FieldCode::NotFound);
                    break;
                }
            }
        }
    }
    problems.finish()?;
    let Some(name) = name else {
        return Err(ApiError::internal(
            "heatmap validation let a missing name through",
        ));
    };
    let images: Vec<NewImage> = sources
        .iter()
        .map(|media| NewImage {
            media_id: media.id.clone(),
            aoi: None,
        })
        .collect();
    let found = service::create(&state.job_context(), user.workspace_id(), name, &images).await?;
    record(
        &state,
        &user,
        ActivityAction::Created,
        ActivitySubject::Heatmap,
        &found.heatmap.id,
        Some(&found.heatmap.name),
    )
    .await;
    Ok((
        StatusCode::ACCEPTED,
        Json(heatmap_body(
            &state.signer.for_member(user.user_id()),
            &found,
            now_secs(),
        )),
    ))
}

/// The query of `GET /heatmaps`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct HeatmapQuery {
    /// Items per page, 1 to 100 (50 by default).
    #[serde(default)]
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    limit: Param<Limit>,
    /// The `next_cursor` of the previous page.
    #[serde(default)]
    #[param(value_type = Option<String>)]
    cursor: Param<String>,
    /// Search text: keeps the heatmaps whose name holds every word, ignoring case and accents.
    #[serde(default)]
    #[param(value_type = Option<String>)]
    q: Param<String>,
    /// The order (`newest` by default).
    #[serde(default)]
    #[param(inline, value_type = Option<HeatmapSort>)]
    sort: Param<HeatmapSort>,
}

/// An order as cursors name it.
impl SortOrder for HeatmapSort {
    fn name(self) -> &'static str {
        self.as_str()
    }
    fn newest(self) -> bool {
        self == HeatmapSort::Newest
    }
    fn text(self) -> bool {
        self.is_text()
    }
}

/// `GET /heatmaps?limit=&cursor=&q=&sort=` → `{items, next_cursor}`, newest first unless `sort`
/// says otherwise (`oldest`, `name`, `name_desc`: accents and case folded).
#[utoipa::path(
    get,
    path = "/heatmaps",
    tag = "heatmaps",
    params(HeatmapQuery),
    responses((status = 200, description = "One page of heatmaps", body = Paged<HeatmapSummary>))
)]
async fn list(
    State(state): State<AppState>,
    user: Member,
    Params(query): Params<HeatmapQuery>,
) -> Result<Json<Paged<HeatmapSummary>>, ApiError> {
    let limit = query.limit.0.map_or(DEFAULT_LIMIT, |Limit(n)| n);
    let sort = query.sort.0.unwrap_or(HeatmapSort::Newest);
    let after = sorted_after(sort, query.cursor.0.as_deref())?;
    let rows = hdb::list(
        &state.db,
        user.workspace_id(),
        sort,
        limit,
        after.as_ref().map(|(key, id)| (key, id.as_str())),
        query.q.0.as_deref().unwrap_or("").trim(),
    )
    .await?;
    let now = now_secs();
    Ok(Json(sorted_page(
        sort,
        limit,
        rows,
        |row| &row.heatmap.id,
        |row| list_summary(&state.signer.for_member(user.user_id()), &row, now),
    )))
}

/// `GET /heatmaps/{id}` → the heatmap with its items.
#[utoipa::path(
    get,
    path = "/heatmaps/{id}",
    tag = "heatmaps",
    params(("id" = String, Path, description = "The heatmap's id")),
    responses((status = 200, description = "The heatmap with its images", body = Heatmap))
)]
async fn get_one(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
) -> Result<Json<Heatmap>, ApiError> {
    let found = hdb::find_owned(&state.db, user.workspace_id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(Json(heatmap_body(
        &state.signer.for_member(user.user_id()),
        &found,
        now_secs(),
    )))
}

/// `DELETE /heatmaps/{id}` → 204. Queued work is cancelled with the rows; a worker busy with
/// an item finds it gone when it saves, and removes what it stored.
#[utoipa::path(
    delete,
    path = "/heatmaps/{id}",
    tag = "heatmaps",
    params(("id" = String, Path, description = "The heatmap's id")),
    responses((status = 204, description = "Deleted, its queued work cancelled"))
)]
async fn delete_one(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
) -> Result<StatusCode, ApiError> {
    let name = hdb::find_owned(&state.db, user.workspace_id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?
        .heatmap
        .name;
    if service::delete(&state.job_context(), user.workspace_id(), &id).await? {
        record(
            &state,
            &user,
            ActivityAction::Deleted,
            ActivitySubject::Heatmap,
            &id,
            Some(&name),
        )
        .await;
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found())
    }
}

/// `POST /heatmaps/{id}/items/{item_id}/retry` → 202 with the item, queued again; 409
/// `not_failed` unless the item failed.
#[utoipa::path(
    post,
    path = "/heatmaps/{id}/items/{item_id}/retry",
    tag = "heatmaps",
    params(
        ("id" = String, Path, description = "The heatmap's id"),
        ("item_id" = String, Path, description = "The image's id"),
    ),
    responses((status = 202, description = "The image, queued again", body = HeatmapItem))
)]
async fn retry(
    State(state): State<AppState>,
    user: Member,
    IdPath((id, item_id)): IdPath<(Id, Id)>,
) -> Result<(StatusCode, Json<HeatmapItem>), ApiError> {
    match service::retry(&state.job_context(), user.workspace_id(), &id, &item_id).await? {
        Retry::NotFound => return Err(ApiError::not_found()),
        Retry::NotFailed => return Err(ApiError::new(ErrorCode::NotFailed)),
        Retry::Queued => {}
    }
    let item = hdb::find_item(&state.db, &item_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let aois = db::aois::for_item(&state.db, &item_id).await?;
    let labels = db::media::labels(
        &state.db,
        user.workspace_id(),
        std::slice::from_ref(&item.source.id),
    )
    .await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(item_body(
            &state.signer.for_member(user.user_id()),
            &item,
            labels.get(&item.source.id),
            &aois,
            now_secs(),
        )),
    ))
}

/// `GET /media/{id}/heatmap` → `{media, heatmap, item}`: the latest item made from this image
/// (`heatmap` and `item` null when there is none yet).
#[utoipa::path(
    get,
    path = "/media/{id}/heatmap",
    tag = "heatmaps",
    params(("id" = String, Path, description = "The media id")),
    responses((status = 200, description = "The image and its latest analysis", body = MediaHeatmap))
)]
async fn for_media(
    State(state): State<AppState>,
    user: Member,
    IdPath(Id(id)): IdPath<Id>,
) -> Result<Json<MediaHeatmap>, ApiError> {
    let media = db::media::find_owned(&state.db, user.workspace_id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let now = now_secs();
    let latest = hdb::latest_for_media(&state.db, user.workspace_id(), &id).await?;
    let (heatmap, item) = match &latest {
        Some((heatmap, item)) => (
            Some(HeatmapRef {
                id: heatmap.id.clone(),
                name: heatmap.name.clone(),
                created_at: rfc3339(heatmap.created_at),
            }),
            Some(item_body(
                &state.signer.for_member(user.user_id()),
                item,
                db::media::labels(&state.db, user.workspace_id(), std::slice::from_ref(&id))
                    .await?
                    .get(&id),
                &db::aois::for_item(&state.db, &item.id).await?,
                now,
            )),
        ),
        None => (None, None),
    };
    Ok(Json(MediaHeatmap {
        media: media_body(&state.signer.for_member(user.user_id()), &media, now),
        heatmap,
        item,
    }))
}
