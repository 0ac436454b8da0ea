//! `GET /heatmaps/{id}/report.pdf?lang=fr|en`: a heatmap's results as an A4 PDF to hand to a
//! client (crate::reports). The images' previews, overlays and fog views are read from storage;
//! the PDF is written on the blocking pool.

use std::collections::HashMap;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::error::ApiError;
use super::input::{ApiUser, parse_id};
use crate::assistant::Locale;
use crate::db::heatmaps as hdb;
use crate::db::{self};
use crate::reports::{Report, pdf};
use crate::state::AppState;
use crate::storage::StorageKey;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route("/heatmaps/{id}/report.pdf", get(report))
}

/// A file name of ASCII letters, digits and dashes from a heatmap's name.
fn file_name(name: &str) -> String {
    let slug: String = db::search::normalize(name)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let slug = slug
        .split('-')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let slug: String = slug.chars().take(60).collect();
    if slug.is_empty() {
        "regard-report.pdf".to_owned()
    } else {
        format!("regard-{slug}.pdf")
    }
}

async fn report(
    State(state): State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let id = parse_id(&id)?;
    // French, the product's default, unless English is asked for.
    let lang = query
        .get("lang")
        .and_then(|code| Locale::parse(code))
        .unwrap_or(Locale::Fr);
    let found = hdb::find_owned(&state.db, user.id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let mut images = HashMap::new();
    for item in found.items.iter().filter(|i| i.status == "done") {
        let views = [&item.overlay_media_id, &item.fog_media_id]
            .into_iter()
            .flatten()
            .map(|id| (id, false));
        for (media_id, preview) in std::iter::once((&item.source.id, true)).chain(views) {
            let Some(media) = db::media::find(&state.db, media_id).await? else {
                continue;
            };
            // The source at preview size (what the views were made at), the views as made.
            let key = if preview {
                media.preview_key
            } else {
                media.original_key
            };
            let Ok(key) = StorageKey::new(key) else {
                continue;
            };
            // A missing view leaves a gap in the report rather than no report at all.
            match state.storage.get_bytes(&key).await {
                Ok(bytes) => {
                    images.insert(media_id.clone(), bytes.to_vec());
                }
                Err(err) => {
                    tracing::warn!(error = %err, %media_id, "a heatmap view is missing from storage")
                }
            }
        }
    }
    let report = Report::from_heatmap(&found, lang, db::now_ms(), &images);
    let name = file_name(&found.heatmap.name);
    let bytes = tokio::task::spawn_blocking(move || pdf::render(&report))
        .await
        .map_err(ApiError::internal)?
        .map_err(ApiError::internal)?;
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
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
