//! Password hashing (Argon2id, PHC strings) and the password policy. Hashing is CPU-heavy, so it
//! runs on tokio's blocking pool, never on a request thread.

use argon2::Argon2;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};

use super::error::AuthError;

/// GoTrue's default minimum, and the sign-up form's.
pub const MIN_PASSWORD_LENGTH: usize = 6;
/// GoTrue's maximum (bcrypt's limit there; kept for wire compatibility).
pub const MAX_PASSWORD_LENGTH: usize = 72;

/// Checks the policy: 400 `validation_failed` when too long, 422 `weak_password` when short.
pub fn check_strength(password: &str) -> Result<(), AuthError> {
    if password.len() > MAX_PASSWORD_LENGTH {
        return Err(AuthError::validation(format!(
            "Password cannot be longer than {MAX_PASSWORD_LENGTH} characters"
        )));
    }
    if password.chars().count() < MIN_PASSWORD_LENGTH {
        return Err(AuthError::weak_password(
            format!("Password should be at least {MIN_PASSWORD_LENGTH} characters."),
            vec!["length"],
        ));
    }
    Ok(())
}

/// Hashes a password with Argon2id (default parameters) and a random salt.
pub async fn hash(password: String) -> Result<String, AuthError> {
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::generate(&mut OsRng);
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|hash| hash.to_string())
    })
    .await
    .map_err(AuthError::internal)?
    .map_err(AuthError::internal)
}

/// Verifies a password against a PHC hash. A malformed hash counts as a mismatch (and is
/// logged); an empty one (a user without a password) never matches.
pub async fn verify(password: String, hash: String) -> Result<bool, AuthError> {
    if hash.is_empty() {
        return Ok(false);
    }
    tokio::task::spawn_blocking(move || match PasswordHash::new(&hash) {
        Ok(parsed) => Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok(),
        Err(err) => {
            tracing::error!(error = %err, "stored password hash is malformed");
            false
        }
    })
    .await
    .map_err(AuthError::internal)
}

/// A hash of a random password, computed once at start: signing in with an unknown email
/// verifies against it so that the answer takes as long as for a wrong password.
pub async fn dummy_hash() -> Result<String, AuthError> {
    hash(super::tokens::random_token()).await
}
