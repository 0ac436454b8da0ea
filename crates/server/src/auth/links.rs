//! Links and codes sent by mail — password recovery, sign-up confirmation, email change — and
//! their verification: `POST /recover`, `POST /verify` (auth-js `verifyOtp`) and `GET /verify`
//! (the link in the mail), as GoTrue (`reference/gotrue-protocol.md` §1.14).
//!
//! Each mail carries a link with a long random token and a 6-digit code; only hashes are
//! stored. Either works once, within `REGARD_MAIL_LINK_TTL`; a few wrong codes kill the token.
//! `/recover` answers the same, at once, whether or not the address has an account: the lookup
//! and the sending happen after the answer, in a task.

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use super::email::Email;
use super::error::AuthError;

use super::extract::{ClientIp, GoTrueJson, request_lang, user_agent};
use super::flow::{self, NewFlow, Pkce, ProviderTokens};
use super::phone;
use super::redirect::{self, CallbackError};
use super::session::{self, Origin};

use super::tokens::{otp_expired, otp_hash, random_token, six_digit_code, token_hash};
use crate::db::one_time_tokens::{self, OneTimeTokenRow};
use crate::db::users::UserRow;
use crate::db::{self, DbError, users};
use crate::i18n::Locale;
use crate::notify::templates::{self, MailKind};
use crate::state::AppState;

/// Codes compared with a mailed token before it dies (counted before each comparison).
const MAX_CODE_FAILURES: i64 = 5;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/recover", post(recover))
        .route("/verify", post(verify_post).get(verify_get))
}

/// The kinds of mailed tokens, as stored and as GoTrue's `type` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    Recovery,
    Confirmation,
    EmailChange,
    /// Passwordless sign-in (`POST /otp`, `generate_link` type `magiclink`).
    MagicLink,
    Invite,
    /// A code (no link) that `PUT /user` takes as `nonce` to change the password.
    Reauthentication,
}

impl LinkKind {
    pub fn stored(self) -> &'static str {
        match self {
            LinkKind::Recovery => "recovery",
            LinkKind::Confirmation => "confirmation",
            LinkKind::EmailChange => "email_change",
            LinkKind::MagicLink => "magiclink",
            LinkKind::Invite => "invite",
            LinkKind::Reauthentication => "reauthentication",
        }
    }

    /// The kinds a `type` of GoTrue's verify endpoints accepts: `email` is the one-time code
    /// of a magic link, a sign-up confirmation or an invitation, whichever the user was sent.
    fn from_type(kind: &str) -> Option<&'static [Self]> {
        match kind {
            "recovery" => Some(&[LinkKind::Recovery]),
            "signup" => Some(&[LinkKind::Confirmation]),
            "email" => Some(&[
                LinkKind::MagicLink,
                LinkKind::Confirmation,
                LinkKind::Invite,
            ]),
            "magiclink" => Some(&[LinkKind::MagicLink]),
            "invite" => Some(&[LinkKind::Invite]),
            "email_change" => Some(&[LinkKind::EmailChange]),
            _ => None,
        }
    }

    fn from_stored(kind: &str) -> Option<Self> {
        [
            LinkKind::Recovery,
            LinkKind::Confirmation,
            LinkKind::EmailChange,
            LinkKind::MagicLink,
            LinkKind::Invite,
            LinkKind::Reauthentication,
        ]
        .into_iter()
        .find(|k| k.stored() == kind)
    }

    pub fn link_type(self) -> &'static str {
        match self {
            LinkKind::Recovery => "recovery",
            LinkKind::Confirmation => "signup",
            LinkKind::EmailChange => "email_change",
            LinkKind::MagicLink => "magiclink",
            LinkKind::Invite => "invite",
            LinkKind::Reauthentication => "reauthentication",
        }
    }

    fn mail(self) -> MailKind {
        match self {
            LinkKind::Recovery => MailKind::Recovery,
            LinkKind::Confirmation => MailKind::Confirmation,
            LinkKind::EmailChange => MailKind::EmailChange,
            LinkKind::MagicLink => MailKind::MagicLink,
            LinkKind::Invite => MailKind::Invite,
            LinkKind::Reauthentication => MailKind::Reauthentication,
        }
    }

    /// The AMR method of the session the link opens.
    fn amr(self) -> &'static str {
        match self {
            LinkKind::Recovery => "recovery",
            LinkKind::Confirmation => "email/signup",
            LinkKind::EmailChange => "email_change",
            LinkKind::MagicLink => "magiclink",
            LinkKind::Invite => "invite",
            LinkKind::Reauthentication => "otp",
        }
    }
}

