//! Health checks, the SPA (fallback, cache headers) and the security headers.

use crate::helpers::spawn_app;

#[tokio::test]
async fn healthz_and_readyz_answer_ok() {
    let app = spawn_app().await;
    for path in ["/healthz", "/readyz"] {
        let response = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
    }
}

#[tokio::test]
async fn every_response_carries_security_headers() {
    let app = spawn_app().await;
    for path in [
        "/",
        "/healthz",
        "/auth/v1/settings",
        "/auth/v1/user",
        "/api/v1/nothing",
    ] {
        let response = app.client.get(app.url(path)).send().await.unwrap();
        let headers = response.headers();
        let csp = headers["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("default-src 'self'"), "{path}: {csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert!(csp.contains("img-src 'self' data: blob:"), "{path}: {csp}");
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(headers["x-frame-options"], "DENY", "{path}");
        assert!(headers.contains_key("referrer-policy"), "{path}");
    }
}

#[tokio::test]
async fn index_is_served_without_caching_and_client_routes_fall_back_to_it() {
    let app = spawn_app().await;
    for path in ["/", "/creatives", "/heatmap/results/42"] {
        let response = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.headers()["cache-control"], "no-cache", "{path}");
        let body = response.text().await.unwrap();
        assert!(body.contains("<div id=\"root\">"), "{path}: {body}");
    }
}

#[tokio::test]
async fn hashed_assets_are_cached_for_good_and_missing_ones_are_404() {
    let app = spawn_app().await;
    let response = app
        .client
        .get(app.url("/assets/index-abc123.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert_eq!(response.text().await.unwrap(), "console.log('regard');");

    let missing = app
        .client
        .get(app.url("/assets/gone-000.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    assert!(!missing.headers().contains_key("cache-control"));
}

#[tokio::test]
async fn server_paths_never_fall_back_to_the_app() {
    let app = spawn_app().await;
    for path in [
        "/api/v1/unknown",
        "/auth/v1/unknown",
        "/auth/other",
        "/metrics",
    ] {
        let response = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(response.status(), 404, "{path}");
        let body = response.text().await.unwrap();
        assert!(!body.contains("id=\"root\""), "{path} served the app");
    }
}

#[tokio::test]
async fn a_missing_web_build_serves_a_plain_page() {
    let app = spawn_app().await;
    std::fs::remove_dir_all(&app.web_dir).unwrap();
    let response = app.client.get(app.url("/creatives")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.text().await.unwrap().contains("not built"));
    // The API still works.
    let settings = app
        .client
        .get(app.url("/auth/v1/settings"))
        .send()
        .await
        .unwrap();
    assert_eq!(settings.status(), 200);
}
