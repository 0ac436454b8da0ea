//! Multi-factor authentication, as GoTrue's `/factors` API (`reference/gotrue-protocol.md`
//! §1.10–§1.13): enrol a TOTP or phone factor, challenge it, verify a code (which raises the
//! same session to aal2), remove it.
//!
//! Beyond GoTrue: a TOTP code is accepted once (its time step is recorded), each code
//! presented is counted against the factor atomically *before* it is checked, so at most
//! `REGARD_RATE_LIMIT_MFA_VERIFY` codes per rate-limit window are compared however many
//! requests arrive at once (the rest answer 429, and the challenge ends at the limit), and
//! TOTP secrets are sealed at rest ([`seal`]). A code refused because it was already used says
//! so (`mfa_code_already_used`), and a recovery code ([`recovery`]) is accepted in place of a
//! verified factor's code.

pub mod recovery;
pub mod seal;
pub mod totp;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{delete, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::error::AuthError;
use super::extract::{AuthUser, ClientIp, GoTrueJson};
use super::session;
use super::tokens::{random_token, six_digit_code};
use crate::db::factors::{self, ChallengeRow, FactorRow, Verification, VerifyOutcome};
use crate::db::recovery_codes::{self, Lookup};
use crate::db::{self, users};
use crate::i18n::Locale;
use crate::notify::templates;
use crate::state::AppState;

/// Unverified factors live this long (GoTrue's default).
pub const FACTOR_EXPIRY_MS: i64 = 300_000;

/// How long a challenge lives (`REGARD_MFA_CHALLENGE_EXPIRY`).
pub fn challenge_expiry_ms(config: &crate::config::Config) -> i64 {
    i64::try_from(config.mfa_challenge_expiry)
        .unwrap_or(i64::MAX / 1000)
        .saturating_mul(1000)
}

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/factors", post(enroll))
        .route("/factors/{factor_id}", delete(unenroll))
        .route("/factors/{factor_id}/challenge", post(challenge))
        .route("/factors/{factor_id}/verify", post(verify))
}

/// The factor as GoTrue shows it inside the user object.
pub fn factor_json(factor: &FactorRow) -> Value {
    let mut body = json!({
        "id": factor.id,
        "friendly_name": factor.friendly_name.clone().unwrap_or_default(),
        "factor_type": factor.factor_type,
        "status": factor.status,
        "created_at": session::rfc3339(factor.created_at),
        "updated_at": session::rfc3339(factor.updated_at),
    });
    if let Some(phone) = &factor.phone {
        body["phone"] = json!(phone);
    }
    if let Some(at) = factor.last_challenged_at {
        body["last_challenged_at"] = json!(session::rfc3339(at));
    }
    body
}

/// The AMR method a factor type adds to a session.
fn amr_method(factor_type: &str) -> &'static str {
    if factor_type == "phone" {
        "mfa/phone"
    } else {
        "totp"
    }
}

/// The AMR method of a session raised to aal2 by a recovery code.
const RECOVERY_CODE_METHOD: &str = "recovery_code";

/// What a code presented to `verify` turned out to be.
enum Checked {
    /// The factor's own code, with its TOTP time step.
    Accepted(Option<i64>),
    /// One of the user's unused recovery codes (its stored hash).
    Recovery(String),
    /// A wrong code, with GoTrue's message for it.
    Wrong(&'static str),
    /// A right code that was already used once.
    AlreadyUsed,
}

/// A recovery code only stands in for a verified factor: enrolling needs the authenticator.
async fn check_recovery_code(
    state: &AppState,
    factor: &FactorRow,
    canonical: &str,
) -> Result<Checked, AuthError> {
    const WRONG: &str = "Invalid recovery code entered";
    if !factor.is_verified() {
        return Ok(Checked::Wrong(WRONG));
    }
    let hash = recovery::hash(&state.sealer, &factor.user_id, canonical);
    Ok(
        match recovery_codes::lookup(&state.db, &factor.user_id, &hash).await? {
            Lookup::Unused => Checked::Recovery(hash),
            Lookup::Used => Checked::AlreadyUsed,
            Lookup::Unknown => Checked::Wrong(WRONG),
        },
    )
}

/// A right code given a second time (an authenticator's code within its 30 s, a recovery
/// code): refused, and said so, so the user waits for the next code instead of retyping.
fn code_already_used() -> AuthError {
    AuthError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "mfa_code_already_used",
        "This code has already been used",
    )
}

fn insufficient_aal(status: StatusCode, message: &str) -> AuthError {
    AuthError::new(status, "insufficient_aal", message.to_owned())
}

