//! Password hashing (Argon2id, PHC strings) and the password policy. Hashing is CPU- and
//! memory-heavy (19 MiB each), so it runs on tokio's blocking pool, never on a request thread,
//! and within a memory budget ([`Hasher`]).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{self, Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use tokio::sync::Semaphore;

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

/// Memory one hash takes with the default parameters (`m_cost` KiB): 19 MiB.
pub const HASH_MEMORY_MIB: u64 = Params::DEFAULT_M_COST as u64 / 1024;

/// Runs the Argon2id hashes of this process within a memory budget
/// (`REGARD_PASSWORD_HASH_MEMORY`): at most `budget / 19 MiB` hashes at once, each on a
/// memory buffer kept for the next one, so the memory is bounded and reused instead of being
/// allocated per hash (glibc keeps freed 19 MiB chunks in its arenas, and 200 concurrent
/// sign-ins left 3.6 GB behind). A hash that finds no slot within `wait` is refused with 429
/// `over_request_rate_limit` and `Retry-After` (docs/operations.md, "Password hashing").
pub struct Hasher {
    /// Slots and their buffers; `None`: unlimited, a buffer allocated per hash (the old way).
    bounded: Option<Bounded>,
    wait: Duration,
}

struct Bounded {
    slots: Arc<Semaphore>,
    /// Buffers of finished hashes, at most one per slot.
    buffers: Arc<Mutex<Vec<Vec<Block>>>>,
}

impl Hasher {
    /// A hasher with room for `budget_mib` of hash memory at once (at least one hash; 0 means
    /// unlimited) that waits up to `wait` for room.
    pub fn new(budget_mib: u64, wait: Duration) -> Self {
        let bounded = (budget_mib > 0).then(|| {
            let slots = usize::try_from(budget_mib / HASH_MEMORY_MIB)
                .unwrap_or(Semaphore::MAX_PERMITS)
                .clamp(1, Semaphore::MAX_PERMITS);
            Bounded {
                slots: Arc::new(Semaphore::new(slots)),
                buffers: Arc::new(Mutex::new(Vec::with_capacity(slots))),
            }
        });
        Self { bounded, wait }
    }

    /// From `REGARD_PASSWORD_HASH_MEMORY` and `REGARD_PASSWORD_HASH_WAIT_MS`.
    pub fn from_config(config: &crate::config::Config) -> Self {
        Self::new(
            config.password_hash_memory,
            Duration::from_millis(config.password_hash_wait_ms),
        )
    }

    /// Hashes a password with Argon2id (default parameters) and a random salt.
    pub async fn hash(&self, password: String) -> Result<String, AuthError> {
        self.run(move |memory| {
            let salt = SaltString::generate(&mut OsRng);
            let mut salt_bytes = [0u8; 64];
            let salt_raw = salt.decode_b64(&mut salt_bytes)?;
            let params = Params::default();
            let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
            Argon2::default().hash_password_into_with_memory(
                password.as_bytes(),
                salt_raw,
                &mut out,
                memory.blocks(params.block_count()),
            )?;
            Ok::<_, password_hash::Error>(
                PasswordHash {
                    algorithm: argon2::ARGON2ID_IDENT,
                    version: Some(Version::default().into()),
                    params: ParamsString::try_from(&params)?,
                    salt: Some(salt.as_salt()),
                    hash: Some(Output::new(&out)?),
                }
                .to_string(),
            )
        })
        .await?
        .map_err(AuthError::internal)
    }

    /// Verifies a password against a PHC hash. A malformed hash counts as a mismatch (and is
    /// logged); an empty one (a user without a password) never matches.
    pub async fn verify(&self, password: String, hash: String) -> Result<bool, AuthError> {
        if hash.is_empty() {
            return Ok(false);
        }
        self.run(move |memory| match verify_with(&password, &hash, memory) {
            Ok(matches) => matches,
            Err(err) => {
                tracing::error!(error = %err, "stored password hash is malformed");
                false
            }
        })
        .await
    }

    /// Runs `work` on the blocking pool with a slot and a buffer, or refuses when no slot is
    /// free within `wait`.
    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Memory) -> T + Send + 'static,
    ) -> Result<T, AuthError> {
        let Some(bounded) = &self.bounded else {
            return tokio::task::spawn_blocking(move || work(&mut Memory(Vec::new())))
                .await
                .map_err(AuthError::internal);
        };
        let slot = match tokio::time::timeout(self.wait, Arc::clone(&bounded.slots).acquire_owned())
            .await
        {
            Ok(Ok(slot)) => slot,
            Ok(Err(closed)) => return Err(AuthError::internal(closed)),
            Err(_elapsed) => {
                tracing::warn!("password hashing is at its memory budget; sign-in refused");
                return Err(AuthError::rate_limited(BUSY_RETRY_AFTER_SECS));
            }
        };
        let buffers = Arc::clone(&bounded.buffers);
        tokio::task::spawn_blocking(move || {
            let buffer = buffers.lock().map(|mut b| b.pop()).unwrap_or_default();
            let mut memory = Memory(buffer.unwrap_or_default());
            let result = work(&mut memory);
            if let Ok(mut kept) = buffers.lock() {
                kept.push(memory.0);
            }
            drop(slot);
            result
        })
        .await
        .map_err(AuthError::internal)
    }
}

