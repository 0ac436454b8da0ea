//! Short-lived signed media URLs, so `<img src>` works without an `Authorization` header.
//!
//! A URL is `/api/v1/files/{media_id}/{variant}?exp={unix seconds}&m={user_id}&sig={hex}` where
//! `sig` is HMAC-SHA256 over `media_id`, `variant`, `exp` and the member it was made for, keyed
//! with a key derived from the JWT secret (so nodes sharing `REGARD_JWT_SECRET` accept each
//! other's URLs, and no new secret is needed). The file route serves it only while that user is
//! a member of the workspace that holds the file: a member who leaves or is removed loses the
//! links they were given at once, not an hour later ([`UrlSigner::for_member`]).
//! Expiries are rounded down to a quarter of the TTL: two responses a few seconds apart carry
//! the same URL, so the browser's cache keeps working across list refreshes.
//!
//! A share link's images (`GET /shared/{token}`) get share-scoped URLs instead:
//! `...?exp=&share={share_id}&sig=`, whose signature also covers the share's id and whose life
//! is [`SHARE_URL_TTL`]. The file route serves them only while that share exists and has not
//! expired, so revoking a link stops its images at once, not an hour later.
//!
//! The signer lives here, below the HTTP layer, because the shared state holds one; the file
//! route that checks the URLs and parses their query is `http::api::media`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Life of a share-scoped URL in seconds (the shared page refreshes them before they end).
pub const SHARE_URL_TTL: u64 = 300;

/// Why a signed URL was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureError {
    /// Missing, malformed or wrong signature (any tampering with id, variant or expiry).
    Invalid,
    /// The signature is right but the URL's time is up.
    Expired,
}

/// Whom a signed URL is for: one member of the file's workspace, or a share link's visitors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlScope<'a> {
    /// The user (id) the answer carrying the URL was made for.
    Member(&'a str),
    /// The share link (id) whose page carries the URL.
    Share(&'a str),
}

/// Signs and verifies media URLs. Cheap to clone.
#[derive(Clone)]
pub struct UrlSigner {
    /// HMAC-SHA256 already keyed: each signature starts from a copy of it instead of hashing
    /// the key's two pads again (a list answer signs 150 URLs).
    keyed: HmacSha256,
    ttl: u64,
    /// Tells signers apart in the threads' caches of signed URLs (clones share it: same key).
    id: u64,
}

/// Most URLs a thread keeps signed (about 200 bytes each); past it the cache starts afresh.
const CACHED_URLS: usize = 30_000;

/// The URLs one thread has signed for one signer and one expiry. Expiries are rounded to a
/// quarter of the TTL, so within a window a list answer asks for the same URLs again and
/// again: they are looked up instead of signed (the same bytes either way; a test checks).
#[derive(Default)]
struct SignedUrls {
    signer: u64,
    member: String,
    exp: u64,
    /// media id → (variant, URL) for the variants signed so far.
    urls: HashMap<String, Vec<(&'static str, String)>>,
    count: usize,
}

thread_local! {
    static SIGNED: RefCell<SignedUrls> = RefCell::new(SignedUrls::default());
}

static NEXT_SIGNER: AtomicU64 = AtomicU64::new(1);

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
        let key = mac.finalize().into_bytes();
        Self {
            keyed: HmacSha256::new_from_slice(&key).expect("HMAC accepts any key length"),
            ttl,
            id: NEXT_SIGNER.fetch_add(1, Ordering::Relaxed),
        }
    }

    fn mac(&self, media_id: &str, variant: &str, exp: u64, scope: UrlScope<'_>) -> HmacSha256 {
        let mut mac = self.keyed.clone();
        // Newline-separated: none of the parts can contain one, so the encoding is unambiguous
        // (the fourth part names the scope, so neither kind verifies as the other).
        for part in [media_id.as_bytes(), b"\n", variant.as_bytes(), b"\n"] {
            mac.update(part);
        }
        mac.update(exp.to_string().as_bytes());
        let (label, id): (&[u8], &str) = match scope {
            UrlScope::Share(share) => (b"\nshare ", share),
            UrlScope::Member(member) => (b"\nmember ", member),
        };
        mac.update(label);
        mac.update(id.as_bytes());
        mac
    }

    /// The signer of the URLs in an answer for `member` (a user id): they name the member and
    /// are served only while the member belongs to the file's workspace.
    pub fn for_member<'a>(&'a self, member: &'a str) -> MemberSigner<'a> {
        MemberSigner {
            signer: self,
            member,
        }
    }

    /// The expiry of share-scoped URLs signed at `now`: [`SHARE_URL_TTL`] away, rounded down
    /// to a quarter of it.
    pub fn share_expiry(now: u64) -> u64 {
        let step = SHARE_URL_TTL / 4;
        (now + SHARE_URL_TTL) / step * step
    }

    /// The signed path of one variant for the visitors of share `share_id`, valid until `exp`
    /// and while the share lasts.
    pub fn share_url(&self, media_id: &str, variant: &str, share_id: &str, exp: u64) -> String {
        let sig = hex::encode(
            self.mac(media_id, variant, exp, UrlScope::Share(share_id))
                .finalize()
                .into_bytes(),
        );
        format!("/api/v1/files/{media_id}/{variant}?exp={exp}&share={share_id}&sig={sig}")
    }

    /// The expiry of URLs signed at `now`: the TTL away, rounded down to a quarter of it.
    pub fn expiry(&self, now: u64) -> u64 {
        let step = (self.ttl / 4).max(1);
        (now + self.ttl) / step * step
    }

    /// Checks a URL's signature for `scope` and its expiry at `now`; the seconds it has left.
    pub fn verify(
        &self,
        media_id: &str,
        variant: &str,
        exp: u64,
        scope: UrlScope<'_>,
        sig: &str,
        now: u64,
    ) -> Result<u64, SignatureError> {
        let sig = hex::decode(sig).map_err(|_| SignatureError::Invalid)?;
        self.mac(media_id, variant, exp, scope)
            .verify_slice(&sig)
            .map_err(|_| SignatureError::Invalid)?;
        if now >= exp {
            return Err(SignatureError::Expired);
        }
        Ok(exp - now)
    }
}

