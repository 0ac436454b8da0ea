//! Sessions as the client sees them: the GoTrue user JSON and the token response
//! (`access_token`, `refresh_token`, `expires_in`, `expires_at`, `user`).

use chrono::{DateTime, SecondsFormat};
use serde_json::{Value, json};

use super::error::AuthError;
use super::tokens::{AmrEntry, Claims, random_token};
use crate::db::factors::{self, FactorRow};
use crate::db::identities::{self, IdentityRow};
use crate::db::users::UserRow;
use crate::db::{self, sessions, users};
use crate::state::AppState;

/// GoTrue's audience and role for every signed-in user.
pub const AUDIENCE: &str = "authenticated";

/// Epoch milliseconds as RFC 3339 (UTC, microseconds like GoTrue).
pub fn rfc3339(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(SecondsFormat::Micros, true)
}

fn parse_json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|err| {
        tracing::error!(error = %err, "stored metadata is not JSON");
        json!({})
    })
}

/// The user's `app_metadata` object.
pub fn app_metadata(user: &UserRow) -> Value {
    parse_json(&user.app_metadata)
}

/// The user's `user_metadata` object.
pub fn user_metadata(user: &UserRow) -> Value {
    parse_json(&user.user_metadata)
}

/// Whether the user has a password (users created through a provider have none).
pub fn has_password(user: &UserRow) -> bool {
    !user.encrypted_password.is_empty()
}

/// The identity JSON of GoTrue (`internal/models/identity.go`) for a provider identity.
fn identity_json(identity: &IdentityRow) -> Value {
    let mut body = json!({
        "identity_id": identity.id,
        "id": identity.provider_id,
        "user_id": identity.user_id,
        "identity_data": parse_json(&identity.identity_data),
        "provider": identity.provider,
        "created_at": rfc3339(identity.created_at),
        "updated_at": rfc3339(identity.updated_at),
        "email": identity.email.clone().unwrap_or_default(),
    });
    if let Some(at) = identity.last_sign_in_at {
        body["last_sign_in_at"] = json!(rfc3339(at));
    }
    body
}

/// The email or phone identity of a user with a password: GoTrue stores them in its
/// identities table; ours are implied by the user row, so their ids are derived from the user
/// id to stay stable.
fn local_identity_json(user: &UserRow, provider: &str) -> Value {
    let identity_id = uuid::Uuid::parse_str(&user.id)
        .map(|id| uuid::Uuid::new_v5(&id, provider.as_bytes()).to_string())
        .unwrap_or_default();
    let mut identity = json!({
        "identity_id": identity_id,
        "id": user.id,
        "user_id": user.id,
        "identity_data": {
            "email": user.email,
            "email_verified": user.email_confirmed_at.is_some(),
            "phone": user.phone,
            "phone_verified": user.phone_confirmed_at.is_some(),
            "sub": user.id,
        },
        "provider": provider,
        "created_at": rfc3339(user.created_at),
        "updated_at": rfc3339(user.updated_at),
        "email": user.email,
    });
    if let Some(at) = user.last_sign_in_at {
        identity["last_sign_in_at"] = json!(rfc3339(at));
    }
    identity
}

/// The user JSON of GoTrue (`internal/models/user.go`) with its identities: the email and
/// phone identities when the user has a password, then the provider identities
/// (`identities`, oldest first). Optional fields are omitted when unset, as GoTrue does;
/// `factors` is omitted while the user has none.
pub fn user_json(user: &UserRow, identities: &[IdentityRow], factors: &[FactorRow]) -> Value {
    let mut body = json!({
        "id": user.id,
        "aud": AUDIENCE,
        "role": AUDIENCE,
        "email": user.email,
        "phone": user.phone,
        "app_metadata": app_metadata(user),
        "user_metadata": user_metadata(user),
        "identities": [],
        "created_at": rfc3339(user.created_at),
        "updated_at": rfc3339(user.updated_at),
        "is_anonymous": user.is_anonymous,
    });
    let optional = [
        ("email_confirmed_at", user.email_confirmed_at),
        ("phone_confirmed_at", user.phone_confirmed_at),
        (
            "confirmed_at",
            user.email_confirmed_at.or(user.phone_confirmed_at),
        ),
        ("last_sign_in_at", user.last_sign_in_at),
        ("invited_at", user.invited_at),
        ("banned_until", user.banned_until),
    ];
    for (key, at) in optional {
        if let Some(at) = at {
            body[key] = json!(rfc3339(at));
        }
    }
    if let Some(address) = &user.email_change {
        body["new_email"] = json!(address);
    }
    let local = [("email", &user.email), ("phone", &user.phone)]
        .into_iter()
        .filter(|(_, value)| has_password(user) && !value.is_empty())
        .map(|(provider, _)| local_identity_json(user, provider));
    body["identities"] = Value::Array(local.chain(identities.iter().map(identity_json)).collect());
    if !factors.is_empty() {
        body["factors"] = Value::Array(factors.iter().map(super::mfa::factor_json).collect());
    }
    body
}

