//! Passwordless sign-in and the codes around it, as GoTrue: `POST /otp` (a magic link and a
//! 6-digit code by mail, or a code by SMS), `POST /resend` (the sign-up confirmation, the
//! email-change link or an SMS code again) and `GET /reauthenticate` (a code that
//! `PUT /user` takes as `nonce` before a password change). Verification is `POST /verify`
//! (`links.rs`, `phone.rs`).
//!
//! None of them tells whether an address has an account: an unknown address answers like a
//! known one (except where the client asked not to create users, as GoTrue).

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use super::email::Email;
use super::error::AuthError;
use super::extract::{AuthUser, ClientIp, GoTrueJson, request_lang};
use super::flow::Pkce;
use super::links::{self, LinkKind};
use super::metadata;
use super::phone::{self, Purpose};
use super::redirect;
use crate::db::users::UserRow;
use crate::db::{self, DbError, users};
use crate::i18n::Locale;
use crate::state::AppState;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/otp", post(otp))
        .route("/resend", post(resend))
        .route("/reauthenticate", get(reauthenticate))
}

fn email_rate_limited(retry_after: u64) -> AuthError {
    AuthError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "over_email_send_rate_limit",
        "Email rate limit exceeded",
    )
    .retry_after(retry_after)
}

fn signups_disabled_for_otp() -> AuthError {
    AuthError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "otp_disabled",
        "Signups not allowed for otp",
    )
}

#[derive(Debug, Deserialize)]
struct OtpParams {
    email: Option<String>,
    phone: Option<String>,
    /// `user_metadata` of a user created by this request.
    data: Option<Value>,
    /// Create the user when the address is unknown (GoTrue's default: yes).
    create_user: Option<bool>,
    channel: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
}

/// `POST /otp`: mails a magic link (with its code) or texts a code. A new address gets an
/// unconfirmed account, confirmed when the link or code is used.
async fn otp(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    Query(query): Query<redirect::RedirectQuery>,
    GoTrueJson(params): GoTrueJson<OtpParams>,
) -> Result<Json<Value>, AuthError> {
    let email = params.email.as_deref().map(str::trim).unwrap_or_default();
    let number = params.phone.as_deref().map(str::trim).unwrap_or_default();
    let create_user = params.create_user.unwrap_or(true);
    let lang = request_lang(&headers);
    match (email.is_empty(), number.is_empty()) {
        (false, false) => Err(AuthError::validation(
            "Only an email address or phone number should be provided",
        )),
        (true, true) => Err(AuthError::validation(
            "You must provide either an email or phone number",
        )),
        (false, true) => {
            let email = Email::parse(email)?;
            let pkce = Pkce::from_params(
                params.code_challenge.as_deref(),
                params.code_challenge_method.as_deref(),
            )?;
            state.limits.email(ip).await.map_err(email_rate_limited)?;
            let user = match users::find_by_email(&state.db, email.as_str()).await? {
                Some(user) => user,
                None if !create_user || state.config.disable_signup => {
                    return Err(signups_disabled_for_otp());
                }
                None => {
                    let now = db::now_ms();
                    let user = UserRow {
                        email: email.as_str().to_owned(),
                        app_metadata: json!({"provider": "email", "providers": ["email"]})
                            .to_string(),
                        user_metadata: metadata::initial(params.data)?,
                        ..UserRow::new(now)
                    };
                    match users::insert(&state.db, &user).await {
                        Ok(()) => user,
                        // A concurrent request created it.
                        Err(DbError::Conflict) => users::find_by_email(&state.db, email.as_str())
                            .await?
                            .ok_or_else(|| AuthError::internal("user vanished after a conflict"))?,
                        Err(err) => return Err(err.into()),
                    }
                }
            };
            let redirect_to = redirect::checked_redirect(&state, query.redirect_to.as_deref());
            let sent = links::send(
                &state,
                links::Send {
                    kind: LinkKind::MagicLink,
                    user: &user,
                    to: &user.email,
                    redirect_to: &redirect_to,
                    lang,
                    pkce,
                },
            )
            .await?;
            if !sent {
                return Err(sent_too_recently(&state));
            }
            Ok(Json(json!({})))
        }
        (true, false) => {
            phone::require_enabled(&state)?;
            let number = phone::parse(number)?;
            phone::check_channel(params.channel.as_deref())?;
            phone::take_sms_allowance(&state, ip, &number).await?;
            let user = match users::find_by_phone(&state.db, &number).await? {
                Some(user) => user,
                None if !create_user || state.config.disable_signup => {
                    return Err(signups_disabled_for_otp());
                }
                None => {
                    let now = db::now_ms();
                    let user = UserRow {
                        phone: number.clone(),
                        app_metadata: json!({"provider": "phone", "providers": ["phone"]})
                            .to_string(),
                        user_metadata: metadata::initial(params.data)?,
                        ..UserRow::new(now)
                    };
                    match users::insert(&state.db, &user).await {
                        Ok(()) => user,
                        Err(DbError::Conflict) => users::find_by_phone(&state.db, &number)
                            .await?
                            .ok_or_else(|| {
                            AuthError::internal("user vanished after a conflict")
                        })?,
                        Err(err) => return Err(err.into()),
                    }
                }
            };
            let message_id =
                phone::send_code(&state, Purpose::SignIn, &user, &number, lang).await?;
            Ok(Json(json!({ "message_id": message_id })))
        }
    }
}

