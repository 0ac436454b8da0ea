//! [`ApiError`]: the one error type of `/api/v1`. Every error answers [`ErrorBody`],
//! `{"code": "snake_case", "message": "...", "details": {...}}`, with a stable code from
//! [`ErrorCode`] (which fixes the status and the English message) that the web app
//! translates; internal causes are logged here and never put in a body.

use std::collections::BTreeMap;

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Value, json};

pub use crate::codes::{ErrorCode, FieldCode};
use crate::db::DbError;
use crate::media::MediaError;
use crate::storage::StorageError;

/// Per-field validation codes (`{"latitude": "out_of_range"}`), sorted for stable output.
pub type FieldErrors = BTreeMap<String, FieldCode>;

/// An `/api/v1` error: a stable code (which gives the status and the English message) and
/// details.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub code: ErrorCode,
    pub details: Value,
    /// Seconds to wait, sent as `Retry-After` (429 and 503 answers).
    pub retry_after: Option<u64>,
}

/// The body of every `/api/v1` error answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// The stable code: what the web app translates.
    pub code: ErrorCode,
    /// The English message of the code, for people reading the raw answer.
    pub message: &'static str,
    /// More about this error: `fields` for `validation_failed`, limits for uploads, `reason`
    /// for `unauthorized`, ...; an empty object otherwise.
    #[schema(value_type = Object)]
    pub details: Value,
}

impl ApiError {
    /// An error with empty details.
    pub fn new(code: ErrorCode) -> Self {
        Self {
            code,
            details: json!({}),
            retry_after: None,
        }
    }

    /// The HTTP status of the answer.
    pub fn status(&self) -> StatusCode {
        self.code.status()
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
        Self::new(ErrorCode::NotFound)
    }

    /// 401 `unauthorized`; `reason` is the auth layer's code (`no_authorization`, `bad_jwt`,
    /// `session_not_found`, ...), in `details.reason`.
    pub fn unauthorized(reason: &str) -> Self {
        Self::new(ErrorCode::Unauthorized).with_details(json!({ "reason": reason }))
    }

    /// 422 `validation_failed` with `details.fields`.
    pub fn validation(fields: FieldErrors) -> Self {
        Self::new(ErrorCode::ValidationFailed).with_details(json!({ "fields": fields }))
    }

    /// 422 `validation_failed` for one field.
    pub fn field(field: &str, code: FieldCode) -> Self {
        Self::validation(FieldErrors::from([(field.to_owned(), code)]))
    }

    /// 500 `internal`. The cause is logged here and never sent to the client.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "internal error in /api/v1");
        Self::new(ErrorCode::Internal)
    }

    /// 503 `unavailable`: the database or the storage cannot be reached. Logged; the client
    /// is told to try again in a moment.
    pub fn unavailable(cause: impl std::fmt::Display) -> Self {
        tracing::warn!(error = %cause, "a backing service is unavailable");
        Self::new(ErrorCode::Unavailable).retry_after(UNAVAILABLE_RETRY_SECS)
    }
}

/// `Retry-After` of a 503 `unavailable`: a pool reconnects within a second or two.
const UNAVAILABLE_RETRY_SECS: u64 = 2;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            code: self.code,
            message: self.code.message(),
            details: self.details,
        };
        let mut response = (self.code.status(), Json(body)).into_response();
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
        if err.is_unavailable() {
            Self::unavailable(err)
        } else {
            Self::internal(err)
        }
    }
}

impl From<StorageError> for ApiError {
    fn from(err: StorageError) -> Self {
        if err.is_unavailable() {
            Self::unavailable(err)
        } else {
            Self::internal(err)
        }
    }
}

impl From<crate::media::AcceptError> for ApiError {
    fn from(err: crate::media::AcceptError) -> Self {
        use crate::media::AcceptError;
        match err {
            AcceptError::Media(err) => err.into(),
            AcceptError::Storage(err) => err.into(),
            AcceptError::Db(err) => err.into(),
            AcceptError::Internal(cause) => Self::internal(cause),
        }
    }
}

impl From<MediaError> for ApiError {
    fn from(err: MediaError) -> Self {
        match &err {
            MediaError::Internal(_) => Self::internal(err),
            MediaError::UnsupportedMediaType => Self::new(err.error_code()),
            MediaError::FileTooLarge { max_bytes, .. } => Self::new(err.error_code())
                .with_details(json!({ "max_bytes": max_bytes })),
            MediaError::ImageTooLarge {
                width,
                height,
                max_pixels,
                max_side,
            } => Self::new(err.error_code()).with_details(
                json!({"width": width, "height": height, "max_pixels": max_pixels, "max_side": max_side}),
            ),
            MediaError::TooLargeToDecode {
                width,
                height,
                bytes,
                max_bytes,
            } => Self::new(err.error_code()).with_details(
                json!({"width": width, "height": height, "decode_bytes": bytes, "max_decode_bytes": max_bytes}),
            ),
            // The decoder's text is logged, not shown: it can be long and says nothing useful
            // to a user.
            MediaError::InvalidImage(cause) => {
                tracing::info!(error = %cause, "upload refused: invalid image");
                Self::new(err.error_code())
            }
            MediaError::Upload(cause) => {
                tracing::info!(error = %cause, "upload stream failed");
                Self::new(err.error_code())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_or_storage_out_of_reach_is_503_with_retry_after() {
        for err in [
            ApiError::from(DbError::Sqlx(sqlx::Error::PoolTimedOut)),
            ApiError::from(DbError::Sqlx(sqlx::Error::Io(std::io::Error::from(
                std::io::ErrorKind::ConnectionRefused,
            )))),
            ApiError::from(StorageError::Backend(object_store::Error::Generic {
                store: "S3",
                source: "connection refused".into(),
            })),
        ] {
            assert_eq!(err.code, ErrorCode::Unavailable);
            let response = err.into_response();
            assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
            assert_eq!(response.headers()["retry-after"], "2");
        }
        // A bug stays a 500: retrying would not help.
        let bug = ApiError::from(DbError::Sqlx(sqlx::Error::RowNotFound));
        assert_eq!(bug.code, ErrorCode::Internal);
        assert_eq!(bug.retry_after, None);
        let missing = ApiError::from(StorageError::NotFound("k".into()));
        assert_eq!(missing.code, ErrorCode::Internal);
    }
}
