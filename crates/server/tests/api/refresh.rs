//! `POST /auth/v1/token?grant_type=refresh_token`: rotation and GoTrue's reuse rules.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_error, spawn_app, spawn_app_with, unique_email};

async fn refreshed(app: &TestApp, token: &Value) -> Value {
    let response = app.refresh(token.as_str().unwrap()).await;
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

#[tokio::test]
async fn refresh_rotates_the_token_and_keeps_the_session() {
    let app = spawn_app().await;
    let first = app.sign_up(&unique_email(), "secret1").await;
    let second = refreshed(&app, &first["refresh_token"]).await;
    assert_ne!(second["refresh_token"], first["refresh_token"]);
    assert_eq!(second["user"]["id"], first["user"]["id"]);
    assert_eq!(second["token_type"], "bearer");
    assert!(second["expires_in"].as_i64().unwrap() > 0);
    let third = refreshed(&app, &second["refresh_token"]).await;
    assert_ne!(third["refresh_token"], second["refresh_token"]);

    // Same session throughout: the new access token works.
    let me = app
        .with_token(
            Method::GET,
            "/auth/v1/user",
            third["access_token"].as_str().unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(me.status(), 200);
}

#[tokio::test]
async fn reuse_within_the_interval_returns_the_active_token() {
    let app = spawn_app_with(|config| config.refresh_token_reuse_interval = 3600).await;
    let a = app.sign_up(&unique_email(), "secret1").await;
    let b = refreshed(&app, &a["refresh_token"]).await;
    let c = refreshed(&app, &b["refresh_token"]).await;
    // `a` is two rotations old, but was revoked within the interval.
    let again = refreshed(&app, &a["refresh_token"]).await;
    assert_eq!(again["refresh_token"], c["refresh_token"]);
    // The active token still works afterwards.
    let d = refreshed(&app, &c["refresh_token"]).await;
    assert_ne!(d["refresh_token"], c["refresh_token"]);
}

#[tokio::test]
async fn the_parent_of_the_active_token_returns_it_even_outside_the_interval() {
    // The client lost the last answer: GoTrue hands the current token back.
    let app = spawn_app_with(|config| config.refresh_token_reuse_interval = 0).await;
    let a = app.sign_up(&unique_email(), "secret1").await;
    let b = refreshed(&app, &a["refresh_token"]).await;
    let again = refreshed(&app, &a["refresh_token"]).await;
    assert_eq!(again["refresh_token"], b["refresh_token"]);
}

#[tokio::test]
async fn reuse_outside_the_interval_ends_the_session() {
    let app = spawn_app_with(|config| config.refresh_token_reuse_interval = 0).await;
    let a = app.sign_up(&unique_email(), "secret1").await;
    let b = refreshed(&app, &a["refresh_token"]).await;
    let c = refreshed(&app, &b["refresh_token"]).await;
    // Wait for the clock to leave the millisecond of the rotation (interval 0).
    let reused = loop {
        let response = app.refresh(a["refresh_token"].as_str().unwrap()).await;
        if response.status() != 200 {
            break response;
        }
        tokio::task::yield_now().await;
    };
    assert_error(reused, 400, "refresh_token_already_used").await;

    // The whole session is gone: its current refresh token and access tokens stop working.
    let response = app.refresh(c["refresh_token"].as_str().unwrap()).await;
    assert_error(response, 400, "session_not_found").await;
    let response = app
        .with_token(
            Method::GET,
            "/auth/v1/user",
            c["access_token"].as_str().unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_error(response, 403, "session_not_found").await;
}

#[tokio::test]
async fn unknown_and_malformed_refresh_tokens_are_refused() {
    let app = spawn_app().await;
    let response = app.refresh("abcdefghijkl0123456789abcdefghij").await;
    let body = assert_error(response, 400, "refresh_token_not_found").await;
    assert_eq!(
        body["message"],
        "Invalid Refresh Token: Refresh Token Not Found"
    );
    // Any shape is looked up, as GoTrue does (auth-js's suite sends this one).
    let response = app.refresh("invalid-refresh-token").await;
    let body = assert_error(response, 400, "refresh_token_not_found").await;
    assert_eq!(
        body["message"],
        "Invalid Refresh Token: Refresh Token Not Found"
    );
    let response = app.refresh("short").await;
    assert_error(response, 400, "validation_failed").await;
    let response = app.refresh(&"x".repeat(300)).await;
    assert_error(response, 400, "validation_failed").await;
    let response = app
        .post("/auth/v1/token?grant_type=refresh_token", &json!({}))
        .await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "invalid_request");
}

#[tokio::test]
async fn a_signed_out_sessions_refresh_token_finds_no_session() {
    let app = spawn_app().await;
    let session = app.sign_up(&unique_email(), "secret1").await;
    let response = app
        .with_token(
            Method::POST,
            "/auth/v1/logout",
            session["access_token"].as_str().unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    let response = app
        .refresh(session["refresh_token"].as_str().unwrap())
        .await;
    let body = assert_error(response, 400, "session_not_found").await;
    assert_eq!(
        body["message"],
        "Invalid Refresh Token: No Valid Session Found"
    );
}

#[tokio::test]
async fn old_tokens_of_ended_sessions_are_pruned() {
    let app = spawn_app().await;
    let ended = app.sign_up(&unique_email(), "secret1").await;
    let live = app.sign_up(&unique_email(), "secret1").await;
    let response = app
        .with_token(
            Method::POST,
            "/auth/v1/logout",
            ended["access_token"].as_str().unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    let cutoff = regard::db::now_ms() + 1;
    let pruned = regard::db::refresh_tokens::prune(&app.state.db, cutoff)
        .await
        .unwrap();
    assert_eq!(pruned, 1);
    let response = app.refresh(ended["refresh_token"].as_str().unwrap()).await;
    assert_error(response, 400, "refresh_token_not_found").await;
    // The other user's live session is untouched.
    assert_eq!(
        app.refresh(live["refresh_token"].as_str().unwrap())
            .await
            .status(),
        200
    );
}

/// A connection of the test's own to the server's database (SQLite file or PostgreSQL).
async fn raw_database(app: &TestApp) -> sqlx::AnyConnection {
    use sqlx::Connection;
    let url = match &app.state.config.database_url {
        Some(url) => url.expose().to_owned(),
        None => format!(
            "sqlite://{}",
            app.state.config.data_dir.join("regard.db").display()
        ),
    };
    sqlx::AnyConnection::connect(&url).await.unwrap()
}

/// Every `token` and `parent` value of the table.
async fn stored_token_values(app: &TestApp) -> Vec<String> {
    let mut db = raw_database(app).await;
    let rows: Vec<(String, Option<String>)> =
        sqlx::query_as("SELECT token, parent FROM refresh_tokens")
            .fetch_all(&mut db)
            .await
            .unwrap();
    rows.into_iter()
        .flat_map(|(token, parent)| std::iter::once(token).chain(parent))
        .collect()
}

#[tokio::test]
async fn refresh_tokens_are_stored_as_hashes_and_still_rotate_and_come_back() {
    let app = spawn_app_with(|config| config.refresh_token_reuse_interval = 3600).await;
    let a = app.sign_up(&unique_email(), "secret1").await;
    let b = refreshed(&app, &a["refresh_token"]).await;
    let c = refreshed(&app, &b["refresh_token"]).await;
    let issued: Vec<&str> = [&a, &b, &c]
        .iter()
        .map(|session| session["refresh_token"].as_str().unwrap())
        .collect();
    let stored = stored_token_values(&app).await;
    assert_eq!(stored.len(), 5, "three tokens, two parents: {stored:?}");
    for value in &stored {
        assert_eq!(value.len(), 64, "a SHA-256 in hex: {value}");
        for token in &issued {
            assert!(!value.contains(token), "{token} is stored as it is");
        }
    }
    assert!(stored.contains(&regard::db::refresh_tokens::stored(issued[2])));
    // The reuse rules still hand the current token back.
    assert_eq!(
        refreshed(&app, &a["refresh_token"]).await["refresh_token"],
        c["refresh_token"]
    );
    assert_eq!(
        refreshed(&app, &b["refresh_token"]).await["refresh_token"],
        c["refresh_token"]
    );
    let d = refreshed(&app, &c["refresh_token"]).await;
    assert_ne!(d["refresh_token"], c["refresh_token"]);
}

#[tokio::test]
async fn tokens_stored_in_plain_text_before_the_upgrade_are_hashed_and_keep_working() {
    let app = spawn_app_with(|config| config.refresh_token_reuse_interval = 0).await;
    let a = app.sign_up(&unique_email(), "secret1").await;
    let b = refreshed(&app, &a["refresh_token"]).await;
    let a_token = a["refresh_token"].as_str().unwrap();
    // The rows as an older version wrote them: the tokens themselves, the active one random
    // (not derived from its parent).
    let b_token = "legacyrandomtoken0123456789abcde";
    let mut db = raw_database(&app).await;
    for (token, parent, was) in [
        (a_token, None, a_token),
        (b_token, Some(a_token), b["refresh_token"].as_str().unwrap()),
    ] {
        sqlx::query("UPDATE refresh_tokens SET token = $1, parent = $2 WHERE token = $3")
            .bind(token)
            .bind(parent)
            .bind(regard::db::refresh_tokens::stored(was))
            .execute(&mut db)
            .await
            .unwrap();
    }
    assert!(stored_token_values(&app).await.iter().any(|v| v == b_token));
    let hashed = regard::db::refresh_tokens::hash_plaintext_rows(&app.state.db)
        .await
        .unwrap();
    assert_eq!(hashed, 2);
    assert!(
        stored_token_values(&app)
            .await
            .iter()
            .all(|value| value.len() == 64 && value != a_token && value != b_token)
    );
    assert_eq!(
        regard::db::refresh_tokens::hash_plaintext_rows(&app.state.db)
            .await
            .unwrap(),
        0
    );
    // The lost answer's parent gets a working token (the old active one cannot be derived
    // again, so it is rotated), and the chain goes on.
    let c = refreshed(&app, &a["refresh_token"]).await;
    assert_ne!(c["refresh_token"], b_token);
    let d = refreshed(&app, &c["refresh_token"]).await;
    assert!(d["access_token"].is_string());
    // The old active token, now a revoked parent, is reused outside the interval.
    let reused = app.refresh(b_token).await;
    assert_error(reused, 400, "refresh_token_already_used").await;
}
