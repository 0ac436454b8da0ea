//! Every stable code `/api/v1` can send, in three tables (and `wire_enum!`, the macro that
//! defines them and the API's other string enums):
//!
//! - [`ErrorCode`]: the `code` of an error answer, with its HTTP status and English message;
//! - [`FieldCode`]: what is wrong with one field, in a `validation_failed` answer's
//!   `details.fields`;
//! - [`JobErrorCode`]: why a background job (a heatmap image, a render) failed, in the `error`
//!   of the heatmap item or simulation and of their events.
//!
//! Each is an enum, so a code cannot be misspelt at a call site, and each lists all its values
//! (`ALL`): the OpenAPI document publishes them, and the web app's tests check that both
//! locales translate every one. A code, once published, is never renamed.

use axum::http::StatusCode;

/// Defines an enum sent as strings: each variant with its wire string (serde and `as_str`),
/// for error codes also its status and message, and `ALL`, every variant in declaration order.
/// Used for the code tables here and for the kinds and statuses of the API's bodies.
macro_rules! wire_enum {
    (
        $(#[doc = $doc:literal])*
        pub enum $name:ident {
            $( $(#[doc = $vdoc:literal])* $variant:ident = $code:literal $(, $status:ident, $message:literal)?; )*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        pub enum $name {
            $( $(#[doc = $vdoc])* #[serde(rename = $code)] $variant, )*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$(Self::$variant),*];

            /// The value as it is sent.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $code,)*
                }
            }

            /// The value sent as `text`, if there is one.
            pub fn parse(text: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|value| value.as_str() == text)
            }
        }

        // Lets body fields read the value from a text (`Choice`); `Err` carries nothing more
        // than "not one of the values".
        impl std::str::FromStr for $name {
            type Err = ();

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                Self::parse(text).ok_or(())
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        // Written out rather than derived: the derive does not see `rename`s made of macro
        // arguments. A string enum of the wire values, described by the type's doc comment.
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                let doc: &[&str] = &[$($doc),*];
                let description = doc.iter().map(|line| line.trim()).collect::<Vec<_>>().join(" ");
                utoipa::openapi::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .enum_values(Some(Self::ALL.iter().map(|value| value.as_str())))
                    .description((!description.is_empty()).then_some(description))
                    .into()
            }
        }

        impl utoipa::ToSchema for $name {
            fn name() -> std::borrow::Cow<'static, str> {
                std::borrow::Cow::Borrowed(stringify!($name))
            }
        }

        wire_enum!(@table $name { $( $variant $(, $status, $message)?; )* });
    };
    (@table $name:ident { $( $variant:ident, $status:ident, $message:literal; )* }) => {
        impl $name {
            /// The HTTP status of an answer with this code.
            pub const fn status(self) -> StatusCode {
                match self {
                    $(Self::$variant => StatusCode::$status,)*
                }
            }

            /// The English message of an answer with this code (the web app shows its own
            /// translation, found by the code).
            pub const fn message(self) -> &'static str {
                match self {
                    $(Self::$variant => $message,)*
                }
            }
        }
    };
    (@table $name:ident { $( $variant:ident; )* }) => {};
}

