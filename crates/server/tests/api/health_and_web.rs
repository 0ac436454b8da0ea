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
        "/metrics/other",
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

#[tokio::test]
async fn api_paths_never_fall_back_to_the_web_app() {
    let app = spawn_app().await;
    for path in [
        "/api",
        "/api/",
        "/api/v1",
        "/api/v1/",
        "/auth/v1/",
        "/auth/v1/nothing",
    ] {
        let response = app.get_url(path).await;
        assert_eq!(response.status(), 404, "{path}");
        let content_type = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(
            content_type.starts_with("application/json"),
            "{path}: {content_type}"
        );
    }
}

#[tokio::test]
async fn json_answers_are_not_stored_and_request_ids_are_checked() {
    let app = spawn_app().await;
    let session = app
        .sign_up(&crate::helpers::unique_email(), "secret1")
        .await;
    let token = session["access_token"].as_str().unwrap();
    let response = app
        .client
        .get(app.url("/api/v1/creatives"))
        .bearer_auth(token)
        .header("x-request-id", "client-trace.42")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["cache-control"], "no-store");
    // A harmless id the client sent is echoed; anything else is replaced by one of ours.
    assert_eq!(response.headers()["x-request-id"], "client-trace.42");
    for forged in [
        "a".repeat(300),
        "id with spaces".to_owned(),
        "<script>".to_owned(),
    ] {
        let response = app
            .client
            .get(app.url("/healthz"))
            .header("x-request-id", &forged)
            .send()
            .await
            .unwrap();
        let echoed = response.headers()["x-request-id"]
            .to_str()
            .unwrap()
            .to_owned();
        assert_ne!(echoed, forged);
        assert!(uuid::Uuid::parse_str(&echoed).is_ok(), "{echoed}");
    }
    // The public key set keeps its own caching.
    let jwks = app.get_url("/auth/v1/.well-known/jwks.json").await;
    assert_eq!(jwks.headers()["cache-control"], "public, max-age=600");
}

#[tokio::test]
async fn tokens_for_another_audience_do_not_open_the_api() {
    let app = spawn_app().await;
    let session = app
        .sign_up(&crate::helpers::unique_email(), "secret1")
        .await;
    let mut claims: serde_json::Value = app
        .state
        .jwt
        .verify_any(session["access_token"].as_str().unwrap())
        .unwrap();
    claims["aud"] = serde_json::json!("some-other-service");
    let token = app.state.jwt.sign(&claims).unwrap();
    let response = app
        .client
        .get(app.url("/api/v1/creatives"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
}

#[tokio::test]
async fn hsts_is_sent_only_when_the_site_is_served_over_https() {
    let plain = spawn_app().await;
    let response = plain.get_url("/healthz").await;
    assert!(
        response
            .headers()
            .get("strict-transport-security")
            .is_none()
    );

    let secure = crate::helpers::spawn_app_with(|config| {
        config.site_url = "https://regard.example.com".to_owned();
    })
    .await;
    for path in ["/healthz", "/", "/api/v1/creatives"] {
        let response = secure.get_url(path).await;
        assert_eq!(
            response.headers()["strict-transport-security"],
            "max-age=31536000",
            "{path}"
        );
    }
}
