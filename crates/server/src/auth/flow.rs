//! Flow states and the PKCE grant (`POST /token?grant_type=pkce`), shared by every sign-in
//! that leaves the app and comes back: third-party providers (OAuth), and links sent by mail
//! (password recovery, email change).
//!
//! A flow goes through three steps:
//! 1. [`create`]: the client's PKCE challenge (or none, for the implicit flow), where to
//!    return and how the user will have authenticated. Its id is the OAuth `state`.
//! 2. [`complete`]: once the user is known, a one-time auth code is issued (only its hash is
//!    stored); the caller redirects to `redirect_to?code=<auth code>`.
//! 3. [`pkce_grant`]: the client exchanges the code with its verifier for a session whose AMR
//!    method is the flow's `authentication_method`. The flow state is deleted then, and only
//!    then: a wrong verifier leaves it in place, as GoTrue does.
//!
//! An auth code is valid [`FLOW_STATE_EXPIRY`] after it was issued; a flow not completed is
//! checked by its caller (OAuth callbacks refuse flows older than that). Flow states older than
//! [`FLOW_STATE_RETENTION`] are deleted on the next insert and by the periodic sweep.

use std::time::Duration;

use axum::http::StatusCode;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::error::AuthError;
use super::session::{self, Origin};
use crate::db::flow_states::{self, Completion, FlowStateRow, NewFlowState};
use crate::db::{self, users};
use crate::state::AppState;

/// How long an auth code (and an OAuth flow waiting for its provider) is valid: GoTrue's
/// default and minimum `FlowStateExpiryDuration`.
pub const FLOW_STATE_EXPIRY: Duration = Duration::from_secs(300);

/// How long a flow state is kept at most, completed or not. Longer than any link sent by mail.
pub const FLOW_STATE_RETENTION: Duration = Duration::from_secs(24 * 3600);

/// Allowed length of a PKCE code challenge (RFC 7636 verifier lengths, as GoTrue).
const CHALLENGE_LENGTH: std::ops::RangeInclusive<usize> = 43..=128;

/// How the code verifier is turned into the challenge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeMethod {
    /// `base64url_nopad(sha256(verifier))`.
    S256,
    /// The verifier itself (clients without WebCrypto).
    Plain,
}

impl ChallengeMethod {
    /// The stored and wire name (lowercase, as auth-js sends it).
    pub fn as_str(self) -> &'static str {
        match self {
            ChallengeMethod::S256 => "s256",
            ChallengeMethod::Plain => "plain",
        }
    }

    /// Parses a method name, case-insensitively.
    pub fn parse(name: &str) -> Option<Self> {
        if name.eq_ignore_ascii_case("s256") {
            Some(ChallengeMethod::S256)
        } else if name.eq_ignore_ascii_case("plain") {
            Some(ChallengeMethod::Plain)
        } else {
            None
        }
    }
}

/// A client's PKCE challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pkce {
    pub challenge: String,
    pub method: ChallengeMethod,
}

impl Pkce {
    /// Validates the `code_challenge` and `code_challenge_method` of a request as GoTrue's
    /// `validatePKCEParams`: both or neither (`Ok(None)`: implicit flow); the challenge is
    /// 43–128 characters of `[A-Za-z0-9._~-]`; the method is `s256` or `plain`. Errors are
    /// 400 `validation_failed`.
    pub fn from_params(
        challenge: Option<&str>,
        method: Option<&str>,
    ) -> Result<Option<Self>, AuthError> {
        let challenge = challenge.unwrap_or("");
        let method = method.unwrap_or("");
        match (challenge.is_empty(), method.is_empty()) {
            (true, true) => return Ok(None),
            (false, false) => {}
            _ => {
                return Err(AuthError::validation(
                    "PKCE flow requires code_challenge_method and code_challenge",
                ));
            }
        }
        let well_formed = CHALLENGE_LENGTH.contains(&challenge.len())
            && challenge
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'~' | b'-'));
        if !well_formed {
            return Err(AuthError::validation(format!(
                "code challenge has to be between {} and {} characters",
                CHALLENGE_LENGTH.start(),
                CHALLENGE_LENGTH.end()
            )));
        }
        let method = ChallengeMethod::parse(method)
            .ok_or_else(|| AuthError::validation("Invalid code_challenge_method"))?;
        Ok(Some(Pkce {
            challenge: challenge.to_owned(),
            method,
        }))
    }

    /// Whether `verifier` answers this challenge (constant-time comparison).
    pub fn verify(&self, verifier: &str) -> bool {
        let expected = match self.method {
            ChallengeMethod::S256 => s256(verifier),
            ChallengeMethod::Plain => verifier.to_owned(),
        };
        constant_time_eq(expected.as_bytes(), self.challenge.as_bytes())
    }
}

