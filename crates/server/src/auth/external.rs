//! Third-party sign-in, as GoTrue's `external.go`: `GET /authorize?provider=...` sends the
//! browser to the provider with a new flow state's id as `state`; `GET|POST /callback`
//! exchanges the provider's code, verifies the ID token, finds or creates the user, and sends
//! the browser back to `redirect_to` with `?code=` (PKCE; exchanged with
//! `POST /token?grant_type=pkce`) or with the session in the fragment (implicit flow).
//!
//! Errors after `/authorize` are redirects, never pages: to the site URL when the `state` is
//! unusable (`?error=&error_code=&error_description=`, 303), otherwise to the flow's
//! `redirect_to` with the same values in the query and the fragment (302).
//!
//! Accounts: a known provider account signs its user in; otherwise a *verified* email links
//! the identity to the user with that email; an unverified email that belongs to someone else
//! is refused (`provider_email_needs_verification`); otherwise a user is created, without a
//! password, confirmed only when the provider verified the email.

use axum::Router;
use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rand::Rng;
use rand::distr::Alphanumeric;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::email::Email;
use super::error::AuthError;
use super::extract::{ClientIp, user_agent};
use super::flow::{self, FlowState, NewFlow, Pkce, ProviderTokens};
use super::oidc::{IdClaims, Provider};
use super::redirect::{self, CallbackError, error_redirect, fragment_redirect};
use super::session::{self, Origin};

use crate::db::identities::{self, IdentityRow, UserChange};
use crate::db::users::{self, UserRow};
use crate::db::{self, DbError};
use crate::state::AppState;

/// AMR method of sessions opened through a provider.
const OAUTH_METHOD: &str = "oauth";

/// Query and form parameters not forwarded to the provider: ours, and those the auth server
/// controls (a client must not override `redirect_uri`, `state`...).
const RESERVED: [&str; 15] = [
    "provider",
    "scopes",
    "redirect_to",
    "code_challenge",
    "code_challenge_method",
    "skip_http_redirect",
    "invite_token",
    "response_type",
    "response_mode",
    "client_id",
    "client_secret",
    "redirect_uri",
    "scope",
    "state",
    "nonce",
];

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/authorize", get(authorize))
        .route("/callback", get(callback_get).post(callback_post))
}

fn param<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params
        .iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.as_str())
}

fn found(location: &str, status: StatusCode) -> Response {
    match header::HeaderValue::from_str(location) {
        Ok(value) => (status, [(header::LOCATION, value)]).into_response(),
        // Redirect targets are checked before use, so this is not expected.
        Err(_) => {
            AuthError::internal("redirect target is not a valid header value").into_response()
        }
    }
}

fn unsupported_provider(name: &str) -> AuthError {
    AuthError::validation(format!(
        "Unsupported provider: Provider {name} could not be found"
    ))
}

fn random_nonce() -> String {
    rand::rng()
        .sample_iter(&Alphanumeric)
        .take(32)
        .map(char::from)
        .collect()
}

/// `GET /authorize`: starts a flow and sends the browser to the provider.
async fn authorize(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(params): Query<Vec<(String, String)>>,
) -> Result<Response, AuthError> {
    let name = param(&params, "provider")
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let provider = state
        .oauth
        .get(&name)
        .ok_or_else(|| unsupported_provider(&name))?;
    let redirect_to = redirect::referrer(&state.config, param(&params, "redirect_to"), &headers);
    let pkce = Pkce::from_params(
        param(&params, "code_challenge"),
        param(&params, "code_challenge_method"),
    )?;
    // Discovery first: a provider that cannot be reached leaves no flow state behind.
    if let Err(err) = provider.discovery().await {
        tracing::warn!(provider = %name, error = %err, "provider discovery failed");
        let error = CallbackError::Auth(AuthError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "unexpected_failure",
            "Unable to reach the external provider",
        ));
        return Ok(found(
            &error_redirect(&redirect_to, &error, false),
            StatusCode::FOUND,
        ));
    }
    let nonce = random_nonce();
    let flow = flow::create(
        &state,
        NewFlow {
            provider: &name,
            authentication_method: OAUTH_METHOD,
            pkce,
            redirect_to: &redirect_to,
            nonce: Some(&nonce),
        },
    )
    .await?;
    let extra: Vec<(String, String)> = params
        .iter()
        .filter(|(key, _)| !RESERVED.contains(&key.to_ascii_lowercase().as_str()))
        .cloned()
        .collect();
    let url = provider
        .authorization_url(
            &flow.id,
            &nonce,
            &state.config.oauth_callback(),
            param(&params, "scopes").unwrap_or(""),
            &extra,
        )
        .await
        .map_err(AuthError::internal)?;
    tracing::info!(provider = %name, pkce = flow.is_pkce(), "redirecting to external provider");
    Ok(found(&url, StatusCode::FOUND))
}

