//! `GET /heatmaps/{id}/report.pdf?lang=fr|en&items=`: a heatmap's results (or the chosen
//! images' only, in the order given) as an A4 PDF to hand to a client (crate::reports). The
//! images' previews, overlays and fog views are read from storage; the PDF is written on the
//! blocking pool.

use std::collections::HashMap;

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::activity::record;
use super::body::{Id, IdPath};
use super::error::ApiError;
use super::input::Member;
use super::query::{IdTexts, Param, Params};
use crate::assistant::Locale;
use crate::codes::FieldCode;
use crate::db::activity::{ActivityAction, ActivitySubject};
use crate::db::heatmaps::{self as hdb, ItemRow};
use crate::db::{self};
use crate::heatmaps::ItemStatus;
use crate::heatmaps::result::Moment;
use crate::reports::{Report, pdf};
use crate::state::AppState;
use crate::storage::StorageKey;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(report))
}

/// The query of `GET /heatmaps/{id}/report.pdf`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ReportQuery {
    /// The report's language: `fr` (the default) or `en`.
    #[serde(default)]
    #[param(inline, value_type = Option<Locale>)]
    lang: Param<Locale>,
    /// Comma-separated image ids: only these, in this order (all images by default).
    #[serde(default)]
    #[param(value_type = Option<String>)]
    items: Param<IdTexts>,
}

/// ASCII letters, digits and single dashes from a name, at most 60 characters (file names).
pub(super) fn slug(name: &str) -> String {
    let slug: String = db::search::normalize(name)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let slug = slug
        .split('-')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    slug.chars()
        .take(60)
        .collect::<String>()
        .trim_end_matches('-')
        .to_owned()
}

/// A report's file name from its heatmap's name.
fn file_name(name: &str) -> String {
    let slug = slug(name);
    if slug.is_empty() {
        "regard-report.pdf".to_owned()
    } else {
        format!("regard-{slug}.pdf")
    }
}

/// The overlay and fog of one view of an item (`None` where not stored: not done, or the first
/// glance of an item analysed before it was stored).
pub(super) fn view_media(item: &ItemRow, moment: Moment) -> (Option<&String>, Option<&String>) {
    match moment {
        Moment::Exploration => (item.overlay_media_id.as_ref(), item.fog_media_id.as_ref()),
        Moment::Glance => (
            item.glance_overlay_media_id.as_ref(),
            item.glance_fog_media_id.as_ref(),
        ),
    }
}

/// The stored images of done items, by media id: each source at preview size (what the views
/// were made at) and its heatmap and fog views. A view missing from storage is logged and left
/// out (a report shows a gap rather than failing). Before anything is read, the memory drawing
/// them will take is worked out from their stored sizes and held from the render budget
/// (returned with the images; held until the drawing is done): 503 `unavailable` when it does
/// not come free in time.
pub(super) async fn load_images<'a>(
    state: &AppState,
    items: impl Iterator<Item = &'a ItemRow>,
    moment: Moment,
) -> Result<(HashMap<String, Vec<u8>>, crate::render_budget::Held), ApiError> {
    load_images_as(state, items, moment, false).await
}

/// [`load_images`], for anonymous work (`anonymous`: a share's visitor) from the render
/// budget's anonymous slice.
async fn load_images_as<'a>(
    state: &AppState,
    items: impl Iterator<Item = &'a ItemRow>,
    moment: Moment,
    anonymous: bool,
) -> Result<(HashMap<String, Vec<u8>>, crate::render_budget::Held), ApiError> {
    let mut wanted = Vec::new();
    let mut pixels = 0u64;
    for item in items {
        let (overlay, fog) = view_media(item, moment);
        let views = [overlay, fog].into_iter().flatten().map(|id| (id, false));
        for (media_id, preview) in std::iter::once((&item.source.id, true)).chain(views) {
            let Some(media) = db::media::find(&state.db, media_id).await? else {
                continue;
            };
            pixels += crate::render_budget::pixels_within(
                media.width,
                media.height,
                crate::media::PREVIEW_SIDE,
            );
            let key = if preview {
                media.preview_key
            } else {
                media.original_key
            };
            let Ok(key) = StorageKey::new(key) else {
                continue;
            };
            wanted.push((media_id.clone(), key));
        }
    }
    let bytes = pixels.saturating_mul(crate::render_budget::EXPORT_BYTES_PER_PIXEL);
    let held = if anonymous {
        state.render_budget.acquire_anonymous(bytes).await
    } else {
        state.render_budget.acquire(bytes).await
    }
    .map_err(ApiError::unavailable)?;
    let mut images = HashMap::new();
    for (media_id, key) in wanted {
        match state.storage.get_bytes(&key).await {
            Ok(bytes) => {
                images.insert(media_id, bytes.to_vec());
            }
            Err(err) => {
                tracing::warn!(error = %err, %media_id, "a heatmap view is missing from storage")
            }
        }
    }
    Ok((images, held))
}

