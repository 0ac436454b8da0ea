//! Manual identity linking (`GET /user/identities/authorize`, `DELETE /user/identities/{id}`,
//! auth-js `linkIdentity` / `unlinkIdentity`). Regard links a provider identity to an account
//! by its verified address at sign-in (`external.rs`), and does not offer manual linking:
//! both routes answer GoTrue's 404 `manual_linking_disabled`, as a GoTrue server does with
//! `GOTRUE_SECURITY_MANUAL_LINKING_ENABLED` off (its default). SAML single sign-on (`POST
//! /sso`) is not offered either: 404 `saml_provider_disabled`.

use axum::Router;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::routing::{delete, get, post};

use super::error::AuthError;
use super::extract::AuthUser;
use crate::state::AppState;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/user/identities/authorize", get(link))
        .route("/user/identities/{identity_id}", delete(unlink))
        .route("/sso", post(sso))
}

/// SAML single sign-on (`signInWithSSO`) is not offered: GoTrue's answer with SAML off.
async fn sso() -> AuthError {
    AuthError::new(
        StatusCode::NOT_FOUND,
        "saml_provider_disabled",
        "SAML 2.0 is disabled",
    )
}

fn disabled() -> AuthError {
    AuthError::new(
        StatusCode::NOT_FOUND,
        "manual_linking_disabled",
        "Manual linking is disabled",
    )
}

/// Signed-in users only (the extractor answers the others), then the refusal.
async fn link(_auth: AuthUser) -> AuthError {
    disabled()
}

async fn unlink(_auth: AuthUser, Path(_identity_id): Path<String>) -> AuthError {
    disabled()
}