async fn callback_get(
    State(state): State<AppState>,
    client_ip: ClientIp,
    headers: HeaderMap,
    Query(params): Query<Vec<(String, String)>>,
) -> Response {
    callback(state, client_ip, &headers, params).await
}

/// `POST /callback`: providers answering with `response_mode=form_post`.
async fn callback_post(
    State(state): State<AppState>,
    client_ip: ClientIp,
    headers: HeaderMap,
    Query(query): Query<Vec<(String, String)>>,
    Form(form): Form<Vec<(String, String)>>,
) -> Response {
    let mut params = form;
    params.extend(query);
    callback(state, client_ip, &headers, params).await
}

/// Loads the flow named by `state` (GoTrue's `loadFlowState`); its errors go to the site URL.
async fn load_flow(state: &AppState, params: &[(String, String)]) -> Result<FlowState, AuthError> {
    let id = param(params, "state").unwrap_or("");
    if id.is_empty() {
        return Err(AuthError::new(
            StatusCode::BAD_REQUEST,
            "bad_oauth_callback",
            "OAuth state parameter missing",
        ));
    }
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(AuthError::new(
            StatusCode::BAD_REQUEST,
            "bad_oauth_state",
            "OAuth state parameter is invalid",
        ));
    }
    let flow = flow::find(state, id)
        .await?
        // A flow of another kind (a recovery link) is no OAuth state.
        .filter(|flow| flow.authentication_method == OAUTH_METHOD)
        .ok_or_else(|| {
            AuthError::new(
                StatusCode::BAD_REQUEST,
                "bad_oauth_state",
                "OAuth state not found or expired",
            )
        })?;
    if flow.created_too_long_ago(db::now_ms()) {
        return Err(AuthError::new(
            StatusCode::BAD_REQUEST,
            "bad_oauth_state",
            "OAuth state has expired",
        ));
    }
    if flow.is_pkce() && flow.user_id.is_some() {
        return Err(flow::already_used());
    }
    Ok(flow)
}

async fn callback(
    state: AppState,
    ClientIp(ip): ClientIp,
    headers: &HeaderMap,
    params: Vec<(String, String)>,
) -> Response {
    let flow = match load_flow(&state, &params).await {
        Ok(flow) => flow,
        Err(err) => {
            tracing::info!(code = err.code, "OAuth callback refused");
            let target = error_redirect(&state.config.site_url, &CallbackError::Auth(err), true);
            return found(&target, StatusCode::SEE_OTHER);
        }
    };
    let origin = Origin {
        ip: Some(ip.to_string()),
        user_agent: user_agent(headers),
    };
    match finish(&state, &flow, &params, &origin).await {
        Ok(location) => found(&location, StatusCode::FOUND),
        Err(err) => {
            match &err {
                CallbackError::Auth(auth) => {
                    tracing::info!(provider = %flow.provider, code = auth.code, "OAuth sign-in failed");
                }
                CallbackError::Provider { error, .. } => {
                    tracing::info!(provider = %flow.provider, error = %error, "provider refused the sign-in");
                }
            }
            found(
                &error_redirect(&flow.redirect_to, &err, false),
                StatusCode::FOUND,
            )
        }
    }
}

