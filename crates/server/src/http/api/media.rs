//! Media: `POST /media` (multipart upload → ingest → storage → row), `GET`/`DELETE /media/{id}`,
//! `GET /usage` (the storage a user fills, against `REGARD_STORAGE_QUOTA_MB`),
//! and `GET /files/{media_id}/{variant}`, the signed URLs that `<img>` tags load without a
//! bearer token. Also the JSON shape of a media row, shared by creatives and locations, and
//! [`release`], which deletes a media row and its objects once nothing references them.

use axum::Json;
use axum::body::Body;
use axum::extract::multipart::{MultipartError, MultipartRejection};
use axum::extract::{DefaultBodyLimit, Multipart, Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::activity::record;
use super::body::{Id, IdPath};
use super::error::ApiError;
use super::input::{Member, rfc3339};
use crate::codes::{ErrorCode, FieldCode};
use crate::db::activity::{ActivityAction, ActivitySubject};
use crate::db::{self, media::MediaCard, media::MediaRow};
use crate::media::signing::{MemberSigner, SignatureError, UrlScope};
use crate::media::{self as ingest, MediaError, MediaLimits, VariantKind, quota};
use crate::state::AppState;
use crate::storage::StorageKey;

/// Room for the multipart framing around the file (boundaries, part headers, other fields).
const MULTIPART_OVERHEAD: u64 = 1024 * 1024;

/// Routes of this module.
pub fn router(body_limit: usize) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(upload))
        .routes(routes!(get_one, delete_one))
        .routes(routes!(file))
        .routes(routes!(usage))
        .layer(DefaultBodyLimit::max(body_limit))
}

/// The body limit of `POST /media`: the largest file plus the multipart framing.
pub fn upload_body_limit(media_max_bytes: u64) -> usize {
    media_max_bytes
        .saturating_add(MULTIPART_OVERHEAD)
        .try_into()
        .unwrap_or(usize::MAX)
}

/// Now, in unix seconds (the unit of signed URL expiries).
pub fn now_secs() -> u64 {
    u64::try_from(db::now_ms() / 1000).unwrap_or(0)
}

wire_enum! {
    /// What made a media row.
    pub enum MediaKind {
        /// An image the user uploaded.
        Upload = "upload";
        /// A simulation's render.
        Render = "render";
        /// A heatmap's layer (map, overlay, fog).
        Heatmap = "heatmap";
    }
}

/// Where a photo was taken, from its EXIF GPS tags.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Gps {
    /// Degrees, north positive.
    pub latitude: f64,
    /// Degrees, east positive.
    pub longitude: f64,
}

/// Signed links to the three variants of an image, valid until `urls_expire_at`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MediaUrls {
    /// The file as uploaded (metadata removed, upright). In a share link's answer
    /// (`GET /shared/{token}`), the preview: a share never gives an original.
    pub original: String,
    /// At most 2048 pixels on its longer side.
    pub preview: String,
    /// At most 400 pixels on its longer side.
    pub thumbnail: String,
}

/// An image: its size, type, content hash and signed links to its variants.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Media {
    pub id: String,
    pub kind: MediaKind,
    /// `image/jpeg`, `image/png` or `image/webp`.
    pub mime: String,
    /// Pixels, upright.
    pub width: i64,
    pub height: i64,
    /// Size of the original file.
    pub bytes: i64,
    /// SHA-256 of the uploaded file, in hex.
    pub sha256: String,
    /// The uploaded file's name, cleaned.
    pub original_name: Option<String>,
    pub gps: Option<Gps>,
    pub urls: MediaUrls,
    /// RFC 3339.
    pub urls_expire_at: String,
    /// RFC 3339.
    pub created_at: String,
}

/// A media row, with signed URLs of its three variants.
pub fn media_body(signer: &MemberSigner, media: &MediaRow, now: u64) -> Media {
    card_body(signer, media.card(), now)
}

