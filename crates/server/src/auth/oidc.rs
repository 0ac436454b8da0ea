//! OpenID Connect relying party: for each configured provider, issuer discovery, the
//! authorization URL, the code exchange at the token endpoint, and ID-token verification
//! (signature from the provider's JWKS, issuer, audience, expiry, nonce).
//!
//! Discovery is lazy and cached for [`DISCOVERY_TTL`], so a provider that is down when the
//! server starts only fails its own sign-ins. The JWKS is cached for as long, and fetched again
//! once when a token names a key it does not hold (the provider rotated its keys). Nothing
//! secret (client secret, codes, tokens) is ever logged.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use serde_json::Value;

use crate::config::OAuthProviderConfig;

/// How long a discovery document and a JWKS are reused.
pub const DISCOVERY_TTL: Duration = Duration::from_secs(3600);
/// Time allowed for one request to a provider.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Clock skew tolerated on `exp`, `nbf` and `iat`.
const LEEWAY_SECS: u64 = 60;
/// Signature algorithms accepted for ID tokens (never HMAC: the key would be public).
const ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Why talking to a provider failed. Messages name the step and never carry secrets.
#[derive(Debug, thiserror::Error)]
pub enum OidcError {
    /// The discovery document or the JWKS could not be fetched or read.
    #[error("provider metadata unavailable: {0}")]
    Metadata(String),
    /// The token endpoint refused the code or answered something unusable.
    #[error("code exchange failed: {0}")]
    Exchange(String),
    /// The ID token failed verification.
    #[error("ID token rejected: {0}")]
    IdToken(String),
}

/// The parts of a provider's discovery document we use.
#[derive(Debug, Clone, Deserialize)]
pub struct Discovery {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub jwks_uri: String,
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Vec<String>,
}

/// The token endpoint's answer.
#[derive(Debug, Clone, Deserialize)]
pub struct TokenResponse {
    pub access_token: Option<String>,
    pub refresh_token: Option<String>,
    pub id_token: Option<String>,
}

/// The verified claims of an ID token that we keep.
#[derive(Debug, Clone, PartialEq)]
pub struct IdClaims {
    pub issuer: String,
    pub subject: String,
    pub email: Option<String>,
    pub email_verified: bool,
    /// Every claim of the token, for the identity's data.
    pub raw: serde_json::Map<String, Value>,
}

struct Cached<T> {
    fetched: Instant,
    value: Arc<T>,
}

/// One configured provider, with its caches.
pub struct Provider {
    config: OAuthProviderConfig,
    http: reqwest::Client,
    discovery: Mutex<Option<Cached<Discovery>>>,
    jwks: Mutex<Option<Cached<Vec<Jwk>>>>,
}

/// Every configured provider, by name.
pub struct Providers {
    by_name: BTreeMap<String, Arc<Provider>>,
}