fn is_aal2(auth: &AuthUser) -> bool {
    auth.claims.aal == "aal2"
}

/// Whether `phone` is an E.164 number: `+`, a non-zero digit, 7 to 14 more digits.
fn is_e164(phone: &str) -> bool {
    let Some(digits) = phone.strip_prefix('+') else {
        return false;
    };
    (8..=15).contains(&digits.len())
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !digits.starts_with('0')
}

/// Removes spaces, dots, dashes and parentheses people type inside phone numbers.
fn normalise_phone(phone: &str) -> String {
    phone
        .chars()
        .filter(|c| !matches!(c, ' ' | '.' | '-' | '(' | ')'))
        .collect()
}

#[derive(Debug, Deserialize)]
struct EnrollParams {
    friendly_name: Option<String>,
    factor_type: Option<String>,
    issuer: Option<String>,
    phone: Option<String>,
}

async fn enroll(
    State(state): State<AppState>,
    auth: AuthUser,
    GoTrueJson(params): GoTrueJson<EnrollParams>,
) -> Result<Json<Value>, AuthError> {
    let factor_type = params.factor_type.as_deref().unwrap_or("");
    match factor_type {
        "totp" => {}
        "phone" if state.config.mfa_phone_enabled => {}
        "phone" => {
            return Err(AuthError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "mfa_phone_enroll_not_enabled",
                "MFA enroll is disabled for Phone",
            ));
        }
        "webauthn" => {
            return Err(AuthError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "mfa_webauthn_enroll_not_enabled",
                "MFA enroll is disabled for WebAuthn",
            ));
        }
        _ => {
            return Err(AuthError::validation(
                "factor_type needs to be totp, phone, or webauthn",
            ));
        }
    }
    let phone = if factor_type == "phone" {
        let phone = normalise_phone(params.phone.as_deref().unwrap_or(""));
        if phone.is_empty() {
            return Err(AuthError::validation(
                "Phone number required to enroll Phone factor",
            ));
        }
        if !is_e164(&phone) {
            return Err(AuthError::validation(
                "Invalid phone number format (E.164 required)",
            ));
        }
        Some(phone)
    } else {
        None
    };
    let friendly_name = params
        .friendly_name
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty());
    if friendly_name
        .as_ref()
        .is_some_and(|name| name.chars().count() > 100)
    {
        return Err(AuthError::validation(
            "friendly_name must be at most 100 characters",
        ));
    }

    let user = &auth.user;
    let now = db::now_ms();
    factors::delete_stale_unverified(
        &state.db,
        &user.id,
        now - FACTOR_EXPIRY_MS,
        phone.as_deref(),
    )
    .await?;
    let existing = factors::for_user(&state.db, &user.id).await?;
    if let Some(name) = &friendly_name
        && existing
            .iter()
            .any(|f| f.friendly_name.as_deref() == Some(name.as_str()))
    {
        return Err(AuthError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_factor_name_conflict",
            format!("A factor with the friendly name \"{name}\" for this user already exists"),
        ));
    }
    let max = usize::try_from(state.config.mfa_max_factors).unwrap_or(usize::MAX);
    if existing.len() >= max {
        return Err(AuthError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "too_many_enrolled_mfa_factors",
            "Maximum number of verified factors reached, unenroll to continue",
        ));
    }
    if existing.iter().any(FactorRow::is_verified) && !is_aal2(&auth) {
        return Err(insufficient_aal(
            StatusCode::FORBIDDEN,
            "AAL2 required to enroll a new factor",
        ));
    }
    if let Some(phone) = &phone
        && existing
            .iter()
            .any(|f| f.is_verified() && f.phone.as_deref() == Some(phone.as_str()))
    {
        return Err(AuthError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_verified_factor_exists",
            "A verified phone factor already exists, unenroll the existing factor to continue",
        ));
    }

    let id = uuid::Uuid::new_v4().to_string();
    let mut factor = FactorRow {
        id: id.clone(),
        user_id: user.id.clone(),
        friendly_name: friendly_name.clone(),
        factor_type: factor_type.to_owned(),
        status: factors::UNVERIFIED.to_owned(),
        secret: None,
        phone: phone.clone(),
        last_step: None,
        last_challenged_at: None,
        failed_count: 0,
        failed_window_start: None,
        created_at: now,
        updated_at: now,
    };
    let body = if factor_type == "totp" {
        let issuer = params
            .issuer
            .map(|issuer| issuer.trim().to_owned())
            .filter(|issuer| !issuer.is_empty())
            .unwrap_or_else(|| site_host(&state.config.site_url));
        let secret = totp::new_secret();
        let uri = totp::uri(&secret, &issuer, &user.email)
            .ok_or_else(|| AuthError::internal("building the otpauth URI failed"))?;
        let qr_code =
            totp::qr_svg(&uri).ok_or_else(|| AuthError::internal("drawing the QR code failed"))?;
        factor.secret = Some(state.sealer.seal(&secret));
        json!({
            "id": id,
            "type": "totp",
            "friendly_name": friendly_name.unwrap_or_default(),
            "totp": { "qr_code": qr_code, "secret": secret, "uri": uri },
        })
    } else {
        json!({
            "id": id,
            "type": "phone",
            "friendly_name": friendly_name.unwrap_or_default(),
            "phone": phone,
        })
    };
    factors::insert(&state.db, &factor)
        .await
        .map_err(|err| match err {
            db::DbError::Conflict => AuthError::new(
                StatusCode::CONFLICT,
                "conflict",
                "A factor was enrolled at the same time, please retry",
            ),
            other => other.into(),
        })?;
    Ok(Json(body))
}