/// Characters escaped in a query value of our links: everything but RFC 3986's unreserved
/// characters and the sub-delimiters a query may hold literally (so `redirect_to=https://…`
/// reads as GoTrue writes it), keeping `&`, `=`, `+` and `#` escaped.
const QUERY_VALUE: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b':')
    .remove(b'/')
    .remove(b'?')
    .remove(b'@')
    .remove(b'!')
    .remove(b'$')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b',')
    .remove(b';');

/// The verification link of a token: `<site>/auth/v1/verify?token=…&type=…&redirect_to=…`.
pub fn action_link(state: &AppState, token: &str, link_type: &str, redirect_to: &str) -> String {
    let encode =
        |value: &str| percent_encoding::utf8_percent_encode(value, QUERY_VALUE).to_string();
    format!(
        "{}/auth/v1/verify?token={}&type={}&redirect_to={}",
        state.config.site_url.trim_end_matches('/'),
        encode(token),
        encode(link_type),
        encode(redirect_to),
    )
}

/// What a mail about to be sent needs.
pub struct Send<'a> {
    pub kind: LinkKind,
    pub user: &'a UserRow,
    /// Where the mail goes (the new address for an email change).
    pub to: &'a str,
    pub redirect_to: &'a str,
    pub lang: Locale,
    /// The client's PKCE challenge: the link then ends in `redirect_to?code=` (a flow state)
    /// rather than in tokens in the fragment.
    pub pkce: Option<Pkce>,
}

/// A token just stored: the secret of its link, the code printed beside it, and the link.
pub struct Issued {
    pub token: String,
    pub code: String,
    pub link: String,
}

/// Stores a fresh token of `kind` for the user (the previous one of that kind stops working)
/// and returns it, without mailing it (`generate_link` hands it to an administrator). An email
/// change records the pending address on the user.
pub async fn issue(
    state: &AppState,
    kind: LinkKind,
    user: &UserRow,
    to: &str,
    redirect_to: &str,
    pkce: Option<Pkce>,
) -> Result<Issued, AuthError> {
    let now = db::now_ms();
    let flow_state_id = match pkce {
        Some(pkce) => Some(
            flow::create(
                state,
                NewFlow {
                    provider: "email",
                    authentication_method: kind.amr(),
                    pkce: Some(pkce),
                    redirect_to,
                    nonce: None,
                },
            )
            .await?
            .id,
        ),
        None => None,
    };
    let token = format!("{}{}", random_token(), random_token());
    let code = six_digit_code();
    one_time_tokens::replace(
        &state.db,
        &OneTimeTokenRow {
            id: uuid::Uuid::new_v4().to_string(),
            user_id: user.id.clone(),
            kind: kind.stored().to_owned(),
            token_hash: token_hash(&token),
            otp_hash: otp_hash(&user.id, &code),
            failed_count: 0,
            relates_to: to.to_owned(),
            flow_state_id,
            created_at: now,
        },
    )
    .await?;
    if kind == LinkKind::EmailChange {
        users::set_email_change(&state.db, &user.id, Some(to), now).await?;
    }
    let link = if kind == LinkKind::Reauthentication {
        String::new()
    } else {
        action_link(state, &token, kind.link_type(), redirect_to)
    };
    Ok(Issued { token, code, link })
}

