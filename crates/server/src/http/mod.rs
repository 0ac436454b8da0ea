//! The HTTP surface: assembles the routers of every area and the cross-cutting layers
//! (request ids, structured request logs, security headers, compression, CORS, body limits).

pub mod api;
pub mod health;
pub mod metrics;
pub mod serve;
pub mod spa;

use std::time::Duration;

use axum::Router;
use axum::http::{HeaderName, HeaderValue, Method, Request, header};
use tower::ServiceBuilder;
use tower_http::LatencyUnit;
use tower_http::compression::CompressionLayer;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use tracing::Level;

use crate::auth;
use crate::state::AppState;

/// Content Security Policy for a Vite-built React SPA that calls its own origin only. Inline
/// styles are allowed because UI libraries set `style` attributes; scripts are not.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
    style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; \
    connect-src 'self'; media-src 'self' blob:; worker-src 'self' blob:; object-src 'none'; \
    base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

/// The policy with the map tiles' origin allowed as an image source (`{s}` subdomains as a
/// wildcard); a relative or unreadable template adds nothing (same origin).
pub fn content_security_policy(map_tiles_url: &str) -> String {
    match tiles_origin(map_tiles_url) {
        Some(origin) => CONTENT_SECURITY_POLICY.replacen(
            "img-src 'self' data: blob:",
            &format!("img-src 'self' data: blob: {origin}"),
            1,
        ),
        None => CONTENT_SECURITY_POLICY.to_owned(),
    }
}

/// `scheme://host[:port]` of a tiles URL template, with a `{s}.` subdomain as `*.`.
fn tiles_origin(template: &str) -> Option<String> {
    let (scheme, rest) = template.split_once("://")?;
    if !matches!(scheme, "http" | "https") {
        return None;
    }
    let host = rest.split('/').next()?.replace("{s}.", "*.");
    let valid = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '*'));
    valid.then(|| format!("{scheme}://{host}"))
}

static REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The whole application router.
pub fn router(state: AppState) -> Router {
    let csp = HeaderValue::from_str(&content_security_policy(&state.config.map_tiles_url))
        .unwrap_or(HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    let security_headers = ServiceBuilder::new()
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CONTENT_SECURITY_POLICY,
            csp,
        ))
        .layer(header_if_absent(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(header_if_absent(header::X_FRAME_OPTIONS, "DENY"))
        .layer(header_if_absent(
            header::REFERRER_POLICY,
            "strict-origin-when-cross-origin",
        ))
        .layer(header_if_absent(
            HeaderName::from_static("permissions-policy"),
            "camera=(), microphone=(), geolocation=(), payment=()",
        ))
        .layer(header_if_absent(
            HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin",
        ));

    let trace = TraceLayer::new_for_http()
        .make_span_with(|request: &Request<_>| {
            let request_id = request
                .headers()
                .get(&REQUEST_ID)
                .and_then(|value| value.to_str().ok())
                .unwrap_or("");
            // The path only: query strings may carry codes or tokens.
            tracing::info_span!(
                "http",
                method = %request.method(),
                path = %request.uri().path(),
                request_id = %request_id,
            )
        })
        .on_response(
            DefaultOnResponse::new()
                .level(Level::INFO)
                .latency_unit(LatencyUnit::Millis),
        );

    // Served over https (the site URL says so): browsers keep to https for a year.
    let hsts = state
        .config
        .site_url
        .starts_with("https://")
        .then(|| header_if_absent(header::STRICT_TRANSPORT_SECURITY, "max-age=31536000"));

    let mut router = Router::new()
        .merge(health::router())
        .merge(metrics::router())
        .nest("/auth/v1", auth::router(&state))
        .nest("/api/v1", api::router(&state))
        .merge(spa::router())
        // Every routed request is counted under its route template (the SPA's fallback is not).
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            metrics::track,
        ));
    if let Some(cors) = cors_layer(&state.config.cors_origins) {
        router = router.layer(cors);
    }
    if let Some(hsts) = hsts {
        router = router.layer(hsts);
    }
    router
        .layer(axum::middleware::map_response(no_store_json))
        .layer(CompressionLayer::new())
        .layer(security_headers)
        .layer(
            ServiceBuilder::new()
                .layer(axum::middleware::map_request(drop_malformed_request_id))
                .layer(SetRequestIdLayer::new(REQUEST_ID.clone(), MakeRequestUuid))
                .layer(trace)
                .layer(PropagateRequestIdLayer::new(REQUEST_ID.clone())),
        )
        .with_state(state)
}

