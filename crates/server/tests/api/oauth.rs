//! Third-party sign-in (`/authorize`, `/callback`, `grant_type=pkce`) against a fake OpenID
//! provider started by each test: discovery, a JWKS with one RSA key, an authorization
//! endpoint that sends the browser straight back with a code, and a token endpoint that
//! returns an RS256 ID token (or a spoilt one, on demand).
//!
//! The test plays the browser: it follows each redirect by hand. The server's callback URL is
//! configured as `http://regard.test/auth/v1/callback` (what would be registered with a real
//! provider); the browser resolves `regard.test` to the test server's address.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine;
use regard::config::{OAuthProviderConfig, Secret};
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_error, spawn_app_with, unique_email};

/// Test-only RSA key of the fake provider (see `oidc_test_keys/README.md`).
const SIGNING_KEY_PEM: &str = include_str!("oidc_test_keys/TEST-ONLY-rsa-signing-key.pem");
/// Another test-only key: tokens it signs must be refused.
const OTHER_KEY_PEM: &str = include_str!("oidc_test_keys/TEST-ONLY-rsa-other-key.pem");
/// The signing key's modulus (base64url), published in the JWKS.
const SIGNING_KEY_N: &str = "7JWJVFHzFB8A84eWWoDHj76OiBX-m70IC-LnrkuID7VeYopPABJEEJOJuhpQwfp2mvF1DUmpdxEEeQeZxW8OJ8QzPrqMtPINV4HngMYipXiJeS75dAFHdTQRw5jhWTOsxzzq1VMDYUrRlsemCn21T6fbRyZjkKhYXaaBSfblfMUuaZYWK0OWUhz1dMUq7dZa1Fw0QFnrGyJu7eTAn2395wocnTUvpzDXhhq2A0iik4kJei3WOVouNBE_3d7XLOZ8QIUMRd4ScMCAIVtIha1gIZONmTxDppfveHiTU7ndc8UM19eDQAmGKc4hoGhy7bIQoJUZQmOtzcpfEE0O9A2Gnw";
const KID: &str = "test-key-1";
const CLIENT_ID: &str = "regard-test-client";
const CLIENT_SECRET: &str = "regard-test-secret";
const CALLBACK: &str = "http://regard.test/auth/v1/callback";
const SITE_URL: &str = "http://app.test";
const VERIFIER: &str = "the-code-verifier-of-this-test-client-0123456789abcdef";

fn der(pem: &str) -> Vec<u8> {
    let body: String = pem
        .lines()
        .filter(|line| !line.starts_with("-----"))
        .collect();
    base64::engine::general_purpose::STANDARD
        .decode(body)
        .unwrap()
}

/// Who signs in at the provider next.
#[derive(Debug, Clone)]
struct Person {
    sub: String,
    email: String,
    email_verified: bool,
    name: String,
}

impl Person {
    fn new(email: &str, email_verified: bool) -> Self {
        Person {
            sub: uuid::Uuid::new_v4().simple().to_string(),
            email: email.to_owned(),
            email_verified,
            name: "Camille Test".to_owned(),
        }
    }
}

/// How the next ID token is spoilt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spoil {
    Nothing,
    Audience,
    Nonce,
    Signature,
    Expired,
}

struct Grant {
    person: Person,
    nonce: String,
}

struct ProviderState {
    issuer: String,
    person: Person,
    spoil: Spoil,
    grants: HashMap<String, Grant>,
    /// The query of every authorization request received.
    authorizations: Vec<HashMap<String, String>>,
    /// How the client authenticated at the token endpoint: `basic` or `post`.
    token_auth: Vec<&'static str>,
}

type Shared = Arc<Mutex<ProviderState>>;

/// A running fake OpenID provider.
struct FakeProvider {
    issuer: String,
    shared: Shared,
}

