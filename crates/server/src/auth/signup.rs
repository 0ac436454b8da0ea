//! `POST /auth/v1/signup`: email and password sign-up. Email confirmation is off (no mailer
//! yet), so a new user is confirmed at once and gets a session, as GoTrue with auto-confirm.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use super::email::Email;
use super::error::AuthError;
use super::extract::{ClientIp, GoTrueJson};
use super::password;
use super::session::{self, Origin};
use crate::db::users::UserRow;
use crate::db::{self, DbError, users};
use crate::state::AppState;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route("/signup", post(signup))
}

/// `SignupParams` (the fields we use; unknown ones are ignored).
#[derive(Debug, Deserialize)]
struct SignupParams {
    email: Option<String>,
    phone: Option<String>,
    password: Option<String>,
    /// Initial `user_metadata`.
    data: Option<Value>,
}

fn user_already_exists() -> AuthError {
    AuthError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "user_already_exists",
        "User already registered",
    )
}

async fn signup(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    GoTrueJson(params): GoTrueJson<SignupParams>,
) -> Result<Json<Value>, AuthError> {
    if !state.limits.allow_sign_up(ip) {
        return Err(AuthError::rate_limited());
    }
    if state.config.disable_signup {
        return Err(AuthError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "signup_disabled",
            "Signups not allowed for this instance",
        ));
    }
    let email = params.email.as_deref().unwrap_or("").trim();
    let phone = params.phone.as_deref().unwrap_or("").trim();
    match (email.is_empty(), phone.is_empty()) {
        (false, false) => {
            return Err(AuthError::validation(
                "Only an email address or phone number should be provided on signup.",
            ));
        }
        (true, false) => {
            return Err(AuthError::new(
                StatusCode::BAD_REQUEST,
                "phone_provider_disabled",
                "Phone signups are disabled",
            ));
        }
        (true, true) => {
            return Err(AuthError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "anonymous_provider_disabled",
                "Anonymous sign-ins are disabled",
            ));
        }
        (false, true) => {}
    }
    let password = params.password.unwrap_or_default();
    if password.is_empty() {
        return Err(AuthError::validation("Signup requires a valid password"));
    }
    let email = Email::parse(email)?;
    password::check_strength(&password)?;
    let user_metadata = match params.data {
        None | Some(Value::Null) => json!({}),
        Some(Value::Object(map)) => Value::Object(map),
        Some(_) => return Err(AuthError::validation("data must be a JSON object")),
    };

    // Checked before hashing to spare the work; the unique index still settles races.
    if users::find_by_email(&state.db, email.as_str())
        .await?
        .is_some()
    {
        return Err(user_already_exists());
    }
    let hash = password::hash(password).await?;
    let now = db::now_ms();
    let user = UserRow {
        id: uuid::Uuid::new_v4().to_string(),
        email: email.as_str().to_owned(),
        encrypted_password: hash,
        email_confirmed_at: Some(now),
        app_metadata: json!({"provider": "email", "providers": ["email"]}).to_string(),
        user_metadata: user_metadata.to_string(),
        last_sign_in_at: None,
        created_at: now,
        updated_at: now,
    };
    match users::insert(&state.db, &user).await {
        Ok(()) => {}
        Err(DbError::Conflict) => return Err(user_already_exists()),
        Err(err) => return Err(err.into()),
    }
    tracing::info!(user_id = %user.id, "user signed up");
    let origin = Origin {
        ip: Some(ip.to_string()),
        user_agent: user_agent(&headers),
    };
    Ok(Json(
        session::start(&state, &user, "password", &origin).await?,
    ))
}

/// The `User-Agent` header, stored on the session for the user's device list.
pub(super) fn user_agent(headers: &HeaderMap) -> Option<String> {
    headers
        .get(axum::http::header::USER_AGENT)
        .and_then(|value| value.to_str().ok())
        .map(|value| value.chars().take(512).collect())
}
