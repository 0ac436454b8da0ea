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

async fn account_sessions(app: &TestApp, session: &Value) -> Value {
    let response = app
        .with_token(
            Method::GET,
            "/api/v1/account/sessions",
            session["access_token"].as_str().unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

async fn end_session(app: &TestApp, session: &Value, id: &str) -> reqwest::Response {
    app.with_token(
        Method::DELETE,
        &format!("/api/v1/account/sessions/{id}"),
        session["access_token"].as_str().unwrap(),
    )
    .send()
    .await
    .unwrap()
}

/// The account page lists every signed-in device with its browser, and signs one out: that
/// device's tokens stop working, the others' do not; another user's session is not found.
#[tokio::test]
async fn the_account_lists_its_sessions_and_ends_one() {
    let app = spawn_app().await;
    let sessions = three_sessions(&app).await;
    let listed = account_sessions(&app, &sessions[0]).await;
    let items = listed["items"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    let current: Vec<_> = items.iter().filter(|s| s["current"] == true).collect();
    assert_eq!(current.len(), 1);
    let mine = sessions[0]["access_token"].as_str().unwrap();
    let my_claims = crate::helpers::jwt_claims(mine);
    assert_eq!(current[0]["id"], my_claims["session_id"]);
    for item in items {
        assert!(item["created_at"].is_string() && item["last_used_at"].is_string());
        assert_eq!(item["aal"], "aal1");
    }

    let target = crate::helpers::jwt_claims(sessions[2]["access_token"].as_str().unwrap());
    let target_id = target["session_id"].as_str().unwrap();
    assert_eq!(
        end_session(&app, &sessions[0], target_id).await.status(),
        204
    );
    assert!(!alive(&app, &sessions[2]).await);
    assert!(alive(&app, &sessions[1]).await);
    assert!(alive(&app, &sessions[0]).await);
    assert_eq!(
        account_sessions(&app, &sessions[0]).await["items"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // Gone already, another user's, or not an id: 404 alike.
    let again = end_session(&app, &sessions[0], target_id).await;
    assert_eq!(again.status(), 404);
    let stranger = app.sign_up(&unique_email(), "secret1").await;
    let theirs = crate::helpers::jwt_claims(stranger["access_token"].as_str().unwrap());
    let refused = end_session(&app, &sessions[0], theirs["session_id"].as_str().unwrap()).await;
    assert_eq!(refused.status(), 404);
    assert!(alive(&app, &stranger).await);
    assert_eq!(
        end_session(&app, &sessions[0], "not-an-id").await.status(),
        404
    );
}
