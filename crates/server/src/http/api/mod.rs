//! `/api/v1`: the domain API (media, signed files, creatives, locations, heatmaps, simulations,
//! events, the assistant and help articles). Every error is an
//! [`ApiError`] (`{code, message, details}`); unknown paths answer a JSON 404 instead of
//! falling through to the SPA. See docs/notes/api.md for the endpoints and shapes.

pub mod aois;
pub mod assistant;
pub mod benchmarks;
pub mod creatives;
pub mod error;
pub mod events;
pub mod exports;
pub mod heatmaps;
pub mod input;
pub mod locations;
pub mod media;
pub mod reports;
pub mod shares;
pub mod signing;
pub mod simulations;

use axum::Router;
use axum::extract::DefaultBodyLimit;

pub use error::ApiError;

use crate::state::AppState;

/// Routes of this module (to be nested under `/api/v1`). JSON bodies are limited to
/// `REGARD_MAX_BODY_BYTES`; `POST /media` has its own, larger limit.
pub fn router(state: &AppState) -> Router<AppState> {
    Router::new()
        .merge(creatives::router())
        .merge(locations::router())
        .merge(heatmaps::router())
        .merge(aois::router())
        .merge(benchmarks::router())
        .merge(shares::router())
        .merge(reports::router())
        .merge(exports::router())
        .merge(shares::public_router())
        .merge(simulations::router())
        .merge(events::router())
        .merge(assistant::router())
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(state.config.max_body_bytes))
        // Merged after the layer above so its own body limit is the only one that applies.
        .merge(media::router(state))
        .method_not_allowed_fallback(method_not_allowed)
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "This endpoint does not accept this method",
    )
}

async fn not_found() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::NOT_FOUND,
        "not_found",
        "No such API endpoint",
    )
}