/// A [`UrlSigner`] for one member's answers ([`UrlSigner::for_member`]).
#[derive(Clone, Copy)]
pub struct MemberSigner<'a> {
    signer: &'a UrlSigner,
    member: &'a str,
}

impl MemberSigner<'_> {
    /// The expiry of URLs signed at `now` ([`UrlSigner::expiry`]).
    pub fn expiry(&self, now: u64) -> u64 {
        self.signer.expiry(now)
    }

    /// The signed path of one variant of a media for the member, valid until `exp`.
    pub fn url(&self, media_id: &str, variant: &str, exp: u64) -> String {
        let sig = hex::encode(
            self.signer
                .mac(media_id, variant, exp, UrlScope::Member(self.member))
                .finalize()
                .into_bytes(),
        );
        format!(
            "/api/v1/files/{media_id}/{variant}?exp={exp}&m={}&sig={sig}",
            self.member
        )
    }

    /// [`MemberSigner::url`], from this thread's cache of the URLs signed for this signer,
    /// member and expiry (the same bytes either way).
    pub fn cached_url(&self, media_id: &str, variant: &'static str, exp: u64) -> String {
        SIGNED.with(|cell| {
            let mut cache = cell.borrow_mut();
            if cache.signer != self.signer.id
                || cache.exp != exp
                || cache.member != self.member
                || cache.count >= CACHED_URLS
            {
                *cache = SignedUrls {
                    signer: self.signer.id,
                    member: self.member.to_owned(),
                    exp,
                    ..SignedUrls::default()
                };
            }
            if let Some(found) = cache
                .urls
                .get(media_id)
                .and_then(|urls| urls.iter().find(|(v, _)| *v == variant))
            {
                return found.1.clone();
            }
            let url = self.url(media_id, variant, exp);
            cache
                .urls
                .entry(media_id.to_owned())
                .or_default()
                .push((variant, url.clone()));
            cache.count += 1;
            url
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_hmac_of_the_newline_separated_parts_under_the_derived_key() {
        let hmac = |key: &[u8], message: &[u8]| {
            let mut mac = HmacSha256::new_from_slice(key).unwrap();
            mac.update(message);
            mac.finalize().into_bytes()
        };
        let key = hmac(b"secret", b"regard media url signing key v1");
        let signer = UrlSigner::new(b"secret", 3600);
        let member = hex::encode(hmac(&key, b"m1\npreview\n1700000000\nmember u7"));
        assert_eq!(
            signer.for_member("u7").url("m1", "preview", 1_700_000_000),
            format!("/api/v1/files/m1/preview?exp=1700000000&m=u7&sig={member}")
        );
        let shared = hex::encode(hmac(&key, b"m1\nthumbnail\n1700000000\nshare s9"));
        assert_eq!(
            signer.share_url("m1", "thumbnail", "s9", 1_700_000_000),
            format!("/api/v1/files/m1/thumbnail?exp=1700000000&share=s9&sig={shared}")
        );
    }

    #[test]
    fn cached_urls_are_the_signed_ones_per_signer_member_and_expiry() {
        let (a, b) = (
            UrlSigner::new(b"secret", 3600),
            UrlSigner::new(b"other", 3600),
        );
        for exp in [1_700_000_000, 1_700_000_900] {
            for signer in [&a, &b, &a.clone()] {
                for member in ["u1", "u2"] {
                    for variant in ["original", "preview", "thumbnail"] {
                        for _ in 0..2 {
                            let signer = signer.for_member(member);
                            assert_eq!(
                                signer.cached_url("m1", variant, exp),
                                signer.url("m1", variant, exp)
                            );
                        }
                    }
                }
            }
        }
        assert_ne!(
            a.for_member("u1")
                .cached_url("m1", "preview", 1_700_000_000),
            b.for_member("u1")
                .cached_url("m1", "preview", 1_700_000_000)
        );
        assert_ne!(
            a.for_member("u1")
                .cached_url("m1", "preview", 1_700_000_000),
            a.for_member("u2")
                .cached_url("m1", "preview", 1_700_000_000)
        );
    }

    fn sig_of(url: &str) -> &str {
        url.rsplit_once("sig=").unwrap().1
    }

    #[test]
    fn a_signed_url_verifies_for_its_member_until_it_expires() {
        let signer = UrlSigner::new(b"secret", 3600);
        let exp = signer.expiry(1_000_000);
        assert!(exp > 1_000_000 + 2700 && exp <= 1_000_000 + 3600);
        let url = signer.for_member("u1").url("id", "preview", exp);
        let sig = sig_of(&url);
        let u1 = UrlScope::Member("u1");
        assert_eq!(
            signer.verify("id", "preview", exp, u1, sig, 1_000_000),
            Ok(exp - 1_000_000)
        );
        assert_eq!(
            signer.verify("id", "preview", exp, u1, sig, exp),
            Err(SignatureError::Expired)
        );
        for (id, variant, e, scope) in [
            ("other", "preview", exp, u1),
            ("id", "original", exp, u1),
            ("id", "preview", exp + 1, u1),
            ("id", "preview", exp, UrlScope::Member("u2")),
            ("id", "preview", exp, UrlScope::Share("u1")),
        ] {
            assert_eq!(
                signer.verify(id, variant, e, scope, sig, 1_000_000),
                Err(SignatureError::Invalid)
            );
        }
        let other_key = UrlSigner::new(b"other secret", 3600);
        assert_eq!(
            other_key.verify("id", "preview", exp, u1, sig, 1_000_000),
            Err(SignatureError::Invalid)
        );
        assert_eq!(
            signer.verify("id", "preview", exp, u1, "zz", 1_000_000),
            Err(SignatureError::Invalid)
        );
    }

    #[test]
    fn a_share_url_only_verifies_for_its_share() {
        let signer = UrlSigner::new(b"secret", 3600);
        let exp = UrlSigner::share_expiry(1_000_000);
        assert!(exp > 1_000_000 + 3 * SHARE_URL_TTL / 4 && exp <= 1_000_000 + SHARE_URL_TTL);
        let url = signer.share_url("id", "preview", "s1", exp);
        assert!(url.contains("&share=s1&"));
        let check = |scope| signer.verify("id", "preview", exp, scope, sig_of(&url), 1_000_000);
        assert_eq!(check(UrlScope::Share("s1")), Ok(exp - 1_000_000));
        assert_eq!(check(UrlScope::Share("s2")), Err(SignatureError::Invalid));
        assert_eq!(check(UrlScope::Member("s1")), Err(SignatureError::Invalid));
    }

    #[test]
    fn a_zero_ttl_gives_urls_that_are_already_expired() {
        let signer = UrlSigner::new(b"secret", 0);
        let exp = signer.expiry(500);
        let url = signer.for_member("u").url("id", "original", exp);
        assert_eq!(
            signer.verify(
                "id",
                "original",
                exp,
                UrlScope::Member("u"),
                sig_of(&url),
                500
            ),
            Err(SignatureError::Expired)
        );
    }
}
