//! `GET /metrics`: Prometheus series for requests (by route template), jobs, event streams and
//! the database pool, and the optional bearer token.

use reqwest::Method;
use serde_json::json;

use crate::fixtures::png;
use crate::helpers::{TestApp, spawn_app, spawn_app_with};

async fn scrape(app: &TestApp) -> String {
    let response = app.client.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/openmetrics-text")
    );
    response.text().await.unwrap()
}

/// The value of one series line (`name{labels} value`), when present.
fn value(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test]
async fn requests_jobs_streams_and_the_pool_are_counted() {
    // No workers, so the queued jobs stay queued while we look.
    let app = spawn_app().await;
    let user = app.new_user().await;
    let missing = uuid::Uuid::new_v4();
    for _ in 0..2 {
        let response = app
            .api_send(Method::GET, &format!("/media/{missing}"), &user)
            .await;
        assert_eq!(response.status(), 404);
    }
    let media = app.upload_ok(&user, "a.png", png(40, 30)).await;
    let response = app
        .api_json(
            Method::POST,
            "/heatmaps",
            &user,
            &json!({"name": "Queued", "media_ids": [media["id"]]}),
        )
        .await;
    assert_eq!(response.status(), 202);
    let _stream = app.events(&user).await;

    let text = scrape(&app).await;
    assert_eq!(
        value(
            &text,
            r#"regard_http_requests_total{method="GET",route="/api/v1/media/{id}",status="404"}"#
        ),
        Some(2.0),
        "{text}"
    );
    assert_eq!(
        value(
            &text,
            r#"regard_http_requests_total{method="POST",route="/api/v1/heatmaps",status="202"}"#
        ),
        Some(1.0)
    );
    assert_eq!(
        value(
            &text,
            r#"regard_http_request_duration_seconds_count{method="POST",route="/api/v1/media",status="201"}"#
        ),
        Some(1.0)
    );
    // Route templates only: ids never make series of their own.
    assert!(!text.contains(&missing.to_string()));
    assert_eq!(
        value(&text, r#"regard_jobs_queued{kind="heatmap_item"}"#),
        Some(1.0)
    );
    assert_eq!(
        value(&text, r#"regard_jobs_queued{kind="render_simulation"}"#),
        Some(0.0)
    );
    assert!(
        value(
            &text,
            r#"regard_jobs_oldest_queued_age_seconds{kind="heatmap_item"}"#
        )
        .is_some()
    );
    assert_eq!(value(&text, "regard_sse_connections"), Some(1.0));
    assert!(value(&text, "regard_db_pool_max_connections").unwrap() >= 1.0);
    assert!(text.ends_with("# EOF\n"));

    // The queue drained the way a worker would: one attempt, done, timed.
    assert_eq!(app.drain_jobs().await, 1);
    let text = scrape(&app).await;
    assert_eq!(
        value(&text, r#"regard_jobs_queued{kind="heatmap_item"}"#),
        Some(0.0)
    );
    assert_eq!(
        value(&text, r#"regard_job_attempts_total{kind="heatmap_item"}"#),
        Some(1.0)
    );
    assert_eq!(
        value(
            &text,
            r#"regard_job_outcomes_total{kind="heatmap_item",outcome="done"}"#
        ),
        Some(1.0)
    );
    assert_eq!(
        value(
            &text,
            r#"regard_job_duration_seconds_count{kind="heatmap_item"}"#
        ),
        Some(1.0)
    );
}

#[tokio::test]
async fn a_configured_token_is_required() {
    let app = spawn_app_with(|config| {
        config.metrics_token = Some(regard::config::Secret::new("s3cret-scrape".to_owned()));
    })
    .await;
    let bare = app.client.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(bare.status(), 401);
    assert_eq!(bare.headers()["www-authenticate"], "Bearer");
    let wrong = app
        .client
        .get(app.url("/metrics"))
        .bearer_auth("s3cret-scrapf")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);
    let right = app
        .client
        .get(app.url("/metrics"))
        .bearer_auth("s3cret-scrape")
        .send()
        .await
        .unwrap();
    assert_eq!(right.status(), 200);
    assert!(
        right
            .text()
            .await
            .unwrap()
            .contains("regard_http_requests_total")
    );
}
