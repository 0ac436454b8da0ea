//! The keys that sign and verify access tokens, as GoTrue's `GOTRUE_JWT_SECRET` and
//! `GOTRUE_JWT_KEYS`:
//!
//! * by default one HS256 secret (`REGARD_JWT_SECRET`, or `<data dir>/jwt_secret`);
//! * with `REGARD_JWT_KEYS`, a JSON array of private JWKs: `oct` (HS256), `RSA` (RS256) or `EC`
//!   P-256 (ES256). The one whose `key_ops` holds `sign` signs, with its `kid` in the header;
//!   every key verifies the tokens whose header names its `kid`, and a token without a `kid`
//!   is checked against the HS256 secret. Rotation: add a new key with `sign`, turn the old
//!   one's `key_ops` to `["verify"]`, and drop it once its last tokens have expired
//!   (`REGARD_JWT_EXP`).
//!
//! `GET /auth/v1/.well-known/jwks.json` publishes the public halves of the asymmetric keys
//! (never a secret), so clients such as auth-js's `getClaims` verify tokens locally.
//! `regard keys generate` prints a new ES256 key.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Why a key set cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("REGARD_JWT_KEYS is not a JSON array of JWKs: {0}")]
    NotJson(String),
    #[error("key {index}: {reason}")]
    Key { index: usize, reason: String },
    #[error("REGARD_JWT_KEYS needs exactly one key whose key_ops holds \"sign\" (found {0})")]
    Signers(usize),
}

/// One key that verifies tokens.
#[derive(Clone)]
struct Verifier {
    kid: Option<String>,
    algorithm: Algorithm,
    key: DecodingKey,
}

/// The key that signs new tokens.
#[derive(Clone)]
struct Signer {
    kid: Option<String>,
    algorithm: Algorithm,
    key: EncodingKey,
}

/// Signing and verification keys for access tokens.
#[derive(Clone)]
pub struct JwtKeys {
    signer: Signer,
    verifiers: Vec<Verifier>,
    /// For tokens without a `kid` (HS256 with the secret, as GoTrue).
    secret: DecodingKey,
    /// The public JWKs of `/.well-known/jwks.json`.
    public: Vec<Value>,
    /// The `iss` this server writes (`REGARD_JWT_ISSUER`); a token naming another is refused.
    issuer: Option<String>,
    /// Derives a refresh token's child from it ([`JwtKeys::refresh_child`]).
    refresh_key: [u8; 32],
}

/// The key of [`JwtKeys::refresh_child`], from the server's secret.
fn refresh_key(secret: &[u8]) -> [u8; 32] {
    let hkdf = hkdf::Hkdf::<sha2::Sha256>::new(Some(b"regard"), secret);
    let mut key = [0u8; 32];
    hkdf.expand(b"regard refresh token children v1", &mut key)
        .expect("32 bytes is a valid HKDF-SHA-256 output length");
    key
}

fn b64(value: &Value, member: &str) -> Result<Vec<u8>, String> {
    let text = value
        .get(member)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("missing \"{member}\""))?;
    URL_SAFE_NO_PAD
        .decode(text.trim_end_matches('='))
        .map_err(|err| format!("\"{member}\" is not base64url: {err}"))
}

fn text<'a>(value: &'a Value, member: &str) -> Option<&'a str> {
    value.get(member).and_then(Value::as_str)
}

/// A key of the set: how it verifies, how it signs (when it has its private half), and its
/// public JWK (asymmetric keys only).
struct Parsed {
    verifier: Verifier,
    signer: Option<Signer>,
    public: Option<Value>,
    signs: bool,
}

