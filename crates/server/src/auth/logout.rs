//! `POST /auth/v1/logout?scope=global|local|others`: ends sessions of the signed-in user.

use axum::Router;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::post;
use serde::Deserialize;

use super::error::AuthError;
use super::extract::AuthUser;
use crate::db::{self, sessions};
use crate::state::AppState;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route("/logout", post(logout))
}

#[derive(Debug, Deserialize)]
struct LogoutQuery {
    scope: Option<String>,
}

/// 204 with no body, as GoTrue (auth-js does not read one).
async fn logout(
    State(state): State<AppState>,
    Query(query): Query<LogoutQuery>,
    auth: AuthUser,
) -> Result<StatusCode, AuthError> {
    let scope = match query.scope.as_deref().unwrap_or("") {
        "" | "global" => sessions::Scope::All,
        "local" => sessions::Scope::Only(&auth.session_id),
        "others" => sessions::Scope::AllExcept(&auth.session_id),
        _ => return Err(AuthError::validation("Unsupported logout scope")),
    };
    sessions::delete(&state.db, &auth.user.id, scope, db::now_ms()).await?;
    Ok(StatusCode::NO_CONTENT)
}