/// `Retry-After` of a sign-in refused because hashing is at its budget: hashes take tens of
/// milliseconds, so a second later there is room again unless the flood goes on.
const BUSY_RETRY_AFTER_SECS: u64 = 1;

/// A hash's working memory: a kept buffer, grown when a hash needs more.
struct Memory(Vec<Block>);

impl Memory {
    fn blocks(&mut self, count: usize) -> &mut [Block] {
        if self.0.len() < count {
            self.0 = vec![Block::default(); count];
        }
        &mut self.0[..count]
    }
}

/// Recomputes `hash` (any Argon2 variant and parameters) for `password` in `memory`, and
/// compares in constant time (`Output`'s equality).
fn verify_with(password: &str, hash: &str, memory: &mut Memory) -> password_hash::Result<bool> {
    let parsed = PasswordHash::new(hash)?;
    let expected = parsed.hash.ok_or(password_hash::Error::Password)?;
    let salt = parsed.salt.ok_or(password_hash::Error::SaltInvalid(
        password_hash::errors::InvalidValue::Malformed,
    ))?;
    let algorithm = Algorithm::try_from(parsed.algorithm)?;
    let version = parsed
        .version
        .map(Version::try_from)
        .transpose()?
        .unwrap_or_default();
    let params = Params::try_from(&parsed)?;
    let mut salt_bytes = [0u8; 64];
    let salt_raw = salt.decode_b64(&mut salt_bytes)?;
    let mut out = vec![0u8; expected.len()];
    let blocks = memory.blocks(params.block_count());
    Argon2::new(algorithm, version, params).hash_password_into_with_memory(
        password.as_bytes(),
        salt_raw,
        &mut out,
        blocks,
    )?;
    Ok(Output::new(&out)? == expected)
}

/// A hash of a random password, computed once at start: signing in with an unknown email
/// verifies against it so that the answer takes as long as for a wrong password.
pub async fn dummy_hash(hasher: &Hasher) -> Result<String, AuthError> {
    hasher.hash(super::tokens::random_token()).await
}

#[cfg(test)]
mod tests {
    use argon2::password_hash::{PasswordHasher, PasswordVerifier};

    use super::*;

    #[tokio::test]
    async fn hashes_are_the_argon2_crates_phc_strings_both_ways() {
        let hasher = Hasher::new(HASH_MEMORY_MIB, Duration::from_secs(5));
        let ours = hasher.hash("correct horse".into()).await.unwrap();
        assert!(
            ours.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{ours}"
        );
        let parsed = PasswordHash::new(&ours).unwrap();
        assert!(
            Argon2::default()
                .verify_password(b"correct horse", &parsed)
                .is_ok()
        );
        let salt = SaltString::generate(&mut OsRng);
        let theirs = Argon2::default()
            .hash_password(b"battery staple", &salt)
            .unwrap()
            .to_string();
        assert!(
            hasher
                .verify("battery staple".into(), theirs.clone())
                .await
                .unwrap()
        );
        assert!(
            !hasher
                .verify("battery stapler".into(), theirs)
                .await
                .unwrap()
        );
        assert!(
            !hasher
                .verify("x".into(), "not a hash".into())
                .await
                .unwrap()
        );
        assert!(!hasher.verify("x".into(), String::new()).await.unwrap());
    }

    #[tokio::test]
    async fn a_hash_past_the_budget_is_refused_with_retry_after_and_the_buffer_is_reused() {
        let hasher = Arc::new(Hasher::new(HASH_MEMORY_MIB, Duration::ZERO));
        let bounded = hasher.bounded.as_ref().unwrap();
        assert_eq!(bounded.slots.available_permits(), 1);
        let held = Arc::clone(&bounded.slots).acquire_owned().await.unwrap();
        let refused = hasher.hash("password".into()).await.unwrap_err();
        assert_eq!(refused.status, axum::http::StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(refused.code, "over_request_rate_limit");
        assert_eq!(refused.retry_after, Some(BUSY_RETRY_AFTER_SECS));
        drop(held);
        for _ in 0..3 {
            hasher.hash("password".into()).await.unwrap();
        }
        assert_eq!(bounded.buffers.lock().unwrap().len(), 1);
    }
}
