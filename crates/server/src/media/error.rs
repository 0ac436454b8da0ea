//! [`MediaError`]: why an upload was refused, with a stable code and HTTP status for each case.

use crate::codes::ErrorCode;

/// Why an upload was refused (or, for `Internal`, could not be processed).
///
/// [`error_code`](Self::error_code) is part of the API contract: the frontend translates the
/// code. The `Display` text of `InvalidImage` and `Internal` comes from
/// decoders and encoders; the HTTP layer logs it and shows its own message.
#[derive(Debug, thiserror::Error)]
pub enum MediaError {
    /// Not JPEG, PNG or WebP (judged from the bytes).
    #[error("unsupported media type: only JPEG, PNG and WebP images are accepted")]
    UnsupportedMediaType,
    /// The file is larger than `MediaLimits::max_bytes`.
    #[error("file too large: {bytes} bytes, the limit is {max_bytes}")]
    FileTooLarge {
        /// Bytes received (at least; reading stops at the limit).
        bytes: u64,
        /// The limit.
        max_bytes: u64,
    },
    /// The header announces more pixels, or a longer side, than the limits allow.
    #[error(
        "image too large: {width}×{height}, the limits are {max_pixels} pixels and {max_side} per side"
    )]
    ImageTooLarge {
        /// Width from the header.
        width: u32,
        /// Height from the header.
        height: u32,
        /// The area limit.
        max_pixels: u64,
        /// The side limit.
        max_side: u32,
    },
    /// Decoding the image would take more memory than `MediaLimits::max_decode_bytes`, worked
    /// out from its header (dimensions, bit depth, progressive JPEG, orientation). Same code as
    /// [`ImageTooLarge`](Self::ImageTooLarge): to a user, both mean too many pixels.
    #[error(
        "image too large to decode: {width}×{height} needs {bytes} bytes, the budget is {max_bytes}"
    )]
    TooLargeToDecode {
        /// Width from the header.
        width: u32,
        /// Height from the header.
        height: u32,
        /// Memory the decoding would take, in bytes.
        bytes: u64,
        /// The budget.
        max_bytes: u64,
    },
    /// Truncated or corrupt image data.
    #[error("invalid image: {0}")]
    InvalidImage(String),
    /// The upload stream itself failed (client went away, body error).
    #[error("upload failed: {0}")]
    Upload(#[source] std::io::Error),
    /// Encoding a variant failed: a bug or resource problem on our side, not the user's.
    #[error("media processing failed: {0}")]
    Internal(String),
}

impl MediaError {
    /// The API error code of this error (which fixes its status and message).
    pub fn error_code(&self) -> ErrorCode {
        match self {
            Self::UnsupportedMediaType => ErrorCode::UnsupportedMediaType,
            Self::FileTooLarge { .. } => ErrorCode::FileTooLarge,
            Self::ImageTooLarge { .. } | Self::TooLargeToDecode { .. } => ErrorCode::ImageTooLarge,
            Self::InvalidImage(_) => ErrorCode::InvalidImage,
            Self::Upload(_) => ErrorCode::UploadFailed,
            Self::Internal(_) => ErrorCode::Internal,
        }
    }

    /// The code as sent (`image_too_large`, ...).
    pub fn code(&self) -> &'static str {
        self.error_code().as_str()
    }

    /// The HTTP status of the API's answer.
    pub fn http_status(&self) -> u16 {
        self.error_code().status().as_u16()
    }

    /// Maps a decoder error: limits become `ImageTooLarge`, unsupported variants of a format
    /// `UnsupportedMediaType`, everything else `InvalidImage`.
    /// `size` is the image's size from the header, when known, for the `ImageTooLarge` case.
    pub(crate) fn from_image(
        err: image::ImageError,
        size: (u32, u32),
        limits: &super::MediaLimits,
    ) -> Self {
        use image::ImageError as E;
        match err {
            E::Limits(_) => Self::ImageTooLarge {
                width: size.0,
                height: size.1,
                max_pixels: limits.max_pixels,
                max_side: limits.max_side,
            },
            E::Unsupported(_) => Self::UnsupportedMediaType,
            E::Encoding(e) => Self::Internal(e.to_string()),
            E::Decoding(_) | E::Parameter(_) | E::IoError(_) => Self::InvalidImage(err.to_string()),
        }
    }
}