/// [`media_body`] of what a list read of a media row.
pub fn card_body(signer: &MemberSigner, media: MediaCard, now: u64) -> Media {
    let exp = signer.expiry(now);
    let gps = match (media.gps_latitude, media.gps_longitude) {
        (Some(latitude), Some(longitude)) => Some(Gps {
            latitude,
            longitude,
        }),
        _ => None,
    };
    let urls = MediaUrls {
        original: signer.cached_url(&media.id, "original", exp),
        preview: signer.cached_url(&media.id, "preview", exp),
        thumbnail: signer.cached_url(&media.id, "thumbnail", exp),
    };
    Media {
        id: media.id,
        kind: MediaKind::parse(&media.kind).unwrap_or(MediaKind::Upload),
        mime: media.mime,
        width: media.width,
        height: media.height,
        bytes: media.bytes,
        sha256: media.sha256,
        original_name: media.original_name,
        gps,
        urls,
        urls_expire_at: rfc3339(i64::try_from(exp).unwrap_or(i64::MAX / 1000) * 1000),
        created_at: rfc3339(media.created_at),
    }
}

/// The client's file name, reduced to its last path component, without control or
/// bidirectional-formatting characters, at most 255 characters; `None` when nothing is left.
pub(super) fn clean_file_name(raw: &str) -> Option<String> {
    let base = raw.rsplit(['/', '\\']).next().unwrap_or(raw);
    let name: String = base
        .chars()
        .filter(|c| !c.is_control() && !crate::text::is_bidi_control(*c))
        .take(255)
        .collect();
    let name = name.trim();
    (!name.is_empty()).then(|| name.to_owned())
}

/// A multipart stream error as an I/O error; the body limit tripping keeps its meaning.
fn multipart_io_error(err: MultipartError) -> std::io::Error {
    if err.status() == StatusCode::PAYLOAD_TOO_LARGE {
        std::io::Error::new(std::io::ErrorKind::FileTooLarge, err.body_text())
    } else {
        std::io::Error::other(err.body_text())
    }
}

fn upload_error(err: MediaError, limits: &MediaLimits) -> ApiError {
    match err {
        MediaError::Upload(io) if io.kind() == std::io::ErrorKind::FileTooLarge => {
            MediaError::FileTooLarge {
                bytes: limits.max_bytes.saturating_add(1),
                max_bytes: limits.max_bytes,
            }
            .into()
        }
        other => other.into(),
    }
}

fn invalid_multipart() -> ApiError {
    ApiError::new(ErrorCode::InvalidMultipart)
}

// For the document only: the upload is not read into a value but streamed to a staging file
// as it arrives (refused as soon as it passes the size limit) by the handler below, which
// accepts exactly this one field.
/// The body of `POST /media`.
#[derive(ToSchema)]
#[allow(dead_code)] // A description of the multipart form; `upload` reads it as a stream.
#[serde(deny_unknown_fields)]
struct UploadForm {
    /// A JPEG, PNG or WebP image.
    #[schema(format = Binary, content_media_type = "application/octet-stream")]
    file: String,
}

