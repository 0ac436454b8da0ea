//! `GET /heatmaps/{id}/benchmarks`: where each done image's measures and areas stand, against
//! the caller's own results and against the shipped reference (crate::heatmaps::benchmark).

use axum::Json;
use axum::extract::{Path, State};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ApiError;
use super::input::{ApiUser, parse_id};
use crate::db::heatmaps::{self as hdb, HeatmapWithItems};
use crate::db::{self, DbError};
use crate::heatmaps::benchmark::{Library, heatmap_benchmarks};
use crate::state::AppState;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(benchmarks))
}

// The answer is built as JSON by crate::heatmaps::benchmark (the report reads it too); these
// types describe it for the API document, and tests/api/openapi.rs checks real answers
// against them.

/// What an image is, for comparisons (an `image` is none of the others: compared with all).
#[derive(ToSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum BenchmarkKind {
    Creative,
    Location,
    Render,
    Image,
}

/// Where a value stands among the caller's own results: `percentile` is null until there are
/// enough of them.
#[derive(ToSchema)]
#[allow(dead_code)]
struct LibraryStanding {
    percentile: Option<f64>,
    count: u64,
}

/// Where a value stands in the shipped reference.
#[derive(ToSchema)]
#[allow(dead_code)]
struct ReferenceStanding {
    /// 0–100, to one decimal.
    percentile: f64,
    count: u64,
}

/// One measure of an image and where it stands.
#[derive(ToSchema)]
#[allow(dead_code)]
struct MetricBenchmark {
    value: f64,
    /// Null on a share link's page (the owner's library is not shown to visitors).
    library: Option<LibraryStanding>,
    reference: Option<ReferenceStanding>,
}

/// An area of interest's share of attention and where it stands among areas of the same name.
#[derive(ToSchema)]
#[allow(dead_code)]
struct AreaBenchmark {
    aoi_id: String,
    share: f64,
    library: Option<LibraryStanding>,
    reference: Option<ReferenceStanding>,
}

/// The benchmarks of one done image.
#[derive(ToSchema)]
#[allow(dead_code)]
struct ItemBenchmarks {
    item_id: String,
    kind: BenchmarkKind,
    /// By measure: `score`, `focus`, `clarity`, and `panel` for a render.
    metrics: std::collections::BTreeMap<String, MetricBenchmark>,
    aois: Vec<AreaBenchmark>,
}

/// Where the reference comes from.
#[derive(ToSchema)]
#[allow(dead_code)]
struct ReferenceSource {
    name: String,
    /// How many images it was computed on.
    images: u64,
    licence: String,
    citation: String,
    method: String,
    /// The attention model it was computed with.
    model: String,
}

/// Where each done image's measures and areas stand.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(super) struct Benchmarks {
    reference: ReferenceSource,
    items: Vec<ItemBenchmarks>,
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
    user: ApiUser,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id)?;
    let found = hdb::find_owned(&state.db, user.id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(Json(load(&state, &found).await?))
}

/// The benchmarks of a heatmap its owner has found (also used by the report).
pub async fn load(state: &AppState, found: &HeatmapWithItems) -> Result<Value, DbError> {
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
