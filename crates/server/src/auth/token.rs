//! `POST /auth/v1/token?grant_type=password|refresh_token|pkce|id_token`: sign-in, token refresh, and
//! the exchange of a PKCE auth code (see [`super::flow`]).
//!
//! Refresh follows GoTrue's rotation and reuse rules (its "v1" refresh tokens):
//! * an active token is revoked and replaced by a child (rotation);
//! * a revoked token that is the parent of the session's active token, or that was revoked less
//!   than `REGARD_REFRESH_TOKEN_REUSE_INTERVAL` seconds ago, gets the session's *current* token
//!   back (the client lost the previous answer, or several tabs refreshed at once);
//! * any other revoked token is a replay: the whole session is ended (`refresh_token_already_used`),
//!   so its access tokens stop working too.

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::Value;

use super::email::Email;
use super::error::AuthError;
use super::external;
use super::extract::{ClientIp, GoTrueJson, user_agent};
use super::flow;
use super::phone;
use super::session::{self, Origin};

use super::tokens;
use crate::db::{self, refresh_tokens, sessions, users};
use crate::state::AppState;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route("/token", post(token))
}

#[derive(Debug, Deserialize)]
struct TokenQuery {
    grant_type: Option<String>,
}

/// The union of the grants' bodies (unknown fields ignored).
#[derive(Debug, Deserialize)]
struct TokenParams {
    email: Option<String>,
    phone: Option<String>,
    password: Option<String>,
    refresh_token: Option<String>,
    auth_code: Option<String>,
    code_verifier: Option<String>,
    /// `id_token` grant: the provider's name, its ID token and the raw nonce.
    provider: Option<String>,
    id_token: Option<String>,
    nonce: Option<String>,
}

async fn token(
    State(state): State<AppState>,
    Query(query): Query<TokenQuery>,
    client_ip: ClientIp,
    headers: HeaderMap,
    GoTrueJson(params): GoTrueJson<TokenParams>,
) -> Result<Json<Value>, AuthError> {
    match query.grant_type.as_deref().unwrap_or("") {
        "password" => password_grant(&state, client_ip, &headers, params).await,
        "refresh_token" => refresh_grant(&state, params).await,
        "pkce" => {
            let origin = Origin {
                ip: Some(client_ip.0.to_string()),
                user_agent: user_agent(&headers),
            };
            flow::pkce_grant(
                &state,
                params.auth_code.as_deref().unwrap_or(""),
                params.code_verifier.as_deref().unwrap_or(""),
                &origin,
            )
            .await
        }
        "id_token" => {
            let origin = Origin {
                ip: Some(client_ip.0.to_string()),
                user_agent: user_agent(&headers),
            };
            external::id_token_grant(
                &state,
                params.provider.as_deref().unwrap_or(""),
                params.id_token.as_deref().unwrap_or(""),
                params.nonce.as_deref().filter(|n| !n.is_empty()),
                &origin,
            )
            .await
        }
        // Sign-in with a crypto wallet (SIWE/SIWS) is not offered: GoTrue's answer when off.
        "web3" => Err(AuthError::new(
            StatusCode::BAD_REQUEST,
            "web3_provider_disabled",
            "Web3 provider is disabled",
        )),
        _ => Err(AuthError::new(
            StatusCode::BAD_REQUEST,
            "invalid_credentials",
            "unsupported_grant_type",
        )),
    }
    .map(Json)
}

async fn password_grant(
    state: &AppState,
    ClientIp(ip): ClientIp,
    headers: &HeaderMap,
    params: TokenParams,
) -> Result<Value, AuthError> {
    state
        .limits
        .sign_in(ip)
        .await
        .map_err(AuthError::rate_limited)?;
    let email = params.email.as_deref().unwrap_or("").trim();
    let phone = params.phone.as_deref().unwrap_or("").trim();
    match (email.is_empty(), phone.is_empty()) {
        (false, false) => {
            return Err(AuthError::validation(
                "Only an email address or phone number should be provided on login.",
            ));
        }
        (true, true) => return Err(AuthError::validation("missing email or phone")),
        (true, false) => phone::require_enabled(state)?,
        (false, true) => {}
    }
    let password = params.password.unwrap_or_default();
    let user = if email.is_empty() {
        // A number that cannot be one finds nobody (and fails like a wrong password).
        match phone::parse(phone) {
            Ok(number) => users::find_by_phone(&state.db, &number).await?,
            Err(_) => None,
        }
    } else {
        users::find_by_email(&state.db, &Email::normalise(email)).await?
    };
    // An unknown email, or a user without a password (signed up through a provider), is
    // verified against a dummy hash so that every failure takes as long.
    let user = user.filter(session::has_password);
    let hash = user.as_ref().map_or_else(
        || state.dummy_hash.to_string(),
        |u| u.encrypted_password.clone(),
    );
    let matches = state.hasher.verify(password, hash).await?;
    let user = match user {
        Some(user) if matches => user,
        _ => return Err(AuthError::invalid_credentials()),
    };
    if email.is_empty() {
        if user.phone_confirmed_at.is_none() {
            return Err(AuthError::new(
                StatusCode::BAD_REQUEST,
                "phone_not_confirmed",
                "Phone not confirmed",
            ));
        }
    } else if user.email_confirmed_at.is_none() {
        return Err(AuthError::new(
            StatusCode::BAD_REQUEST,
            "email_not_confirmed",
            "Email not confirmed",
        ));
    }
    if user.is_banned(db::now_ms()) {
        return Err(banned());
    }
    let origin = Origin {
        ip: Some(ip.to_string()),
        user_agent: user_agent(headers),
    };
    session::start(state, &user, "password", &origin).await
}