fn parse_key(jwk: &Value) -> Result<Parsed, String> {
    let kid = text(jwk, "kid").map(str::to_owned);
    let ops: Vec<&str> = jwk
        .get("key_ops")
        .and_then(Value::as_array)
        .map(|ops| ops.iter().filter_map(Value::as_str).collect())
        .unwrap_or_else(|| vec!["verify"]);
    let signs = ops.contains(&"sign");
    let alg = text(jwk, "alg");
    match text(jwk, "kty") {
        Some("oct") => {
            if alg.is_some_and(|a| a != "HS256") {
                return Err("oct keys must be HS256".into());
            }
            let secret = b64(jwk, "k")?;
            Ok(Parsed {
                verifier: Verifier {
                    kid: kid.clone(),
                    algorithm: Algorithm::HS256,
                    key: DecodingKey::from_secret(&secret),
                },
                signer: Some(Signer {
                    kid,
                    algorithm: Algorithm::HS256,
                    key: EncodingKey::from_secret(&secret),
                }),
                public: None,
                signs,
            })
        }
        Some("RSA") => {
            if alg.is_some_and(|a| a != "RS256") {
                return Err("RSA keys must be RS256".into());
            }
            let n = text(jwk, "n").ok_or("missing \"n\"")?;
            let e = text(jwk, "e").ok_or("missing \"e\"")?;
            let key = DecodingKey::from_rsa_components(n, e).map_err(|err| err.to_string())?;
            let signer = if jwk.get("d").is_some() {
                Some(Signer {
                    kid: kid.clone(),
                    algorithm: Algorithm::RS256,
                    key: rsa_encoding_key(jwk)?,
                })
            } else {
                None
            };
            Ok(Parsed {
                verifier: Verifier {
                    kid: kid.clone(),
                    algorithm: Algorithm::RS256,
                    key,
                },
                signer,
                public: Some(json!({
                    "kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig",
                    "key_ops": ["verify"], "n": n, "e": e,
                })),
                signs,
            })
        }
        Some("EC") => {
            if text(jwk, "crv") != Some("P-256") || alg.is_some_and(|a| a != "ES256") {
                return Err("EC keys must be P-256 (ES256)".into());
            }
            let x = text(jwk, "x").ok_or("missing \"x\"")?;
            let y = text(jwk, "y").ok_or("missing \"y\"")?;
            let key = DecodingKey::from_ec_components(x, y).map_err(|err| err.to_string())?;
            let signer = if jwk.get("d").is_some() {
                Some(Signer {
                    kid: kid.clone(),
                    algorithm: Algorithm::ES256,
                    key: ec_encoding_key(&b64(jwk, "d")?)?,
                })
            } else {
                None
            };
            Ok(Parsed {
                verifier: Verifier {
                    kid: kid.clone(),
                    algorithm: Algorithm::ES256,
                    key,
                },
                signer,
                public: Some(json!({
                    "kty": "EC", "kid": kid, "alg": "ES256", "use": "sig",
                    "key_ops": ["verify"], "crv": "P-256", "x": x, "y": y,
                })),
                signs,
            })
        }
        other => Err(format!(
            "unsupported key type {other:?}: use oct (HS256), RSA (RS256) or EC P-256 (ES256)"
        )),
    }
}

fn rsa_encoding_key(jwk: &Value) -> Result<EncodingKey, String> {
    use rsa::BigUint;
    use rsa::pkcs1::EncodeRsaPrivateKey;
    let int = |member: &str| b64(jwk, member).map(|bytes| BigUint::from_bytes_be(&bytes));
    let key = rsa::RsaPrivateKey::from_components(
        int("n")?,
        int("e")?,
        int("d")?,
        vec![int("p")?, int("q")?],
    )
    .map_err(|err| format!("invalid RSA private key: {err}"))?;
    let der = key
        .to_pkcs1_der()
        .map_err(|err| format!("cannot encode the RSA key: {err}"))?;
    Ok(EncodingKey::from_rsa_der(der.as_bytes()))
}

fn ec_encoding_key(d: &[u8]) -> Result<EncodingKey, String> {
    use p256::pkcs8::EncodePrivateKey;
    let key = p256::SecretKey::from_slice(d)
        .map_err(|err| format!("invalid P-256 private key: {err}"))?;
    let der = key
        .to_pkcs8_der()
        .map_err(|err| format!("cannot encode the P-256 key: {err}"))?;
    Ok(EncodingKey::from_ec_der(der.as_bytes()))
}

impl JwtKeys {
    /// Keys for an HS256 secret only (the default).
    pub fn from_secret(secret: &[u8]) -> Self {
        Self {
            signer: Signer {
                kid: None,
                algorithm: Algorithm::HS256,
                key: EncodingKey::from_secret(secret),
            },
            verifiers: Vec::new(),
            secret: DecodingKey::from_secret(secret),
            public: Vec::new(),
            issuer: None,
            refresh_key: refresh_key(secret),
        }
    }