/// `POST /media`: multipart field `file`. Streams the upload (refused as soon as it passes the
/// size limit), ingests it on the blocking pool (at most `REGARD_MEDIA_INGEST_CONCURRENCY` at
/// once, within `REGARD_MEDIA_DECODE_BUDGET` of memory), stores its objects and records the
/// row. A refused upload leaves nothing behind: validation happens before anything is written.
/// Each user has `REGARD_RATE_LIMIT_UPLOADS` uploads per window (429 `rate_limited`) and
/// `REGARD_STORAGE_QUOTA_MB` of storage (413 `storage_quota_exceeded`, checked before anything
/// is stored; see [`crate::media::quota`]).
#[utoipa::path(
    post,
    path = "/media",
    tag = "media",
    request_body(content = UploadForm, content_type = "multipart/form-data"),
    responses((status = 201, description = "The stored image", body = Media))
)]
async fn upload(
    State(state): State<AppState>,
    user: Member,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<(StatusCode, Json<Media>), ApiError> {
    state
        .limits
        .uploads(user.user_id(), 1)
        .await
        .map_err(|wait| ApiError::new(ErrorCode::RateLimited).retry_after(wait))?;
    let quota = state.config.storage_quota_mb.saturating_mul(quota::MB);
    // A user already at the quota is refused before the body is read.
    reserve(&state, user.workspace_id(), 0, quota).await?;
    let mut multipart = multipart.map_err(|_| invalid_multipart())?;
    let limits = state.config.media_limits();
    let mut upload = None;
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(err) if err.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                return Err(upload_error(
                    MediaError::Upload(multipart_io_error(err)),
                    &limits,
                ));
            }
            Err(_) => return Err(invalid_multipart()),
        };
        match field.name() {
            Some("file") => {}
            // The form has one field: any other is refused, as in a JSON body.
            Some(other) => return Err(ApiError::field(other, FieldCode::UnknownField)),
            None => return Err(invalid_multipart()),
        }
        if upload.is_some() {
            return Err(ApiError::field("file", FieldCode::TooMany));
        }
        let name = field.file_name().and_then(clean_file_name);
        let stream = field.map(|chunk| chunk.map_err(multipart_io_error)).boxed();
        let data = ingest::collect_upload(stream, &limits, &state.config.data_dir.join("tmp"))
            .await
            .map_err(|err| upload_error(err, &limits))?;
        upload = Some((name, data));
    }
    let Some((original_name, data)) = upload else {
        return Err(ApiError::field("file", FieldCode::Required));
    };
    // Held until the row is written (or the upload failed): uploads of this user running at
    // once count each other.
    let _reserved = reserve(&state, user.workspace_id(), data.len(), quota).await?;

    let gate = ingest::IngestGate {
        slots: state.ingest_slots.clone(),
        budget: state.decode_budget.clone(),
        budget_mib: state.config.media_decode_budget as u32,
    };
    let row = ingest::accept(
        &state.db,
        state.storage.as_ref(),
        &gate,
        &limits,
        user.workspace_id(),
        original_name,
        data,
    )
    .await?;
    record(
        &state,
        &user,
        ActivityAction::Created,
        ActivitySubject::Media,
        &row.id,
        row.original_name.as_deref(),
    )
    .await;
    Ok((
        StatusCode::CREATED,
        Json(media_body(
            &state.signer.for_member(user.user_id()),
            &row,
            now_secs(),
        )),
    ))
}

/// Reserves `bytes` of the user's storage quota (`limit`, 0 = none) for an upload, or the
/// 413 `storage_quota_exceeded` answer.
pub(super) async fn reserve(
    state: &AppState,
    user_id: &str,
    bytes: u64,
    limit: u64,
) -> Result<quota::Reserved, ApiError> {
    state
        .upload_reservations
        .reserve(&state.db, user_id, bytes, limit)
        .await?
        .map_err(|exceeded| {
            ApiError::new(ErrorCode::StorageQuotaExceeded).with_details(serde_json::json!({
                "used_bytes": exceeded.used_bytes,
                "limit_bytes": exceeded.limit_bytes,
                "bytes": bytes,
            }))
        })
}

/// What a user stores, against their quota.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Usage {
    /// The sizes of the user's stored originals (uploads, renders, heatmap layers), in bytes;
    /// previews and thumbnails are not counted.
    pub used_bytes: u64,
    /// `REGARD_STORAGE_QUOTA_MB` in bytes; `null` when there is no quota.
    pub limit_bytes: Option<u64>,
    /// How many images that is.
    pub media_count: u64,
}

/// `GET /usage`: the storage the user fills and their quota (uploads past it get 413
/// `storage_quota_exceeded`).
#[utoipa::path(
    get,
    path = "/usage",
    tag = "media",
    responses((status = 200, description = "The user's storage", body = Usage))
)]
async fn usage(State(state): State<AppState>, user: Member) -> Result<Json<Usage>, ApiError> {
    let (used_bytes, media_count) = quota::usage(&state.db, user.workspace_id()).await?;
    let limit = state.config.storage_quota_mb.saturating_mul(quota::MB);
    Ok(Json(Usage {
        used_bytes,
        limit_bytes: (limit > 0).then_some(limit),
        media_count,
    }))
}

