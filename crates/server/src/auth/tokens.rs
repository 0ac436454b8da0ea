//! Access tokens (JWTs with GoTrue's claims, signed by [`JwtKeys`]) and refresh token strings.

use rand::Rng;
use rand::distr::Alphanumeric;
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