/// 429 for a link asked again within `REGARD_MAIL_MAX_FREQUENCY`, with GoTrue's words.
fn sent_too_recently(state: &AppState) -> AuthError {
    AuthError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "over_email_send_rate_limit",
        format!(
            "For security purposes, you can only request this after {} seconds.",
            state.config.mail_max_frequency
        ),
    )
    .retry_after(state.config.mail_max_frequency)
}

#[derive(Debug, Deserialize)]
struct ResendParams {
    #[serde(rename = "type")]
    kind: Option<String>,
    email: Option<String>,
    phone: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
}

/// `POST /resend`: the sign-up confirmation or the email-change link again (`signup`,
/// `email_change`), or an SMS code again (`sms`, `phone_change`). Nothing to resend (no such
/// account, already confirmed, a mail sent less than `REGARD_MAIL_MAX_FREQUENCY` ago) answers
/// 200 `{}` all the same.
async fn resend(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    Query(query): Query<redirect::RedirectQuery>,
    GoTrueJson(params): GoTrueJson<ResendParams>,
) -> Result<Json<Value>, AuthError> {
    let kind = params.kind.unwrap_or_default();
    if !matches!(
        kind.as_str(),
        "signup" | "email_change" | "sms" | "phone_change"
    ) {
        return Err(AuthError::validation(
            "Missing one of these types: signup, email_change, sms, phone_change",
        ));
    }
    let email = params.email.as_deref().map(str::trim).unwrap_or_default();
    let number = params.phone.as_deref().map(str::trim).unwrap_or_default();
    let lang = request_lang(&headers);
    match (email.is_empty(), number.is_empty()) {
        (false, false) => Err(AuthError::validation(
            "Only an email address or phone number should be provided.",
        )),
        (true, true) => Err(AuthError::validation(
            "You must provide either an email or phone number",
        )),
        (false, true) => {
            if !matches!(kind.as_str(), "signup" | "email_change") {
                return Err(AuthError::validation(
                    "Type provided requires a phone number",
                ));
            }
            let email = Email::parse(email)?;
            let pkce = Pkce::from_params(
                params.code_challenge.as_deref(),
                params.code_challenge_method.as_deref(),
            )?;
            state.limits.email(ip).await.map_err(email_rate_limited)?;
            let redirect_to = redirect::checked_redirect(&state, query.redirect_to.as_deref());
            resend_mail(&state, &kind, &email, &redirect_to, lang, pkce).await
        }
        (true, false) => {
            if !matches!(kind.as_str(), "sms" | "phone_change") {
                return Err(AuthError::validation(
                    "Type provided requires an email address",
                ));
            }
            phone::require_enabled(&state)?;
            let number = phone::parse(number)?;
            // Before the lookup: a known and an unknown number draw on the limits alike.
            phone::take_sms_allowance(&state, ip, &number).await?;
            let purpose = if kind == "sms" {
                Purpose::SignIn
            } else {
                Purpose::Change
            };
            let user = match purpose {
                Purpose::SignIn => users::find_by_phone(&state.db, &number)
                    .await?
                    .filter(|user| user.phone_confirmed_at.is_none()),
                Purpose::Change => {
                    match crate::db::one_time_tokens::user_for_address(
                        &state.db,
                        purpose.stored(),
                        &number,
                    )
                    .await?
                    {
                        Some(id) => users::find_by_id(&state.db, &id).await?,
                        None => None,
                    }
                }
            };
            let Some(user) = user else {
                return Ok(Json(json!({})));
            };
            let message_id = phone::send_code(&state, purpose, &user, &number, lang).await?;
            Ok(Json(json!({ "message_id": message_id })))
        }
    }
}

