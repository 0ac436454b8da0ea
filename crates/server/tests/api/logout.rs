//! `POST /auth/v1/logout?scope=global|local|others`: which sessions survive.

use reqwest::Method;
use serde_json::Value;

use crate::helpers::{TestApp, assert_error, spawn_app, unique_email};

/// Three sessions of one user: the sign-up and two sign-ins.
async fn three_sessions(app: &TestApp) -> Vec<Value> {
    let email = unique_email();
    let mut sessions = vec![app.sign_up(&email, "secret1").await];
    for _ in 0..2 {
        let response = app.sign_in(&email, "secret1").await;
        assert_eq!(response.status(), 200);
        sessions.push(response.json().await.unwrap());
    }
    sessions
}

async fn logout(app: &TestApp, session: &Value, scope: Option<&str>) -> reqwest::Response {
    let path = match scope {
        Some(scope) => format!("/auth/v1/logout?scope={scope}"),
        None => "/auth/v1/logout".to_owned(),
    };
    app.with_token(
        Method::POST,
        &path,
        session["access_token"].as_str().unwrap(),
    )
    .send()
    .await
    .unwrap()
}

/// Whether the session's access token is still accepted.
async fn alive(app: &TestApp, session: &Value) -> bool {
    let response = app
        .with_token(
            Method::GET,
            "/auth/v1/user",
            session["access_token"].as_str().unwrap(),
        )
        .send()
        .await
        .unwrap();
    match response.status().as_u16() {
        200 => true,
        403 => {
            assert_error(response, 403, "session_not_found").await;
            false
        }
        other => panic!("unexpected status {other}"),
    }
}

async fn survivors(app: &TestApp, sessions: &[Value]) -> Vec<bool> {
    let mut result = Vec::new();
    for session in sessions {
        result.push(alive(app, session).await);
    }
    result
}

#[tokio::test]
async fn global_logout_ends_every_session() {
    let app = spawn_app().await;
    let sessions = three_sessions(&app).await;
    let response = logout(&app, &sessions[0], Some("global")).await;
    assert_eq!(response.status(), 204);
    assert!(response.text().await.unwrap().is_empty());
    assert_eq!(survivors(&app, &sessions).await, [false, false, false]);
}

#[tokio::test]
async fn logout_without_scope_is_global() {
    let app = spawn_app().await;
    let sessions = three_sessions(&app).await;
    assert_eq!(logout(&app, &sessions[1], None).await.status(), 204);
    assert_eq!(survivors(&app, &sessions).await, [false, false, false]);
}

#[tokio::test]
async fn local_logout_ends_only_this_session() {
    let app = spawn_app().await;
    let sessions = three_sessions(&app).await;
    assert_eq!(
        logout(&app, &sessions[1], Some("local")).await.status(),
        204
    );
    assert_eq!(survivors(&app, &sessions).await, [true, false, true]);
}

#[tokio::test]
async fn others_logout_keeps_only_this_session() {
    let app = spawn_app().await;
    let sessions = three_sessions(&app).await;
    assert_eq!(
        logout(&app, &sessions[1], Some("others")).await.status(),
        204
    );
    assert_eq!(survivors(&app, &sessions).await, [false, true, false]);
}

#[tokio::test]
async fn logout_rejects_unknown_scopes_and_missing_tokens() {
    let app = spawn_app().await;
    let sessions = three_sessions(&app).await;
    let response = logout(&app, &sessions[0], Some("everything")).await;
    assert_error(response, 400, "validation_failed").await;
    let response = app
        .base_request(Method::POST, "/auth/v1/logout")
        .send()
        .await
        .unwrap();
    assert_error(response, 401, "no_authorization").await;
    // Signing out twice: the session is already gone.
    assert_eq!(
        logout(&app, &sessions[0], Some("local")).await.status(),
        204
    );
    let response = logout(&app, &sessions[0], Some("local")).await;
    assert_error(response, 403, "session_not_found").await;
}
