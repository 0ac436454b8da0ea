//! Authentication: the GoTrue (Supabase Auth) wire protocol under `/auth/v1`, so that the
//! unmodified `@supabase/auth-js` client works against this server. See
//! `reference/gotrue-protocol.md` for the shapes; this module owns users' credentials,
//! sessions, access tokens (JWT) and refresh tokens.

pub mod admin;
pub mod email;
pub mod error;
mod external;
pub mod extract;
pub mod flow;
mod identities;
pub mod keys;
pub mod limits;
pub mod links;
mod logout;
pub mod metadata;
pub mod mfa;
pub mod oidc;
mod otp;
pub mod password;
pub mod phone;
pub mod redirect;
pub mod session;
mod settings;
mod signup;
mod token;
pub mod tokens;
mod user;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware;

pub use error::AuthError;
pub use extract::AuthUser;

use crate::state::AppState;

/// The `/auth/v1` router (to be nested under that prefix).
pub fn router(state: &AppState) -> Router<AppState> {
    Router::new()
        .merge(signup::router())
        .merge(token::router())
        .merge(logout::router())
        .merge(user::router())
        .merge(settings::router())
        .merge(external::router())
        .merge(mfa::router())
        .merge(links::router())
        .merge(admin::router())
        .merge(otp::router())
        .merge(identities::router())
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(state.config.max_body_bytes))
        .layer(middleware::from_fn(error::api_version))
}

async fn not_found() -> AuthError {
    AuthError::new(axum::http::StatusCode::NOT_FOUND, "not_found", "Not Found")
}