/// The host of the site URL (the default TOTP issuer, as GoTrue).
fn site_host(site_url: &str) -> String {
    url::Url::parse(site_url)
        .ok()
        .and_then(|url| url.host_str().map(str::to_owned))
        .unwrap_or_else(|| "Regard".to_owned())
}

/// Loads a factor of the signed-in user, with GoTrue's answers for a bad or foreign id.
async fn load_factor(state: &AppState, auth: &AuthUser, id: &str) -> Result<FactorRow, AuthError> {
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(AuthError::new(
            StatusCode::NOT_FOUND,
            "validation_failed",
            "factor_id must be an UUID",
        ));
    }
    factors::find(&state.db, &auth.user.id, id)
        .await?
        .ok_or_else(|| {
            AuthError::new(
                StatusCode::NOT_FOUND,
                "mfa_factor_not_found",
                "Factor not found",
            )
        })
}

async fn unenroll(
    State(state): State<AppState>,
    auth: AuthUser,
    Path(factor_id): Path<String>,
) -> Result<Json<Value>, AuthError> {
    let factor = load_factor(&state, &auth, &factor_id).await?;
    if factor.is_verified() && !is_aal2(&auth) {
        return Err(insufficient_aal(
            StatusCode::UNPROCESSABLE_ENTITY,
            "AAL2 required to unenroll verified factor",
        ));
    }
    factors::delete(
        &state.db,
        &auth.user.id,
        &factor.id,
        amr_method(&factor.factor_type),
    )
    .await?;
    // Recovery codes stand in for a verified factor: with none left, they go too.
    let remaining = factors::for_user(&state.db, &auth.user.id).await?;
    if !remaining.iter().any(FactorRow::is_verified) {
        recovery_codes::delete_all(&state.db, &auth.user.id).await?;
    }
    Ok(Json(json!({ "id": factor.id })))
}

#[derive(Debug, Default, Deserialize)]
struct ChallengeParams {
    channel: Option<String>,
}

async fn challenge(
    State(state): State<AppState>,
    auth: AuthUser,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    Path(factor_id): Path<String>,
    body: axum::body::Bytes,
) -> Result<Json<Value>, AuthError> {
    // auth-js always sends a body (`{factorId, channel?}`); other clients may send none.
    let params: ChallengeParams = super::extract::json_or_default(&body)?;
    let factor = load_factor(&state, &auth, &factor_id).await?;
    let now = db::now_ms();
    let mut challenge = ChallengeRow {
        id: uuid::Uuid::new_v4().to_string(),
        factor_id: factor.id.clone(),
        ip: ip.to_string(),
        code_hash: None,
        verified_at: None,
        created_at: now,
    };
    let mut code = None;
    if factor.factor_type == "phone" {
        if !state.config.mfa_phone_enabled {
            return Err(AuthError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "mfa_phone_verify_not_enabled",
                "MFA verification is disabled for Phone",
            ));
        }
        let channel = params.channel.unwrap_or_else(|| "sms".to_owned());
        if channel != "sms" {
            return Err(AuthError::validation(
                "Invalid channel: only sms is supported",
            ));
        }
        let frequency_ms = i64::try_from(state.config.mail_max_frequency)
            .unwrap_or(i64::MAX / 1000)
            .saturating_mul(1000);
        if let Some(last) = factor.last_challenged_at
            && now < last.saturating_add(frequency_ms)
        {
            let wait = (last + frequency_ms - now + 999) / 1000;
            return Err(AuthError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "over_sms_send_rate_limit",
                format!("For security purposes, you can only request this after {wait} seconds."),
            )
            .retry_after(u64::try_from(wait).unwrap_or(1)));
        }
        // The per-factor frequency above is read, not counted: the SMS limits hold under
        // concurrent challenges.
        if let Some(phone) = factor.phone.as_deref() {
            super::phone::take_sms_allowance(&state, ip, phone).await?;
        }
        let otp = six_digit_code();
        challenge.code_hash = Some(hash_code(&otp));
        code = Some(otp);
    }
    factors::insert_challenge(&state.db, &challenge).await?;
    if let (Some(code), Some(phone)) = (code, factor.phone.as_deref()) {
        let lang = Locale::from_accept_language(
            headers
                .get(axum::http::header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok()),
        );
        if let Err(err) = state
            .sms
            .send(phone, &templates::sms_code(lang, &code))
            .await
        {
            tracing::error!(error = %err, factor_id = %factor.id, "sending the SMS code failed");
            factors::delete_challenge(&state.db, &challenge.id).await?;
            return Err(AuthError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "sms_send_failed",
                "Error sending SMS, please try again",
            ));
        }
    }
    Ok(Json(json!({
        "id": challenge.id,
        "type": factor.factor_type,
        "expires_at": (now + challenge_expiry_ms(&state.config)) / 1000,
    })))
}