/// Stores a fresh token of `kind` for the user (the previous one stops working) and mails the
/// link, unless one of this kind went out less than `REGARD_MAIL_MAX_FREQUENCY` ago. Returns
/// whether a mail was sent.
pub async fn send(state: &AppState, send: Send<'_>) -> Result<bool, AuthError> {
    let now = db::now_ms();
    let frequency_ms = i64::try_from(state.config.mail_max_frequency)
        .unwrap_or(i64::MAX / 1000)
        .saturating_mul(1000);
    if let Some(last) =
        one_time_tokens::latest(&state.db, &send.user.id, send.kind.stored()).await?
        && now < last.created_at.saturating_add(frequency_ms)
        && last.relates_to == send.to
    {
        return Ok(false);
    }
    let issued = issue(
        state,
        send.kind,
        send.user,
        send.to,
        send.redirect_to,
        send.pkce,
    )
    .await?;
    let mail = templates::mail(
        send.kind.mail(),
        send.lang,
        send.to,
        &issued.link,
        &issued.code,
    );
    state.mailer.send(&mail).await.map_err(|err| {
        AuthError::internal(format!(
            "sending a {} mail failed: {err}",
            send.kind.stored()
        ))
    })?;
    Ok(true)
}

/// Texts a reauthentication code to a user without an address (their phone number). Returns
/// an id for the message.
pub async fn send_reauthentication_sms(
    state: &AppState,
    user: &UserRow,
    lang: Locale,
) -> Result<String, AuthError> {
    let issued = issue(
        state,
        LinkKind::Reauthentication,
        user,
        &user.phone,
        "",
        None,
    )
    .await?;
    phone::text_code(state, &user.phone, lang, &issued.code).await?;
    Ok(uuid::Uuid::new_v4().to_string())
}

#[derive(Debug, Deserialize)]
struct RecoverParams {
    email: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
}

async fn recover(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    Query(query): Query<redirect::RedirectQuery>,
    GoTrueJson(params): GoTrueJson<RecoverParams>,
) -> Result<Json<Value>, AuthError> {
    let email = params.email.unwrap_or_default();
    if email.trim().is_empty() {
        return Err(AuthError::validation("Password recovery requires an email"));
    }
    let email = Email::parse(email.trim())?;
    let pkce = Pkce::from_params(
        params.code_challenge.as_deref(),
        params.code_challenge_method.as_deref(),
    )?;
    // Per client IP, whatever the address: the same for known and unknown ones.
    state.limits.email(ip).await.map_err(|wait| {
        AuthError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "over_email_send_rate_limit",
            "Email rate limit exceeded",
        )
        .retry_after(wait)
    })?;
    let redirect_to = redirect::checked_redirect(&state, query.redirect_to.as_deref());
    let lang = request_lang(&headers);
    // The answer does not wait for the lookup or the mail, so its timing says nothing about
    // whether the address has an account.
    tokio::spawn(async move {
        let result = async {
            let Some(user) = users::find_by_email(&state.db, email.as_str()).await? else {
                return Ok(false);
            };
            send(
                &state,
                Send {
                    kind: LinkKind::Recovery,
                    user: &user,
                    to: &user.email,
                    redirect_to: &redirect_to,
                    lang,
                    pkce,
                },
            )
            .await
        }
        .await;
        if let Err(err) = result {
            tracing::error!(error = %err, "password recovery mail failed");
        }
    });
    Ok(Json(json!({})))
}

