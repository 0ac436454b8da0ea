//! `/api/v1`: the domain API (media, signed files, creatives, locations, heatmaps, simulations,
//! events, the assistant and help articles). Every error is an [`ApiError`]
//! (`{code, message, details}`); unknown paths answer a JSON 404 instead of falling through to
//! the SPA. The endpoints and shapes are the OpenAPI document ([`openapi()`], served at
//! `/api/v1/openapi.json`); docs/architecture/api.md explains the conventions.

pub mod account;
pub mod activity;
pub mod aois;
pub mod assistant;
pub mod benchmarks;
pub mod body;
pub mod creatives;
pub mod error;
pub mod events;
pub mod exports;
pub mod heatmaps;
pub mod input;
pub mod locations;
pub mod locations_import;
pub mod map;
pub mod media;
pub mod openapi;
pub mod plans;
pub mod query;
pub mod reports;
pub mod reviews;
pub mod shares;
pub mod simulations;
pub mod workspaces;

use std::sync::OnceLock;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::header;
use axum::response::IntoResponse;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use error::ApiError;

use crate::codes::ErrorCode;
use crate::state::AppState;

/// Every route of this module with its documentation. JSON bodies are limited to
/// `max_body_bytes`; `POST /media` has its own limit, `max_upload_bytes`, and
/// `POST /locations/import` its own, `max_import_bytes`.
fn routes(
    max_body_bytes: usize,
    max_upload_bytes: usize,
    max_import_bytes: usize,
) -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .merge(account::router())
        .merge(creatives::router())
        .merge(locations::router())
        .merge(map::router())
        .merge(heatmaps::router())
        .merge(aois::router())
        .merge(benchmarks::router())
        .merge(shares::router())
        .merge(reports::router())
        .merge(exports::router())
        .merge(simulations::router())
        .merge(plans::router())
        .merge(events::router())
        .merge(assistant::router())
        .merge(workspaces::router())
        .merge(activity::router())
        .merge(reviews::router())
        .routes(routes!(openapi_json))
        .layer(DefaultBodyLimit::max(max_body_bytes))
        // Merged after the layer above so their own body limits are the only ones that apply.
        .merge(media::router(max_upload_bytes))
        .merge(locations_import::router(max_import_bytes))
}

/// Routes of this module (to be nested under `/api/v1`).
pub fn router(state: &AppState) -> Router<AppState> {
    let (router, _) = routes(
        state.config.max_body_bytes,
        media::upload_body_limit(state.config.media_max_bytes),
        locations_import::import_body_limit(state.config.import_max_bytes),
    )
    .split_for_parts();
    router
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
}

/// The OpenAPI document of `/api/v1`.
pub fn openapi() -> serde_json::Value {
    openapi::finish(routes(0, 0, 0).into_openapi())
}

/// `GET /openapi.json`: the OpenAPI 3.1 document of this API.
#[utoipa::path(
    get,
    path = "/openapi.json",
    tag = "meta",
    security(()),
    responses((status = 200, description = "This document", content_type = "application/json"))
)]
async fn openapi_json() -> impl IntoResponse {
    static DOCUMENT: OnceLock<String> = OnceLock::new();
    let text = DOCUMENT.get_or_init(|| openapi::to_json(&openapi()));
    ([(header::CONTENT_TYPE, "application/json")], text.as_str())
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(ErrorCode::MethodNotAllowed)
}

async fn not_found() -> ApiError {
    ApiError::new(ErrorCode::NotFound)
}