/// From a loaded flow to the redirect that ends the sign-in.
async fn finish(
    state: &AppState,
    flow: &FlowState,
    params: &[(String, String)],
    origin: &Origin,
) -> Result<String, CallbackError> {
    if let Some(error) = param(params, "error").filter(|e| !e.is_empty()) {
        return Err(CallbackError::Provider {
            error: error.to_owned(),
            description: param(params, "error_description").unwrap_or("").to_owned(),
        });
    }
    let code = param(params, "code").unwrap_or("");
    if code.is_empty() {
        return Err(AuthError::new(
            StatusCode::BAD_REQUEST,
            "bad_oauth_callback",
            "OAuth callback with missing authorization code missing",
        )
        .into());
    }
    let provider = state.oauth.get(&flow.provider).ok_or_else(|| {
        AuthError::new(
            StatusCode::BAD_REQUEST,
            "oauth_provider_not_supported",
            format!(
                "Unsupported provider: Provider {} could not be found",
                flow.provider
            ),
        )
    })?;
    let tokens = provider
        .exchange(code, &state.config.oauth_callback())
        .await
        .map_err(|err| {
            tracing::warn!(provider = %flow.provider, error = %err, "OAuth code exchange failed");
            AuthError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "unexpected_failure",
                "Unable to exchange external code",
            )
        })?;
    let claims =
        verified_claims(&provider, tokens.id_token.as_deref(), flow.nonce.as_deref()).await?;
    let user = account(state, &provider, &claims).await?;
    let provider_tokens = ProviderTokens {
        access_token: tokens.access_token,
        refresh_token: tokens.refresh_token,
    };

    if flow.is_pkce() {
        let auth_code = flow::complete(state, &flow.id, &user.id, &provider_tokens).await?;
        tracing::info!(provider = %flow.provider, user_id = %user.id, "OAuth sign-in completed (PKCE)");
        return Ok(flow::redirect_with_code(&flow.redirect_to, &auth_code));
    }
    // Implicit flow: the session travels in the fragment. The flow state is deleted first, so a
    // replayed callback cannot open a second session.
    if !flow::discard(state, &flow.id).await? {
        return Err(flow::already_used().into());
    }
    let session = session::start(state, &user, OAUTH_METHOD, origin).await?;
    tracing::info!(provider = %flow.provider, user_id = %user.id, "OAuth sign-in completed (implicit)");
    Ok(fragment_redirect(
        &flow.redirect_to,
        &session,
        &provider_tokens,
        &[],
    ))
}

/// The issuers GoTrue knows its built-in ID-token providers by (its "not enabled" message names
/// the issuer).
fn known_issuer(provider: &str) -> Option<&'static str> {
    Some(match provider {
        "google" => "https://accounts.google.com",
        "apple" => "https://appleid.apple.com",
        "azure" => "https://login.microsoftonline.com/common/v2.0",
        "facebook" => "https://www.facebook.com",
        "kakao" => "https://kauth.kakao.com",
        "keycloak" => "keycloak",
        _ => return None,
    })
}

/// `POST /token?grant_type=id_token {provider, id_token, nonce?}`: sign in with an ID token the
/// client obtained from a provider itself (a native Google or Apple button), as GoTrue. The token
/// is verified against the configured provider of that name (signature by its JWKS, issuer,
/// audience, expiry; the nonce, when either side has one, as the SHA-256 hex of the raw nonce the
/// client sends, or the raw nonce itself), then the account is found or made as after a
/// redirect sign-in. A provider that is not configured answers GoTrue's 400 `provider_disabled`.
pub(super) async fn id_token_grant(
    state: &AppState,
    provider_name: &str,
    id_token: &str,
    nonce: Option<&str>,
    origin: &Origin,
) -> Result<Value, AuthError> {
    if provider_name.is_empty() || id_token.is_empty() {
        return Err(AuthError::new(
            StatusCode::BAD_REQUEST,
            "validation_failed",
            "provider and id_token are required",
        ));
    }
    let Some(provider) = state.oauth.get(provider_name) else {
        let issuer = known_issuer(provider_name).unwrap_or(provider_name);
        return Err(AuthError::new(
            StatusCode::BAD_REQUEST,
            "provider_disabled",
            format!("Provider (issuer {issuer:?}) is not enabled"),
        ));
    };
    let refused = |why: String| {
        tracing::warn!(provider = %provider_name, error = %why, "ID token refused");
        AuthError::new(StatusCode::BAD_REQUEST, "bad_jwt", "Bad ID token")
    };
    let claims = provider
        .verify_id_token(id_token, None)
        .await
        .map_err(|err| refused(err.to_string()))?;
    // GoTrue: both nonces or neither; the token carries the SHA-256 hex of the raw nonce.
    let in_token = claims.raw.get("nonce").and_then(Value::as_str);
    match (nonce, in_token) {
        (None, None) => {}
        (Some(raw), Some(hashed)) => {
            let digest = hex::encode(Sha256::digest(raw.as_bytes()));
            if hashed != digest && hashed != raw {
                return Err(AuthError::new(
                    StatusCode::BAD_REQUEST,
                    "validation_failed",
                    "Nonces mismatch",
                ));
            }
        }
        _ => {
            return Err(AuthError::new(
                StatusCode::BAD_REQUEST,
                "validation_failed",
                "Passed nonce and nonce in id_token should either both exist or not.",
            ));
        }
    }
    let user = match account(state, &provider, &claims).await {
        Ok(user) => user,
        Err(CallbackError::Auth(err)) => return Err(err),
        Err(CallbackError::Provider { error, description }) => {
            return Err(refused(format!("{error}: {description}")));
        }
    };
    tracing::info!(provider = %provider_name, user_id = %user.id, "ID token sign-in");
    session::start(state, &user, "id_token", origin).await
}