wire_enum! {
    /// The `code` of an `/api/v1` error answer (`{code, message, details}`).
    pub enum ErrorCode {
        /// No such item, or another user's: both answer exactly this. Also an unknown endpoint.
        NotFound = "not_found", NOT_FOUND, "Not found";
        /// The endpoint exists but not with this method.
        MethodNotAllowed = "method_not_allowed", METHOD_NOT_ALLOWED,
            "This endpoint does not accept this method";
        /// No valid access token; `details.reason` says why (`no_authorization`, `bad_jwt`, ...).
        Unauthorized = "unauthorized", UNAUTHORIZED,
            "Sign in again: a valid bearer access token is required";
        /// The caller's role in the workspace does not allow this (a viewer's change, a
        /// non-owner managing members or settings).
        ForbiddenRole = "forbidden_role", FORBIDDEN,
            "Your role in this workspace does not allow this";
        /// A personal workspace cannot be deleted, shared or left.
        PersonalWorkspace = "personal_workspace", CONFLICT,
            "Your personal workspace is yours alone: create a workspace to work with others";
        /// The change would leave the workspace without an owner.
        LastOwner = "last_owner", CONFLICT,
            "A workspace keeps at least one owner: make someone else owner first";
        /// The invited address is already a member.
        AlreadyMember = "already_member", CONFLICT, "This person is already a member";
        /// An invitation link past its expiry (7 days).
        InvitationExpired = "invitation_expired", GONE,
            "This invitation has expired: ask for a new one";
        /// An invitation sent to another address than the signed-in account's.
        InvitationForAnotherAccount = "invitation_for_another_account", FORBIDDEN,
            "This invitation was sent to another address: sign in with that address";
        /// The user has a verified second factor and the session has not used it yet.
        InsufficientAal = "insufficient_aal", FORBIDDEN,
            "Enter your two-step verification code to continue";
        /// Some fields are invalid: `details.fields` maps each to a [`FieldCode`].
        ValidationFailed = "validation_failed", UNPROCESSABLE_ENTITY, "Some fields are invalid";
        /// The body is not a JSON object.
        InvalidJson = "invalid_json", BAD_REQUEST, "The request body must be a JSON object";
        /// The query string cannot be read.
        InvalidQuery = "invalid_query", BAD_REQUEST, "The query string cannot be read";
        /// An upload is not multipart/form-data with a `file` field.
        InvalidMultipart = "invalid_multipart", BAD_REQUEST,
            "Send the image as multipart/form-data in a field named \"file\"";
        /// A JSON body over `REGARD_MAX_BODY_BYTES`.
        PayloadTooLarge = "payload_too_large", PAYLOAD_TOO_LARGE, "The request body is too large";
        /// An upload that is not a JPEG, PNG or WebP image.
        UnsupportedMediaType = "unsupported_media_type", UNSUPPORTED_MEDIA_TYPE,
            "Only JPEG, PNG and WebP images are accepted";
        /// An upload over `REGARD_MEDIA_MAX_BYTES` (`details.max_bytes`).
        FileTooLarge = "file_too_large", PAYLOAD_TOO_LARGE, "The file is too large";
        /// An upload that would take the user past `REGARD_STORAGE_QUOTA_MB`
        /// (`details.used_bytes`, `details.limit_bytes`, `details.bytes`: the upload's size).
        StorageQuotaExceeded = "storage_quota_exceeded", PAYLOAD_TOO_LARGE,
            "Your storage is full: delete images you no longer need to upload more";
        /// An image over the pixel limits or the decoding budget (`details`: its size and the
        /// limit it exceeds).
        ImageTooLarge = "image_too_large", UNPROCESSABLE_ENTITY, "The image has too many pixels";
        /// An image that cannot be decoded.
        InvalidImage = "invalid_image", UNPROCESSABLE_ENTITY, "The image is truncated or corrupt";
        /// The upload stream broke off.
        UploadFailed = "upload_failed", BAD_REQUEST, "The upload did not complete";
        /// An image still used by a creative, a location or a heatmap cannot be deleted.
        MediaInUse = "media_in_use", CONFLICT,
            "This image is still used by a creative, a location or a heatmap";
        /// A file link whose signature does not match.
        InvalidSignature = "invalid_signature", FORBIDDEN, "This image link is not valid";
        /// A file link past its expiry.
        UrlExpired = "url_expired", FORBIDDEN, "This image link has expired; reload the page";
        /// A `Range` outside the file.
        RangeNotSatisfiable = "range_not_satisfiable", RANGE_NOT_SATISFIABLE,
            "The requested byte range is outside the file";
        /// A render is asked for while one is queued or running.
        AlreadyRendering = "already_rendering", CONFLICT,
            "This simulation is already being rendered";
        /// The simulation has no render to analyse yet.
        NotRendered = "not_rendered", CONFLICT, "This simulation has no render to analyse yet";
        /// The heatmap image has no result to export yet.
        NotDone = "not_done", CONFLICT, "This image has no result to export yet";
        /// Only a failed heatmap image can be retried.
        NotFailed = "not_failed", CONFLICT, "Only a failed image can be retried";
        /// An image holds at most `details.max` areas of interest.
        TooManyAois = "too_many_aois", CONFLICT,
            "This image already holds the most areas of interest it can";
        /// A workspace or an account holds the most of something it may
        /// (`details.limit`: `locations` or `workspaces`; `details.max`).
        LimitReached = "limit_reached", CONFLICT,
            "You have reached the most this workspace or account may hold";
        /// Recovery codes are asked for while the account has no verified second factor.
        MfaNotEnabled = "mfa_not_enabled", CONFLICT,
            "Turn on two-step verification first: recovery codes stand in for it";
        /// A share link past its expiry.
        ShareExpired = "share_expired", GONE, "This share link has expired";
        /// Too many mails sent (invitations, resends included), per sender or per address, as
        /// GoTrue answers it; `Retry-After` says when to try again.
        OverEmailSendRateLimit = "over_email_send_rate_limit", TOO_MANY_REQUESTS,
            "Too many mails sent; wait before sending more";
        /// Too many requests; `Retry-After` says when to try again.
        RateLimited = "rate_limited", TOO_MANY_REQUESTS, "Too many requests; wait a moment";
        /// The database or the file storage cannot be reached; try again shortly
        /// (`Retry-After`).
        Unavailable = "unavailable", SERVICE_UNAVAILABLE,
            "The service is briefly unavailable; please try again in a moment";
        /// A bug or an unexpected failure on our side (logged, never detailed).
        Internal = "internal", INTERNAL_SERVER_ERROR,
            "Something went wrong on our side; please try again";
    }
}