/// Applies a verified token (confirms the address or changes it) and returns the user.
async fn apply(
    state: &AppState,
    token: &OneTimeTokenRow,
    kind: LinkKind,
) -> Result<UserRow, AuthError> {
    let ttl_ms = i64::try_from(state.config.mail_link_ttl)
        .unwrap_or(i64::MAX / 1000)
        .saturating_mul(1000);
    let now = db::now_ms();
    if now >= token.created_at.saturating_add(ttl_ms) {
        return Err(otp_expired());
    }
    let user = users::find_by_id(&state.db, &token.user_id)
        .await?
        .ok_or_else(otp_expired)?;
    match kind {
        // Following a link proves the mailbox, so recovery confirms the address too.
        LinkKind::Recovery | LinkKind::Confirmation | LinkKind::MagicLink | LinkKind::Invite => {
            if token.relates_to != user.email {
                return Err(otp_expired());
            }
            users::confirm_email(&state.db, &user.id, now).await?;
        }
        LinkKind::EmailChange => {
            match users::update_email(&state.db, &user.id, &token.relates_to, now).await {
                Ok(()) => {}
                Err(DbError::Conflict) => return Err(AuthError::email_exists()),
                Err(err) => return Err(err.into()),
            }
            tracing::info!(user_id = %user.id, "email address changed");
        }
        // Reauthentication codes are taken by `PUT /user`, never verified here.
        LinkKind::Reauthentication => return Err(otp_expired()),
    }
    users::find_by_id(&state.db, &user.id)
        .await?
        .ok_or_else(otp_expired)
}

#[derive(Debug, Deserialize)]
struct VerifyParams {
    #[serde(rename = "type")]
    kind: Option<String>,
    token: Option<String>,
    token_hash: Option<String>,
    email: Option<String>,
    phone: Option<String>,
}

fn missing_type(kind: &str) -> AuthError {
    AuthError::validation(format!("Verify requires a verification type: {kind}"))
}

async fn verify_post(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    GoTrueJson(params): GoTrueJson<VerifyParams>,
) -> Result<Json<Value>, AuthError> {
    state
        .limits
        .sign_in(ip)
        .await
        .map_err(AuthError::rate_limited)?;
    let origin = Origin {
        ip: Some(ip.to_string()),
        user_agent: user_agent(&headers),
    };
    let kind_name = params.kind.unwrap_or_default();
    // Codes sent by SMS: the number is checked first, then the code (an unknown number and a
    // wrong code answer the same).
    if let Some(purpose) = phone::Purpose::from_type(&kind_name) {
        let number = phone::parse(params.phone.as_deref().unwrap_or_default())?;
        let code = params.token.unwrap_or_default();
        let user = phone::verify(&state, purpose, &number, &code).await?;
        return session::start(&state, &user, "otp", &origin)
            .await
            .map(Json);
    }
    let kinds = LinkKind::from_type(&kind_name).ok_or_else(|| missing_type(&kind_name))?;
    let stored: Vec<&str> = kinds.iter().map(|k| k.stored()).collect();
    let token = if let Some(hash) = params.token_hash.filter(|h| !h.trim().is_empty()) {
        one_time_tokens::take(&state.db, &token_hash(&hash), &stored).await?
    } else {
        let code = params.token.unwrap_or_default();
        let email = params.email.unwrap_or_default();
        if code.trim().is_empty() || email.trim().is_empty() {
            return Err(AuthError::validation(
                "Verify requires either a token_hash, or an email and a token",
            ));
        }
        let email = Email::parse(email.trim())?;
        // An email change's code went to the new address: the user is found by either.
        let user_id = match users::find_by_email(&state.db, email.as_str()).await? {
            Some(user) => Some(user.id),
            None if kinds.contains(&LinkKind::EmailChange) => {
                one_time_tokens::user_for_address(
                    &state.db,
                    LinkKind::EmailChange.stored(),
                    email.as_str(),
                )
                .await?
            }
            None => None,
        };
        match user_id {
            Some(user_id) => {
                one_time_tokens::take_by_code(
                    &state.db,
                    &user_id,
                    &stored,
                    &otp_hash(&user_id, &code),
                    MAX_CODE_FAILURES,
                )
                .await?
            }
            None => None,
        }
    };
    let (token, kind) = token
        .and_then(|t| {
            let kind = LinkKind::from_stored(&t.kind).filter(|k| kinds.contains(k))?;
            Some((t, kind))
        })
        .ok_or_else(otp_expired)?;
    let user = apply(&state, &token, kind).await?;
    session::start(&state, &user, kind.amr(), &origin)
        .await
        .map(Json)
}

