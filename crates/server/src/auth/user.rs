//! `GET /auth/v1/user` and `PUT /auth/v1/user`: the signed-in user, password and metadata
//! changes.

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::Value;

use super::email::Email;
use super::error::AuthError;
use super::extract::{AuthUser, ClientIp, GoTrueJson, request_lang};
use super::flow::Pkce;
use super::links;
use super::metadata;
use super::password;
use super::phone;
use super::redirect;
use super::session::user_body;
use crate::db::{self, sessions, users};
use crate::notify::templates;
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
    /// The code of `GET /reauthenticate`, for a password change when
    /// `REGARD_SECURE_PASSWORD_CHANGE` asks for it.
    nonce: Option<String>,
    /// The password being replaced, when `REGARD_PASSWORD_CHANGE_NEEDS_CURRENT` asks for it.
    current_password: Option<String>,
    channel: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
}

async fn update_user(
    State(state): State<AppState>,
    auth: AuthUser,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    Query(query): Query<redirect::RedirectQuery>,
    GoTrueJson(params): GoTrueJson<UserUpdateParams>,
) -> Result<Json<Value>, AuthError> {
    if params.app_metadata.as_ref().is_some_and(|v| !v.is_null()) {
        return Err(AuthError::new(
            StatusCode::FORBIDDEN,
            "not_admin",
            "Updating app_metadata requires admin privileges",
        ));
    }
    let new_email = match params.email.as_deref().filter(|e| !e.trim().is_empty()) {
        Some(email) => Some(Email::parse(email.trim())?).filter(|e| e.as_str() != auth.user.email),
        None => None,
    };
    let changes_password = params.password.as_deref().is_some_and(|p| !p.is_empty());
    // As GoTrue: with a verified second factor, changing the address or the password needs
    // the aal2 session, so a stolen password alone cannot take the account over.
    if (new_email.is_some() || changes_password)
        && auth.claims.aal != "aal2"
        && auth.has_verified_factor
    {
        return Err(AuthError::new(
            StatusCode::UNAUTHORIZED,
            "insufficient_aal",
            "AAL2 session is required to update email or password when MFA is enabled.",
        ));
    }
    let new_phone = match params
        .phone
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        Some(raw) => {
            phone::require_enabled(&state)?;
            let number = phone::parse(raw)?;
            phone::check_channel(params.channel.as_deref())?;
            Some(number).filter(|n| *n != auth.user.phone)
        }
        None => None,
    };
    let metadata_patch = metadata::object(params.data, "data")?;
    // Everything that can refuse the request is checked before anything is written, so a
    // refused request changes nothing.
    //
    // An address another account has is not refused (GoTrue's `email_exists` would tell any
    // signed-in user which addresses have accounts): the answer is the one of a change in
    // progress, and nothing is mailed to that address (docs/security.md). Only an anonymous
    // user made permanent at once, who would otherwise take the address, is refused.
    let email_taken = match &new_email {
        Some(email) => users::find_by_email(&state.db, email.as_str())
            .await?
            .is_some(),
        None => false,
    };
    if email_taken && auth.user.is_anonymous && state.config.mailer_autoconfirm {
        return Err(AuthError::email_exists());
    }
    if let Some(number) = &new_phone
        && users::find_by_phone(&state.db, number).await?.is_some()
    {
        return Err(AuthError::phone_exists());
    }
    if let Some(number) = &new_phone {
        phone::take_sms_allowance(&state, ip, number).await?;
    }
    let merged_metadata = metadata_patch
        .map(|patch| metadata::checked(metadata::merge(&auth.user.user_metadata, patch), "data"))
        .transpose()?;
    let user = &auth.user;
    let now = db::now_ms();
    let mut pending_email = false;

    if let Some(password) = params.password.filter(|p| !p.is_empty()) {
        password::check_strength(&password)?;
        let needs_current = state.config.password_change_needs_current
            && super::session::has_password(user)
            && !opened_by_recovery(&auth);
        let needs_nonce =
            state.config.secure_password_change && needs_reauthentication(&state, &auth).await?;
        let nonce = params.nonce.as_deref().map(str::trim).unwrap_or_default();
        if needs_nonce && nonce.is_empty() {
            return Err(AuthError::new(
                StatusCode::BAD_REQUEST,
                "reauthentication_needed",
                "Password update requires reauthentication",
            ));
        }
        let current = params.current_password.filter(|p| !p.is_empty());
        if needs_current && current.is_none() {
            return Err(AuthError::new(
                StatusCode::BAD_REQUEST,
                "current_password_required",
                "Current password required when setting new password.",
            ));
        }
        if needs_current || needs_nonce {
            // One attempt per request, per user whatever the address: neither the password
            // nor a nonce can be guessed from many IPs, and an open session is no oracle.
            state
                .limits
                .reauthentication(&user.id)
                .await
                .map_err(AuthError::rate_limited)?;
        }
        if let Some(current) = current.filter(|_| needs_current)
            && !state
                .hasher
                .verify(current, user.encrypted_password.clone())
                .await?
        {
            return Err(AuthError::new(
                StatusCode::BAD_REQUEST,
                "current_password_invalid",
                "Current password is incorrect.",
            ));
        }
        // The nonce is used up last, so a wrong password does not spend it.
        if needs_nonce && !links::take_reauthentication(&state, user, nonce).await? {
            return Err(AuthError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "reauthentication_not_valid",
                "Requires reauthentication",
            ));
        }
        if state
            .hasher
            .verify(password.clone(), user.encrypted_password.clone())
            .await?
        {
            return Err(AuthError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "same_password",
                "New password should be different from the old password.",
            ));
        }
        let hash = state.hasher.hash(password).await?;
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

    if let Some(text) = merged_metadata {
        users::update_user_metadata(&state.db, &user.id, &text, now).await?;
    }

    let mut pending_phone = None;
    if let Some(number) = new_phone {
        phone::send_code(
            &state,
            phone::Purpose::Change,
            user,
            &number,
            request_lang(&headers),
        )
        .await?;
        pending_phone = Some(number);
    }

    if let Some(email) = new_email {
        // An anonymous user becomes permanent: at once where sign-ups need no confirmation,
        // otherwise when they follow the link (which clears `is_anonymous` too).
        if user.is_anonymous && state.config.mailer_autoconfirm {
            let mut upgraded = users::find_by_id(&state.db, &user.id)
                .await?
                .ok_or_else(|| AuthError::internal("user vanished during update"))?;
            upgraded.email = email.as_str().to_owned();
            upgraded.email_confirmed_at = Some(now);
            upgraded.is_anonymous = false;
            upgraded.app_metadata =
                serde_json::json!({"provider": "email", "providers": ["email"]}).to_string();
            upgraded.updated_at = now;
            match users::save(&state.db, &upgraded).await {
                Ok(()) => {}
                // Another account took the address since the check above.
                Err(db::DbError::Conflict) => return Err(AuthError::email_exists()),
                Err(err) => return Err(err.into()),
            }
            tracing::info!(user_id = %user.id, "anonymous user made permanent");
            let body = user_body(&state, &upgraded).await?;
            return Ok(Json(body));
        }
        let lang = request_lang(&headers);
        let pkce = Pkce::from_params(
            params.code_challenge.as_deref(),
            params.code_challenge_method.as_deref(),
        )?;
        // The current address hears of the change first (GoTrue's secure email change mails
        // both addresses): a session taken over cannot move the account away unnoticed.
        if !user.email.is_empty() {
            let notice = templates::email_change_notice(lang, &user.email, email.as_str());
            state.mailer.send(&notice).await.map_err(|err| {
                AuthError::internal(format!("sending an email-change notice failed: {err}"))
            })?;
        }
        if email_taken {
            // Pending, as any change, but no link exists: it never completes.
            users::set_email_change(&state.db, &user.id, Some(email.as_str()), now).await?;
        } else {
            let redirect_to = redirect::checked_redirect(&state, query.redirect_to.as_deref());
            links::send(
                &state,
                links::Send {
                    kind: links::LinkKind::EmailChange,
                    user,
                    to: email.as_str(),
                    redirect_to: &redirect_to,
                    lang,
                    pkce,
                },
            )
            .await?;
        }
        pending_email = true;
    }
    respond_pending(&state, &user.id, pending_email, pending_phone).await
}

