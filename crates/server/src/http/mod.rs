//! The HTTP surface: assembles the routers of every area and the cross-cutting layers
//! (request ids, structured request logs, security headers, compression, CORS, body limits).

pub mod api;
pub mod health;
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

static REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The whole application router.
pub fn router(state: AppState) -> Router {
    let security_headers = ServiceBuilder::new()
        .layer(header_if_absent(
            header::CONTENT_SECURITY_POLICY,
            CONTENT_SECURITY_POLICY,
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

    let mut router = Router::new()
        .merge(health::router())
        .nest("/auth/v1", auth::router(&state))
        .nest("/api/v1", api::router(&state))
        .merge(spa::router());
    if let Some(cors) = cors_layer(&state.config.cors_origins) {
        router = router.layer(cors);
    }
    router
        .layer(CompressionLayer::new())
        .layer(security_headers)
        .layer(
            ServiceBuilder::new()
                .layer(SetRequestIdLayer::new(REQUEST_ID.clone(), MakeRequestUuid))
                .layer(trace)
                .layer(PropagateRequestIdLayer::new(REQUEST_ID.clone())),
        )
        .with_state(state)
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