async fn verified_claims(
    provider: &Provider,
    id_token: Option<&str>,
    nonce: Option<&str>,
) -> Result<IdClaims, CallbackError> {
    let profile_error = || {
        AuthError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "unexpected_failure",
            "Error getting user profile from external provider",
        )
    };
    let Some(id_token) = id_token else {
        tracing::warn!(provider = %provider.name(), "the token endpoint returned no ID token");
        return Err(profile_error().into());
    };
    provider
        .verify_id_token(id_token, nonce)
        .await
        .map_err(|err| {
            tracing::warn!(provider = %provider.name(), error = %err, "ID token refused");
            profile_error().into()
        })
}

/// The identity's data, GoTrue's shape for OpenID Connect claims (empty values left out).
fn identity_data(claims: &IdClaims, email: &str) -> Map<String, Value> {
    let mut data = Map::new();
    let text = |name: &str| {
        claims
            .raw
            .get(name)
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
            .map(|v| Value::String(v.to_owned()))
    };
    data.insert("iss".into(), json!(claims.issuer));
    data.insert("sub".into(), json!(claims.subject));
    data.insert("provider_id".into(), json!(claims.subject));
    data.insert("email".into(), json!(email));
    data.insert("email_verified".into(), json!(claims.email_verified));
    data.insert("phone_verified".into(), json!(false));
    for name in [
        "name",
        "given_name",
        "family_name",
        "nickname",
        "preferred_username",
        "picture",
        "locale",
    ] {
        if let Some(value) = text(name) {
            data.insert(name.into(), value);
        }
    }
    if let Some(name) = text("name") {
        data.insert("full_name".into(), name);
    }
    if let Some(picture) = text("picture") {
        data.insert("avatar_url".into(), picture);
    }
    data
}

fn parse_object(text: &str) -> Map<String, Value> {
    match serde_json::from_str(text) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// `app_metadata` with `provider` kept (or set) and `name` added to `providers`.
fn with_provider(app_metadata: &str, name: &str) -> String {
    let mut meta = parse_object(app_metadata);
    if !meta.get("provider").is_some_and(Value::is_string) {
        meta.insert("provider".into(), json!(name));
    }
    let mut providers: Vec<Value> = meta
        .get("providers")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if !providers.iter().any(|p| p == name) {
        providers.push(json!(name));
    }
    meta.insert("providers".into(), Value::Array(providers));
    Value::Object(meta).to_string()
}

fn email_needs_verification(provider: &str) -> AuthError {
    AuthError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "provider_email_needs_verification",
        format!(
            "Unverified email with {provider}. Verify the email with {provider} in order to sign in"
        ),
    )
}

