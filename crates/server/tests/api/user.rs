//! `GET /auth/v1/user` and `PUT /auth/v1/user`.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_error, spawn_app, unique_email};

async fn put_user(app: &TestApp, session: &Value, body: Value) -> reqwest::Response {
    app.with_token(
        Method::PUT,
        "/auth/v1/user",
        session["access_token"].as_str().unwrap(),
    )
    .body(body.to_string())
    .send()
    .await
    .unwrap()
}

#[tokio::test]
async fn get_user_returns_the_bare_user() {
    let app = spawn_app().await;
    let email = unique_email();
    let session = app.sign_up(&email, "secret1").await;
    let response = app
        .with_token(
            Method::GET,
            "/auth/v1/user",
            session["access_token"].as_str().unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let user: Value = response.json().await.unwrap();
    assert_eq!(user["id"], session["user"]["id"]);
    assert_eq!(user["email"], email.as_str());
    assert!(user.get("user").is_none());
}

#[tokio::test]
async fn metadata_is_merged_and_null_deletes_a_key() {
    let app = spawn_app().await;
    let session = app.sign_up(&unique_email(), "secret1").await;
    let response = put_user(
        &app,
        &session,
        json!({"data": {"lang": "fr", "theme": "dark"}}),
    )
    .await;
    assert_eq!(response.status(), 200);
    let user: Value = response.json().await.unwrap();
    assert_eq!(
        user["user_metadata"],
        json!({"lang": "fr", "theme": "dark"})
    );

    let response = put_user(
        &app,
        &session,
        json!({"data": {"lang": "en", "theme": null}}),
    )
    .await;
    let user: Value = response.json().await.unwrap();
    assert_eq!(user["user_metadata"], json!({"lang": "en"}));

    // A new access token carries the new metadata.
    let refreshed: Value = app
        .refresh(session["refresh_token"].as_str().unwrap())
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(refreshed["user"]["user_metadata"], json!({"lang": "en"}));
}

#[tokio::test]
async fn a_password_change_lets_the_new_password_in_and_ends_other_sessions() {
    let app = spawn_app().await;
    let email = unique_email();
    let session = app.sign_up(&email, "secret1").await;
    let other: Value = app.sign_in(&email, "secret1").await.json().await.unwrap();

    let response = put_user(
        &app,
        &session,
        json!({"password": "new-secret", "current_password": "secret1"}),
    )
    .await;
    assert_eq!(response.status(), 200);

    assert_error(
        app.sign_in(&email, "secret1").await,
        400,
        "invalid_credentials",
    )
    .await;
    assert_eq!(app.sign_in(&email, "new-secret").await.status(), 200);

    // This session lives on, the other device is signed out.
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
    let response = app
        .with_token(
            Method::GET,
            "/auth/v1/user",
            other["access_token"].as_str().unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_error(response, 403, "session_not_found").await;
}

/// A password change asks for the current password (`REGARD_PASSWORD_CHANGE_NEEDS_CURRENT`,
/// on by default): a session left open cannot lock its owner out. Guesses count against the
/// user's reauthentication allowance.
#[tokio::test]
async fn a_password_change_needs_the_current_password() {
    let app = crate::helpers::spawn_app_with(|config| config.rate_limit_reauthentication = 2).await;
    let email = unique_email();
    let session = app.sign_up(&email, "secret1").await;

    let missing = put_user(&app, &session, json!({"password": "new-secret"})).await;
    assert_error(missing, 400, "current_password_required").await;
    let wrong = put_user(
        &app,
        &session,
        json!({"password": "new-secret", "current_password": "secret2"}),
    )
    .await;
    assert_error(wrong, 400, "current_password_invalid").await;
    // Nothing changed.
    assert_eq!(app.sign_in(&email, "secret1").await.status(), 200);

    let right = put_user(
        &app,
        &session,
        json!({"password": "new-secret", "current_password": "secret1"}),
    )
    .await;
    assert_eq!(right.status(), 200);
    assert_eq!(app.sign_in(&email, "new-secret").await.status(), 200);

    // The wrong and the right password used the allowance (a missing one takes nothing); the
    // next change waits, right password or not.
    let limited = put_user(
        &app,
        &session,
        json!({"password": "third-secret", "current_password": "new-secret"}),
    )
    .await;
    assert_error(limited, 429, "over_request_rate_limit").await;

    // Metadata changes need no password.
    let data = put_user(&app, &session, json!({"data": {"lang": "fr"}})).await;
    assert_eq!(data.status(), 200);
}

/// Without the setting, GoTrue's default: the session alone changes the password.
#[tokio::test]
async fn the_current_password_can_be_left_unasked() {
    let app = crate::helpers::spawn_app_with(|config| {
        config.password_change_needs_current = false;
    })
    .await;
    let email = unique_email();
    let session = app.sign_up(&email, "secret1").await;
    let response = put_user(&app, &session, json!({"password": "new-secret"})).await;
    assert_eq!(response.status(), 200);
    assert_eq!(app.sign_in(&email, "new-secret").await.status(), 200);
}

#[tokio::test]
async fn password_updates_are_checked() {
    let app = spawn_app().await;
    let session = app.sign_up(&unique_email(), "secret1").await;
    let response = put_user(&app, &session, json!({"password": "123"})).await;
    let body = assert_error(response, 422, "weak_password").await;
    assert_eq!(body["weak_password"]["reasons"], json!(["length"]));
    let response = put_user(
        &app,
        &session,
        json!({"password": "secret1", "current_password": "secret1"}),
    )
    .await;
    assert_error(response, 422, "same_password").await;
    let response = put_user(&app, &session, json!({"app_metadata": {"role": "admin"}})).await;
    assert_error(response, 403, "not_admin").await;
    let response = app
        .base_request(Method::PUT, "/auth/v1/user")
        .body(json!({"data": {}}).to_string())
        .send()
        .await
        .unwrap();
    assert_error(response, 401, "no_authorization").await;
}

#[tokio::test]
async fn oversized_metadata_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let email = unique_email();
    let big = json!({"blob": "x".repeat(100 * 1024)});

    // At sign-up: no account is made.
    let response = app
        .post(
            "/auth/v1/signup",
            &json!({"email": email, "password": "secret1", "data": big}),
        )
        .await;
    let body = assert_error(response, 400, "validation_failed").await;
    assert!(
        body["message"].as_str().unwrap().contains("too large"),
        "{body}"
    );
    assert_eq!(app.sign_in(&email, "secret1").await.status(), 400);

    // On update: neither the metadata nor the password sent with it change, and the account
    // keeps working (a megabyte in every token used to lock it out with 431).
    let session = app.sign_up(&email, "secret1").await;
    let token = session["access_token"].as_str().unwrap();
    let response = app
        .with_token(Method::PUT, "/auth/v1/user", token)
        .body(
            json!({"data": big, "password": "secret2", "current_password": "secret1"}).to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_error(response, 400, "validation_failed").await;
    let me: Value = app
        .with_token(Method::GET, "/auth/v1/user", token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["user_metadata"], json!({}));
    assert_eq!(app.sign_in(&email, "secret1").await.status(), 200);

    // Just under the cap is fine.
    let fits = json!({"notes": "x".repeat(16 * 1024 - 100)});
    let response = app
        .with_token(Method::PUT, "/auth/v1/user", token)
        .body(json!({"data": fits}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

/// An access token signed with the server's secret but naming another issuer, none, or an
/// `nbf` to come is refused as GoTrue refuses a bad JWT (403 `bad_jwt`), on the auth API and
/// on `/api/v1` alike.
#[tokio::test]
async fn access_tokens_of_another_issuer_or_not_yet_valid_are_refused() {
    let app = spawn_app().await;
    let session = app.sign_up(&unique_email(), "secret1").await;
    let claims: Value = app
        .state
        .jwt
        .verify_any(session["access_token"].as_str().unwrap())
        .unwrap();
    assert_eq!(claims["iss"], app.state.config.issuer());
    let get = |claims: &Value| {
        let token = app.state.jwt.sign(claims).unwrap();
        let request = app.with_token(Method::GET, "/auth/v1/user", &token);
        async move { request.send().await.unwrap() }
    };
    assert_eq!(get(&claims).await.status(), 200);

    let mut foreign = claims.clone();
    foreign["iss"] = json!("https://evil.example");
    assert_error(get(&foreign).await, 403, "bad_jwt").await;
    let mut anonymous = claims.clone();
    anonymous.as_object_mut().unwrap().remove("iss");
    assert_error(get(&anonymous).await, 403, "bad_jwt").await;
    let mut early = claims.clone();
    early["nbf"] = json!(chrono::Utc::now().timestamp() + 300);
    assert_error(get(&early).await, 403, "bad_jwt").await;

    let token = app.state.jwt.sign(&foreign).unwrap();
    let response = app
        .client
        .get(app.url("/api/v1/creatives"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
}
