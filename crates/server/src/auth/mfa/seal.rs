//! Secrets at rest: TOTP secrets are sealed with XChaCha20-Poly1305 under a key derived (HKDF-
//! SHA-256) from the server secret, so a copy of the database alone does not let anyone compute
//! a user's codes. A sealed value reads `v1:<base64url(nonce ‖ ciphertext)>`. Recovery codes,
//! which never need to be read back, are kept as an HMAC-SHA-256 under a second derived key.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;

const PREFIX: &str = "v1:";
const NONCE_LEN: usize = 24;

/// Seals and opens secrets with the key of this server.
#[derive(Clone)]
pub struct Sealer {
    cipher: XChaCha20Poly1305,
    mac_key: [u8; 32],
}

/// A sealed value that does not open: another server secret, or a damaged row.
#[derive(Debug, thiserror::Error)]
#[error("a sealed secret could not be opened (wrong server secret or damaged value)")]
pub struct OpenError;

impl Sealer {
    /// The sealer whose key is derived from `server_secret`.
    pub fn from_secret(server_secret: &[u8]) -> Self {
        let hkdf = hkdf::Hkdf::<Sha256>::new(Some(b"regard"), server_secret);
        let mut key = [0u8; 32];
        hkdf.expand(b"regard mfa factor secrets v1", &mut key)
            .expect("32 bytes is a valid HKDF-SHA-256 output length");
        let mut mac_key = [0u8; 32];
        hkdf.expand(b"regard mfa recovery codes v1", &mut mac_key)
            .expect("32 bytes is a valid HKDF-SHA-256 output length");
        Self {
            cipher: XChaCha20Poly1305::new(&Key::from(key)),
            mac_key,
        }
    }

    /// The keyed hash (hex HMAC-SHA-256) of `parts`, each ended by a NUL so that no two
    /// different lists hash alike. Without the server secret a stored hash cannot be matched
    /// against guesses.
    pub fn keyed_hash(&self, parts: &[&str]) -> String {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.mac_key)
            .expect("HMAC accepts a key of any length");
        for part in parts {
            mac.update(part.as_bytes());
            mac.update(&[0]);
        }
        hex::encode(mac.finalize().into_bytes())
    }

    /// Seals `plain` with a fresh random nonce.
    pub fn seal(&self, plain: &str) -> String {
        let mut nonce = [0u8; NONCE_LEN];
        rand::rng().fill_bytes(&mut nonce);
        let sealed = self
            .cipher
            .encrypt(&XNonce::from(nonce), plain.as_bytes())
            .expect("XChaCha20-Poly1305 encryption of a short secret cannot fail");
        let mut bytes = nonce.to_vec();
        bytes.extend_from_slice(&sealed);
        format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes))
    }

    /// Opens a value made by [`Sealer::seal`] with the same key.
    pub fn open(&self, sealed: &str) -> Result<String, OpenError> {
        let encoded = sealed.strip_prefix(PREFIX).ok_or(OpenError)?;
        let bytes = URL_SAFE_NO_PAD.decode(encoded).map_err(|_| OpenError)?;
        if bytes.len() < NONCE_LEN {
            return Err(OpenError);
        }
        let (nonce, sealed) = bytes.split_at(NONCE_LEN);
        let nonce: [u8; NONCE_LEN] = nonce.try_into().map_err(|_| OpenError)?;
        let plain = self
            .cipher
            .decrypt(&XNonce::from(nonce), sealed)
            .map_err(|_| OpenError)?;
        String::from_utf8(plain).map_err(|_| OpenError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_secrets_open_with_the_same_key_only() {
        let sealer = Sealer::from_secret(b"server secret one");
        let sealed = sealer.seal("JBSWY3DPEHPK3PXP");
        assert!(sealed.starts_with("v1:"));
        assert!(!sealed.contains("JBSWY3DPEHPK3PXP"));
        assert_eq!(sealer.open(&sealed).unwrap(), "JBSWY3DPEHPK3PXP");
        // A fresh nonce each time.
        assert_ne!(sealer.seal("JBSWY3DPEHPK3PXP"), sealed);
        assert!(
            Sealer::from_secret(b"server secret two")
                .open(&sealed)
                .is_err()
        );
        let mut damaged = sealed.clone();
        damaged.pop();
        damaged.push(if sealed.ends_with('A') { 'B' } else { 'A' });
        assert!(sealer.open(&damaged).is_err());
        assert!(sealer.open("JBSWY3DPEHPK3PXP").is_err());
    }

    #[test]
    fn keyed_hashes_depend_on_the_key_and_on_each_part() {
        let one = Sealer::from_secret(b"server secret one");
        let hash = one.keyed_hash(&["user", "abcd"]);
        assert_eq!(hash.len(), 64);
        assert_eq!(one.keyed_hash(&["user", "abcd"]), hash);
        assert_ne!(one.keyed_hash(&["use", "rabcd"]), hash);
        assert_ne!(one.keyed_hash(&["user", "abce"]), hash);
        assert_ne!(
            Sealer::from_secret(b"server secret two").keyed_hash(&["user", "abcd"]),
            hash
        );
    }
}