impl FakeProvider {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let issuer = format!("http://{}", listener.local_addr().unwrap());
        let shared = Arc::new(Mutex::new(ProviderState {
            issuer: issuer.clone(),
            person: Person::new(&unique_email(), true),
            spoil: Spoil::Nothing,
            grants: HashMap::new(),
            authorizations: Vec::new(),
            token_auth: Vec::new(),
        }));
        let router = Router::new()
            .route("/.well-known/openid-configuration", get(discovery))
            .route("/jwks", get(jwks))
            .route("/authorize", get(authorize))
            .route("/token", post(token))
            .with_state(Arc::clone(&shared));
        tokio::spawn(async move { axum::serve(listener, router).await });
        FakeProvider { issuer, shared }
    }

    fn config(&self, name: &str) -> OAuthProviderConfig {
        OAuthProviderConfig {
            name: name.to_owned(),
            issuer: self.issuer.clone(),
            client_id: CLIENT_ID.to_owned(),
            client_secret: Some(Secret::new(CLIENT_SECRET)),
            scopes: vec!["openid".into(), "email".into(), "profile".into()],
        }
    }

    fn sign_in_as(&self, person: Person) {
        self.shared.lock().unwrap().person = person;
    }

    fn spoil(&self, spoil: Spoil) {
        self.shared.lock().unwrap().spoil = spoil;
    }

    fn last_authorization(&self) -> HashMap<String, String> {
        self.shared
            .lock()
            .unwrap()
            .authorizations
            .last()
            .unwrap()
            .clone()
    }
}

async fn discovery(State(shared): State<Shared>) -> Json<Value> {
    let issuer = shared.lock().unwrap().issuer.clone();
    Json(json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "jwks_uri": format!("{issuer}/jwks"),
        "response_types_supported": ["code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
    }))
}

async fn jwks() -> Json<Value> {
    Json(json!({"keys": [
        // An encryption key as Keycloak publishes one: it must be skipped, not break the set.
        {"kty": "RSA", "kid": "enc-1", "use": "enc", "alg": "RSA-OAEP", "n": SIGNING_KEY_N, "e": "AQAB"},
        {"kty": "RSA", "kid": KID, "use": "sig", "alg": "RS256", "n": SIGNING_KEY_N, "e": "AQAB"},
    ]}))
}

async fn authorize(
    State(shared): State<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let mut provider = shared.lock().unwrap();
    provider.authorizations.push(query.clone());
    if query.get("client_id").map(String::as_str) != Some(CLIENT_ID)
        || query.get("redirect_uri").map(String::as_str) != Some(CALLBACK)
        || query.get("response_type").map(String::as_str) != Some("code")
    {
        return (StatusCode::BAD_REQUEST, "unknown client or redirect_uri").into_response();
    }
    let code = uuid::Uuid::new_v4().to_string();
    let grant = Grant {
        person: provider.person.clone(),
        nonce: query.get("nonce").cloned().unwrap_or_default(),
    };
    provider.grants.insert(code.clone(), grant);
    let mut back = url::Url::parse(CALLBACK).unwrap();
    back.query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", query.get("state").map_or("", String::as_str));
    (StatusCode::FOUND, [(header::LOCATION, back.to_string())]).into_response()
}

