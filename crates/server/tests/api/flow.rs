//! Flow states and `POST /auth/v1/token?grant_type=pkce`, driven through `auth::flow` the way
//! a flow that mails a link (recovery) uses it: create, complete for a user, exchange.

use base64::Engine;
use regard::auth::flow::{self, ChallengeMethod, NewFlow, Pkce, ProviderTokens};
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_error, spawn_app, unique_email};

const VERIFIER: &str = "a-verifier-of-more-than-forty-three-characters-0123456789";

/// Signs up a user and starts a recovery flow with an S256 challenge of [`VERIFIER`].
async fn user_and_flow(app: &TestApp) -> (String, flow::FlowState) {
    let session = app.sign_up(&unique_email(), "secret1").await;
    let user_id = session["user"]["id"].as_str().unwrap().to_owned();
    let flow = flow::create(
        &app.state,
        NewFlow {
            provider: "email",
            authentication_method: "recovery",
            pkce: Some(Pkce {
                challenge: flow::s256(VERIFIER),
                method: ChallengeMethod::S256,
            }),
            redirect_to: "http://localhost:8080/reset",
            nonce: None,
        },
    )
    .await
    .unwrap();
    (user_id, flow)
}

async fn exchange(app: &TestApp, auth_code: &str, code_verifier: &str) -> reqwest::Response {
    app.post(
        "/auth/v1/token?grant_type=pkce",
        &json!({"auth_code": auth_code, "code_verifier": code_verifier}),
    )
    .await
}

fn claims(access_token: &str) -> Value {
    let payload = access_token.split('.').nth(1).unwrap();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::test]
async fn a_completed_flow_exchanges_its_code_once_for_a_session_with_the_flows_amr() {
    let app = spawn_app().await;
    let (user_id, flow) = user_and_flow(&app).await;
    let code = flow::complete(&app.state, &flow.id, &user_id, &ProviderTokens::default())
        .await
        .unwrap();

    let response = exchange(&app, &code, VERIFIER).await;
    assert_eq!(response.status(), 200);
    let session: Value = response.json().await.unwrap();
    assert_eq!(session["user"]["id"], user_id.as_str());
    assert_eq!(session["token_type"], "bearer");
    assert!(session["refresh_token"].is_string());
    assert!(session.get("provider_token").is_none());
    let claims = claims(session["access_token"].as_str().unwrap());
    assert_eq!(
        claims["amr"],
        json!([{"method": "recovery", "timestamp": claims["amr"][0]["timestamp"]}])
    );

    // The flow state is gone: the code is single-use.
    let again = assert_error(
        exchange(&app, &code, VERIFIER).await,
        404,
        "flow_state_not_found",
    )
    .await;
    assert_eq!(
        again["message"],
        "invalid flow state, no valid flow state found"
    );
    assert!(flow::find(&app.state, &flow.id).await.unwrap().is_none());
}

#[tokio::test]
async fn a_wrong_verifier_is_refused_and_leaves_the_flow_usable() {
    let app = spawn_app().await;
    let (user_id, flow) = user_and_flow(&app).await;
    let code = flow::complete(&app.state, &flow.id, &user_id, &ProviderTokens::default())
        .await
        .unwrap();
    let wrong = format!("{VERIFIER}x");
    assert_error(
        exchange(&app, &code, &wrong).await,
        400,
        "bad_code_verifier",
    )
    .await;
    let response = exchange(&app, &code, VERIFIER).await;
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn empty_fields_and_unknown_codes_are_refused() {
    let app = spawn_app().await;
    for body in [
        json!({}),
        json!({"auth_code": "", "code_verifier": VERIFIER}),
        json!({"auth_code": uuid::Uuid::new_v4().to_string()}),
    ] {
        let response = app.post("/auth/v1/token?grant_type=pkce", &body).await;
        assert_error(response, 400, "validation_failed").await;
    }
    let unknown = exchange(&app, &uuid::Uuid::new_v4().to_string(), VERIFIER).await;
    assert_error(unknown, 404, "flow_state_not_found").await;
}

#[tokio::test]
async fn a_code_expires_five_minutes_after_it_was_issued() {
    let app = spawn_app().await;
    let (user_id, flow) = user_and_flow(&app).await;
    let code = flow::complete(&app.state, &flow.id, &user_id, &ProviderTokens::default())
        .await
        .unwrap();
    regard::db::flow_states::backdate(&app.state.db, &flow.id, 301_000)
        .await
        .unwrap();
    let expired = assert_error(
        exchange(&app, &code, VERIFIER).await,
        422,
        "flow_state_expired",
    )
    .await;
    assert_eq!(
        expired["message"],
        "invalid flow state, flow state has expired"
    );
}

#[tokio::test]
async fn a_flow_completes_once_and_hands_the_provider_tokens_over() {
    let app = spawn_app().await;
    let (user_id, flow) = user_and_flow(&app).await;
    let tokens = ProviderTokens {
        access_token: Some("provider-access".to_owned()),
        refresh_token: Some("provider-refresh".to_owned()),
    };
    let code = flow::complete(&app.state, &flow.id, &user_id, &tokens)
        .await
        .unwrap();
    let twice = flow::complete(&app.state, &flow.id, &user_id, &tokens)
        .await
        .unwrap_err();
    assert_eq!(
        (twice.status.as_u16(), twice.code),
        (400, "flow_state_already_used")
    );
    let loaded = flow::find(&app.state, &flow.id).await.unwrap().unwrap();
    assert_eq!(loaded.user_id.as_deref(), Some(user_id.as_str()));

    let session: Value = exchange(&app, &code, VERIFIER).await.json().await.unwrap();
    assert_eq!(session["provider_token"], "provider-access");
    assert_eq!(session["provider_refresh_token"], "provider-refresh");
}

#[tokio::test]
async fn plain_challenges_work_and_stale_flow_states_are_deleted_on_insert() {
    let app = spawn_app().await;
    let session = app.sign_up(&unique_email(), "secret1").await;
    let user_id = session["user"]["id"].as_str().unwrap();
    let new = |pkce| NewFlow {
        provider: "email",
        authentication_method: "email_change",
        pkce,
        redirect_to: "http://localhost:8080/",
        nonce: None,
    };
    let verifier = "p".repeat(43);
    let plain = Pkce::from_params(Some(&verifier), Some("plain")).unwrap();
    let old = flow::create(&app.state, new(plain.clone())).await.unwrap();
    regard::db::flow_states::backdate(&app.state.db, &old.id, 25 * 3600 * 1000)
        .await
        .unwrap();
    let fresh = flow::create(&app.state, new(plain)).await.unwrap();
    assert!(flow::find(&app.state, &old.id).await.unwrap().is_none());

    let code = flow::complete(&app.state, &fresh.id, user_id, &ProviderTokens::default())
        .await
        .unwrap();
    let session: Value = exchange(&app, &code, &verifier).await.json().await.unwrap();
    assert_eq!(
        claims(session["access_token"].as_str().unwrap())["amr"][0]["method"],
        "email_change"
    );
}