wire_enum! {
    /// What is wrong with one field of a `validation_failed` answer (`details.fields`).
    pub enum FieldCode {
        /// The field is missing or empty.
        Required = "required";
        /// The field has the wrong JSON type.
        InvalidType = "invalid_type";
        /// The text is longer than allowed.
        TooLong = "too_long";
        /// The text holds control or bidirectional-override characters.
        InvalidCharacters = "invalid_characters";
        /// Not one of the accepted values (an unknown sort, a malformed cursor or id, ...).
        InvalidValue = "invalid_value";
        /// Not acceptable, with no more precise code.
        Invalid = "invalid";
        /// A number outside its range.
        OutOfRange = "out_of_range";
        /// The id names nothing this user owns.
        NotFound = "not_found";
        /// A field this endpoint does not know.
        UnknownField = "unknown_field";
        /// A quad or polygon that is not a list of `[x, y]` points of the right length.
        InvalidShape = "invalid_shape";
        /// A quad whose edges cross.
        SelfIntersecting = "self_intersecting";
        /// A quad that is not convex.
        NotConvex = "not_convex";
        /// A quad whose corners are not in clockwise order.
        NotClockwise = "not_clockwise";
        /// The location has no photo (a simulation needs one).
        RequiresPhoto = "requires_photo";
        /// The location has no panel frame (a simulation needs one).
        RequiresQuad = "requires_quad";
        /// The location has no panel size (a view from a distance needs one).
        RequiresSize = "requires_size";
        /// An area too small to be used.
        TooSmall = "too_small";
        /// Too few items or points.
        TooFew = "too_few";
        /// Too many items.
        TooMany = "too_many";
        /// The name is already used.
        Taken = "taken";
        /// Two fields that cannot be given together; in an import, a photo name two files of
        /// the archive share.
        Conflict = "conflict";
        /// A file or an image larger than allowed: bytes, pixels, or the memory decoding it
        /// would take (an imported photo, a file or archive of an import).
        TooLarge = "too_large";
    }
}

wire_enum! {
    /// Why a background job failed, in the `error.code` of a heatmap image or a simulation.
    pub enum JobErrorCode {
        /// The source image (or the creative or location) was deleted.
        SourceMissing = "source_missing";
        /// The source image cannot be decoded.
        InvalidImage = "invalid_image";
        /// The saved settings cannot be rendered.
        InvalidSettings = "invalid_settings";
        /// Failed on every attempt for a reason of ours.
        Internal = "internal";
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_snake_case_and_serialise_as_their_string() {
        fn check<T: serde::Serialize + Copy>(all: &[T], as_str: fn(T) -> &'static str) {
            let mut seen = std::collections::HashSet::new();
            for &code in all {
                let text = as_str(code);
                assert!(seen.insert(text), "{text} twice");
                assert!(
                    !text.is_empty() && text.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                    "{text}"
                );
                assert_eq!(serde_json::to_value(code).unwrap(), text);
            }
        }
        check(ErrorCode::ALL, ErrorCode::as_str);
        check(FieldCode::ALL, FieldCode::as_str);
        check(JobErrorCode::ALL, JobErrorCode::as_str);
    }

    #[test]
    fn every_error_has_an_error_status_and_a_sentence() {
        for &code in ErrorCode::ALL {
            assert!(
                code.status().is_client_error() || code.status().is_server_error(),
                "{code}"
            );
            assert!(
                code.message().chars().next().unwrap().is_uppercase(),
                "{code}"
            );
            assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
        }
        assert_eq!(ErrorCode::parse("nope"), None);
    }
}
