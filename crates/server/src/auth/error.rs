//! GoTrue's error responses. A handler returns [`AuthError`]; [`api_version`] (a middleware on
//! the whole `/auth/v1` router) then writes the body in the format the request's
//! `X-Supabase-Api-Version` header asks for:
//!
//! * `2024-01-01` or later: `{"code":"<error code>","message":"..."}` and the echo header;
//! * no header or an older date (legacy): `{"code":<http status>,"error_code":"...","msg":"..."}`.
//!
//! Both carry `weak_password: {reasons}` for weak passwords and an `x-sb-error-code` header.

use axum::Json;
use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::db::DbError;

/// The only API version this server speaks besides the legacy one.
pub const API_VERSION_2024: &str = "2024-01-01";
/// GoTrue's version header (request and response).
pub static API_VERSION_HEADER: HeaderName = HeaderName::from_static("x-supabase-api-version");
static ERROR_CODE_HEADER: HeaderName = HeaderName::from_static("x-sb-error-code");

/// An error of the auth API: HTTP status, GoTrue error code and message.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{status} {code}: {message}")]
pub struct AuthError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    /// Only for `weak_password`.
    pub weak_password_reasons: Option<Vec<&'static str>>,
    /// OAuth-shaped errors (`{"error","error_description"}`), as GoTrue uses for a missing
    /// refresh token.
    pub oauth: bool,
    /// Seconds to wait, sent as `Retry-After` (429 answers).
    pub retry_after: Option<u64>,
}

impl AuthError {
    /// An error with a GoTrue code.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            weak_password_reasons: None,
            oauth: false,
            retry_after: None,
        }
    }

    /// The same error with a `Retry-After` of `seconds` (at least 1).
    pub fn retry_after(self, seconds: u64) -> Self {
        Self {
            retry_after: Some(seconds.max(1)),
            ..self
        }
    }

    /// 400 `validation_failed`.
    pub fn validation(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "validation_failed", message)
    }

    /// 400 `invalid_credentials` "Invalid login credentials".
    pub fn invalid_credentials() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "invalid_credentials",
            "Invalid login credentials",
        )
    }

    /// 422 `weak_password` with its reasons.
    pub fn weak_password(message: impl Into<String>, reasons: Vec<&'static str>) -> Self {
        Self {
            weak_password_reasons: Some(reasons),
            ..Self::new(StatusCode::UNPROCESSABLE_ENTITY, "weak_password", message)
        }
    }

    /// 429 `over_request_rate_limit`, to be tried again in `retry_after` seconds.
    pub fn rate_limited(retry_after: u64) -> Self {
        Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "over_request_rate_limit",
            "Request rate limit reached",
        )
        .retry_after(retry_after)
    }

    /// 422 `email_exists`: the address belongs to another user.
    pub fn email_exists() -> Self {
        Self::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "email_exists",
            "A user with this email address has already been registered",
        )
    }

    /// 422 `phone_exists`: the number belongs to another user.
    pub fn phone_exists() -> Self {
        Self::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "phone_exists",
            "A user with this phone number has already been registered",
        )
    }

    /// 400 OAuth-style `invalid_request`.
    pub fn oauth_invalid_request(description: impl Into<String>) -> Self {
        Self {
            oauth: true,
            ..Self::new(StatusCode::BAD_REQUEST, "invalid_request", description)
        }
    }

    /// 500 `unexpected_failure`. The cause is logged here and never sent to the client.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "internal error in auth API");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "unexpected_failure",
            "Unexpected failure, please check server logs for more information",
        )
    }

    /// 503 `unexpected_failure` with `Retry-After`: the database cannot be reached. auth-js
    /// treats a 503 as retryable (a refresh is tried again rather than ending the session).
    pub fn unavailable(cause: impl std::fmt::Display) -> Self {
        tracing::warn!(error = %cause, "the database is unavailable to the auth API");
        let mut err = Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unexpected_failure",
            "The service is briefly unavailable; please try again in a moment",
        );
        err.retry_after = Some(2);
        err
    }

    fn body(&self, dated: bool) -> Value {
        if self.oauth {
            return json!({"error": self.code, "error_description": self.message});
        }
        let mut body = if dated {
            json!({"code": self.code, "message": self.message})
        } else {
            json!({"code": self.status.as_u16(), "error_code": self.code, "msg": self.message})
        };
        if let Some(reasons) = &self.weak_password_reasons {
            body["weak_password"] = json!({"reasons": reasons});
        }
        body
    }
}

impl From<DbError> for AuthError {
    fn from(err: DbError) -> Self {
        if err.is_unavailable() {
            AuthError::unavailable(err)
        } else {
            AuthError::internal(err)
        }
    }
}

impl IntoResponse for AuthError {
    fn into_response(self) -> Response {
        // Rendered in the legacy shape for now; `api_version` re-renders it when the request
        // asked for the dated format. The error travels in the response extensions.
        let mut response = (self.status, Json(self.body(false))).into_response();
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if !self.oauth {
            response.headers_mut().insert(
                ERROR_CODE_HEADER.clone(),
                HeaderValue::from_static(self.code),
            );
        }
        response.extensions_mut().insert(self);
        response
    }
}

/// Whether the request's version header names 2024-01-01 or later (GoTrue's
/// `DetermineClosestAPIVersion`; an unparsable value means legacy).
fn wants_dated_errors(request: &Request) -> bool {
    let Some(value) = request.headers().get(&API_VERSION_HEADER) else {
        return false;
    };
    let Ok(value) = value.to_str() else {
        return false;
    };
    chrono::NaiveDate::parse_from_str(value.trim(), "%Y-%m-%d")
        .map(|date| date >= chrono::NaiveDate::from_ymd_opt(2024, 1, 1).expect("valid date"))
        .unwrap_or(false)
}

/// Middleware: echoes `X-Supabase-Api-Version` and writes error bodies in the requested format.
pub async fn api_version(request: Request, next: Next) -> Response {
    let dated = wants_dated_errors(&request);
    let mut response = next.run(request).await;
    if !dated {
        return response;
    }
    response.headers_mut().insert(
        API_VERSION_HEADER.clone(),
        HeaderValue::from_static(API_VERSION_2024),
    );
    if let Some(error) = response.extensions_mut().remove::<AuthError>() {
        let mut dated_response = (error.status, Json(error.body(true))).into_response();
        for (name, value) in response.headers() {
            if name != axum::http::header::CONTENT_LENGTH
                && name != axum::http::header::CONTENT_TYPE
            {
                dated_response.headers_mut().insert(name, value.clone());
            }
        }
        return dated_response;
    }
    response
}