/// Finds, links or creates the user behind verified claims (see the module comment).
async fn account(
    state: &AppState,
    provider: &Provider,
    claims: &IdClaims,
) -> Result<UserRow, CallbackError> {
    let name = provider.name();
    let email = claims
        .email
        .as_deref()
        .and_then(|email| Email::parse(email).ok())
        .ok_or_else(|| {
            AuthError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "unexpected_failure",
                "Error getting user email from external provider",
            )
        })?;
    let email = email.as_str();
    let data = identity_data(claims, email);
    let data_text = Value::Object(data.clone()).to_string();
    let now = db::now_ms();

    if let Some(mut identity) = identities::find(&state.db, name, &claims.subject).await? {
        let user = users::find_by_id(&state.db, &identity.user_id)
            .await?
            .ok_or_else(|| AuthError::internal("identity without user"))?;
        identity.identity_data = data_text;
        identity.email = Some(email.to_owned());
        identities::record_sign_in(
            &state.db,
            &identity,
            &UserChange {
                app_metadata: &with_provider(&user.app_metadata, name),
                user_metadata: &super::metadata::merge(&user.user_metadata, data.clone()),
                confirm_email: claims.email_verified && user.email == email,
                clear_password: false,
                now,
            },
        )
        .await?;
        return Ok(reload(state, &user.id).await?);
    }

    let identity = IdentityRow {
        id: uuid::Uuid::new_v4().to_string(),
        user_id: String::new(),
        provider: name.to_owned(),
        provider_id: claims.subject.clone(),
        identity_data: data_text,
        email: Some(email.to_owned()),
        last_sign_in_at: Some(now),
        created_at: now,
        updated_at: now,
    };
    if let Some(existing) = users::find_by_email(&state.db, email).await? {
        if !claims.email_verified {
            return Err(email_needs_verification(name).into());
        }
        // The provider proved the address: an unconfirmed account with that address gets
        // confirmed, and loses a password that whoever created it may have chosen.
        let unconfirmed = existing.email_confirmed_at.is_none();
        identities::link(
            &state.db,
            &IdentityRow {
                user_id: existing.id.clone(),
                ..identity
            },
            &UserChange {
                app_metadata: &with_provider(&existing.app_metadata, name),
                user_metadata: &super::metadata::merge(&existing.user_metadata, data.clone()),
                confirm_email: true,
                clear_password: unconfirmed,
                now,
            },
        )
        .await?;
        tracing::info!(provider = %name, user_id = %existing.id, "identity linked by verified email");
        return Ok(reload(state, &existing.id).await?);
    }

    if state.config.disable_signup {
        return Err(AuthError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "signup_disabled",
            "Signups not allowed for this instance",
        )
        .into());
    }
    let user = UserRow {
        email: email.to_owned(),
        // No password: an empty hash never verifies.
        email_confirmed_at: claims.email_verified.then_some(now),
        app_metadata: json!({"provider": name, "providers": [name]}).to_string(),
        user_metadata: Value::Object(data).to_string(),
        ..UserRow::new(now)
    };
    match identities::create_user(
        &state.db,
        &user,
        &IdentityRow {
            user_id: user.id.clone(),
            ..identity
        },
    )
    .await
    {
        Ok(()) => {}
        // A concurrent callback created the account (or took the email) first.
        Err(DbError::Conflict) => return Err(flow::already_used().into()),
        Err(err) => return Err(err.into()),
    }
    tracing::info!(provider = %name, user_id = %user.id, "user signed up through a provider");
    Ok(user)
}

async fn reload(state: &AppState, user_id: &str) -> Result<UserRow, AuthError> {
    users::find_by_id(&state.db, user_id)
        .await?
        .ok_or_else(|| AuthError::internal("user vanished during sign-in"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_go_to_the_query_and_the_fragment() {
        let err = CallbackError::Auth(email_needs_verification("google"));
        let url = error_redirect("http://app.test/cb?keep=1&error=old", &err, false);
        let parsed = url::Url::parse(&url).unwrap();
        let query: Vec<(String, String)> = parsed.query_pairs().into_owned().collect();
        assert_eq!(query[0], ("keep".into(), "1".into()));
        assert_eq!(query[1], ("error".into(), "access_denied".into()));
        assert_eq!(
            query[2],
            (
                "error_code".into(),
                "provider_email_needs_verification".into()
            )
        );
        assert!(parsed.fragment().unwrap().starts_with("error=access_denied&error_code=provider_email_needs_verification&error_description=Unverified+email"));
        assert!(parsed.fragment().unwrap().ends_with("&sb="));
        let plain = error_redirect("http://app.test/", &err, true);
        assert!(!plain.contains('#'));
    }

    #[test]
    fn app_metadata_keeps_the_first_provider_and_lists_all() {
        let meta = with_provider(r#"{"provider":"email","providers":["email"]}"#, "google");
        assert_eq!(
            serde_json::from_str::<Value>(&meta).unwrap(),
            json!({"provider": "email", "providers": ["email", "google"]})
        );
        let again = with_provider(&meta, "google");
        assert_eq!(again, meta);
    }
}