/// `GET /heatmaps/{id}/report.pdf`: the heatmap's report, A4 PDF.
#[utoipa::path(
    get,
    path = "/heatmaps/{id}/report.pdf",
    tag = "deliverables",
    params(("id" = String, Path, description = "The heatmap's id"), ReportQuery),
    responses((status = 200, description = "The report", content_type = "application/pdf", body = Vec<u8>))
)]
async fn report(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
    Params(query): Params<ReportQuery>,
) -> Result<Response, ApiError> {
    // French, the product's default, unless English is asked for.
    let lang = query.lang.0.unwrap_or(Locale::Fr);
    let mut found = hdb::find_owned(&state.db, user.workspace_id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    // `items=<id>,<id>…`: one image's report, or a chosen comparison, in the order given.
    if let Some(IdTexts(list)) = query.items.0.filter(|IdTexts(list)| !list.is_empty()) {
        let mut chosen = Vec::new();
        for raw in &list {
            let item = uuid::Uuid::parse_str(raw)
                .ok()
                .map(|u| u.hyphenated().to_string())
                .and_then(|id| found.items.iter().find(|i| i.id == id));
            match item {
                Some(item) if !chosen.iter().any(|c: &ItemRow| c.id == item.id) => {
                    chosen.push(item.clone())
                }
                Some(_) => {}
                None => return Err(ApiError::field("items", FieldCode::NotFound)),
            }
        }
        found.items = chosen;
    }
    record(
        &state,
        &user,
        ActivityAction::Exported,
        ActivitySubject::Heatmap,
        &found.heatmap.id,
        Some(&found.heatmap.name),
    )
    .await;
    pdf_response(&state, user.workspace_id(), found, lang, true).await
}

/// The report of `found` (its owner's, with their branding) as a PDF download: benchmarks
/// against the owner's library (`library`), else against the reference only (a share's
/// visitor), the images read under the render budget, drawn on the blocking pool.
pub(super) async fn pdf_response(
    state: &AppState,
    owner_id: &str,
    found: hdb::HeatmapWithItems,
    lang: Locale,
    library: bool,
) -> Result<Response, ApiError> {
    let name = found.heatmap.name.clone();
    let bytes = draw_pdf(state, owner_id, found, lang, library).await?;
    pdf_answer(&name, bytes.into())
}

/// Draws the report of `found` (see [`pdf_response`]). Without `library` the work is a share
/// visitor's, done without an account: it takes its memory from the render budget's
/// anonymous slice, so that anonymous readers never hold more than that slice of it.
pub(super) async fn draw_pdf(
    state: &AppState,
    owner_id: &str,
    found: hdb::HeatmapWithItems,
    lang: Locale,
    library: bool,
) -> Result<Vec<u8>, ApiError> {
    let benchmarks = if library {
        super::benchmarks::load(state, &found).await?
    } else {
        crate::heatmaps::benchmark::heatmap_benchmarks(&found, None)
    };
    let (images, held) = load_images_as(
        state,
        found
            .items
            .iter()
            .filter(|i| ItemStatus::has_result(&i.status)),
        Moment::Exploration,
        !library,
    )
    .await?;
    let mut report = Report::from_heatmap(&found, lang, db::now_ms(), &images);
    drop(images);
    report.benchmarks = Some(benchmarks);
    report.brand = super::account::report_brand(state, owner_id).await?;
    tokio::task::spawn_blocking(move || {
        let _held = held;
        pdf::render(&report)
    })
    .await
    .map_err(ApiError::internal)?
    .map_err(ApiError::internal)
}

/// A drawn report as the download of a heatmap named `name`.
pub(super) fn pdf_answer(name: &str, bytes: bytes::Bytes) -> Result<Response, ApiError> {
    let disposition =
        HeaderValue::from_str(&format!("attachment; filename=\"{}\"", file_name(name)))
            .map_err(ApiError::internal)?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/pdf"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("private, no-store"),
            ),
        ],
        bytes,
    )
        .into_response())
}