/// The user as updated, with the pending address or number and when it was sent.
async fn respond_pending(
    state: &AppState,
    user_id: &str,
    pending_email: bool,
    pending_phone: Option<String>,
) -> Result<Json<Value>, AuthError> {
    let updated = users::find_by_id(&state.db, user_id)
        .await?
        .ok_or_else(|| AuthError::internal("user vanished during update"))?;
    let mut body = user_body(state, &updated).await?;
    // The pending address itself is on the user (`new_email`, from `users.email_change`).
    if pending_email {
        body["email_change_sent_at"] = serde_json::json!(super::session::rfc3339(db::now_ms()));
    }
    if let Some(number) = pending_phone {
        body["new_phone"] = serde_json::json!(number);
        body["phone_change_sent_at"] = serde_json::json!(super::session::rfc3339(db::now_ms()));
    }
    Ok(Json(body))
}

/// Whether a recovery link or code opened this session: its owner proved they hold the
/// address, and cannot know the password they are replacing.
fn opened_by_recovery(auth: &AuthUser) -> bool {
    auth.claims
        .amr
        .iter()
        .any(|entry| entry.method == "recovery")
}

/// Whether a password change needs a reauthentication code: the session signed in more than
/// `REGARD_REAUTHENTICATION_WINDOW` ago (GoTrue: 24 hours, with
/// `UpdatePasswordRequireReauthentication`).
async fn needs_reauthentication(state: &AppState, auth: &AuthUser) -> Result<bool, AuthError> {
    let window_ms = i64::try_from(state.config.reauthentication_window)
        .unwrap_or(i64::MAX / 1000)
        .saturating_mul(1000);
    let session = sessions::find(&state.db, &auth.session_id).await?;
    Ok(session.is_none_or(|s| db::now_ms() - s.created_at >= window_ms))
}
