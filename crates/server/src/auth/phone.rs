//! Phone numbers as GoTrue's phone provider uses them (`REGARD_PHONE_SIGN_IN`): parsing to
//! E.164 digits, the 6-digit codes sent by SMS for a sign-in or a number change, and their
//! verification (`POST /verify` with `type` `sms` or `phone_change`).
//!
//! Codes are one-time tokens like the mailed ones (only hashes are stored, a few wrong codes
//! kill the token); `relates_to` holds the number the SMS went to.

use std::net::IpAddr;

use axum::http::StatusCode;

use super::error::AuthError;

use super::tokens::{otp_expired, otp_hash, random_token, six_digit_code, token_hash};
use crate::db::one_time_tokens::{self, OneTimeTokenRow};
use crate::db::users::{self, UserRow};
use crate::db::{self, DbError};
use crate::i18n::Locale;
use crate::notify::templates;
use crate::state::AppState;

/// Codes compared with an SMS code before it dies (counted before each comparison).
const MAX_CODE_FAILURES: i64 = 5;

/// What an SMS code is for, as GoTrue's verify `type` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// `sms`: sign in (and confirm the number).
    SignIn,
    /// `phone_change`: move the account to a new number.
    Change,
}

impl Purpose {
    pub fn from_type(kind: &str) -> Option<Self> {
        match kind {
            "sms" => Some(Purpose::SignIn),
            "phone_change" => Some(Purpose::Change),
            _ => None,
        }
    }

    pub fn stored(self) -> &'static str {
        match self {
            Purpose::SignIn => "sms",
            Purpose::Change => "phone_change",
        }
    }
}

/// A phone number as GoTrue stores it: E.164 without the `+` (spaces, dots, dashes and
/// parentheses people type are dropped). Anything else is 400 `validation_failed` with
/// GoTrue's words.
pub fn parse(raw: &str) -> Result<String, AuthError> {
    let digits: String = raw
        .trim()
        .trim_start_matches('+')
        .chars()
        .filter(|c| !matches!(c, ' ' | '.' | '-' | '(' | ')'))
        .collect();
    let valid = (8..=15).contains(&digits.len())
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !digits.starts_with('0')
        // Dashes inside a word ("1555-invalid") must not turn garbage into a number.
        && raw.trim().trim_start_matches('+').chars().all(|c| {
            c.is_ascii_digit() || matches!(c, ' ' | '.' | '-' | '(' | ')')
        });
    if valid {
        Ok(digits)
    } else {
        Err(AuthError::validation(
            "Invalid phone number format (E.164 required)",
        ))
    }
}

/// 422 `phone_provider_disabled` unless phone sign-in is on.
pub fn require_enabled(state: &AppState) -> Result<(), AuthError> {
    if state.config.phone_sign_in {
        Ok(())
    } else {
        Err(AuthError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "phone_provider_disabled",
            "Phone logins are disabled",
        ))
    }
}

/// The SMS channel a client asked for: only `sms` is sent (GoTrue's WhatsApp channel needs
/// Twilio). 400 `validation_failed` otherwise.
pub fn check_channel(channel: Option<&str>) -> Result<(), AuthError> {
    match channel.map(str::trim).filter(|c| !c.is_empty()) {
        None | Some("sms") => Ok(()),
        Some(other) => Err(AuthError::validation(format!(
            "Channel {other} is not supported: use sms"
        ))),
    }
}

/// Takes one SMS to `number` (E.164 digits) asked from `ip` from the SMS limits
/// (`REGARD_RATE_LIMIT_SMS_*`): per client IP, per number and in all. Called before anything
/// is looked up or written, so a refused request creates no account and answers the same for
/// known and unknown numbers. 429 `over_sms_send_rate_limit` with `Retry-After`, as GoTrue.
pub async fn take_sms_allowance(
    state: &AppState,
    ip: IpAddr,
    number: &str,
) -> Result<(), AuthError> {
    // One key per number, however it is written (`+336…` in factors, `336…` elsewhere).
    state
        .limits
        .sms(ip, number.trim_start_matches('+'))
        .await
        .map_err(|wait| {
            AuthError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "over_sms_send_rate_limit",
                "SMS rate limit exceeded",
            )
            .retry_after(wait)
        })
}