/// `base64url_nopad(sha256(verifier))`, the S256 challenge of a verifier.
pub fn s256(verifier: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Compares two secrets of public length (challenges, code hashes, tokens) without an early
/// exit on the first difference.
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    // The length is no secret; the content is compared without early exit.
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// SHA-256 (hex) of an auth code: what the database keeps.
fn hash_code(code: &str) -> String {
    hex::encode(Sha256::digest(code.as_bytes()))
}

/// What starts a flow.
#[derive(Debug, Clone)]
pub struct NewFlow<'a> {
    /// The provider's name, or `email` for flows started by a mailed link.
    pub provider: &'a str,
    /// AMR method of the session it ends in: `oauth`, `recovery`, `email_change`...
    pub authentication_method: &'a str,
    /// `None`: implicit flow (no auth code; the caller hands out tokens itself).
    pub pkce: Option<Pkce>,
    /// Where to send the browser back; check it first (`auth::redirect`).
    pub redirect_to: &'a str,
    /// OpenID Connect nonce (OAuth flows).
    pub nonce: Option<&'a str>,
}

/// A flow state as loaded from the database.
#[derive(Debug, Clone)]
pub struct FlowState {
    pub id: String,
    pub provider: String,
    pub authentication_method: String,
    pub pkce: Option<Pkce>,
    pub redirect_to: String,
    pub nonce: Option<String>,
    /// Set once the flow is completed.
    pub user_id: Option<String>,
    pub created_at: i64,
    pub auth_code_issued_at: Option<i64>,
}

impl FlowState {
    fn from_row(row: FlowStateRow) -> Self {
        let pkce = match (row.code_challenge, row.code_challenge_method) {
            (Some(challenge), Some(method)) => {
                ChallengeMethod::parse(&method).map(|method| Pkce { challenge, method })
            }
            _ => None,
        };
        FlowState {
            id: row.id,
            provider: row.provider,
            authentication_method: row.authentication_method,
            pkce,
            redirect_to: row.redirect_to,
            nonce: row.nonce,
            user_id: row.user_id,
            created_at: row.created_at,
            auth_code_issued_at: row.auth_code_issued_at,
        }
    }

    /// Whether the flow uses PKCE (an auth code) rather than the implicit flow.
    pub fn is_pkce(&self) -> bool {
        self.pkce.is_some()
    }

    /// Whether the flow was created more than [`FLOW_STATE_EXPIRY`] before `now` (epoch ms):
    /// an OAuth callback refuses it then.
    pub fn created_too_long_ago(&self, now: i64) -> bool {
        now > self.created_at.saturating_add(expiry_ms())
    }
}

fn expiry_ms() -> i64 {
    i64::try_from(FLOW_STATE_EXPIRY.as_millis()).unwrap_or(i64::MAX)
}

