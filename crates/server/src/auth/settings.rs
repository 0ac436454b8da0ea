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
    external.insert("phone".into(), Value::Bool(state.config.phone_sign_in));
    external.insert(
        "anonymous_users".into(),
        Value::Bool(state.config.anonymous_sign_in),
    );
    // Configured OpenID Connect providers are on, including names GoTrue does not list.
    for name in state.oauth.names() {
        external.insert(name.to_owned(), Value::Bool(true));
    }
    Json(json!({
        "external": external,
        "disable_signup": state.config.disable_signup,
        "mailer_autoconfirm": state.config.mailer_autoconfirm,
        "phone_autoconfirm": state.config.sms_autoconfirm,
        "sms_provider": if state.config.phone_sign_in {
            if state.config.sms_webhook_url.is_some() { "webhook" } else { "outbox" }
        } else {
            ""
        },
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

/// The public halves of the asymmetric signing keys (`REGARD_JWT_KEYS`); HS256 secrets are
/// never published, so with only a secret the set is empty (as GoTrue).
async fn jwks(
    State(state): State<AppState>,
) -> ([(axum::http::HeaderName, &'static str); 1], Json<Value>) {
    (
        [(axum::http::header::CACHE_CONTROL, "public, max-age=600")],
        Json(state.jwt.public_jwks()),
    )
}