async fn resend_mail(
    state: &AppState,
    kind: &str,
    email: &Email,
    redirect_to: &str,
    lang: Locale,
    pkce: Option<Pkce>,
) -> Result<Json<Value>, AuthError> {
    let Some(user) = users::find_by_email(&state.db, email.as_str()).await? else {
        return Ok(Json(json!({})));
    };
    let (link_kind, to) = if kind == "signup" {
        if user.email_confirmed_at.is_some() {
            return Ok(Json(json!({})));
        }
        (LinkKind::Confirmation, user.email.clone())
    } else {
        let Some(new_email) = user.email_change.clone() else {
            return Ok(Json(json!({})));
        };
        (LinkKind::EmailChange, new_email)
    };
    // An email change towards an address another account has (see `PUT /user`) mails
    // nothing.
    if link_kind == LinkKind::EmailChange && users::find_by_email(&state.db, &to).await?.is_some() {
        return Ok(Json(json!({})));
    }
    // Sent too recently: nothing is sent, and the answer is the same 200 as for an unknown
    // address (GoTrue answers 429 here, which tells that the address has an account).
    links::send(
        state,
        links::Send {
            kind: link_kind,
            user: &user,
            to: &to,
            redirect_to,
            lang,
            pkce,
        },
    )
    .await?;
    Ok(Json(json!({})))
}

/// `GET /reauthenticate`: mails (or texts) the signed-in user a code for `PUT /user`'s
/// `nonce`.
async fn reauthenticate(
    State(state): State<AppState>,
    auth: AuthUser,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
) -> Result<Json<Value>, AuthError> {
    let user = &auth.user;
    let lang = request_lang(&headers);
    if user.email.is_empty() && user.phone.is_empty() {
        return Err(AuthError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_failed",
            "Reauthentication requires the user to have an email or a phone number",
        ));
    }
    if !user.email.is_empty() {
        if user.email_confirmed_at.is_none() {
            return Err(AuthError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "email_not_confirmed",
                "Please verify your email first.",
            ));
        }
        let sent = links::send(
            &state,
            links::Send {
                kind: LinkKind::Reauthentication,
                user,
                to: &user.email,
                redirect_to: "",
                lang,
                pkce: None,
            },
        )
        .await?;
        if !sent {
            return Err(sent_too_recently(&state));
        }
        return Ok(Json(json!({})));
    }
    if user.phone_confirmed_at.is_none() {
        return Err(AuthError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "phone_not_confirmed",
            "Please verify your phone first.",
        ));
    }
    phone::take_sms_allowance(&state, ip, &user.phone).await?;
    let message_id = links::send_reauthentication_sms(&state, user, lang).await?;
    Ok(Json(json!({ "message_id": message_id })))
}