/// Stores a fresh code for `purpose` (the previous one stops working) and texts it to
/// `number` (E.164 digits). Returns an id for the message (GoTrue's `message_id`).
pub async fn send_code(
    state: &AppState,
    purpose: Purpose,
    user: &UserRow,
    number: &str,
    lang: Locale,
) -> Result<String, AuthError> {
    let code = six_digit_code();
    let id = uuid::Uuid::new_v4().to_string();
    one_time_tokens::replace(
        &state.db,
        &OneTimeTokenRow {
            id: id.clone(),
            user_id: user.id.clone(),
            kind: purpose.stored().to_owned(),
            // No link goes with an SMS: a random token keeps the column's uniqueness.
            token_hash: token_hash(&format!("{}{}", random_token(), random_token())),
            otp_hash: otp_hash(&user.id, &code),
            failed_count: 0,
            relates_to: number.to_owned(),
            flow_state_id: None,
            created_at: db::now_ms(),
        },
    )
    .await?;
    text_code(state, number, lang, &code).await?;
    Ok(id)
}

/// Texts `code` to `number` (E.164 digits); 500 `sms_send_failed` when the gateway fails.
pub async fn text_code(
    state: &AppState,
    number: &str,
    lang: Locale,
    code: &str,
) -> Result<(), AuthError> {
    state
        .sms
        .send(&format!("+{number}"), &templates::sms_code(lang, code))
        .await
        .map_err(|err| {
            AuthError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "sms_send_failed",
                format!("Error sending SMS: {err}"),
            )
        })
}

/// Checks a code sent by SMS to `number` and applies it: a sign-in code confirms the number, a
/// change code moves the account to it. Returns the user, updated. An unknown number, a wrong
/// or an expired code are all 403 `otp_expired`.
pub async fn verify(
    state: &AppState,
    purpose: Purpose,
    number: &str,
    code: &str,
) -> Result<UserRow, AuthError> {
    let user_id = match purpose {
        Purpose::SignIn => users::find_by_phone(&state.db, number)
            .await?
            .map(|user| user.id),
        Purpose::Change => {
            one_time_tokens::user_for_address(&state.db, purpose.stored(), number).await?
        }
    };
    let Some(user_id) = user_id else {
        return Err(otp_expired());
    };
    let token = one_time_tokens::take_by_code(
        &state.db,
        &user_id,
        &[purpose.stored()],
        &otp_hash(&user_id, code),
        MAX_CODE_FAILURES,
    )
    .await?
    .filter(|token| token.relates_to == number)
    .ok_or_else(otp_expired)?;
    let ttl_ms = i64::try_from(state.config.mfa_challenge_expiry)
        .unwrap_or(i64::MAX / 1000)
        .saturating_mul(1000);
    let now = db::now_ms();
    if now >= token.created_at.saturating_add(ttl_ms) {
        return Err(otp_expired());
    }
    let mut user = users::find_by_id(&state.db, &user_id)
        .await?
        .ok_or_else(otp_expired)?;
    match purpose {
        Purpose::SignIn => {
            users::confirm_phone(&state.db, &user.id, now).await?;
        }
        Purpose::Change => {
            user.phone = number.to_owned();
            user.phone_confirmed_at = Some(now);
            user.updated_at = now;
            match users::save(&state.db, &user).await {
                Ok(()) => {}
                Err(DbError::Conflict) => return Err(AuthError::phone_exists()),
                Err(err) => return Err(err.into()),
            }
        }
    }
    users::find_by_id(&state.db, &user_id)
        .await?
        .ok_or_else(otp_expired)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_become_e164_digits() {
        assert_eq!(parse("+33 6 12 34 56 78").unwrap(), "33612345678");
        assert_eq!(parse("15551234567").unwrap(), "15551234567");
        assert_eq!(parse("+1 (555) 123-4567").unwrap(), "15551234567");
        for bad in [
            "",
            "+",
            "0612345678",
            "15551234567-invalid",
            "+1555",
            "invalid-phone",
        ] {
            let err = parse(bad).unwrap_err();
            assert_eq!(
                err.message, "Invalid phone number format (E.164 required)",
                "{bad}"
            );
        }
    }

    #[test]
    fn only_the_sms_channel_is_sent() {
        assert!(check_channel(None).is_ok());
        assert!(check_channel(Some("sms")).is_ok());
        assert!(check_channel(Some("whatsapp")).is_err());
    }
}