async fn token(
    State(shared): State<Shared>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let mut provider = shared.lock().unwrap();
    let basic = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .map(|b| {
            String::from_utf8(base64::engine::general_purpose::STANDARD.decode(b).unwrap()).unwrap()
        });
    let authenticated = match basic {
        Some(pair) => {
            provider.token_auth.push("basic");
            pair == format!("{CLIENT_ID}:{CLIENT_SECRET}")
        }
        None => {
            provider.token_auth.push("post");
            form.get("client_id").map(String::as_str) == Some(CLIENT_ID)
                && form.get("client_secret").map(String::as_str) == Some(CLIENT_SECRET)
        }
    };
    if !authenticated {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"error": "invalid_client"})),
        )
            .into_response();
    }
    let grant = form
        .get("code")
        .and_then(|code| provider.grants.remove(code));
    let Some(grant) = grant.filter(|_| {
        form.get("grant_type").map(String::as_str) == Some("authorization_code")
            && form.get("redirect_uri").map(String::as_str) == Some(CALLBACK)
    }) else {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "invalid_grant"})),
        )
            .into_response();
    };
    let now = chrono::Utc::now().timestamp();
    let spoil = provider.spoil;
    let mut claims = json!({
        "iss": provider.issuer,
        "sub": grant.person.sub,
        "aud": CLIENT_ID,
        "iat": now,
        "exp": now + 300,
        "nonce": grant.nonce,
        "email": grant.person.email,
        "email_verified": grant.person.email_verified,
        "name": grant.person.name,
        "picture": "https://pictures.test/camille.png",
    });
    match spoil {
        Spoil::Audience => claims["aud"] = json!("another-client"),
        Spoil::Nonce => claims["nonce"] = json!("not-the-nonce"),
        Spoil::Expired => {
            claims["iat"] = json!(now - 3600);
            claims["exp"] = json!(now - 600);
        }
        Spoil::Nothing | Spoil::Signature => {}
    }
    let pem = if spoil == Spoil::Signature {
        OTHER_KEY_PEM
    } else {
        SIGNING_KEY_PEM
    };
    let mut jwt_header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
    jwt_header.kid = Some(KID.to_owned());
    let id_token = jsonwebtoken::encode(
        &jwt_header,
        &claims,
        &jsonwebtoken::EncodingKey::from_rsa_der(&der(pem)),
    )
    .unwrap();
    Json(json!({
        "access_token": "provider-access-token",
        "refresh_token": "provider-refresh-token",
        "token_type": "Bearer",
        "expires_in": 3600,
        "id_token": id_token,
    }))
    .into_response()
}

/// A server with the fake provider configured as `fake` (and `down`, whose issuer does not
/// answer), the site at [`SITE_URL`] and `http://localhost:3000/**` allowed.
async fn spawn(provider: &FakeProvider) -> TestApp {
    let fake = provider.config("fake");
    spawn_app_with(move |config| {
        config.site_url = SITE_URL.to_owned();
        config.redirect_allow_list = vec!["http://localhost:3000/**".to_owned()];
        config.oauth_callback_url = Some(CALLBACK.to_owned());
        config.oauth = vec![
            fake,
            OAuthProviderConfig {
                name: "down".to_owned(),
                // Port 9 (discard) on loopback: nothing listens there in tests.
                issuer: "http://127.0.0.1:9".to_owned(),
                client_id: CLIENT_ID.to_owned(),
                client_secret: None,
                scopes: vec!["openid".to_owned()],
            },
        ];
    })
    .await
}

fn location(response: &reqwest::Response) -> String {
    response
        .headers()
        .get(header::LOCATION)
        .unwrap_or_else(|| panic!("no Location in a {} answer", response.status()))
        .to_str()
        .unwrap()
        .to_owned()
}

fn query_of(url: &str) -> HashMap<String, String> {
    url::Url::parse(url)
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect()
}

fn fragment_of(url: &str) -> HashMap<String, String> {
    let fragment = url::Url::parse(url)
        .unwrap()
        .fragment()
        .unwrap_or("")
        .to_owned();
    url::form_urlencoded::parse(fragment.as_bytes())
        .into_owned()
        .collect()
}

/// The browser: `/authorize` with `query`, then the provider; returns the callback URL the
/// provider sent the browser to, resolved to the test server.
async fn through_provider(app: &TestApp, query: &str) -> String {
    let response = app
        .client
        .get(app.url(&format!("/auth/v1/authorize?{query}")))
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        302,
        "authorize answered {}",
        response.status()
    );
    let at_provider = app.client.get(location(&response)).send().await.unwrap();
    assert_eq!(at_provider.status(), 302);
    let back = location(&at_provider);
    let path = back
        .strip_prefix("http://regard.test")
        .unwrap_or_else(|| panic!("the provider sent the browser to {back}"));
    app.url(path)
}

async fn fetch(app: &TestApp, url: &str) -> reqwest::Response {
    app.client.get(url).send().await.unwrap()
}