/// `GET /media/{id}`.
#[utoipa::path(
    get,
    path = "/media/{id}",
    tag = "media",
    params(("id" = String, Path, description = "The media id")),
    responses((status = 200, description = "The image", body = Media))
)]
async fn get_one(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
) -> Result<Json<Media>, ApiError> {
    let media = db::media::find_owned(&state.db, user.workspace_id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(Json(media_body(
        &state.signer.for_member(user.user_id()),
        &media,
        now_secs(),
    )))
}

/// `DELETE /media/{id}`: 204, or 409 `media_in_use` while a creative, location or heatmap uses it.
#[utoipa::path(
    delete,
    path = "/media/{id}",
    tag = "media",
    params(("id" = String, Path, description = "The media id")),
    responses((status = 204, description = "Deleted"))
)]
async fn delete_one(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
) -> Result<StatusCode, ApiError> {
    let media = db::media::find_owned(&state.db, user.workspace_id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    if !db::media::delete_if_unreferenced(&state.db, &id).await? {
        return Err(ApiError::new(ErrorCode::MediaInUse));
    }
    record(
        &state,
        &user,
        ActivityAction::Deleted,
        ActivitySubject::Media,
        &id,
        media.original_name.as_deref(),
    )
    .await;
    delete_objects_if_orphaned(&state, &media).await;
    Ok(StatusCode::NO_CONTENT)
}

/// Deletes the media row unless something still references it, then its objects unless
/// another row shares them (see [`crate::media::release`]).
pub async fn release(state: &AppState, media_id: &str) {
    crate::media::release(&state.db, state.storage.as_ref(), media_id).await;
}

async fn delete_objects_if_orphaned(state: &AppState, media: &MediaRow) {
    crate::media::delete_objects_if_orphaned(&state.db, state.storage.as_ref(), media).await;
}

/// Query of a signed URL. `download` is not signed: it only changes how the browser saves
/// what the signature already grants.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct Signed {
    /// Expiry, in unix seconds.
    exp: Option<String>,
    /// HMAC-SHA256 of the media id, the variant and `exp`, base64url.
    sig: Option<String>,
    /// `1`: answer `Content-Disposition: attachment` with the media's file name (not for a
    /// share's URL).
    download: Option<String>,
    /// The share link a share-scoped URL was signed for: served only while that link lasts.
    share: Option<String>,
    /// The member (user id) the URL was signed for: served only while that user is a member of
    /// the workspace holding the file.
    m: Option<String>,
}

/// `attachment; filename="ascii"; filename*=UTF-8''percent-encoded` (RFC 6266 and 8187): the
/// name from the media's original name, with the extension of the variant served. Characters
/// outside printable ASCII (and quotes, backslashes) become `_` in the fallback.
fn content_disposition(media: &MediaRow, extension: &str) -> String {
    let stem = crate::media::file_stem(media.original_name.as_deref().unwrap_or("image"));
    let file = format!("{stem}.{extension}");
    let ascii: String = file
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let encoded: String = file
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("attachment; filename=\"{ascii}\"; filename*=UTF-8''{encoded}")
}

