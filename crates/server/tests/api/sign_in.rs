//! `POST /auth/v1/token?grant_type=password` and the bearer checks of authenticated routes.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_error, spawn_app, spawn_app_with, unique_email};

#[tokio::test]
async fn sign_in_with_the_right_password_opens_a_new_session() {
    let app = spawn_app().await;
    let email = unique_email();
    let first = app.sign_up(&email, "secret1").await;
    let response = app.sign_in(&email.to_uppercase(), "secret1").await;
    assert_eq!(response.status(), 200);
    let session: Value = response.json().await.unwrap();
    assert_eq!(session["user"]["id"], first["user"]["id"]);
    assert!(session["user"]["last_sign_in_at"].is_string());
    assert_ne!(session["refresh_token"], first["refresh_token"]);

    let me = app
        .with_token(
            Method::GET,
            "/auth/v1/user",
            session["access_token"].as_str().unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(me.status(), 200);
}

#[tokio::test]
async fn a_wrong_password_and_an_unknown_email_give_the_same_answer() {
    let app = spawn_app().await;
    let email = unique_email();
    app.sign_up(&email, "secret1").await;
    let wrong = assert_error(
        app.sign_in(&email, "secret2").await,
        400,
        "invalid_credentials",
    )
    .await;
    let unknown = assert_error(
        app.sign_in(&unique_email(), "secret1").await,
        400,
        "invalid_credentials",
    )
    .await;
    assert_eq!(wrong, unknown);
    assert_eq!(wrong["message"], "Invalid login credentials");
}

#[tokio::test]
async fn sign_in_needs_an_email_and_a_known_grant_type() {
    let app = spawn_app().await;
    let response = app
        .post(
            "/auth/v1/token?grant_type=password",
            &json!({"password": "secret1"}),
        )
        .await;
    assert_error(response, 400, "validation_failed").await;
    let response = app
        .post("/auth/v1/token?grant_type=magic", &json!({}))
        .await;
    assert_error(response, 400, "invalid_credentials").await;
    let response = app
        .auth_request(Method::POST, "/auth/v1/token?grant_type=password")
        .body("not json")
        .send()
        .await
        .unwrap();
    assert_error(response, 400, "bad_json").await;
}

#[tokio::test]
async fn sign_ins_are_rate_limited_per_ip() {
    let app = spawn_app_with(|config| config.rate_limit_sign_in = 3).await;
    let email = unique_email();
    app.sign_up(&email, "secret1").await;
    for _ in 0..3 {
        assert_eq!(app.sign_in(&email, "wrong-password").await.status(), 400);
    }
    let limited = app.sign_in(&email, "secret1").await;
    // Three per 300-second window, refilled evenly: one every 100 seconds.
    let wait = crate::helpers::retry_after(&limited);
    assert!((1..=100).contains(&wait), "{wait}");
    let body = assert_error(limited, 429, "over_request_rate_limit").await;
    assert!(body["message"].is_string());
}

/// A password sign-in sent with `X-Forwarded-For: forwarded` (none when empty).
async fn sign_in_forwarded(app: &TestApp, email: &str, password: &str, forwarded: &str) -> u16 {
    let mut request = app.auth_request(Method::POST, "/auth/v1/token?grant_type=password");
    if !forwarded.is_empty() {
        request = request.header("X-Forwarded-For", forwarded);
    }
    request
        .body(json!({"email": email, "password": password}).to_string())
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn forwarded_for_counts_only_behind_a_trusted_proxy() {
    let app = spawn_app_with(|config| {
        config.rate_limit_sign_in = 1;
        config.trust_proxy = true;
    })
    .await;
    let email = unique_email();
    app.sign_up(&email, "secret1").await;
    // What a proxy that replaces the header (Caddy) sends: one address each.
    for ip in ["203.0.113.1", "203.0.113.2"] {
        let status = sign_in_forwarded(&app, &email, "secret1", ip).await;
        assert_eq!(status, 200, "{ip} has its own allowance");
    }
    // A client that writes its own first entry behind a proxy that appends (nginx, AWS ALB)
    // is the address the proxy appended.
    let status = sign_in_forwarded(&app, &email, "secret1", "198.51.100.50, 203.0.113.1").await;
    assert_eq!(status, 429);
}

#[tokio::test]
async fn a_client_written_forwarded_entry_does_not_dodge_the_limit() {
    // The review's replay: 60 wrong passwords, each with a new first entry, behind one proxy
    // that appends the real address: 60 × 400 before, 30 then 429s now.
    let app = spawn_app_with(|config| {
        config.rate_limit_sign_in = 30;
        config.trust_proxy = true;
    })
    .await;
    let email = unique_email();
    app.sign_up(&email, "secret1").await;
    let mut statuses = Vec::new();
    for i in 0..60 {
        let forwarded = format!("203.0.113.{i}, 198.51.100.9");
        statuses.push(sign_in_forwarded(&app, &email, "wrong", &forwarded).await);
    }
    assert!(statuses[..30].iter().all(|s| *s == 400), "{statuses:?}");
    assert!(statuses[30..].iter().all(|s| *s == 429), "{statuses:?}");
}

#[tokio::test]
async fn trusted_proxies_are_skipped_from_the_right() {
    let app = spawn_app_with(|config| {
        config.rate_limit_sign_in = 1;
        // The test client connects from 127.0.0.1: it plays the inner proxy.
        config.trusted_proxies = vec![
            "127.0.0.0/8".parse().unwrap(),
            "192.0.2.10/32".parse().unwrap(),
        ];
    })
    .await;
    let email = unique_email();
    app.sign_up(&email, "secret1").await;
    let chain = |client: &str| format!("203.0.113.66, {client}, 192.0.2.10");
    assert_eq!(
        sign_in_forwarded(&app, &email, "secret1", &chain("198.51.100.1")).await,
        200
    );
    assert_eq!(
        sign_in_forwarded(&app, &email, "secret1", &chain("198.51.100.2")).await,
        200
    );
    assert_eq!(
        sign_in_forwarded(&app, &email, "secret1", &chain("198.51.100.1")).await,
        429
    );
}

#[tokio::test]
async fn authenticated_routes_reject_missing_and_invalid_tokens() {
    let app = spawn_app().await;
    let response = app
        .base_request(Method::GET, "/auth/v1/user")
        .send()
        .await
        .unwrap();
    assert_error(response, 401, "no_authorization").await;

    let response = app
        .with_token(Method::GET, "/auth/v1/user", "not.a.jwt")
        .send()
        .await
        .unwrap();
    assert_error(response, 403, "bad_jwt").await;

    // A token signed by another server (another secret).
    let other = spawn_app().await;
    let foreign = other.sign_up(&unique_email(), "secret1").await;
    let response = app
        .with_token(
            Method::GET,
            "/auth/v1/user",
            foreign["access_token"].as_str().unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_error(response, 403, "bad_jwt").await;
}

#[tokio::test]
async fn expired_access_tokens_are_rejected() {
    // A lifetime of 0 s: the token is expired as soon as it is issued (no leeway).
    let app = spawn_app_with(|config| config.jwt_exp = 0).await;
    let session = app.sign_up(&unique_email(), "secret1").await;
    // `exp == iat`; wait for the clock to pass `exp` by asking until it does (at most ~1 s).
    let token = session["access_token"].as_str().unwrap();
    let exp = session["expires_at"].as_i64().unwrap();
    while chrono::Utc::now().timestamp() <= exp {
        tokio::task::yield_now().await;
    }
    let response = app
        .with_token(Method::GET, "/auth/v1/user", token)
        .send()
        .await
        .unwrap();
    assert_error(response, 403, "bad_jwt").await;
}

/// Sends `count` password sign-ins at once; their statuses and `Retry-After`s.
async fn sign_in_burst(
    app: &crate::helpers::TestApp,
    email: &str,
    count: usize,
) -> Vec<(u16, Option<u64>, Value)> {
    let answers =
        futures::future::join_all((0..count).map(|_| app.sign_in(email, "secret1"))).await;
    let mut seen = Vec::new();
    for response in answers {
        let status = response.status().as_u16();
        let retry = (status == 429).then(|| crate::helpers::retry_after(&response));
        seen.push((status, retry, response.json().await.unwrap()));
    }
    seen
}

#[tokio::test]
async fn sign_ins_past_the_hashing_budget_are_refused_with_retry_after_and_the_others_succeed() {
    // One hash at a time and no waiting: of a burst, the sign-ins that find the hasher busy
    // are refused (429, GoTrue's shape) instead of each taking 19 MiB more.
    let app = spawn_app_with(|config| {
        config.password_hash_memory = regard::auth::password::HASH_MEMORY_MIB;
        config.password_hash_wait_ms = 0;
    })
    .await;
    let email = unique_email();
    app.sign_up(&email, "secret1").await;
    let seen = sign_in_burst(&app, &email, 24).await;
    let refused = seen.iter().filter(|(status, ..)| *status == 429).count();
    let signed_in = seen.iter().filter(|(status, ..)| *status == 200).count();
    assert_eq!(refused + signed_in, seen.len(), "{seen:?}");
    assert!(refused > 0, "no sign-in of the burst was refused");
    assert!(signed_in > 0, "no sign-in of the burst succeeded");
    for (_, retry, body) in seen.iter().filter(|(status, ..)| *status == 429) {
        assert_eq!(body["code"], "over_request_rate_limit", "{body}");
        assert!(retry.is_some());
    }
}

#[tokio::test]
async fn sign_ins_queue_briefly_for_the_hashing_budget() {
    let app = spawn_app_with(|config| {
        config.password_hash_memory = regard::auth::password::HASH_MEMORY_MIB;
        config.password_hash_wait_ms = 60_000;
    })
    .await;
    let email = unique_email();
    app.sign_up(&email, "secret1").await;
    let seen = sign_in_burst(&app, &email, 8).await;
    assert!(seen.iter().all(|(status, ..)| *status == 200), "{seen:?}");
}
