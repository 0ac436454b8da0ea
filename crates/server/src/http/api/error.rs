//! [`ApiError`]: the one error type of `/api/v1`. Every error answers
//! `{"code": "snake_case", "message": "...", "details": {...}}` with a stable code the web app
//! translates; internal causes are logged here and never put in a body.

use std::collections::BTreeMap;

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::db::DbError;
use crate::media::MediaError;
use crate::storage::StorageError;

/// Per-field validation codes (`{"latitude": "out_of_range"}`), sorted for stable output.
pub type FieldErrors = BTreeMap<String, &'static str>;

/// An `/api/v1` error: status, stable code, human message (English) and details.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub details: Value,
    /// Seconds to wait, sent as `Retry-After` (429 answers).
    pub retry_after: Option<u64>,
}

impl ApiError {
    /// An error with empty details.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            details: json!({}),
            retry_after: None,
        }
    }

    /// The same error with a `Retry-After` of `seconds` (at least 1).
    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds.max(1));
        self
    }

    /// Replaces the details object.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = details;
        self
    }

    /// 404 `not_found`: a missing id and another user's id answer exactly this.
    pub fn not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", "Not found")
    }

    /// 401 `unauthorized`; `reason` is the auth layer's code (`no_authorization`, `bad_jwt`,
    /// `session_not_found`, ...), in `details.reason`.
    pub fn unauthorized(reason: &str) -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "Sign in again: a valid bearer access token is required",
        )
        .with_details(json!({ "reason": reason }))
    }

    /// 422 `validation_failed` with `details.fields`.
    pub fn validation(fields: FieldErrors) -> Self {
        Self::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_failed",
            "Some fields are invalid",
        )
        .with_details(json!({ "fields": fields }))
    }

    /// 422 `validation_failed` for one field.
    pub fn field(field: &str, code: &'static str) -> Self {
        Self::validation(FieldErrors::from([(field.to_owned(), code)]))
    }

    /// 500 `internal`. The cause is logged here and never sent to the client.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "internal error in /api/v1");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "Something went wrong on our side; please try again",
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"code": self.code, "message": self.message, "details": self.details});
        let mut response = (self.status, Json(body)).into_response();
        if let Some(seconds) = self.retry_after {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(seconds),
            );
        }
        response
    }
}

impl From<DbError> for ApiError {
    fn from(err: DbError) -> Self {
        Self::internal(err)
    }
}

impl From<StorageError> for ApiError {
    fn from(err: StorageError) -> Self {
        Self::internal(err)
    }
}

impl From<MediaError> for ApiError {
    fn from(err: MediaError) -> Self {
        let status =
            StatusCode::from_u16(err.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        match &err {
            MediaError::Internal(_) => Self::internal(err),
            MediaError::UnsupportedMediaType => Self::new(
                status,
                err.code(),
                "Only JPEG, PNG and WebP images are accepted",
            ),
            MediaError::FileTooLarge { max_bytes, .. } => {
                Self::new(status, err.code(), "The file is too large")
                    .with_details(json!({ "max_bytes": max_bytes }))
            }
            MediaError::ImageTooLarge {
                width,
                height,
                max_pixels,
                max_side,
            } => Self::new(status, err.code(), "The image has too many pixels").with_details(
                json!({"width": width, "height": height, "max_pixels": max_pixels, "max_side": max_side}),
            ),
            MediaError::TooLargeToDecode {
                width,
                height,
                bytes,
                max_bytes,
            } => Self::new(status, err.code(), "The image has too many pixels").with_details(
                json!({"width": width, "height": height, "decode_bytes": bytes, "max_decode_bytes": max_bytes}),
            ),
            // The decoder's text is logged, not shown: it can be long and says nothing useful
            // to a user.
            MediaError::InvalidImage(cause) => {
                tracing::info!(error = %cause, "upload refused: invalid image");
                Self::new(status, err.code(), "The image is truncated or corrupt")
            }
            MediaError::Upload(cause) => {
                tracing::info!(error = %cause, "upload stream failed");
                Self::new(status, err.code(), "The upload did not complete")
            }
        }
    }
}
