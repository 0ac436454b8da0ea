//! Short-lived signed media URLs, so `<img src>` works without an `Authorization` header.
//!
//! A URL is `/api/v1/files/{media_id}/{variant}?exp={unix seconds}&sig={hex}` where `sig` is
//! HMAC-SHA256 over `media_id`, `variant` and `exp`, keyed with a key derived from the JWT secret
//! (so nodes sharing `REGARD_JWT_SECRET` accept each other's URLs, and no new secret is needed).
//! Expiries are rounded down to a quarter of the TTL: two responses a few seconds apart carry
//! the same URL, so the browser's cache keeps working across list refreshes.

use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Why a signed URL was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureError {
    /// Missing, malformed or wrong signature (any tampering with id, variant or expiry).
    Invalid,
    /// The signature is right but the URL's time is up.
    Expired,
}

/// Signs and verifies media URLs. Cheap to clone.
#[derive(Clone)]
pub struct UrlSigner {
    key: [u8; 32],
    ttl: u64,
}

impl std::fmt::Debug for UrlSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UrlSigner")
            .field("key", &"[redacted]")
            .field("ttl", &self.ttl)
            .finish()
    }
}

impl UrlSigner {
    /// A signer whose key is derived from `secret` (the JWT secret) with a fixed label, so the
    /// JWT key itself never signs URLs. `ttl` is the URL lifetime in seconds.
    pub fn new(secret: &[u8], ttl: u64) -> Self {
        let mut mac = HmacSha256::new_from_slice(secret).expect("HMAC accepts any key length");
        mac.update(b"regard media url signing key v1");
        Self {
            key: mac.finalize().into_bytes().into(),
            ttl,
        }
    }

    fn mac(&self, media_id: &str, variant: &str, exp: u64) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.key).expect("HMAC accepts any key length");
        // Newline-separated: none of the parts can contain one, so the encoding is unambiguous.
        mac.update(format!("{media_id}\n{variant}\n{exp}").as_bytes());
        mac
    }

    /// The expiry given to URLs signed at `now` (unix seconds): `now + ttl`, rounded down to a
    /// quarter of the TTL (so between 3/4 of the TTL and the TTL away).
    pub fn expiry(&self, now: u64) -> u64 {
        let step = (self.ttl / 4).max(1);
        (now + self.ttl) / step * step
    }

    /// The signed path of one variant, valid until `exp`.
    pub fn url(&self, media_id: &str, variant: &str, exp: u64) -> String {
        let sig = hex::encode(self.mac(media_id, variant, exp).finalize().into_bytes());
        format!("/api/v1/files/{media_id}/{variant}?exp={exp}&sig={sig}")
    }

    /// Checks a presented URL at `now`; returns the seconds it stays valid. The signature is
    /// checked first (in constant time), so an expired URL is only reported as such when it is
    /// genuine.
    pub fn verify(
        &self,
        media_id: &str,
        variant: &str,
        exp: u64,
        sig: &str,
        now: u64,
    ) -> Result<u64, SignatureError> {
        let sig = hex::decode(sig).map_err(|_| SignatureError::Invalid)?;
        self.mac(media_id, variant, exp)
            .verify_slice(&sig)
            .map_err(|_| SignatureError::Invalid)?;
        if now >= exp {
            return Err(SignatureError::Expired);
        }
        Ok(exp - now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_url_verifies_until_it_expires() {
        let signer = UrlSigner::new(b"secret", 3600);
        let exp = signer.expiry(1_000_000);
        assert!(exp > 1_000_000 + 2700 && exp <= 1_000_000 + 3600);
        let url = signer.url("id", "preview", exp);
        let sig = url.rsplit_once("sig=").unwrap().1;
        assert_eq!(
            signer.verify("id", "preview", exp, sig, 1_000_000),
            Ok(exp - 1_000_000)
        );
        assert_eq!(
            signer.verify("id", "preview", exp, sig, exp),
            Err(SignatureError::Expired)
        );
        for (id, variant, e) in [
            ("other", "preview", exp),
            ("id", "original", exp),
            ("id", "preview", exp + 1),
        ] {
            assert_eq!(
                signer.verify(id, variant, e, sig, 1_000_000),
                Err(SignatureError::Invalid)
            );
        }
        let other_key = UrlSigner::new(b"other secret", 3600);
        assert_eq!(
            other_key.verify("id", "preview", exp, sig, 1_000_000),
            Err(SignatureError::Invalid)
        );
        assert_eq!(
            signer.verify("id", "preview", exp, "zz", 1_000_000),
            Err(SignatureError::Invalid)
        );
    }

    #[test]
    fn a_zero_ttl_gives_urls_that_are_already_expired() {
        let signer = UrlSigner::new(b"secret", 0);
        let exp = signer.expiry(500);
        let url = signer.url("id", "original", exp);
        let sig = url.rsplit_once("sig=").unwrap().1;
        assert_eq!(
            signer.verify("id", "original", exp, sig, 500),
            Err(SignatureError::Expired)
        );
    }
}