impl Providers {
    /// The providers of the configuration (nothing is fetched yet).
    pub fn new(configs: &[OAuthProviderConfig]) -> Result<Self, OidcError> {
        crate::tls::install_provider();
        let http = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .connect_timeout(REQUEST_TIMEOUT)
            .redirect(reqwest::redirect::Policy::limited(3))
            .user_agent(concat!("regard/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|err| OidcError::Metadata(format!("cannot build the HTTP client: {err}")))?;
        let by_name = configs
            .iter()
            .map(|config| {
                let provider = Provider {
                    config: config.clone(),
                    http: http.clone(),
                    discovery: Mutex::new(None),
                    jwks: Mutex::new(None),
                };
                (config.name.clone(), Arc::new(provider))
            })
            .collect();
        Ok(Self { by_name })
    }

    /// The provider with this (lowercase) name.
    pub fn get(&self, name: &str) -> Option<Arc<Provider>> {
        self.by_name.get(name).cloned()
    }

    /// The configured names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.by_name.keys().map(String::as_str)
    }
}

fn fresh<T>(slot: &Mutex<Option<Cached<T>>>) -> Option<Arc<T>> {
    let guard = slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    guard
        .as_ref()
        .filter(|cached| cached.fetched.elapsed() < DISCOVERY_TTL)
        .map(|cached| Arc::clone(&cached.value))
}

fn store<T>(slot: &Mutex<Option<Cached<T>>>, value: T) -> Arc<T> {
    let value = Arc::new(value);
    let mut guard = slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    *guard = Some(Cached {
        fetched: Instant::now(),
        value: Arc::clone(&value),
    });
    value
}

fn same_issuer(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

impl Provider {
    /// The provider's name.
    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// The discovery document, fetched when not cached (or stale).
    pub async fn discovery(&self) -> Result<Arc<Discovery>, OidcError> {
        if let Some(discovery) = fresh(&self.discovery) {
            return Ok(discovery);
        }
        let url = format!(
            "{}/.well-known/openid-configuration",
            self.config.issuer.trim_end_matches('/')
        );
        let discovery: Discovery = self
            .get_json(&url)
            .await
            .map_err(|err| OidcError::Metadata(format!("discovery at {url}: {err}")))?;
        if !same_issuer(&discovery.issuer, &self.config.issuer) {
            return Err(OidcError::Metadata(format!(
                "discovery at {url} names issuer {:?}",
                discovery.issuer
            )));
        }
        Ok(store(&self.discovery, discovery))
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, String> {
        let response = self
            .http
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|err| err.without_url().to_string())?;
        if !response.status().is_success() {
            return Err(format!("status {}", response.status()));
        }
        response
            .json()
            .await
            .map_err(|err| err.without_url().to_string())
    }

    /// The provider's authorization URL for a flow: `state`, `nonce`, our callback, the
    /// configured scopes plus `extra_scopes` (space separated), and `extra` parameters.
    pub async fn authorization_url(
        &self,
        state: &str,
        nonce: &str,
        redirect_uri: &str,
        extra_scopes: &str,
        extra: &[(String, String)],
    ) -> Result<String, OidcError> {
        let discovery = self.discovery().await?;
        let mut url = url::Url::parse(&discovery.authorization_endpoint).map_err(|err| {
            OidcError::Metadata(format!("authorization_endpoint is not a URL: {err}"))
        })?;
        let mut scopes: Vec<&str> = vec!["openid"];
        for scope in self
            .config
            .scopes
            .iter()
            .map(String::as_str)
            .chain(extra_scopes.split([' ', ',']))
        {
            if !scope.is_empty() && !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &self.config.client_id)
                .append_pair("redirect_uri", redirect_uri)
                .append_pair("scope", &scopes.join(" "))
                .append_pair("state", state)
                .append_pair("nonce", nonce);
            for (key, value) in extra {
                query.append_pair(key, value);
            }
        }
        Ok(url.into())
    }

    /// Exchanges an authorization code at the token endpoint (client secret sent with HTTP
    /// basic authentication when the provider supports it, as the spec's default, otherwise
    /// in the form).
    pub async fn exchange(
        &self,
        code: &str,
        redirect_uri: &str,
    ) -> Result<TokenResponse, OidcError> {
        let discovery = self.discovery().await?;
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
        ];
        let methods = &discovery.token_endpoint_auth_methods_supported;
        let basic = methods.is_empty() || methods.iter().any(|m| m == "client_secret_basic");
        let mut request = self
            .http
            .post(&discovery.token_endpoint)
            .header(reqwest::header::ACCEPT, "application/json");
        match &self.config.client_secret {
            Some(secret) if basic => {
                // RFC 6749 §2.3.1: both parts are form-encoded before the basic encoding.
                let encode = |s: &str| {
                    url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>()
                };
                request = request.basic_auth(
                    encode(&self.config.client_id),
                    Some(encode(secret.expose())),
                );
            }
            Some(secret) => {
                form.push(("client_id", &self.config.client_id));
                form.push(("client_secret", secret.expose()));
            }
            None => form.push(("client_id", &self.config.client_id)),
        }
        let response = request
            .form(&form)
            .send()
            .await
            .map_err(|err| OidcError::Exchange(err.without_url().to_string()))?;
        let status = response.status();
        if !status.is_success() {
            // The OAuth error code is safe to log; the rest of the body is not needed.
            let body: Value = response.json().await.unwrap_or(Value::Null);
            let error = body["error"].as_str().unwrap_or("unknown");
            return Err(OidcError::Exchange(format!(
                "status {status}, error {error}"
            )));
        }
        response
            .json()
            .await
            .map_err(|err| OidcError::Exchange(format!("unreadable answer: {}", err.without_url())))
    }