fn pkce_query(provider: &str, redirect_to: &str) -> String {
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    query
        .append_pair("provider", provider)
        .append_pair("redirect_to", redirect_to)
        .append_pair("code_challenge", &regard::auth::flow::s256(VERIFIER))
        .append_pair("code_challenge_method", "s256");
    query.finish()
}

/// The whole PKCE sign-in; returns where the browser lands after the callback.
async fn sign_in(app: &TestApp, redirect_to: &str) -> String {
    let callback = through_provider(app, &pkce_query("fake", redirect_to)).await;
    let response = fetch(app, &callback).await;
    assert_eq!(response.status(), 302);
    location(&response)
}

async fn exchange(app: &TestApp, auth_code: &str, verifier: &str) -> reqwest::Response {
    app.post(
        "/auth/v1/token?grant_type=pkce",
        &json!({"auth_code": auth_code, "code_verifier": verifier}),
    )
    .await
}

fn claims(access_token: &str) -> Value {
    let payload = access_token.split('.').nth(1).unwrap();
    serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload)
            .unwrap(),
    )
    .unwrap()
}

async fn user_of(app: &TestApp, access_token: &str) -> Value {
    let response = app
        .with_token(Method::GET, "/auth/v1/user", access_token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

#[tokio::test]
async fn pkce_sign_in_through_a_provider_creates_the_user_and_opens_an_oauth_session() {
    let provider = FakeProvider::start().await;
    let app = spawn(&provider).await;
    let person = Person::new(&unique_email(), true);
    provider.sign_in_as(person.clone());

    let query = format!(
        "{}&scopes=calendar%20email&prompt=consent",
        pkce_query("fake", "http://app.test/welcome?tab=1")
    );
    let callback = through_provider(&app, &query).await;
    let asked = provider.last_authorization();
    assert_eq!(asked["response_type"], "code");
    assert_eq!(asked["client_id"], CLIENT_ID);
    assert_eq!(asked["redirect_uri"], CALLBACK);
    assert_eq!(asked["scope"], "openid email profile calendar");
    assert_eq!(asked["prompt"], "consent");
    assert!(
        uuid::Uuid::parse_str(&asked["state"]).is_ok(),
        "state is the flow state id"
    );
    assert!(asked["nonce"].len() >= 32);
    for ours in ["redirect_to", "code_challenge", "provider", "scopes"] {
        assert!(
            !asked.contains_key(ours),
            "{ours} was forwarded to the provider"
        );
    }

    let landing = location(&fetch(&app, &callback).await);
    assert!(
        landing.starts_with("http://app.test/welcome?tab=1&code="),
        "{landing}"
    );
    assert_eq!(provider.shared.lock().unwrap().token_auth, ["basic"]);
    let code = query_of(&landing)["code"].clone();

    let response = exchange(&app, &code, VERIFIER).await;
    assert_eq!(response.status(), 200);
    let session: Value = response.json().await.unwrap();
    assert_eq!(session["provider_token"], "provider-access-token");
    assert_eq!(session["provider_refresh_token"], "provider-refresh-token");
    let token = session["access_token"].as_str().unwrap();
    assert_eq!(claims(token)["amr"][0]["method"], "oauth");
    assert_eq!(
        claims(token)["app_metadata"],
        json!({"provider": "fake", "providers": ["fake"]})
    );

    let user = user_of(&app, token).await;
    assert_eq!(user["email"], person.email.as_str());
    assert!(user["email_confirmed_at"].is_string());
    assert_eq!(user["user_metadata"]["full_name"], "Camille Test");
    assert_eq!(
        user["user_metadata"]["avatar_url"],
        "https://pictures.test/camille.png"
    );
    let identities = user["identities"].as_array().unwrap();
    assert_eq!(
        identities.len(),
        1,
        "no email identity without a password: {user}"
    );
    assert_eq!(identities[0]["provider"], "fake");
    assert_eq!(identities[0]["id"], person.sub.as_str());
    assert_eq!(identities[0]["user_id"], user["id"]);
    assert_eq!(identities[0]["email"], person.email.as_str());
    assert_eq!(identities[0]["identity_data"]["sub"], person.sub.as_str());
    assert_eq!(identities[0]["identity_data"]["email_verified"], true);
    assert!(identities[0]["last_sign_in_at"].is_string());

    // The code is single-use; signing in again finds the same user.
    assert_error(
        exchange(&app, &code, VERIFIER).await,
        404,
        "flow_state_not_found",
    )
    .await;
    let again = sign_in(&app, "http://app.test/").await;
    let session: Value = exchange(&app, &query_of(&again)["code"], VERIFIER)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(session["user"]["id"], user["id"]);
    assert_eq!(session["user"]["identities"].as_array().unwrap().len(), 1);

    // Such a user has no password to sign in with.
    let password = app.sign_in(&person.email, "").await;
    assert_error(password, 400, "invalid_credentials").await;
    let password = app.sign_in(&person.email, "any password").await;
    assert_error(password, 400, "invalid_credentials").await;

    // /settings lists the configured providers.
    let settings: Value = app
        .auth_request(Method::GET, "/auth/v1/settings")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(settings["external"]["fake"], true);
    assert_eq!(settings["external"]["down"], true);
    assert_eq!(settings["external"]["google"], false);
    assert_eq!(settings["external"]["email"], true);
}

#[tokio::test]
async fn without_a_code_challenge_the_session_comes_in_the_fragment() {
    let provider = FakeProvider::start().await;
    let app = spawn(&provider).await;
    let callback = through_provider(
        &app,
        "provider=fake&redirect_to=http%3A%2F%2Flocalhost%3A3000%2Fdone",
    )
    .await;
    let landing = location(&fetch(&app, &callback).await);
    assert!(
        landing.starts_with("http://localhost:3000/done#"),
        "{landing}"
    );
    let fragment = fragment_of(&landing);
    assert_eq!(fragment["token_type"], "bearer");
    assert_eq!(fragment["expires_in"], "3600");
    assert_eq!(fragment["provider_token"], "provider-access-token");
    assert_eq!(fragment["provider_refresh_token"], "provider-refresh-token");
    assert!(fragment["expires_at"].parse::<i64>().is_ok());
    assert!(fragment["refresh_token"].len() >= 12);
    let user = user_of(&app, &fragment["access_token"]).await;
    assert_eq!(user["identities"][0]["provider"], "fake");
    assert_eq!(
        claims(&fragment["access_token"])["amr"][0]["method"],
        "oauth"
    );

    // The flow state is gone: replaying the callback opens no second session.
    let replay = location(&fetch(&app, &callback).await);
    let error = query_of(&replay);
    assert!(replay.starts_with("http://app.test/?"), "{replay}");
    assert_eq!(error["error_code"], "bad_oauth_state");
}

#[tokio::test]
async fn unusable_states_send_the_browser_to_the_site_with_gotrues_errors() {
    let provider = FakeProvider::start().await;
    let app = spawn(&provider).await;
    let cases = [
        (
            format!("state={}&code=abc", uuid::Uuid::new_v4()),
            "bad_oauth_state",
            "OAuth state not found or expired",
        ),
        (
            "state=not-a-uuid&code=abc".to_owned(),
            "bad_oauth_state",
            "OAuth state parameter is invalid",
        ),
        (
            "code=abc".to_owned(),
            "bad_oauth_callback",
            "OAuth state parameter missing",
        ),
    ];
    for (query, code, description) in cases {
        let response = fetch(&app, &app.url(&format!("/auth/v1/callback?{query}"))).await;
        assert_eq!(response.status(), 303);
        let target = location(&response);
        assert!(target.starts_with("http://app.test/?"), "{target}");
        let error = query_of(&target);
        assert_eq!(error["error"], "invalid_request");
        assert_eq!(error["error_code"], code);
        assert_eq!(error["error_description"], description);
    }

    // A PKCE state is used once: the provider's redirect replayed is refused.
    let callback = through_provider(&app, &pkce_query("fake", "http://app.test/")).await;
    assert_eq!(fetch(&app, &callback).await.status(), 302);
    let replay = location(&fetch(&app, &callback).await);
    assert_eq!(query_of(&replay)["error_code"], "flow_state_already_used");

    // A wrong state with the right code: the state is what binds the code to this browser.
    let callback = through_provider(&app, &pkce_query("fake", "http://app.test/")).await;
    let mut url = url::Url::parse(&callback).unwrap();
    let code = query_of(&callback)["code"].clone();
    url.query_pairs_mut()
        .clear()
        .append_pair("code", &code)
        .append_pair("state", &uuid::Uuid::new_v4().to_string());
    let wrong = location(&fetch(&app, url.as_str()).await);
    assert_eq!(query_of(&wrong)["error_code"], "bad_oauth_state");
}

#[tokio::test]
async fn a_wrong_verifier_is_refused_and_an_old_flow_expires() {
    let provider = FakeProvider::start().await;
    let app = spawn(&provider).await;
    let landing = sign_in(&app, "http://app.test/").await;
    let code = query_of(&landing)["code"].clone();
    let wrong = exchange(
        &app,
        &code,
        "another-verifier-of-enough-length-0123456789abcdef",
    )
    .await;
    assert_error(wrong, 400, "bad_code_verifier").await;

    // A flow whose provider took more than five minutes to answer is expired.
    let callback = through_provider(&app, &pkce_query("fake", "http://app.test/")).await;
    let flow_id = query_of(&callback)["state"].clone();
    regard::db::flow_states::backdate(&app.state.db, &flow_id, 301_000)
        .await
        .unwrap();
    let expired = location(&fetch(&app, &callback).await);
    assert!(expired.starts_with("http://app.test/?"));
    assert_eq!(
        query_of(&expired)["error_description"],
        "OAuth state has expired"
    );

    // So is an auth code not exchanged within five minutes.
    let callback = through_provider(&app, &pkce_query("fake", "http://app.test/")).await;
    let flow_id = query_of(&callback)["state"].clone();
    let code = query_of(&location(&fetch(&app, &callback).await))["code"].clone();
    regard::db::flow_states::backdate(&app.state.db, &flow_id, 301_000)
        .await
        .unwrap();
    assert_error(
        exchange(&app, &code, VERIFIER).await,
        422,
        "flow_state_expired",
    )
    .await;
}

#[tokio::test]
async fn redirect_targets_outside_the_site_and_the_allow_list_fall_back_to_the_site() {
    let provider = FakeProvider::start().await;
    let app = spawn(&provider).await;
    for (asked, landed) in [
        ("https://evil.example/steal", "http://app.test/?code="),
        ("http://app.test.evil.example/", "http://app.test/?code="),
        ("http://localhost:3000/cb", "http://localhost:3000/cb?code="),
        (
            "http://app.test/deep/page",
            "http://app.test/deep/page?code=",
        ),
    ] {
        let landing = sign_in(&app, asked).await;
        assert!(landing.starts_with(landed), "{asked} landed on {landing}");
    }
}

#[tokio::test]
async fn unknown_providers_and_bad_pkce_parameters_are_refused_and_a_down_provider_redirects() {
    let provider = FakeProvider::start().await;
    let app = spawn(&provider).await;
    let unknown = app
        .base_request(Method::GET, "/auth/v1/authorize?provider=github")
        .send()
        .await
        .unwrap();
    let body = assert_error(unknown, 400, "validation_failed").await;
    assert_eq!(
        body["message"],
        "Unsupported provider: Provider github could not be found"
    );
    let half = app
        .base_request(
            Method::GET,
            "/auth/v1/authorize?provider=fake&code_challenge_method=s256",
        )
        .send()
        .await
        .unwrap();
    assert_error(half, 400, "validation_failed").await;

    // The server started although `down` cannot be reached; its sign-ins fail as redirects.
    let response = fetch(
        &app,
        &app.url("/auth/v1/authorize?provider=down&redirect_to=http%3A%2F%2Fapp.test%2Fin"),
    )
    .await;
    assert_eq!(response.status(), 302);
    let target = location(&response);
    assert!(
        target.starts_with("http://app.test/in?error=server_error"),
        "{target}"
    );
    assert_eq!(fragment_of(&target)["error"], "server_error");
}

#[tokio::test]
async fn id_tokens_that_fail_verification_end_the_sign_in_with_an_error() {
    let provider = FakeProvider::start().await;
    let app = spawn(&provider).await;
    for spoil in [
        Spoil::Audience,
        Spoil::Nonce,
        Spoil::Signature,
        Spoil::Expired,
    ] {
        let person = Person::new(&unique_email(), true);
        provider.sign_in_as(person.clone());
        provider.spoil(spoil);
        let landing = sign_in(&app, "http://app.test/in").await;
        let error = query_of(&landing);
        assert_eq!(error["error"], "server_error", "{spoil:?}: {landing}");
        assert_eq!(
            error["error_description"],
            "Error getting user profile from external provider"
        );
        assert!(!error.contains_key("code"));
        assert_eq!(fragment_of(&landing)["error"], "server_error");
        assert!(
            regard::db::users::find_by_email(&app.state.db, &person.email)
                .await
                .unwrap()
                .is_none(),
            "{spoil:?} created a user"
        );
    }
}

#[tokio::test]
async fn a_verified_email_links_the_provider_to_the_existing_account() {
    let provider = FakeProvider::start().await;
    let app = spawn(&provider).await;
    let email = unique_email();
    let first = app.sign_up(&email, "secret1").await;
    provider.sign_in_as(Person::new(&email.to_uppercase(), true));

    let landing = sign_in(&app, "http://app.test/").await;
    let session: Value = exchange(&app, &query_of(&landing)["code"], VERIFIER)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(session["user"]["id"], first["user"]["id"]);
    let user = user_of(&app, session["access_token"].as_str().unwrap()).await;
    let providers: Vec<&str> = user["identities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["provider"].as_str().unwrap())
        .collect();
    assert_eq!(providers, ["email", "fake"]);
    assert_eq!(
        user["app_metadata"],
        json!({"provider": "email", "providers": ["email", "fake"]})
    );

    // The password still works.
    assert_eq!(app.sign_in(&email, "secret1").await.status(), 200);
}

#[tokio::test]
async fn an_unverified_email_is_not_linked_and_makes_an_unconfirmed_user_otherwise() {
    let provider = FakeProvider::start().await;
    let app = spawn(&provider).await;
    let email = unique_email();
    let first = app.sign_up(&email, "secret1").await;
    provider.sign_in_as(Person::new(&email, false));
    let landing = sign_in(&app, "http://app.test/in").await;
    let error = query_of(&landing);
    assert_eq!(error["error"], "access_denied");
    assert_eq!(error["error_code"], "provider_email_needs_verification");
    assert_eq!(
        error["error_description"],
        "Unverified email with fake. Verify the email with fake in order to sign in"
    );
    assert_eq!(
        fragment_of(&landing)["error_code"],
        "provider_email_needs_verification"
    );
    let user = user_of(&app, first["access_token"].as_str().unwrap()).await;
    assert_eq!(user["identities"].as_array().unwrap().len(), 1);

    // An address nobody uses: the user is created, without a confirmed email.
    provider.sign_in_as(Person::new(&unique_email(), false));
    let landing = sign_in(&app, "http://app.test/in").await;
    let session: Value = exchange(&app, &query_of(&landing)["code"], VERIFIER)
        .await
        .json()
        .await
        .unwrap();
    assert!(
        session["user"].get("email_confirmed_at").is_none(),
        "{session}"
    );
    assert_eq!(
        session["user"]["identities"][0]["identity_data"]["email_verified"],
        false
    );
}

#[tokio::test]
async fn a_provider_refusal_is_passed_back_to_the_app() {
    let provider = FakeProvider::start().await;
    let app = spawn(&provider).await;
    let callback = through_provider(&app, &pkce_query("fake", "http://app.test/in")).await;
    let state = query_of(&callback)["state"].clone();
    let refused = app.url(&format!(
        "/auth/v1/callback?state={state}&error=access_denied&error_description=The+user+said+no"
    ));
    let landing = location(&fetch(&app, &refused).await);
    let error = query_of(&landing);
    assert_eq!(error["error"], "access_denied");
    assert_eq!(error["error_description"], "The user said no");
    assert!(landing.starts_with("http://app.test/in?"));
}

/// An ID token for `person` from the fake provider, signed with `pem`.
fn id_token_for(issuer: &str, person: &Person, nonce: Option<&str>, pem: &str) -> String {
    let now = chrono::Utc::now().timestamp();
    let mut claims = json!({
        "iss": issuer, "sub": person.sub, "aud": CLIENT_ID, "iat": now, "exp": now + 300,
        "email": person.email, "email_verified": person.email_verified, "name": person.name,
    });
    if let Some(nonce) = nonce {
        claims["nonce"] = json!(nonce);
    }
    let mut jwt_header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
    jwt_header.kid = Some(KID.to_owned());
    jsonwebtoken::encode(
        &jwt_header,
        &claims,
        &jsonwebtoken::EncodingKey::from_rsa_der(&der(pem)),
    )
    .unwrap()
}

/// `grant_type=id_token`, as auth-js's `signInWithIdToken` sends it.
#[tokio::test]
async fn an_id_token_signs_in_with_a_configured_provider_and_a_disabled_one_is_refused() {
    let provider = FakeProvider::start().await;
    let app = spawn(&provider).await;
    let grant = |body: Value| {
        let app = &app;
        async move { app.post("/auth/v1/token?grant_type=id_token", &body).await }
    };

    // A provider that is not configured: GoTrue's code and words, with its issuer.
    let response =
        grant(json!({"provider": "google", "id_token": "mock-id-token", "nonce": "n"})).await;
    let body = assert_error(response, 400, "provider_disabled").await;
    assert_eq!(
        body["message"],
        "Provider (issuer \"https://accounts.google.com\") is not enabled"
    );

    // A verified token: the account is made and a session opens. The token carries the
    // SHA-256 of the raw nonce the client sends.
    let person = Person::new(&unique_email(), true);
    let raw = "raw-nonce-0123456789";
    let hashed = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(raw.as_bytes()))
    };
    let token = id_token_for(&provider.issuer, &person, Some(&hashed), SIGNING_KEY_PEM);
    let response = grant(json!({"provider": "fake", "id_token": token, "nonce": raw})).await;
    assert_eq!(response.status(), 200);
    let session: Value = response.json().await.unwrap();
    assert_eq!(session["user"]["email"], person.email.as_str());
    assert!(
        session["refresh_token"]
            .as_str()
            .is_some_and(|t| !t.is_empty())
    );
    let user = user_of(&app, session["access_token"].as_str().unwrap()).await;
    assert_eq!(user["email"], person.email.as_str());

    // The same person again: the same account.
    let token = id_token_for(&provider.issuer, &person, None, SIGNING_KEY_PEM);
    let response = grant(json!({"provider": "fake", "id_token": token})).await;
    assert_eq!(response.status(), 200);
    let again: Value = response.json().await.unwrap();
    assert_eq!(again["user"]["id"], session["user"]["id"]);

    // Refused: another nonce, a nonce on one side only, a token signed by another key.
    let token = id_token_for(&provider.issuer, &person, Some(&hashed), SIGNING_KEY_PEM);
    let response = grant(json!({"provider": "fake", "id_token": token, "nonce": "other"})).await;
    let body = assert_error(response, 400, "validation_failed").await;
    assert_eq!(body["message"], "Nonces mismatch");
    let response = grant(json!({"provider": "fake", "id_token": token})).await;
    assert_error(response, 400, "validation_failed").await;
    let forged = id_token_for(&provider.issuer, &person, None, OTHER_KEY_PEM);
    let response = grant(json!({"provider": "fake", "id_token": forged})).await;
    assert_error(response, 400, "bad_jwt").await;
    let response = grant(json!({"provider": "fake"})).await;
    assert_error(response, 400, "validation_failed").await;
}
