//! A database out of reach: `/api/v1` answers 503 `unavailable` with `Retry-After` (never a
//! 500), the auth API a 503 auth-js retries, and the pool recovers by itself once PostgreSQL
//! is back.

use reqwest::Method;
use sqlx::Connection;

use crate::helpers::{TestApp, User, assert_api_error, retry_after, spawn_app, unique_email};

async fn list_status(app: &TestApp, user: &User) -> reqwest::Response {
    app.api_send(Method::GET, "/creatives?limit=5", user).await
}

#[tokio::test]
async fn dropped_connections_are_replaced_without_an_error() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    assert_eq!(list_status(&app, &user).await.status(), 200);
    if app.state.db.backend() == regard::db::Backend::Postgres {
        // PostgreSQL drops every connection of this server (a restart, a failover).
        let url = app
            .state
            .config
            .database_url
            .as_ref()
            .unwrap()
            .expose()
            .to_owned();
        let mut admin = sqlx::AnyConnection::connect(&url).await.unwrap();
        let terminated: Vec<(bool,)> = sqlx::query_as(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        .fetch_all(&mut admin)
        .await
        .unwrap();
        admin.close().await.unwrap();
        assert!(!terminated.is_empty(), "the pool held connections");
    }
    // Each answer is the data or a 503 to retry, never a 500; the pool heals by itself.
    let mut last = 0;
    for _ in 0..5 {
        let response = list_status(&app, &user).await;
        last = response.status().as_u16();
        if last == 503 {
            assert!(retry_after(&response) >= 1);
            assert_api_error(response, 503, "unavailable").await;
        } else {
            assert_eq!(last, 200);
        }
    }
    assert_eq!(last, 200, "recovered");
}

#[tokio::test]
async fn a_database_out_of_reach_answers_503_unavailable() {
    let app = spawn_app().await;
    let session = app.sign_up(&unique_email(), "secret1").await;
    let user = User {
        token: session["access_token"].as_str().unwrap().to_owned(),
    };
    let refresh_token = session["refresh_token"].as_str().unwrap().to_owned();
    // No connection can be had any more.
    app.state.db.close().await;
    let response = list_status(&app, &user).await;
    assert_eq!(retry_after(&response), 2);
    assert_api_error(response, 503, "unavailable").await;
    // The auth API too: a refresh that auth-js will try again instead of signing out.
    let response = app.refresh(&refresh_token).await;
    assert_eq!(response.status(), 503);
    assert_eq!(retry_after(&response), 2);
}
