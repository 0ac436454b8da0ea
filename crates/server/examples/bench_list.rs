//! Benchmark of the creatives list target: `GET /api/v1/creatives?limit=50` answers in at most
//! 10 ms of server time when the user has 10,000 creatives.
//!
//! ```text
//! cargo run --release -p regard --example bench_list [-- RUNS]
//! ```
//!
//! Seeds a temporary SQLite database (the embedded default) with one user, 10,000 media rows
//! and 10,000 creatives, then times, RUNS times each (default 200):
//!
//! - the list query alone (`db::creatives::list`, 51 rows with their media);
//! - the whole handler through the real router (no socket): bearer token check (user and
//!   session lookups), query, 150 signed URLs and the JSON body; first page, a page deep in
//!   the list (keyset cursor), and an accent-insensitive search that scans every row.
//!
//! Prints the median and 90th percentile of each. `BENCH_DATABASE_URL=postgres://...` (an
//! empty database) runs it on PostgreSQL instead.

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use regard::db::creatives;
use regard::{Application, Config};
use serde_json::Value;
use tower::ServiceExt;

mod support;

const CREATIVES: usize = 10_000;

fn summary(name: &str, mut times: Vec<Duration>) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "{name:<44} median {:>7.3} ms   p90 {:>7.3} ms   (n = {})",
        at(0.5).as_secs_f64() * 1e3,
        at(0.9).as_secs_f64() * 1e3,
        times.len()
    );
}

async fn request(
    router: &axum::Router,
    method: &str,
    uri: &str,
    token: Option<&str>,
    body: &str,
) -> (StatusCode, Vec<u8>) {
    let mut builder = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json");
    if let Some(token) = token {
        builder = builder.header("authorization", format!("Bearer {token}"));
    }
    let response = router
        .clone()
        .oneshot(builder.body(Body::from(body.to_owned())).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, bytes.to_vec())
}

#[tokio::main]
async fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::for_data_dir(dir.path());
    config.bind = "127.0.0.1:0".parse().unwrap();
    config.rate_limit_sign_up = 0;
    config.storage_url = None;
    config.database_url = std::env::var("BENCH_DATABASE_URL")
        .ok()
        .map(regard::config::Secret::new);
    let app = Application::build(config).await.unwrap();
    let state = app.state().clone();
    let router = regard::http::router(state.clone());
    println!("backend: {:?}", state.db.backend());

    let (status, body) = request(
        &router,
        "POST",
        "/auth/v1/signup",
        None,
        r#"{"email":"bench@example.com","password":"secret1"}"#,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let session: Value = serde_json::from_slice(&body).unwrap();
    let token = session["access_token"].as_str().unwrap().to_owned();
    let owner = session["user"]["id"].as_str().unwrap().to_owned();

    let seeding = Instant::now();
    support::seed_creatives(&state.db, &owner, CREATIVES).await;
    println!(
        "seeded {CREATIVES} creatives with their media in {:.1} s",
        seeding.elapsed().as_secs_f64()
    );

    // Fresh statistics, as autovacuum (PostgreSQL) or a long-lived database would have.
    {
        use sqlx::{Connection, Executor};
        let url = std::env::var("BENCH_DATABASE_URL")
            .unwrap_or_else(|_| format!("sqlite://{}", dir.path().join("regard.db").display()));
        let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
        conn.execute("ANALYZE").await.unwrap();
        conn.close().await.unwrap();
    }

    // The cursor of a page deep in the list: after the 5,000th creative.
    let deep = creatives::list(&state.db, &owner, 5000, None, "")
        .await
        .unwrap();
    let last = &deep[4999].creative;
    let cursor = hex::encode(format!("{}:{}", last.created_at, last.id));

    let mut query_times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let rows = creatives::list(&state.db, &owner, 50, None, "")
            .await
            .unwrap();
        query_times.push(start.elapsed());
        assert_eq!(rows.len(), 51);
    }
    summary("query: first page of 50", query_times);

    for (name, uri, expected) in [
        (
            "handler: GET /creatives?limit=50",
            "/api/v1/creatives?limit=50".to_owned(),
            50,
        ),
        (
            "handler: page after 5,000 (cursor)",
            format!("/api/v1/creatives?limit=50&cursor={cursor}"),
            50,
        ),
        (
            "handler: search q=evian (1 row in 5 matches)",
            "/api/v1/creatives?limit=50&q=evian".to_owned(),
            50,
        ),
        (
            "handler: search, no match (scans all rows)",
            "/api/v1/creatives?limit=50&q=introuvable".to_owned(),
            0,
        ),
    ] {
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let start = Instant::now();
            let (status, body) = request(&router, "GET", &uri, Some(&token), "").await;
            times.push(start.elapsed());
            assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
            let page: Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(page["items"].as_array().unwrap().len(), expected);
        }
        summary(name, times);
    }
}
