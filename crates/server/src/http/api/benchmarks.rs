//! `GET /heatmaps/{id}/benchmarks`: where each done image's measures and areas stand, against
//! the caller's own results and against the shipped reference (crate::heatmaps::benchmark).

use axum::Json;
use axum::extract::State;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::body::{Id, IdPath};
use super::error::ApiError;
use super::input::Member;
use crate::db::heatmaps::{self as hdb, HeatmapWithItems};
use crate::db::{self, DbError};
use crate::heatmaps::benchmark::{Benchmarks, Library, heatmap_benchmarks};
use crate::state::AppState;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(benchmarks))
}

/// `GET /heatmaps/{id}/benchmarks`.
#[utoipa::path(
    get,
    path = "/heatmaps/{id}/benchmarks",
    tag = "heatmaps",
    params(("id" = String, Path, description = "The heatmap's id")),
    responses((status = 200, description = "The benchmarks of its done images", body = Benchmarks))
)]
async fn benchmarks(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
) -> Result<Json<Benchmarks>, ApiError> {
    let found = hdb::find_owned(&state.db, user.workspace_id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(Json(load(&state, &found).await?))
}

/// The benchmarks of a heatmap its owner has found (also used by the report).
pub async fn load(state: &AppState, found: &HeatmapWithItems) -> Result<Benchmarks, DbError> {
    let owner = &found.heatmap.owner_id;
    let library = hdb::library(&state.db, owner).await?;
    let mut keys: Vec<String> = found
        .aois
        .iter()
        .map(|a| db::aois::name_key(&a.name))
        .collect();
    keys.sort();
    keys.dedup();
    let named = db::aois::with_names(&state.db, owner, &keys).await?;
    let mut item_ids: Vec<String> = named.iter().map(|a| a.item_id.clone()).collect();
    item_ids.sort();
    item_ids.dedup();
    let results = hdb::results_of(&state.db, owner, &item_ids).await?;
    Ok(heatmap_benchmarks(
        found,
        Some(Library {
            items: &library,
            named: &named,
            results: &results,
        }),
    ))
}