/// Stores a new flow state (deleting stale ones first) and returns it.
pub async fn create(state: &AppState, new: NewFlow<'_>) -> Result<FlowState, AuthError> {
    let now = db::now_ms();
    let id = uuid::Uuid::new_v4().to_string();
    let retention = i64::try_from(FLOW_STATE_RETENTION.as_millis()).unwrap_or(i64::MAX);
    flow_states::insert(
        &state.db,
        &NewFlowState {
            id: &id,
            provider: new.provider,
            authentication_method: new.authentication_method,
            code_challenge: new.pkce.as_ref().map(|p| p.challenge.as_str()),
            code_challenge_method: new.pkce.as_ref().map(|p| p.method.as_str()),
            redirect_to: new.redirect_to,
            nonce: new.nonce,
            now,
        },
        now.saturating_sub(retention),
    )
    .await?;
    Ok(FlowState {
        id,
        provider: new.provider.to_owned(),
        authentication_method: new.authentication_method.to_owned(),
        pkce: new.pkce,
        redirect_to: new.redirect_to.to_owned(),
        nonce: new.nonce.map(str::to_owned),
        user_id: None,
        created_at: now,
        auth_code_issued_at: None,
    })
}

/// The flow state with this id (`None` when unknown or not a uuid).
pub async fn find(state: &AppState, flow_id: &str) -> Result<Option<FlowState>, AuthError> {
    if uuid::Uuid::parse_str(flow_id).is_err() {
        return Ok(None);
    }
    Ok(flow_states::find(&state.db, flow_id)
        .await?
        .map(FlowState::from_row))
}

/// The provider's tokens, handed to the client with the session (`provider_token`,
/// `provider_refresh_token`).
#[derive(Debug, Clone, Default)]
pub struct ProviderTokens {
    pub access_token: Option<String>,
    pub refresh_token: Option<String>,
}

/// 400 `flow_state_already_used`.
pub fn already_used() -> AuthError {
    AuthError::new(
        StatusCode::BAD_REQUEST,
        "flow_state_already_used",
        "State has already been used",
    )
}

/// Completes a PKCE flow for `user_id` and returns the one-time auth code to put in the
/// redirect (`?code=`). Fails with 400 `flow_state_already_used` when the flow was completed
/// before (or is gone).
pub async fn complete(
    state: &AppState,
    flow_id: &str,
    user_id: &str,
    provider_tokens: &ProviderTokens,
) -> Result<String, AuthError> {
    let code = uuid::Uuid::new_v4().to_string();
    let completed = flow_states::complete(
        &state.db,
        flow_id,
        &Completion {
            user_id,
            auth_code_hash: &hash_code(&code),
            provider_access_token: provider_tokens.access_token.as_deref(),
            provider_refresh_token: provider_tokens.refresh_token.as_deref(),
            now: db::now_ms(),
        },
    )
    .await?;
    if !completed {
        return Err(already_used());
    }
    Ok(code)
}

/// Deletes a flow state (the implicit flow, before its tokens are handed out). Returns whether
/// it still existed: of two concurrent uses, only the one that deleted it may go on.
pub async fn discard(state: &AppState, flow_id: &str) -> Result<bool, AuthError> {
    Ok(flow_states::delete(&state.db, flow_id).await?)
}

/// `redirect_to` with `code=<auth code>` set in its query (GoTrue's `prepPKCERedirectURL`).
pub fn redirect_with_code(redirect_to: &str, code: &str) -> String {
    match url::Url::parse(redirect_to) {
        Ok(mut url) => {
            let kept: Vec<(String, String)> = url
                .query_pairs()
                .filter(|(key, _)| key != "code")
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
            url.query_pairs_mut()
                .clear()
                .extend_pairs(kept)
                .append_pair("code", code);
            url.to_string()
        }
        // Redirect targets are checked before a flow starts, so this is not expected.
        Err(_) => redirect_to.to_owned(),
    }
}