/// [`user_json`] with the user's identities and factors loaded from the database (auth-js
/// derives the next assurance level from the factors, so every answer carrying the user must
/// list them).
pub async fn user_body(state: &AppState, user: &UserRow) -> Result<Value, AuthError> {
    let identities = identities::for_user(&state.db, &user.id).await?;
    let factors = factors::for_user(&state.db, &user.id).await?;
    Ok(user_json(user, &identities, &factors))
}

/// Details of the request that opens a session (stored on the session row).
#[derive(Debug, Clone, Default)]
pub struct Origin {
    pub ip: Option<String>,
    pub user_agent: Option<String>,
}

/// Opens a new session for `user` (after a sign-up or a password sign-in) and answers with
/// its tokens.
pub async fn start(
    state: &AppState,
    user: &UserRow,
    amr_method: &str,
    origin: &Origin,
) -> Result<Value, AuthError> {
    let now = db::now_ms();
    // Every way in (password, link, code, provider, PKCE) ends here, so a ban holds for all.
    if user.is_banned(now) {
        return Err(AuthError::new(
            axum::http::StatusCode::BAD_REQUEST,
            "user_banned",
            "User is banned",
        ));
    }
    let session_id = uuid::Uuid::new_v4().to_string();
    let refresh_token = random_token();
    sessions::create(
        &state.db,
        &sessions::NewSession {
            id: &session_id,
            user_id: &user.id,
            amr_method,
            refresh_token_id: &uuid::Uuid::new_v4().to_string(),
            refresh_token: &refresh_token,
            user_agent: origin.user_agent.as_deref(),
            ip: origin.ip.as_deref(),
            now,
        },
    )
    .await?;
    users::touch_last_sign_in(&state.db, &user.id, now).await?;
    let user = UserRow {
        last_sign_in_at: Some(now),
        updated_at: now,
        ..user.clone()
    };
    respond(state, &user, &session_id, &refresh_token).await
}

/// The token response for an existing session: a fresh access token with claims derived from
/// the session, plus the given refresh token.
pub async fn respond(
    state: &AppState,
    user: &UserRow,
    session_id: &str,
    refresh_token: &str,
) -> Result<Value, AuthError> {
    let session = sessions::find(&state.db, session_id)
        .await?
        .ok_or_else(|| AuthError::internal("session vanished while issuing tokens"))?;
    let amr = sessions::amr_claims(&state.db, session_id)
        .await?
        .into_iter()
        .map(|(method, ms)| AmrEntry {
            method,
            timestamp: ms / 1000,
        })
        .collect();
    let iat = chrono::Utc::now().timestamp();
    let expires_in = i64::try_from(state.config.jwt_exp).unwrap_or(i64::MAX / 2);
    let exp = iat.saturating_add(expires_in);
    let claims = Claims {
        iss: state.config.issuer(),
        sub: user.id.clone(),
        aud: AUDIENCE.to_owned(),
        exp,
        iat,
        email: user.email.clone(),
        phone: user.phone.clone(),
        app_metadata: app_metadata(user),
        user_metadata: user_metadata(user),
        role: AUDIENCE.to_owned(),
        aal: session.aal,
        amr,
        session_id: session_id.to_owned(),
        is_anonymous: user.is_anonymous,
    };
    let access_token = state.jwt.sign(&claims).map_err(AuthError::internal)?;
    Ok(json!({
        "access_token": access_token,
        "token_type": "bearer",
        "expires_in": expires_in,
        "expires_at": exp,
        "refresh_token": refresh_token,
        "user": user_body(state, user).await?,
    }))
}