    /// The HS256 secret plus a JWK set (`REGARD_JWT_KEYS`).
    pub fn from_jwks(secret: &[u8], jwks: &str) -> Result<Self, KeyError> {
        let keys: Vec<Value> =
            serde_json::from_str(jwks).map_err(|err| KeyError::NotJson(err.to_string()))?;
        let mut verifiers = Vec::new();
        let mut signers = Vec::new();
        let mut public = Vec::new();
        for (index, jwk) in keys.iter().enumerate() {
            let parsed = parse_key(jwk).map_err(|reason| KeyError::Key { index, reason })?;
            if parsed.verifier.kid.is_none() {
                return Err(KeyError::Key {
                    index,
                    reason: "every key needs a \"kid\"".into(),
                });
            }
            if parsed.signs {
                signers.push(parsed.signer.ok_or_else(|| KeyError::Key {
                    index,
                    reason: "a signing key needs its private half (\"d\")".into(),
                })?);
            }
            public.extend(parsed.public);
            verifiers.push(parsed.verifier);
        }
        if signers.len() != 1 {
            return Err(KeyError::Signers(signers.len()));
        }
        Ok(Self {
            signer: signers.remove(0),
            verifiers,
            secret: DecodingKey::from_secret(secret),
            public,
            issuer: None,
            refresh_key: refresh_key(secret),
        })
    }

    /// These keys, refusing tokens whose `iss` is not `issuer` (the server's own,
    /// `Config::issuer`). An empty issuer checks nothing (the server then writes none).
    #[must_use]
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into()).filter(|issuer| !issuer.is_empty());
        self
    }

    /// The refresh token that replaces `parent` on rotation: 32 lowercase letters and digits
    /// from an HMAC-SHA-256 of it with a key of the server's secret. Only its hash is stored,
    /// so the server can hand a client that lost an answer the same child again (GoTrue's
    /// reuse rules) without keeping any token, and nobody without the secret can work a
    /// session's current token out from an old one.
    pub fn refresh_child(&self, parent: &str) -> String {
        use hmac::Mac;
        const ALPHABET: &[u8; 36] = b"abcdefghijklmnopqrstuvwxyz0123456789";
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&self.refresh_key)
            .expect("HMAC accepts any key length");
        mac.update(parent.as_bytes());
        mac.finalize()
            .into_bytes()
            .iter()
            .map(|byte| char::from(ALPHABET[usize::from(*byte) % ALPHABET.len()]))
            .collect()
    }

    /// Signs claims into a compact JWT with the signing key (and its `kid`).
    pub fn sign<T: Serialize>(&self, claims: &T) -> Result<String, jsonwebtoken::errors::Error> {
        let mut header = Header::new(self.signer.algorithm);
        header.kid.clone_from(&self.signer.kid);
        jsonwebtoken::encode(&header, claims, &self.signer.key)
    }

    /// The public keys, as `/.well-known/jwks.json` serves them.
    pub fn public_jwks(&self) -> Value {
        json!({ "keys": self.public })
    }

    /// The key for a token's header: its `kid`'s, or the HS256 secret without one.
    fn key_for(
        &self,
        token: &str,
    ) -> Result<(Algorithm, &DecodingKey), jsonwebtoken::errors::Error> {
        use jsonwebtoken::errors::{Error, ErrorKind};
        let header = jsonwebtoken::decode_header(token)?;
        match &header.kid {
            Some(kid) => self
                .verifiers
                .iter()
                .find(|v| v.kid.as_deref() == Some(kid.as_str()) && v.algorithm == header.alg)
                .map(|v| (v.algorithm, &v.key))
                .ok_or_else(|| Error::from(ErrorKind::InvalidKeyFormat)),
            None if header.alg == Algorithm::HS256 => Ok((Algorithm::HS256, &self.secret)),
            None => Err(Error::from(ErrorKind::InvalidAlgorithm)),
        }
    }

    fn decode<T: DeserializeOwned>(
        &self,
        token: &str,
        required: &[&str],
    ) -> Result<T, jsonwebtoken::errors::Error> {
        let (algorithm, key) = self.key_for(token)?;
        let mut validation = Validation::new(algorithm);
        validation.validate_aud = false;
        validation.validate_nbf = true;
        validation.leeway = 0;
        validation.set_required_spec_claims(required);
        if let Some(issuer) = &self.issuer {
            validation.set_issuer(&[issuer]);
        }
        jsonwebtoken::decode::<T>(token, key, &validation).map(|data| data.claims)
    }

    /// Verifies signature, expiry, `nbf` and issuer of an access token: it must name this
    /// server's `iss` (GoTrue does not check it; a token minted for another service with the
    /// same secret is refused here). The audience is not checked, as GoTrue does not on its
    /// generic authenticated routes.
    pub fn verify<T: DeserializeOwned>(
        &self,
        token: &str,
    ) -> Result<T, jsonwebtoken::errors::Error> {
        if self.issuer.is_some() {
            self.decode(token, &["exp", "sub", "iss"])
        } else {
            self.decode(token, &["exp", "sub"])
        }
    }

    /// Verifies the signature and, when the token has them, the expiry, `nbf` and issuer (which
    /// must then be this server's), and returns the claims as they are: admin tokens
    /// (`service_role`) carry no subject or session, and may carry no issuer (auth-js's suite
    /// signs them so); whether one without `exp` is taken is the admin API's decision.
    pub fn verify_any(&self, token: &str) -> Result<Value, jsonwebtoken::errors::Error> {
        self.decode(token, &[])
    }
}

