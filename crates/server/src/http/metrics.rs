//! `GET /metrics`: this process's Prometheus series ([`crate::metrics`]), and the layer that
//! counts every routed request. With `REGARD_METRICS_TOKEN` set, scrapes must send
//! `Authorization: Bearer <token>`; without it the route is open (keep it off the public
//! internet: docs/operations.md). A `regard worker` serves the same route on its own listener
//! (`--metrics-bind`), through [`Scrape`], which needs no API state.

use std::time::Instant;

use axum::Router;
use axum::extract::{FromRef, MatchedPath, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::config::Secret;
use crate::db::{self, Db};
use crate::metrics::{KindLabels, Metrics, PoolLabels};
use crate::state::AppState;

/// What a scrape reads: this process's series, the database (the queue, the pool) and the
/// token scrapes must send, if any.
#[derive(Clone)]
pub struct Scrape {
    pub metrics: Metrics,
    pub db: Db,
    pub token: Option<Secret>,
}

impl FromRef<AppState> for Scrape {
    fn from_ref(state: &AppState) -> Self {
        Self {
            metrics: state.metrics.clone(),
            db: state.db.clone(),
            token: state.config.metrics_token.clone(),
        }
    }
}

/// A worker's listener has a [`Scrape`] for state; its `/readyz` pings the same database.
impl FromRef<Scrape> for Db {
    fn from_ref(scrape: &Scrape) -> Self {
        scrape.db.clone()
    }
}

/// Routes of this module, for any state a [`Scrape`] comes from.
pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Scrape: FromRef<S>,
{
    Router::new().route("/metrics", get(metrics))
}

/// Counts a routed request under its route template once its response head is ready.
pub async fn track(
    State(state): State<AppState>,
    matched: Option<MatchedPath>,
    request: Request,
    next: Next,
) -> Response {
    let route = matched.map_or_else(|| "unmatched".to_owned(), |m| m.as_str().to_owned());
    let method = request.method().clone();
    let started = Instant::now();
    let response = next.run(request).await;
    state.metrics.observe_request(
        method.as_str(),
        &route,
        response.status().as_u16(),
        started.elapsed(),
    );
    response
}

async fn metrics(State(state): State<Scrape>, headers: HeaderMap) -> Response {
    if let Some(token) = &state.token {
        let sent = headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .unwrap_or("");
        if !crate::auth::flow::constant_time_eq(sent.as_bytes(), token.expose().as_bytes()) {
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer")],
                "metrics need the bearer token (REGARD_METRICS_TOKEN)\n",
            )
                .into_response();
        }
    }
    let metrics = &state.metrics;
    // Read now: the queue is shared by every node, the pool is this node's.
    let now = db::now_ms();
    // Every kind has a value, 0 when none waits, so a drained queue reads 0, not stale.
    for kind in db::jobs::KINDS {
        let labels = KindLabels {
            kind: kind.to_owned(),
        };
        metrics.jobs_queued.get_or_create(&labels).set(0);
        metrics.jobs_oldest_age.get_or_create(&labels).set(0.0);
    }
    match db::jobs::queue_stats(&state.db, now).await {
        Ok(stats) => {
            for stat in stats {
                let labels = KindLabels { kind: stat.kind };
                metrics.jobs_queued.get_or_create(&labels).set(stat.queued);
                let age = stat
                    .oldest_due
                    .map_or(0.0, |at| (now - at).max(0) as f64 / 1000.0);
                metrics.jobs_oldest_age.get_or_create(&labels).set(age);
            }
        }
        Err(err) => tracing::warn!(error = %err, "metrics: cannot read the job queue"),
    }
    let pool = state.db.pool_stats();
    metrics
        .db_connections
        .get_or_create(&PoolLabels { state: "idle" })
        .set(pool.idle as i64);
    metrics
        .db_connections
        .get_or_create(&PoolLabels { state: "in_use" })
        .set((pool.size as usize).saturating_sub(pool.idle) as i64);
    metrics.db_connections_max.set(i64::from(pool.max));
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        metrics.encode(),
    )
        .into_response()
}