fn hash_code(code: &str) -> String {
    hex::encode(Sha256::digest(code.as_bytes()))
}

/// Compares two code hashes without an early exit on the first difference.
fn constant_time_eq(a: &str, b: &str) -> bool {
    crate::auth::flow::constant_time_eq(a.as_bytes(), b.as_bytes())
}

/// 429 `over_request_rate_limit` when the factor's count, as loaded, has used up the window.
fn over_limit(factor: &FactorRow, limit: i64, now: i64, window_ms: i64) -> Option<AuthError> {
    let start = factor
        .failed_window_start
        .filter(|start| *start >= now - window_ms)?;
    (limit > 0 && factor.failed_count >= limit).then(|| {
        let wait_ms = (start + window_ms - now).max(1);
        AuthError::rate_limited(u64::try_from((wait_ms + 999) / 1000).unwrap_or(1))
    })
}

#[derive(Debug, Deserialize)]
struct VerifyParams {
    challenge_id: Option<String>,
    code: Option<String>,
}

async fn verify(
    State(state): State<AppState>,
    auth: AuthUser,
    ClientIp(ip): ClientIp,
    Path(factor_id): Path<String>,
    GoTrueJson(params): GoTrueJson<VerifyParams>,
) -> Result<Json<Value>, AuthError> {
    let challenge_id = params.challenge_id.unwrap_or_default();
    if uuid::Uuid::parse_str(&challenge_id).is_err() {
        return Err(AuthError::new(
            StatusCode::BAD_REQUEST,
            "bad_json",
            "Could not parse request body as JSON: challenge_id must be an UUID",
        ));
    }
    let code = params.code.unwrap_or_default();
    if code.trim().is_empty() {
        return Err(AuthError::validation("Code needs to be non-empty"));
    }
    let factor = load_factor(&state, &auth, &factor_id).await?;
    let now = db::now_ms();
    let window_ms = i64::try_from(state.config.rate_limit_window)
        .unwrap_or(i64::MAX / 1000)
        .saturating_mul(1000);
    let limit = i64::from(state.config.rate_limit_mfa_verify);
    // A factor whose window is used up answers 429 at once (the atomic count below is what
    // holds the limit; this only spares the work).
    if let Some(err) = over_limit(&factor, limit, now, window_ms) {
        return Err(err);
    }
    let Some(challenge) = factors::find_challenge(&state.db, &factor.id, &challenge_id).await?
    else {
        // The challenge may have just ended at the limit, under a concurrent request.
        let current = factors::find(&state.db, &auth.user.id, &factor.id).await?;
        if let Some(err) = current.and_then(|f| over_limit(&f, limit, now, window_ms)) {
            return Err(err);
        }
        return Err(AuthError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_factor_not_found",
            "MFA factor with the provided challenge ID not found",
        ));
    };
    if challenge.verified_at.is_some() || challenge.ip != ip.to_string() {
        return Err(AuthError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_ip_address_mismatch",
            "Challenge and verify IP addresses mismatch. Try enrollment again.",
        ));
    }
    if now
        >= challenge
            .created_at
            .saturating_add(challenge_expiry_ms(&state.config))
    {
        factors::delete_challenge(&state.db, &challenge.id).await?;
        return Err(AuthError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_challenge_expired",
            format!(
                "MFA challenge {} has expired, verify against another challenge or create a new challenge.",
                challenge.id
            ),
        ));
    }

    // The attempt is counted before the code is checked, in one atomic statement: however
    // many requests arrive at once, at most `limit` codes per window are ever compared.
    let last_allowed = if limit > 0 {
        let attempts = factors::count_attempt(&state.db, &factor.id, now, window_ms)
            .await?
            .ok_or_else(|| {
                AuthError::new(
                    StatusCode::NOT_FOUND,
                    "mfa_factor_not_found",
                    "Factor not found",
                )
            })?;
        if attempts.count > limit {
            let wait_ms = (attempts.window_start + window_ms - now).max(1);
            return Err(AuthError::rate_limited(
                u64::try_from((wait_ms + 999) / 1000).unwrap_or(1),
            ));
        }
        attempts.count == limit
    } else {
        false
    };

    let checked = if let Some(canonical) = recovery::normalize(&code) {
        check_recovery_code(&state, &factor, &canonical).await?
    } else if factor.factor_type == "phone" {
        let matches = challenge
            .code_hash
            .as_deref()
            .is_some_and(|hash| constant_time_eq(hash, &hash_code(code.trim())));
        if matches {
            Checked::Accepted(None)
        } else {
            Checked::Wrong("Invalid MFA Phone code entered")
        }
    } else {
        let sealed = factor
            .secret
            .as_deref()
            .ok_or_else(|| AuthError::internal("TOTP factor without a secret"))?;
        let secret = state.sealer.open(sealed).map_err(AuthError::internal)?;
        let unix_secs = u64::try_from(now / 1000).unwrap_or(0);
        // A step already used is refused: the code is accepted once.
        match totp::matching_step(&secret, &code, unix_secs) {
            Some(step) if factor.last_step.is_some_and(|last| step <= last) => Checked::AlreadyUsed,
            Some(step) => Checked::Accepted(Some(step)),
            None => Checked::Wrong("Invalid TOTP code entered"),
        }
    };
    let (step, recovery_code_hash, method) = match checked {
        Checked::Accepted(step) => (step, None, amr_method(&factor.factor_type)),
        Checked::Recovery(hash) => (None, Some(hash), RECOVERY_CODE_METHOD),
        refused => {
            // The last code the window allows was refused: the challenge ends with it (a
            // phone code is never compared again), and a new one is needed after the window.
            if last_allowed {
                factors::delete_challenge(&state.db, &challenge.id).await?;
            }
            return Err(match refused {
                Checked::Wrong(message) => AuthError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "mfa_verification_failed",
                    message,
                ),
                _ => code_already_used(),
            });
        }
    };

    let new_token = random_token();
    let outcome = factors::save_verification(
        &state.db,
        &Verification {
            factor: &factor,
            challenge_id: &challenge.id,
            session_id: &auth.session_id,
            method,
            step,
            recovery_code_hash: recovery_code_hash.as_deref(),
            new_refresh_token_id: &uuid::Uuid::new_v4().to_string(),
            new_refresh_token: &new_token,
            now,
        },
    )
    .await?;
    match outcome {
        VerifyOutcome::Verified => {}
        VerifyOutcome::ChallengeUsed => {
            return Err(AuthError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "mfa_ip_address_mismatch",
                "Challenge and verify IP addresses mismatch. Try enrollment again.",
            ));
        }
        VerifyOutcome::CodeReplayed => return Err(code_already_used()),
        VerifyOutcome::SessionGone => {
            return Err(AuthError::new(
                StatusCode::FORBIDDEN,
                "session_not_found",
                "Session from session_id claim in JWT does not exist",
            ));
        }
    }
    let user = users::find_by_id(&state.db, &auth.user.id)
        .await?
        .ok_or_else(|| AuthError::internal("user vanished during verification"))?;
    session::respond(&state, &user, &auth.session_id, &new_token)
        .await
        .map(Json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e164_numbers() {
        assert!(is_e164("+33612345678"));
        assert!(is_e164("+14155552671"));
        assert!(!is_e164("0612345678"));
        assert!(!is_e164("+0612345678"));
        assert!(!is_e164("+3361234567890123"));
        assert!(!is_e164("+33 6 12"));
        assert!(!is_e164("+336abc45678"));
        assert_eq!(normalise_phone("+33 6.12-34 (56) 78"), "+33612345678");
    }

    #[test]
    fn six_digit_codes_keep_leading_zeros() {
        for _ in 0..200 {
            let code = six_digit_code();
            assert_eq!(code.len(), 6);
            assert!(code.bytes().all(|b| b.is_ascii_digit()));
        }
        assert!(constant_time_eq(&hash_code("012345"), &hash_code("012345")));
        assert!(!constant_time_eq(
            &hash_code("012345"),
            &hash_code("012346")
        ));
    }
}