/// A new ES256 private JWK with a fresh `kid` and `key_ops: ["sign", "verify"]`, for
/// `REGARD_JWT_KEYS` (`regard keys generate`).
pub fn generate_es256() -> Value {
    use rand::Rng;
    // A uniformly random scalar; the rare value outside the curve order is drawn again.
    let secret = loop {
        let bytes: [u8; 32] = rand::rng().random();
        if let Ok(key) = p256::SecretKey::from_slice(&bytes) {
            break key;
        }
    };
    let point =
        p256::elliptic_curve::sec1::ToEncodedPoint::to_encoded_point(&secret.public_key(), false);
    let encode = |bytes: &[u8]| URL_SAFE_NO_PAD.encode(bytes);
    json!({
        "kty": "EC",
        "crv": "P-256",
        "alg": "ES256",
        "kid": uuid::Uuid::new_v4().to_string(),
        "key_ops": ["sign", "verify"],
        "x": encode(&point.x().map(|x| x.to_vec()).unwrap_or_default()),
        "y": encode(&point.y().map(|y| y.to_vec()).unwrap_or_default()),
        "d": encode(&secret.to_bytes()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Serialize, serde::Deserialize, PartialEq)]
    struct Claims {
        sub: String,
        exp: i64,
    }

    fn claims() -> Claims {
        Claims {
            sub: "someone".into(),
            exp: chrono::Utc::now().timestamp() + 60,
        }
    }

    #[test]
    fn an_es256_key_signs_with_its_kid_and_publishes_its_public_half_only() {
        let jwk = generate_es256();
        let kid = jwk["kid"].as_str().unwrap().to_owned();
        let keys = JwtKeys::from_jwks(b"secret", &json!([jwk]).to_string()).unwrap();
        let token = keys.sign(&claims()).unwrap();
        let header = jsonwebtoken::decode_header(&token).unwrap();
        assert_eq!(header.alg, Algorithm::ES256);
        assert_eq!(header.kid.as_deref(), Some(kid.as_str()));
        assert_eq!(keys.verify::<Claims>(&token).unwrap(), claims());
        let public = keys.public_jwks();
        assert_eq!(public["keys"][0]["kid"], kid);
        assert!(public["keys"][0].get("d").is_none());
    }

    #[test]
    fn rotation_keeps_old_tokens_valid_and_signs_with_the_new_key() {
        let old = generate_es256();
        let old_keys = JwtKeys::from_jwks(b"secret", &json!([old]).to_string()).unwrap();
        let old_token = old_keys.sign(&claims()).unwrap();
        let mut retired = old.clone();
        retired["key_ops"] = json!(["verify"]);
        let new = generate_es256();
        let keys = JwtKeys::from_jwks(b"secret", &json!([retired, new]).to_string()).unwrap();
        assert!(keys.verify::<Claims>(&old_token).is_ok());
        let token = keys.sign(&claims()).unwrap();
        let kid = jsonwebtoken::decode_header(&token).unwrap().kid.unwrap();
        assert_eq!(kid, new["kid"].as_str().unwrap());
        // Dropping the old key ends its tokens.
        let only_new = JwtKeys::from_jwks(b"secret", &json!([new]).to_string()).unwrap();
        assert!(only_new.verify::<Claims>(&old_token).is_err());
    }

    #[test]
    fn tokens_without_kid_use_the_secret_and_hs256_stays_the_default() {
        let keys = JwtKeys::from_secret(b"secret");
        let token = keys.sign(&claims()).unwrap();
        let header = jsonwebtoken::decode_header(&token).unwrap();
        assert_eq!(header.alg, Algorithm::HS256);
        assert!(header.kid.is_none());
        assert!(keys.verify::<Claims>(&token).is_ok());
        assert_eq!(keys.public_jwks(), json!({"keys": []}));
        // A key set verifies secret-signed tokens too (no kid): existing sessions survive
        // the switch to asymmetric keys.
        let asymmetric =
            JwtKeys::from_jwks(b"secret", &json!([generate_es256()]).to_string()).unwrap();
        assert!(asymmetric.verify::<Claims>(&token).is_ok());
        assert!(
            JwtKeys::from_secret(b"other")
                .verify::<Claims>(&token)
                .is_err()
        );
    }

    #[test]
    fn bad_key_sets_are_refused_with_a_reason() {
        let two = json!([generate_es256(), generate_es256()]).to_string();
        assert!(matches!(
            JwtKeys::from_jwks(b"s", &two),
            Err(KeyError::Signers(2))
        ));
        let mut public_only = generate_es256();
        public_only.as_object_mut().unwrap().remove("d");
        assert!(JwtKeys::from_jwks(b"s", &json!([public_only]).to_string()).is_err());
        assert!(JwtKeys::from_jwks(b"s", "not json").is_err());
        assert!(
            JwtKeys::from_jwks(b"s", &json!([{"kty": "OKP", "kid": "x"}]).to_string()).is_err()
        );
    }

    #[test]
    fn foreign_issuers_and_tokens_not_yet_valid_are_refused() {
        let now = chrono::Utc::now().timestamp();
        let keys = JwtKeys::from_secret(b"secret").with_issuer("https://regard.example/auth/v1");
        let token = |claims: Value| keys.sign(&claims).unwrap();
        let ours =
            json!({"sub": "someone", "exp": now + 60, "iss": "https://regard.example/auth/v1"});
        assert!(keys.verify::<Value>(&token(ours.clone())).is_ok());
        let mut foreign = ours.clone();
        foreign["iss"] = json!("https://evil.example");
        assert!(keys.verify::<Value>(&token(foreign.clone())).is_err());
        assert!(keys.verify_any(&token(foreign)).is_err());
        // An access token without an issuer is not one of ours; an admin token may lack it.
        let mut anonymous = ours.clone();
        anonymous.as_object_mut().unwrap().remove("iss");
        assert!(keys.verify::<Value>(&token(anonymous.clone())).is_err());
        assert!(keys.verify_any(&token(anonymous)).is_ok());
        // `nbf` in the future: not yet.
        let mut early = ours.clone();
        early["nbf"] = json!(now + 600);
        assert!(keys.verify::<Value>(&token(early.clone())).is_err());
        assert!(keys.verify_any(&token(early)).is_err());
        let mut due = ours;
        due["nbf"] = json!(now - 1);
        assert!(keys.verify::<Value>(&token(due)).is_ok());
        // Without a configured issuer, nothing is compared.
        let plain = JwtKeys::from_secret(b"secret");
        assert!(
            plain
                .verify::<Value>(&token(json!({"sub": "x", "exp": now + 60, "iss": "other"})))
                .is_ok()
        );
    }
}
