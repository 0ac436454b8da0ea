//! Access tokens (HS256 JWTs with GoTrue's claims) and refresh token strings.

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
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

/// Signing and verification keys for access tokens.
#[derive(Clone)]
pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
}

impl JwtKeys {
    /// Keys for an HS256 secret.
    pub fn from_secret(secret: &[u8]) -> Self {
        Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
        }
    }

    /// Signs claims into a compact JWT.
    pub fn sign(&self, claims: &Claims) -> Result<String, jsonwebtoken::errors::Error> {
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.encoding)
    }

    /// Verifies signature and expiry. The audience is not checked, as GoTrue does not on its
    /// generic authenticated routes.
    pub fn verify(&self, token: &str) -> Result<Claims, jsonwebtoken::errors::Error> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.validate_aud = false;
        validation.leeway = 0;
        validation.set_required_spec_claims(&["exp", "sub"]);
        jsonwebtoken::decode::<Claims>(token, &self.decoding, &validation).map(|data| data.claims)
    }
}

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