/// `GET /files/{media_id}/{variant}?exp=&sig=`: one variant's bytes, for `<img>` tags. The
/// signature is the authorisation (no bearer token). Cached privately for as long as the URL
/// stays valid; the ETag is the content hash, so revalidation is a 304. A share's URL
/// (`&share=`) answers 404 `not_found` once the link is revoked and 410 `share_expired` once
/// it has expired.
#[utoipa::path(
    get,
    path = "/files/{media_id}/{variant}",
    tag = "media",
    security(()),
    params(
        ("media_id" = String, Path, description = "The media id"),
        ("variant" = String, Path, description = "`original`, `preview` or `thumbnail`"),
        Signed,
    ),
    responses(
        (status = 200, description = "The file (`Range` is honoured: 206)", content_type = "image/*"),
        (status = 304, description = "Not modified (`If-None-Match`)"),
    )
)]
async fn file(
    State(state): State<AppState>,
    Path((media_id, variant)): Path<(String, String)>,
    query: Result<Query<Signed>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let kind = match variant.as_str() {
        "original" => VariantKind::Original,
        "preview" => VariantKind::Preview,
        "thumbnail" => VariantKind::Thumbnail,
        _ => return Err(ApiError::not_found()),
    };
    let invalid = || ApiError::new(ErrorCode::InvalidSignature);
    let Ok(Query(signed)) = query else {
        return Err(invalid());
    };
    let exp = signed
        .exp
        .as_deref()
        .and_then(|e| e.parse::<u64>().ok())
        .ok_or_else(invalid)?;
    let sig = signed.sig.as_deref().ok_or_else(invalid)?;
    let share = signed.share.as_deref();
    let scope = match (share, signed.m.as_deref()) {
        (Some(share), None) => UrlScope::Share(share),
        (None, Some(member)) => UrlScope::Member(member),
        _ => return Err(invalid()),
    };
    let remaining = match state
        .signer
        .verify(&media_id, kind.as_str(), exp, scope, sig, now_secs())
    {
        Ok(remaining) => remaining,
        Err(SignatureError::Invalid) => return Err(invalid()),
        Err(SignatureError::Expired) => {
            return Err(ApiError::new(ErrorCode::UrlExpired));
        }
    };
    if let Some(share) = share {
        // A share's images die with it: revoked (gone) or expired, its URLs stop at once.
        let share = db::shares::find(&state.db, &Id::parse(share)?)
            .await?
            .ok_or_else(ApiError::not_found)?;
        if share.expires_at <= db::now_ms() {
            return Err(ApiError::new(ErrorCode::ShareExpired));
        }
    }
    let media = db::media::find(&state.db, &Id::parse(&media_id)?)
        .await?
        .ok_or_else(ApiError::not_found)?;
    // A member's links die when they leave the workspace (removed, or their account deleted):
    // the file is theirs only while they belong where it is kept (their personal workspace's
    // id is their own).
    if let UrlScope::Member(member) = scope
        && media.owner_id != member
        && !db::workspaces::is_member(&state.db, &media.owner_id, member).await?
    {
        return Err(ApiError::not_found());
    }
    let (key, mime) = match kind {
        VariantKind::Original => (&media.original_key, &media.mime),
        VariantKind::Preview => (&media.preview_key, &media.preview_mime),
        VariantKind::Thumbnail => (&media.thumbnail_key, &media.thumbnail_mime),
    };
    let etag = format!("\"{}-{}\"", media.sha256, kind.as_str());
    let cache_control = format!("private, max-age={remaining}");
    let matches = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .map(|t| t.trim().trim_start_matches("W/"))
                .any(|t| t == etag || t == "*")
        });
    if matches {
        return Ok((
            StatusCode::NOT_MODIFIED,
            [(header::ETAG, etag), (header::CACHE_CONTROL, cache_control)],
        )
            .into_response());
    }
    let key = StorageKey::new(key.as_str())?;
    let disposition = if signed.download.as_deref() == Some("1") && share.is_none() {
        let extension = ingest::MediaFormat::from_mime(mime).map_or("bin", |f| f.extension());
        content_disposition(&media, extension)
    } else {
        "inline".to_owned()
    };
    let headers_out = [
        (header::CONTENT_TYPE, mime.clone()),
        (header::ETAG, etag.clone()),
        (header::CACHE_CONTROL, cache_control),
        (header::ACCEPT_RANGES, "bytes".to_owned()),
        (header::CONTENT_DISPOSITION, disposition),
    ];
    // A single byte range is honoured (206); a stale `If-Range` or several ranges get the
    // whole object, as HTTP allows.
    let if_range_ok = headers
        .get(header::IF_RANGE)
        .is_none_or(|v| v.to_str().is_ok_and(|v| v == etag));
    let range = headers
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .filter(|_| if_range_ok);
    if let Some(range) = range {
        let size = state
            .storage
            .head(&key)
            .await?
            .ok_or_else(|| ApiError::internal(format!("media object {key} is missing")))?
            .size;
        match parse_range(range, size) {
            Some(Ok(bytes)) => {
                let content_range = format!("bytes {}-{}/{size}", bytes.start, bytes.end - 1);
                let stream = state.storage.get_range(&key, bytes).await?;
                return Ok((
                    StatusCode::PARTIAL_CONTENT,
                    headers_out,
                    [(header::CONTENT_RANGE, content_range)],
                    Body::from_stream(stream),
                )
                    .into_response());
            }
            Some(Err(())) => {
                let mut response = ApiError::new(ErrorCode::RangeNotSatisfiable).into_response();
                if let Ok(value) = format!("bytes */{size}").parse() {
                    response.headers_mut().insert(header::CONTENT_RANGE, value);
                }
                return Ok(response);
            }
            None => {}
        }
    }
    let stream = state.storage.get(&key).await?;
    Ok((headers_out, Body::from_stream(stream)).into_response())
}

