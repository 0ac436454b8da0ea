//! `POST /auth/v1/signup`: email and password sign-up. By default a new user is confirmed at
//! once and gets a session (GoTrue's auto-confirm); with `REGARD_MAILER_AUTOCONFIRM=false` the
//! answer is the user without a session, and a confirmation link is mailed.

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use super::email::Email;
use super::error::AuthError;
use super::extract::{ClientIp, GoTrueJson, request_lang, user_agent};
use super::flow::Pkce;
use super::links;
use super::metadata;
use super::password;
use super::phone;
use super::redirect;
use super::session::{self, Origin};
use crate::db::users::UserRow;
use crate::db::{self, DbError, users};
use crate::i18n::Locale;
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
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
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
    Query(query): Query<redirect::RedirectQuery>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    GoTrueJson(params): GoTrueJson<SignupParams>,
) -> Result<Json<Value>, AuthError> {
    state
        .limits
        .sign_up(ip)
        .await
        .map_err(AuthError::rate_limited)?;
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
            if !state.config.phone_sign_in {
                return Err(AuthError::new(
                    StatusCode::BAD_REQUEST,
                    "phone_provider_disabled",
                    "Phone signups are disabled",
                ));
            }
            return phone_signup(&state, ip, &headers, params).await;
        }
        (true, true) => {
            if !state.config.anonymous_sign_in {
                return Err(AuthError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "anonymous_provider_disabled",
                    "Anonymous sign-ins are disabled",
                ));
            }
            return anonymous_signup(&state, ip, &headers, params.data).await;
        }
        (false, true) => {}
    }
    let password = params.password.unwrap_or_default();
    if password.is_empty() {
        return Err(AuthError::validation("Signup requires a valid password"));
    }
    let email = Email::parse(email)?;
    password::check_strength(&password)?;
    let user_metadata = metadata::initial(params.data)?;

    let confirm = !state.config.mailer_autoconfirm;
    let pkce = Pkce::from_params(
        params.code_challenge.as_deref(),
        params.code_challenge_method.as_deref(),
    )?;
    let redirect_to = redirect::checked_redirect(&state, query.redirect_to.as_deref());
    let lang = request_lang(&headers);
    // Checked before hashing to spare the work; the unique index still settles races.
    if let Some(existing) = users::find_by_email(&state.db, email.as_str()).await? {
        if !confirm {
            return Err(user_already_exists());
        }
        // With confirmation on, the answer must not tell whether the address has an account:
        // the same work (a hash), the same shape, and a new link for an unconfirmed one.
        let _ = state.hasher.hash(password).await?;
        if existing.email_confirmed_at.is_none() {
            spawn_confirmation(&state, existing, redirect_to, lang, pkce);
        }
        return Ok(Json(unconfirmed_user_json(email.as_str(), db::now_ms())));
    }
    let hash = state.hasher.hash(password).await?;
    let now = db::now_ms();
    let user = UserRow {
        email: email.as_str().to_owned(),
        encrypted_password: hash,
        email_confirmed_at: (!confirm).then_some(now),
        app_metadata: json!({"provider": "email", "providers": ["email"]}).to_string(),
        user_metadata,
        ..UserRow::new(now)
    };
    match users::insert(&state.db, &user).await {
        Ok(()) => {}
        Err(DbError::Conflict) => return Err(user_already_exists()),
        Err(err) => return Err(err.into()),
    }
    tracing::info!(user_id = %user.id, "user signed up");
    if confirm {
        let mut body = session::user_body(&state, &user).await?;
        body["confirmation_sent_at"] = json!(session::rfc3339(now));
        spawn_confirmation(&state, user, redirect_to, lang, pkce);
        return Ok(Json(body));
    }
    let origin = Origin {
        ip: Some(ip.to_string()),
        user_agent: user_agent(&headers),
    };
    Ok(Json(
        session::start(&state, &user, "password", &origin).await?,
    ))
}