/// Takes the user's reauthentication code (`PUT /user`'s `nonce`): true when it is theirs and
/// fresh; a wrong one counts against the code.
pub async fn take_reauthentication(
    state: &AppState,
    user: &UserRow,
    nonce: &str,
) -> Result<bool, AuthError> {
    let Some(token) = one_time_tokens::take_by_code(
        &state.db,
        &user.id,
        &[LinkKind::Reauthentication.stored()],
        &otp_hash(&user.id, nonce),
        MAX_CODE_FAILURES,
    )
    .await?
    else {
        return Ok(false);
    };
    let ttl_ms = i64::try_from(state.config.mail_link_ttl)
        .unwrap_or(i64::MAX / 1000)
        .saturating_mul(1000);
    Ok(db::now_ms() < token.created_at.saturating_add(ttl_ms))
}

#[derive(Debug, Deserialize)]
struct VerifyQuery {
    token: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    redirect_to: Option<String>,
}

/// The link in a mail: verifies, then sends the browser to `redirect_to` with the session in
/// the fragment (implicit flow) or an error in the query and the fragment, as GoTrue.
async fn verify_get(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    Query(query): Query<VerifyQuery>,
) -> Response {
    let redirect_to = redirect::checked_redirect(&state, query.redirect_to.as_deref());
    let result = async {
        state
            .limits
            .sign_in(ip)
            .await
            .map_err(AuthError::rate_limited)?;
        let kinds = query
            .kind
            .as_deref()
            .and_then(LinkKind::from_type)
            .ok_or_else(|| AuthError::validation("Verify requires a verification type"))?;
        let token = query.token.unwrap_or_default();
        if token.trim().is_empty() {
            return Err(AuthError::validation("Verify requires a token"));
        }
        let stored: Vec<&str> = kinds.iter().map(|k| k.stored()).collect();
        // Only a token of a kind this `type` names is taken: a wrong `type` leaves the link
        // working.
        let (row, kind) = one_time_tokens::take(&state.db, &token_hash(&token), &stored)
            .await?
            .and_then(|t| {
                let kind = LinkKind::from_stored(&t.kind).filter(|k| kinds.contains(k))?;
                Some((t, kind))
            })
            .ok_or_else(otp_expired)?;
        let user = apply(&state, &row, kind).await?;
        // PKCE: the flow's code, exchanged by the client that asked for the mail.
        if let Some(flow_id) = &row.flow_state_id {
            let flow = flow::find(&state, flow_id).await?.ok_or_else(otp_expired)?;
            let code =
                flow::complete(&state, flow_id, &user.id, &ProviderTokens::default()).await?;
            return Ok(
                Redirect::to(&flow::redirect_with_code(&flow.redirect_to, &code)).into_response(),
            );
        }
        let origin = Origin {
            ip: Some(ip.to_string()),
            user_agent: user_agent(&headers),
        };
        let session = session::start(&state, &user, kind.amr(), &origin).await?;
        Ok(Redirect::to(&redirect::fragment_redirect(
            &redirect_to,
            &session,
            &ProviderTokens::default(),
            &[("type", kind.link_type())],
        ))
        .into_response())
    }
    .await;
    result.unwrap_or_else(|err| {
        let target = redirect::error_redirect(&redirect_to, &CallbackError::Auth(err), false);
        Redirect::to(&target).into_response()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_types_round_trip() {
        for kind in [
            LinkKind::Recovery,
            LinkKind::Confirmation,
            LinkKind::EmailChange,
            LinkKind::MagicLink,
            LinkKind::Invite,
        ] {
            assert_eq!(LinkKind::from_type(kind.link_type()), Some(&[kind][..]));
            assert_eq!(LinkKind::from_stored(kind.stored()), Some(kind));
        }
        assert!(
            LinkKind::from_type("email")
                .unwrap()
                .contains(&LinkKind::MagicLink)
        );
        assert!(
            LinkKind::from_type("email")
                .unwrap()
                .contains(&LinkKind::Confirmation)
        );
        assert_eq!(LinkKind::from_type("reauthentication"), None);
        assert_eq!(LinkKind::from_type("sms"), None);
    }
}