/// Parses a `Range` header against an object of `size` bytes: `None` to ignore it (not
/// `bytes=`, several ranges, malformed), `Some(Err)` when unsatisfiable, else the byte range.
fn parse_range(header: &str, size: u64) -> Option<Result<std::ops::Range<u64>, ()>> {
    let spec = header.trim().strip_prefix("bytes=")?;
    if spec.contains(',') {
        return None;
    }
    let (start, end) = spec.split_once('-')?;
    let (start, end) = (start.trim(), end.trim());
    let range = if start.is_empty() {
        // The last `end` bytes.
        let suffix: u64 = end.parse().ok()?;
        if suffix == 0 {
            return Some(Err(()));
        }
        size.saturating_sub(suffix)..size
    } else {
        let start: u64 = start.parse().ok()?;
        let end = if end.is_empty() {
            size
        } else {
            let last: u64 = end.parse().ok()?;
            if last < start {
                return None;
            }
            last.saturating_add(1).min(size)
        };
        start..end
    };
    if range.start >= size || range.is_empty() {
        return Some(Err(()));
    }
    Some(Ok(range))
}

#[cfg(test)]
mod tests {
    use super::{content_disposition, parse_range};

    #[test]
    fn download_names_have_an_ascii_fallback_and_utf8() {
        let media = crate::db::media::MediaRow {
            id: String::new(),
            owner_id: String::new(),
            kind: "render".into(),
            mime: "image/png".into(),
            width: 1,
            height: 1,
            bytes: 1,
            sha256: String::new(),
            original_name: Some("Été \"2026\".jpg".into()),
            original_key: String::new(),
            preview_key: String::new(),
            preview_mime: String::new(),
            thumbnail_key: String::new(),
            thumbnail_mime: String::new(),
            gps_latitude: None,
            gps_longitude: None,
            created_at: 0,
        };
        assert_eq!(
            content_disposition(&media, "png"),
            "attachment; filename=\"_t_ _2026_.png\"; filename*=UTF-8''%C3%89t%C3%A9%20%222026%22.png"
        );
    }

    #[test]
    fn ranges_follow_http() {
        assert_eq!(parse_range("bytes=0-99", 1000), Some(Ok(0..100)));
        assert_eq!(parse_range("bytes=900-", 1000), Some(Ok(900..1000)));
        assert_eq!(parse_range("bytes=-100", 1000), Some(Ok(900..1000)));
        assert_eq!(parse_range("bytes=-5000", 1000), Some(Ok(0..1000)));
        assert_eq!(parse_range("bytes=990-5000", 1000), Some(Ok(990..1000)));
        assert_eq!(parse_range("bytes=1000-", 1000), Some(Err(())));
        assert_eq!(parse_range("bytes=-0", 1000), Some(Err(())));
        assert_eq!(parse_range("bytes=0-1,5-6", 1000), None);
        assert_eq!(parse_range("bytes=9-1", 1000), None);
        assert_eq!(parse_range("items=0-1", 1000), None);
        assert_eq!(parse_range("bytes=x-1", 1000), None);
    }
}
