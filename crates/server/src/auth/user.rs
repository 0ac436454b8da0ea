//! `GET /auth/v1/user` and `PUT /auth/v1/user`: the signed-in user, password and metadata
//! changes.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::Value;

use super::email::Email;
use super::error::AuthError;
use super::extract::{AuthUser, GoTrueJson};
use super::password;
use super::session::{user_body, user_metadata};
use crate::db::{self, sessions, users};
use crate::state::AppState;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route("/user", get(get_user).put(update_user))
}

async fn get_user(State(state): State<AppState>, auth: AuthUser) -> Result<Json<Value>, AuthError> {
    Ok(Json(user_body(&state, &auth.user).await?))
}

/// `UserUpdateParams` (the fields we act on; unknown ones are ignored).
#[derive(Debug, Deserialize)]
struct UserUpdateParams {
    email: Option<String>,
    phone: Option<String>,
    password: Option<String>,
    /// Merged into `user_metadata`; a `null` value deletes its key.
    data: Option<Value>,
    app_metadata: Option<Value>,
}

async fn update_user(
    State(state): State<AppState>,
    auth: AuthUser,
    GoTrueJson(params): GoTrueJson<UserUpdateParams>,
) -> Result<Json<Value>, AuthError> {
    if params.app_metadata.as_ref().is_some_and(|v| !v.is_null()) {
        return Err(AuthError::new(
            StatusCode::FORBIDDEN,
            "not_admin",
            "Updating app_metadata requires admin privileges",
        ));
    }
    if let Some(email) = params.email.as_deref().filter(|e| !e.trim().is_empty()) {
        // Changing the address needs confirmation mails, which come with the mailer.
        if Email::parse(email)?.as_str() != auth.user.email {
            return Err(AuthError::validation(
                "Changing the email address is not supported",
            ));
        }
    }
    if params
        .phone
        .as_deref()
        .is_some_and(|p| !p.trim().is_empty())
    {
        return Err(AuthError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "phone_provider_disabled",
            "Phone numbers are not supported",
        ));
    }
    let metadata_patch = match params.data {
        None | Some(Value::Null) => None,
        Some(Value::Object(map)) => Some(map),
        Some(_) => return Err(AuthError::validation("data must be a JSON object")),
    };
    let user = &auth.user;
    let now = db::now_ms();

    if let Some(password) = params.password.filter(|p| !p.is_empty()) {
        password::check_strength(&password)?;
        if password::verify(password.clone(), user.encrypted_password.clone()).await? {
            return Err(AuthError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "same_password",
                "New password should be different from the old password.",
            ));
        }
        let hash = password::hash(password).await?;
        users::update_password(&state.db, &user.id, &hash, now).await?;
        // As GoTrue: a new password signs out every other device.
        sessions::delete(
            &state.db,
            &user.id,
            sessions::Scope::AllExcept(&auth.session_id),
            now,
        )
        .await?;
    }

    if let Some(patch) = metadata_patch {
        let mut metadata = match user_metadata(user) {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        for (key, value) in patch {
            if value.is_null() {
                metadata.remove(&key);
            } else {
                metadata.insert(key, value);
            }
        }
        let text = Value::Object(metadata).to_string();
        users::update_user_metadata(&state.db, &user.id, &text, now).await?;
    }

    let updated = users::find_by_id(&state.db, &user.id)
        .await?
        .ok_or_else(|| AuthError::internal("user vanished during update"))?;
    Ok(Json(user_body(&state, &updated).await?))
}
