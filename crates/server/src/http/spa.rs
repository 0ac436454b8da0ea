//! Serves the built web app from `REGARD_WEB_DIR`: hashed files under `/assets/` cached for
//! good, `index.html` (and every unknown non-API path, for client-side routing) never cached
//! without revalidation. A missing build is not fatal: a small page says so.

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use tower::ServiceExt;
use tower_http::services::{ServeDir, ServeFile};

use crate::state::AppState;

/// Paths that belong to the server, never to the SPA.
const RESERVED_PREFIXES: [&str; 5] = ["/auth/", "/api/", "/healthz", "/readyz", "/metrics"];

/// Routes of this module (`/assets/*` and the fallback).
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/assets/{*path}", axum::routing::any(assets))
        .fallback(app_shell)
}

/// `/assets/*`: Vite's content-hashed files, immutable. A missing asset is a plain 404 (never
/// index.html, which a stale page would try to run as a script).
async fn assets(State(state): State<AppState>, request: Request) -> Response {
    let dir = state.config.web_dir.clone();
    let service = ServeDir::new(dir);
    let mut response = match service.oneshot(request).await {
        Ok(response) => response.into_response(),
        Err(never) => match never {},
    };
    if response.status().is_success() {
        response.headers_mut().insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=31536000, immutable"),
        );
    }
    response
}

fn is_reserved(path: &str) -> bool {
    RESERVED_PREFIXES
        .iter()
        .any(|prefix| path.starts_with(prefix) || path == prefix.trim_end_matches('/'))
}

/// Every other path: a file of the build (favicon, robots.txt) or index.html, with
/// `Cache-Control: no-cache` so a new release is picked up at once.
async fn app_shell(State(state): State<AppState>, request: Request) -> Response {
    if is_reserved(request.uri().path()) {
        // A client of the API gets an answer it can parse, in the API's error shape.
        return (
            StatusCode::NOT_FOUND,
            axum::Json(serde_json::json!({
                "code": "not_found",
                "message": "Not Found",
                "details": {},
            })),
        )
            .into_response();
    }
    let dir = state.config.web_dir.clone();
    let index = dir.join("index.html");
    // Checked per request so that building the web app while the server runs just works.
    if !tokio::fs::try_exists(&index).await.unwrap_or(false) {
        return not_built();
    }
    let service = ServeDir::new(&dir).fallback(ServeFile::new(&index));
    let mut response = match service.oneshot(request).await {
        Ok(response) => response.into_response(),
        Err(never) => match never {},
    };
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

fn not_built() -> Response {
    // 200 rather than 503: the server itself is fine (see /readyz), and API clients and
    // tests do not need the web app.
    let mut response = (
        StatusCode::OK,
        Html(
            "<!doctype html><meta charset=\"utf-8\"><title>Regard</title>\
             <p>The web app is not built. Run <code>npm run build</code> in <code>web/</code>, \
             or point <code>REGARD_WEB_DIR</code> at a built copy.</p>",
        ),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}