/// Sign-up with a phone number and a password (`REGARD_PHONE_SIGN_IN`): confirmed at once with
/// `REGARD_SMS_AUTOCONFIRM`, otherwise a code is texted and the answer carries no session.
async fn phone_signup(
    state: &AppState,
    ip: std::net::IpAddr,
    headers: &HeaderMap,
    params: SignupParams,
) -> Result<Json<Value>, AuthError> {
    let number = phone::parse(params.phone.as_deref().unwrap_or_default())?;
    let password = params.password.unwrap_or_default();
    if password.is_empty() {
        return Err(AuthError::validation("Signup requires a valid password"));
    }
    password::check_strength(&password)?;
    let user_metadata = metadata::initial(params.data)?;
    let confirm = !state.config.sms_autoconfirm;
    // A sign-up that texts a code draws on the SMS limits before any account is created.
    if confirm {
        phone::take_sms_allowance(state, ip, &number).await?;
    }
    if users::find_by_phone(&state.db, &number).await?.is_some() {
        return Err(user_already_exists());
    }
    let now = db::now_ms();
    let user = UserRow {
        phone: number.clone(),
        encrypted_password: state.hasher.hash(password).await?,
        phone_confirmed_at: (!confirm).then_some(now),
        app_metadata: json!({"provider": "phone", "providers": ["phone"]}).to_string(),
        user_metadata,
        ..UserRow::new(now)
    };
    match users::insert(&state.db, &user).await {
        Ok(()) => {}
        Err(DbError::Conflict) => return Err(user_already_exists()),
        Err(err) => return Err(err.into()),
    }
    tracing::info!(user_id = %user.id, "user signed up with a phone number");
    if confirm {
        phone::send_code(
            state,
            phone::Purpose::SignIn,
            &user,
            &number,
            request_lang(headers),
        )
        .await?;
        return Ok(Json(session::user_body(state, &user).await?));
    }
    let origin = Origin {
        ip: Some(ip.to_string()),
        user_agent: user_agent(headers),
    };
    Ok(Json(
        session::start(state, &user, "password", &origin).await?,
    ))
}

/// Anonymous sign-in (`REGARD_ANONYMOUS_SIGN_IN`): a user without an address and a session;
/// `PUT /user` with an email and a password later makes the account permanent.
async fn anonymous_signup(
    state: &AppState,
    ip: std::net::IpAddr,
    headers: &HeaderMap,
    data: Option<Value>,
) -> Result<Json<Value>, AuthError> {
    let now = db::now_ms();
    let user = UserRow {
        app_metadata: json!({"provider": "anonymous", "providers": ["anonymous"]}).to_string(),
        user_metadata: metadata::initial(data)?,
        is_anonymous: true,
        ..UserRow::new(now)
    };
    users::insert(&state.db, &user).await?;
    tracing::info!(user_id = %user.id, "anonymous sign-in");
    let origin = Origin {
        ip: Some(ip.to_string()),
        user_agent: user_agent(headers),
    };
    Ok(Json(
        session::start(state, &user, "anonymous", &origin).await?,
    ))
}

/// Mails the confirmation link after the answer (so that its timing says nothing).
fn spawn_confirmation(
    state: &AppState,
    user: UserRow,
    redirect_to: String,
    lang: Locale,
    pkce: Option<Pkce>,
) {
    let state = state.clone();
    tokio::spawn(async move {
        let sent = links::send(
            &state,
            links::Send {
                kind: links::LinkKind::Confirmation,
                user: &user,
                to: &user.email,
                redirect_to: &redirect_to,
                lang,
                pkce,
            },
        )
        .await;
        if let Err(err) = sent {
            tracing::error!(error = %err, "sign-up confirmation mail failed");
        }
    });
}

/// What sign-up answers for an address that already has an account, when confirmation is on:
/// a user of the same shape as a new one (GoTrue's obfuscated user), so the answer does not
/// reveal the account.
fn unconfirmed_user_json(email: &str, now: i64) -> Value {
    let id = uuid::Uuid::new_v4().to_string();
    let at = session::rfc3339(now);
    json!({
        "id": id,
        "aud": session::AUDIENCE,
        "role": session::AUDIENCE,
        "email": email,
        "phone": "",
        "confirmation_sent_at": at,
        "app_metadata": {"provider": "email", "providers": ["email"]},
        "user_metadata": {},
        "identities": [],
        "created_at": at,
        "updated_at": at,
        "is_anonymous": false,
    })
}
