//! `GET /map`: what the web app's map needs from the server's configuration: the raster
//! tiles' URL template and the attribution their provider requires (`REGARD_MAP_TILES_URL`,
//! `REGARD_MAP_ATTRIBUTION`; docs/configuration.md). The browser fetches the tiles itself; the
//! Content-Security-Policy allows their origin as an image source (`http::content_security_policy`).

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::input::Member;
use crate::state::AppState;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(map))
}

/// The map's tiles.
#[derive(Debug, Serialize, ToSchema)]
pub struct MapSettings {
    /// A URL template with `{z}`, `{x}`, `{y}` (and optionally `{s}`).
    pub tiles_url: String,
    /// Shown on the map, as the provider requires.
    pub attribution: String,
    /// The deepest zoom level the map offers.
    pub max_zoom: u8,
}

/// `GET /map` → the tiles' URL template and attribution.
#[utoipa::path(
    get,
    path = "/map",
    tag = "locations",
    responses((status = 200, description = "The map's tiles", body = MapSettings))
)]
async fn map(State(state): State<AppState>, _user: Member) -> Json<MapSettings> {
    Json(MapSettings {
        tiles_url: state.config.map_tiles_url.clone(),
        attribution: state.config.map_attribution.clone(),
        max_zoom: 19,
    })
}
