//! `GET /auth/v1/settings`, `GET /auth/v1/health` and `GET /auth/v1/.well-known/jwks.json`:
//! what this auth server offers.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::state::AppState;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/settings", get(settings))
        .route("/health", get(health))
        .route("/.well-known/jwks.json", get(jwks))
}

/// GoTrue's settings document: the email provider and the configured third-party providers
/// are on, sign-ups confirm at once.
async fn settings(State(state): State<AppState>) -> Json<Value> {
    let providers = [
        "anonymous_users",
        "apple",
        "azure",
        "bitbucket",
        "discord",
        "facebook",
        "snapchat",
        "figma",
        "fly",
        "github",
        "gitlab",
        "google",
        "keycloak",
        "kakao",
        "linkedin",
        "linkedin_oidc",
        "notion",
        "spotify",
        "slack",
        "slack_oidc",
        "workos",
        "twitch",
        "twitter",
        "email",
        "phone",
        "zoom",
    ];
    let mut external: serde_json::Map<String, Value> = providers
        .iter()
        .map(|name| ((*name).to_owned(), Value::Bool(*name == "email")))
        .collect();
    // Configured OpenID Connect providers are on, including names GoTrue does not list.
    for name in state.oauth.names() {
        external.insert(name.to_owned(), Value::Bool(true));
    }
    Json(json!({
        "external": external,
        "disable_signup": state.config.disable_signup,
        "mailer_autoconfirm": state.config.mailer_autoconfirm,
        "phone_autoconfirm": false,
        "sms_provider": "",
        "saml_enabled": false,
        "saml_private_key_next_configured": false,
        "passkeys_enabled": false,
    }))
}

async fn health() -> Json<Value> {
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "name": "GoTrue",
        "description": "Regard's GoTrue-compatible auth API",
    }))
}

/// HS256 keys are never published, so the set is empty (as GoTrue with only a JWT secret).
async fn jwks() -> ([(axum::http::HeaderName, &'static str); 1], Json<Value>) {
    (
        [(axum::http::header::CACHE_CONTROL, "public, max-age=600")],
        Json(json!({"keys": []})),
    )
}