/// Rotations a reused token may be behind the session's active one and still get it back
/// (within the reuse interval every refresh rotates once; more is a replay).
const MAX_REUSE_DEPTH: usize = 16;

/// The token `target_hash` names when it derives from `presented` (its child, grandchild...).
fn descendant(state: &AppState, presented: &str, target_hash: &str) -> Option<String> {
    let mut token = presented.to_owned();
    for _ in 0..MAX_REUSE_DEPTH {
        token = state.jwt.refresh_child(&token);
        if refresh_tokens::stored(&token) == target_hash {
            return Some(token);
        }
    }
    None
}

/// 400 `user_banned`, as GoTrue's token grants answer a banned user.
pub(super) fn banned() -> AuthError {
    AuthError::new(StatusCode::BAD_REQUEST, "user_banned", "User is banned")
}

fn invalid_refresh(code: &'static str, detail: &str) -> AuthError {
    AuthError::new(
        StatusCode::BAD_REQUEST,
        code,
        format!("Invalid Refresh Token: {detail}"),
    )
}

async fn refresh_grant(state: &AppState, params: TokenParams) -> Result<Value, AuthError> {
    let presented = params.refresh_token.unwrap_or_default();
    if presented.is_empty() {
        return Err(AuthError::oauth_invalid_request("refresh_token required"));
    }
    // As GoTrue: a token too short to be one is malformed; anything else is looked up, so an
    // unknown token of any shape ("invalid-refresh-token" in auth-js's own tests) answers
    // `refresh_token_not_found`. Over 255 characters it cannot be one of ours either.
    if presented.chars().count() < 12 || presented.len() > 255 {
        return Err(AuthError::validation("Refresh token is not valid"));
    }
    let not_found = || invalid_refresh("refresh_token_not_found", "Refresh Token Not Found");
    let mut token = refresh_tokens::find(&state.db, &presented)
        .await?
        .ok_or_else(not_found)?;
    if sessions::find(&state.db, &token.session_id)
        .await?
        .is_none()
    {
        return Err(invalid_refresh(
            "session_not_found",
            "No Valid Session Found",
        ));
    }
    let user = users::find_by_id(&state.db, &token.user_id)
        .await?
        .ok_or_else(not_found)?;
    if user.is_banned(db::now_ms()) {
        return Err(banned());
    }

    // Two passes at most: a concurrent refresh may revoke the token between the read and the
    // rotation, after which the reuse rules decide.
    for _ in 0..2 {
        let now = db::now_ms();
        let Some(revoked_at) = token.revoked_at else {
            let new_token = state.jwt.refresh_child(&presented);
            let new_id = uuid::Uuid::new_v4().to_string();
            if refresh_tokens::rotate(&state.db, &token, &new_id, &new_token, now).await? {
                return session::respond(state, &user, &token.session_id, &new_token).await;
            }
            token = refresh_tokens::find(&state.db, &presented)
                .await?
                .ok_or_else(not_found)?;
            continue;
        };

        let active = refresh_tokens::active_for_session(&state.db, &token.session_id).await?;
        let reuse_window_ms = i64::try_from(state.config.refresh_token_reuse_interval)
            .unwrap_or(i64::MAX / 2_000)
            .saturating_mul(1000);
        let within_window = now <= revoked_at.saturating_add(reuse_window_ms);
        if let Some(active) = active {
            let is_parent_of_active = active.parent_hash.as_deref() == Some(&*token.token_hash);
            if is_parent_of_active || within_window {
                // The active token is a descendant of the presented one: derived again, as
                // only its hash is stored.
                if let Some(current) = descendant(state, &presented, &active.token_hash) {
                    return session::respond(state, &user, &token.session_id, &current).await;
                }
                // Issued otherwise (before tokens were hashed): the active token cannot be
                // handed back, so it is rotated, and this client gets its child.
                let new_token = tokens::random_token();
                let new_id = uuid::Uuid::new_v4().to_string();
                if refresh_tokens::rotate(&state.db, &active, &new_id, &new_token, now).await? {
                    return session::respond(state, &user, &token.session_id, &new_token).await;
                }
                break;
            }
        }
        tracing::warn!(
            session_id = %token.session_id,
            user_id = %token.user_id,
            "refresh token reused outside the reuse interval; ending the session"
        );
        sessions::delete(
            &state.db,
            &token.user_id,
            sessions::Scope::Only(&token.session_id),
            now,
        )
        .await?;
        return Err(invalid_refresh(
            "refresh_token_already_used",
            "Already Used",
        ));
    }
    Err(AuthError::new(
        StatusCode::CONFLICT,
        "conflict",
        "Too many concurrent token refresh requests on the same session or refresh token",
    ))
}