/// `POST /token?grant_type=pkce` with `{auth_code, code_verifier}`: GoTrue's errors, then a
/// new session whose AMR method is the flow's, plus the provider's tokens when there are some.
pub async fn pkce_grant(
    state: &AppState,
    auth_code: &str,
    code_verifier: &str,
    origin: &Origin,
) -> Result<Value, AuthError> {
    if auth_code.is_empty() || code_verifier.is_empty() {
        return Err(AuthError::validation(
            "invalid request: both auth code and code verifier should be non-empty",
        ));
    }
    let not_found = || {
        AuthError::new(
            StatusCode::NOT_FOUND,
            "flow_state_not_found",
            "invalid flow state, no valid flow state found",
        )
    };
    let row = flow_states::find_by_auth_code(&state.db, &hash_code(auth_code))
        .await?
        .ok_or_else(not_found)?;
    let (Some(user_id), Some(issued_at)) = (row.user_id.clone(), row.auth_code_issued_at) else {
        return Err(not_found());
    };
    if db::now_ms() > issued_at.saturating_add(expiry_ms()) {
        return Err(AuthError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "flow_state_expired",
            "invalid flow state, flow state has expired",
        ));
    }
    let provider_tokens = (
        row.provider_access_token.clone(),
        row.provider_refresh_token.clone(),
    );
    let flow = FlowState::from_row(row);
    let user = users::find_by_id(&state.db, &user_id)
        .await?
        .ok_or_else(not_found)?;
    let verified = flow
        .pkce
        .as_ref()
        .is_some_and(|pkce| pkce.verify(code_verifier));
    if !verified {
        return Err(AuthError::new(
            StatusCode::BAD_REQUEST,
            "bad_code_verifier",
            "code challenge does not match previously saved code verifier",
        ));
    }
    // Deleting first makes the code single-use even when two exchanges race: only the one that
    // deleted the row goes on.
    if !flow_states::delete(&state.db, &flow.id).await? {
        return Err(not_found());
    }
    let mut body = session::start(state, &user, &flow.authentication_method, origin).await?;
    if let Some(token) = provider_tokens.0.filter(|t| !t.is_empty()) {
        body["provider_token"] = Value::String(token);
    }
    if let Some(token) = provider_tokens.1.filter(|t| !t.is_empty()) {
        body["provider_refresh_token"] = Value::String(token);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s256_matches_rfc_7636_appendix_b() {
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn pkce_params_follow_gotrue_rules() {
        let challenge = s256("a verifier");
        assert_eq!(Pkce::from_params(None, None).unwrap(), None);
        assert_eq!(Pkce::from_params(Some(""), Some("")).unwrap(), None);
        let pkce = Pkce::from_params(Some(&challenge), Some("S256"))
            .unwrap()
            .unwrap();
        assert_eq!(pkce.method, ChallengeMethod::S256);
        assert!(pkce.verify("a verifier"));
        assert!(!pkce.verify("another verifier"));
        for (c, m) in [
            (Some(challenge.as_str()), None),
            (None, Some("s256")),
            (Some("short"), Some("s256")),
            (Some(&*"x".repeat(129)), Some("plain")),
            (Some(&*format!("{}+", "a".repeat(50))), Some("plain")),
            (Some(challenge.as_str()), Some("sha512")),
        ] {
            let err = Pkce::from_params(c, m).unwrap_err();
            assert_eq!((err.status.as_u16(), err.code), (400, "validation_failed"));
        }
        let plain = Pkce::from_params(Some(&"v".repeat(43)), Some("plain"))
            .unwrap()
            .unwrap();
        assert!(plain.verify(&"v".repeat(43)));
        assert!(!plain.verify(&"v".repeat(44)));
    }

    #[test]
    fn the_code_is_added_to_the_redirect_query() {
        assert_eq!(
            redirect_with_code("http://app.test/cb?next=%2Fhome&code=old#frag", "abc"),
            "http://app.test/cb?next=%2Fhome&code=abc#frag"
        );
        assert_eq!(
            redirect_with_code("http://app.test", "abc"),
            "http://app.test/?code=abc"
        );
    }
}
