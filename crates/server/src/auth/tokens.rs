//! Access tokens (JWTs with GoTrue's claims, signed by [`JwtKeys`]), refresh token strings, and
//! the one-time tokens and 6-digit codes sent by mail and SMS: how they are made and the hashes
//! that are stored instead of them.

use axum::http::StatusCode;
use rand::Rng;
use rand::distr::Alphanumeric;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::error::AuthError;

/// One entry of the `amr` claim.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct AmrEntry {
    pub method: String,
    /// Epoch seconds.
    pub timestamp: i64,
}

/// The claims of an access token, exactly GoTrue's `AccessTokenClaims` (minus OAuth-server
/// extras).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub iss: String,
    pub sub: String,
    pub aud: String,
    pub exp: i64,
    pub iat: i64,
    pub email: String,
    pub phone: String,
    pub app_metadata: Value,
    pub user_metadata: Value,
    pub role: String,
    pub aal: String,
    pub amr: Vec<AmrEntry>,
    pub session_id: String,
    pub is_anonymous: bool,
}

pub use super::keys::JwtKeys;

/// Length of refresh tokens. GoTrue's v1 tokens are 12 characters; longer ones are fine for
/// auth-js, which treats them as opaque.
pub const REFRESH_TOKEN_LENGTH: usize = 32;

/// A new refresh token: lowercase letters and digits (GoTrue's alphabet), ~165 bits.
pub fn random_token() -> String {
    rand::rng()
        .sample_iter(&Alphanumeric)
        .take(REFRESH_TOKEN_LENGTH)
        .map(|c| char::from(c).to_ascii_lowercase())
        .collect()
}

/// A uniformly random 6-digit code (leading zeros kept), as mailed and texted to users.
pub fn six_digit_code() -> String {
    format!("{:06}", rand::rng().random_range(0..1_000_000u32))
}

/// SHA-256 of `parts`, each followed by a zero byte (so no two lists hash alike), in hex.
fn sha256_hex(parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update([0u8]);
    }
    hex::encode(hasher.finalize())
}

/// The stored form of a 6-digit code: bound to its user, surrounding spaces ignored.
pub fn otp_hash(user_id: &str, code: &str) -> String {
    sha256_hex(&[user_id, code.trim()])
}

/// The stored form of a mailed link's token (or a phone code's random token).
pub fn token_hash(token: &str) -> String {
    sha256_hex(&[token.trim()])
}

/// GoTrue's answer to a one-time token or code that is wrong, used or expired (403).
pub fn otp_expired() -> AuthError {
    AuthError::new(
        StatusCode::FORBIDDEN,
        "otp_expired",
        "Token has expired or is invalid",
    )
}

/// Whether a presented refresh token has a shape we could have issued.
pub fn is_well_formed(token: &str) -> bool {
    token.len() >= 12
        && token
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// A 256-bit secret, hex encoded, for `data/jwt_secret`.
pub fn random_secret() -> String {
    let bytes: [u8; 32] = rand::rng().random();
    hex::encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_separate_their_parts() {
        assert_ne!(otp_hash("ab", "c"), otp_hash("a", "bc"));
        assert_eq!(otp_hash("u", " 123456 "), otp_hash("u", "123456"));
    }
}