/// Whether a client's `X-Request-Id` may be echoed and logged: 1 to 128 characters of
/// letters, digits and `-_.:`. Anything else (log injection, huge values) is replaced by one
/// of ours.
fn acceptable_request_id(value: &[u8]) -> bool {
    (1..=128).contains(&value.len())
        && value
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
}

async fn drop_malformed_request_id<B>(mut request: Request<B>) -> Request<B> {
    let malformed = request
        .headers()
        .get_all(&REQUEST_ID)
        .iter()
        .any(|value| !acceptable_request_id(value.as_bytes()))
        || request.headers().get_all(&REQUEST_ID).iter().count() > 1;
    if malformed {
        request.headers_mut().remove(&REQUEST_ID);
    }
    request
}

/// JSON answers (tokens, users, a user's data) are never stored by browsers or proxies unless
/// the route said otherwise (the public JWKS does).
async fn no_store_json(mut response: axum::response::Response) -> axum::response::Response {
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/json"));
    if is_json && !response.headers().contains_key(header::CACHE_CONTROL) {
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

fn header_if_absent(name: HeaderName, value: &'static str) -> SetResponseHeaderLayer<HeaderValue> {
    SetResponseHeaderLayer::if_not_present(name, HeaderValue::from_static(value))
}

/// CORS for the configured extra origins; none configured means same origin only (no CORS
/// headers at all). The headers are those auth-js sends and reads.
fn cors_layer(origins: &[String]) -> Option<CorsLayer> {
    let origins: Vec<HeaderValue> = origins
        .iter()
        .map(|origin| origin.trim())
        .filter(|origin| !origin.is_empty())
        .filter_map(|origin| HeaderValue::from_str(origin).ok())
        .collect();
    if origins.is_empty() {
        return None;
    }
    let header = |name: &'static str| HeaderName::from_static(name);
    Some(
        CorsLayer::new()
            .allow_origin(AllowOrigin::list(origins))
            .allow_methods([
                Method::GET,
                Method::POST,
                Method::PUT,
                Method::PATCH,
                Method::DELETE,
            ])
            .allow_headers([
                header::ACCEPT,
                header::AUTHORIZATION,
                header::CONTENT_TYPE,
                header("apikey"),
                header("x-client-info"),
                header("x-client-ip"),
                header("x-jwt-aud"),
                header("x-supabase-api-version"),
            ])
            .expose_headers([
                header("x-supabase-api-version"),
                header("x-total-count"),
                header::LINK,
            ])
            .allow_credentials(true)
            .max_age(Duration::from_secs(3600)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_ids_are_echoed_only_when_harmless() {
        assert!(acceptable_request_id(b"3f2a-9c_1.abc:7"));
        assert!(!acceptable_request_id(b""));
        assert!(!acceptable_request_id(&[b'a'; 129]));
        assert!(!acceptable_request_id(b"id\nforged log line"));
        assert!(!acceptable_request_id(b"<script>"));
    }

    #[test]
    fn the_map_tiles_origin_is_an_image_source() {
        let policy = super::content_security_policy("https://{s}.tile.example.org/{z}/{x}/{y}.png");
        assert!(policy.contains("img-src 'self' data: blob: https://*.tile.example.org;"));
        let local = super::content_security_policy("http://127.0.0.1:9000/tiles/{z}/{x}/{y}.png");
        assert!(local.contains("img-src 'self' data: blob: http://127.0.0.1:9000;"));
        assert_eq!(
            super::content_security_policy("/tiles/{z}/{x}/{y}.png"),
            super::CONTENT_SECURITY_POLICY
        );
        assert_eq!(
            super::content_security_policy("https://evil.org;script-src *"),
            super::CONTENT_SECURITY_POLICY
        );
    }
}