    /// The provider's signing keys; `refresh` skips the cache.
    async fn keys(&self, refresh: bool) -> Result<Arc<Vec<Jwk>>, OidcError> {
        if !refresh && let Some(keys) = fresh(&self.jwks) {
            return Ok(keys);
        }
        let discovery = self.discovery().await?;
        let set: Value = self
            .get_json(&discovery.jwks_uri)
            .await
            .map_err(|err| OidcError::Metadata(format!("JWKS: {err}")))?;
        // Keys are read one by one so that one the library does not know (an encryption key,
        // a new curve) does not hide the others.
        let keys = set["keys"]
            .as_array()
            .map(|keys| {
                keys.iter()
                    .filter_map(|key| serde_json::from_value::<Jwk>(key.clone()).ok())
                    .filter(|key| {
                        !matches!(key.common.public_key_use, Some(PublicKeyUse::Encryption))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(store(&self.jwks, keys))
    }

    /// Verifies an ID token: an asymmetric signature by a key of the provider's JWKS, `iss`
    /// (the discovered issuer), `aud` (our client id; `azp` too when there are several
    /// audiences), `exp` and `nbf` (with [`LEEWAY_SECS`]), and `nonce` when one is expected.
    pub async fn verify_id_token(
        &self,
        id_token: &str,
        expected_nonce: Option<&str>,
    ) -> Result<IdClaims, OidcError> {
        let reject = |why: &str| OidcError::IdToken(why.to_owned());
        let header =
            jsonwebtoken::decode_header(id_token).map_err(|_| reject("not a signed JWT"))?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(reject("unsupported signature algorithm"));
        }
        let discovery = self.discovery().await?;
        let mut keys = self.keys(false).await?;
        if header.kid.is_some() && !keys.iter().any(|k| k.common.key_id == header.kid) {
            keys = self.keys(true).await?;
        }
        let candidates: Vec<&Jwk> = keys
            .iter()
            .filter(|k| header.kid.is_none() || k.common.key_id == header.kid)
            .collect();
        if candidates.is_empty() {
            return Err(reject("signed by a key the provider does not publish"));
        }

        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[discovery.issuer.as_str()]);
        validation.set_audience(&[self.config.client_id.as_str()]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.leeway = LEEWAY_SECS;
        validation.validate_nbf = true;

        let mut last_error = reject("no usable key");
        for jwk in candidates {
            let Ok(key) = DecodingKey::from_jwk(jwk) else {
                continue;
            };
            match jsonwebtoken::decode::<serde_json::Map<String, Value>>(
                id_token,
                &key,
                &validation,
            ) {
                Ok(data) => {
                    return check_claims(data.claims, &self.config.client_id, expected_nonce);
                }
                Err(err) => last_error = reject(&describe(&err)),
            }
        }
        Err(last_error)
    }
}

/// A short reason for a failed verification (the library's errors carry no token content).
fn describe(err: &jsonwebtoken::errors::Error) -> String {
    use jsonwebtoken::errors::ErrorKind;
    match err.kind() {
        ErrorKind::InvalidSignature => "bad signature".to_owned(),
        ErrorKind::ExpiredSignature => "expired".to_owned(),
        ErrorKind::ImmatureSignature => "not valid yet".to_owned(),
        ErrorKind::InvalidIssuer => "wrong issuer".to_owned(),
        ErrorKind::InvalidAudience => "wrong audience".to_owned(),
        ErrorKind::MissingRequiredClaim(claim) => format!("missing claim {claim}"),
        ErrorKind::InvalidAlgorithm => "algorithm does not match the key".to_owned(),
        other => format!("{other:?}"),
    }
}

/// The checks the library does not do: `azp` with several audiences, the nonce, the subject.
fn check_claims(
    claims: serde_json::Map<String, Value>,
    client_id: &str,
    expected_nonce: Option<&str>,
) -> Result<IdClaims, OidcError> {
    let reject = |why: &str| Err(OidcError::IdToken(why.to_owned()));
    if let Some(Value::Array(audiences)) = claims.get("aud")
        && audiences.len() > 1
        && claims.get("azp").and_then(Value::as_str) != Some(client_id)
    {
        return reject("several audiences and azp is not us");
    }
    if let Some(expected) = expected_nonce
        && claims.get("nonce").and_then(Value::as_str) != Some(expected)
    {
        return reject("wrong nonce");
    }
    let Some(subject) = claims
        .get("sub")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    else {
        return reject("empty subject");
    };
    let email = claims
        .get("email")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(str::to_owned);
    // Some providers send the flag as a string.
    let email_verified = match claims.get("email_verified") {
        Some(Value::Bool(verified)) => *verified,
        Some(Value::String(text)) => text.eq_ignore_ascii_case("true"),
        _ => false,
    };
    Ok(IdClaims {
        issuer: claims
            .get("iss")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        subject: subject.to_owned(),
        email,
        email_verified,
        raw: claims,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nonce_azp_and_email_flags_are_checked() {
        let base = json!({"iss": "https://idp", "sub": "42", "aud": "client", "nonce": "n1",
                          "email": " a@b.c ", "email_verified": "TRUE"});
        let claims = |value: Value| value.as_object().unwrap().clone();
        let ok = check_claims(claims(base.clone()), "client", Some("n1")).unwrap();
        assert_eq!(ok.subject, "42");
        assert_eq!(ok.email.as_deref(), Some("a@b.c"));
        assert!(ok.email_verified);
        assert!(check_claims(claims(base.clone()), "client", Some("n2")).is_err());
        assert!(check_claims(claims(base.clone()), "client", None).is_ok());

        let mut several = base.clone();
        several["aud"] = json!(["client", "other"]);
        assert!(check_claims(claims(several.clone()), "client", Some("n1")).is_err());
        several["azp"] = json!("client");
        assert!(check_claims(claims(several), "client", Some("n1")).is_ok());

        let mut unverified = base;
        unverified["email_verified"] = json!(false);
        assert!(
            !check_claims(claims(unverified), "client", None)
                .unwrap()
                .email_verified
        );
    }

    /// A P-256 key made for this test only (never used anywhere else).
    const EC_TEST_KEY_PKCS8_DER_B64: &str = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgoy1iAfdRLhwdHNt+p9rA8R89Gt/zPP9t\
Vtl3GbkPeT6hRANCAARJlXKBdT+7stsgtoil+FzpUHGz9ZBTXaUx3g4LUHVqltpsxpzlTar7mtG4G+3aPONsjxkH5sgB+EChuL/QzYGE";

    #[test]
    fn es256_tokens_verify_against_their_jwk() {
        use base64::Engine;
        let der = base64::engine::general_purpose::STANDARD
            .decode(EC_TEST_KEY_PKCS8_DER_B64)
            .unwrap();
        let encoding = jsonwebtoken::EncodingKey::from_ec_der(&der);
        // The public point is the last 65 bytes of the PKCS#8 document (0x04 || x || y).
        let point = &der[der.len() - 64..];
        let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
        let jwk: Jwk = serde_json::from_value(json!({
            "kty": "EC", "crv": "P-256", "kid": "ec-1", "alg": "ES256", "use": "sig",
            "x": b64(&point[..32]), "y": b64(&point[32..]),
        }))
        .unwrap();
        let now = chrono::Utc::now().timestamp();
        let mut header = jsonwebtoken::Header::new(Algorithm::ES256);
        header.kid = Some("ec-1".to_owned());
        let token = jsonwebtoken::encode(
            &header,
            &json!({"iss": "https://idp", "aud": "client", "sub": "s", "exp": now + 60}),
            &encoding,
        )
        .unwrap();
        let mut validation = Validation::new(Algorithm::ES256);
        validation.set_audience(&["client"]);
        let key = DecodingKey::from_jwk(&jwk).unwrap();
        assert!(jsonwebtoken::decode::<Value>(&token, &key, &validation).is_ok());
        let mut tampered = token.clone();
        tampered.insert(tampered.len() - 3, 'A');
        tampered.pop();
        assert!(jsonwebtoken::decode::<Value>(&tampered, &key, &validation).is_err());
    }
}
