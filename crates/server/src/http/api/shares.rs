//! Read-only share links of a heatmap: `POST /heatmaps/{id}/shares {expires_in_days?}` (201,
//! the only time the link's token is given), `GET /heatmaps/{id}/shares`,
//! `DELETE /heatmaps/{id}/shares/{share_id}` (revoke), and the public
//! `GET /shared/{token}` that opens the results without an account. Shapes:
//! docs/architecture/heatmaps.md.
//!
//! A link is a capability URL: its token is 32 random characters (about 165 bits), stored only
//! as its SHA-256, so it cannot be guessed, forged or read back from the database. It grants
//! reading that one heatmap until it expires or is revoked, nothing else.
//!
//! A visitor gets only what the results need (issue 26): names the owner chose (the heatmap's,
//! and the creative, location or simulation an image is), never file names; the images at
//! display size (previews: `source.urls.original` is the preview too), never an original;
//! no GPS position. Every image URL is share-scoped ([`UrlSigner::share_url`]): it lasts
//! [`crate::media::signing::SHARE_URL_TTL`] seconds and stops with the link.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::activity::record;
use super::body::{Body, Id, IdPath, Patch};
use super::error::ApiError;
use super::heatmaps::{Heatmap, heatmap_body, result_urls};
use super::input::{Member, rfc3339};
use super::media::{MediaUrls, now_secs};
use super::query::{Param, Params};
use crate::auth::extract::ClientIp;
use crate::auth::tokens::{REFRESH_TOKEN_LENGTH, is_well_formed, random_token};
use crate::codes::ErrorCode;
use crate::db::activity::{ActivityAction, ActivitySubject};
use crate::db::heatmaps as hdb;
use crate::db::shares::{self as sdb, ShareRow};
use crate::db::{self};
use crate::heatmaps::benchmark::{Benchmarks, heatmap_benchmarks};
use crate::i18n::Locale;
use crate::media::signing::UrlSigner;
use crate::reports::kept::KeptKey;
use crate::state::AppState;

/// Days a link lasts when none is asked for.
pub const DEFAULT_DAYS: i64 = 30;
/// Longest life of a link, in days.
pub const MAX_DAYS: i64 = 90;
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// Routes of this module (`/shared/{token}` needs no account).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(revoke))
        .routes(routes!(open))
        .routes(routes!(open_report))
}

/// A share link of a heatmap (its token is never given again after its creation).
#[derive(Debug, Serialize, ToSchema)]
pub struct Share {
    pub id: String,
    /// RFC 3339.
    pub expires_at: String,
    pub expired: bool,
    /// RFC 3339.
    pub created_at: String,
}

/// A new share link, with its token: the only time it is given.
#[derive(Debug, Serialize, ToSchema)]
pub struct NewShare {
    #[serde(flatten)]
    pub share: Share,
    pub token: String,
    /// The page that opens it, in the web app.
    pub path: String,
}

/// A heatmap's share links.
#[derive(Debug, Serialize, ToSchema)]
pub struct ShareList {
    pub items: Vec<Share>,
}

/// The body of `POST /heatmaps/{id}/shares`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ShareRequest {
    /// 1 to 90 (30 by default).
    #[serde(default)]
    #[schema(value_type = Option<i64>, minimum = 1, maximum = 90)]
    expires_in_days: Patch<i64>,
}

/// What a share link opens.
#[derive(Debug, Serialize, ToSchema)]
pub struct SharedHeatmap {
    pub heatmap: Heatmap,
    /// Against the reference only: the owner's other results are not the visitor's business.
    pub benchmarks: Benchmarks,
    /// RFC 3339.
    pub expires_at: String,
    /// The owner's agency, as they set it (`/account/branding`); `null` when unset.
    pub branding: Option<SharedBranding>,
}

/// The agency's branding on a share page.
#[derive(Debug, Serialize, ToSchema)]
pub struct SharedBranding {
    pub agency_name: Option<String>,
    /// `#rrggbb`.
    pub accent_color: Option<String>,
    /// The logo's preview, scoped to the share like its images.
    pub logo_url: Option<String>,
}

/// The query of `GET /shared/{token}/report.pdf`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct SharedReportQuery {
    /// The report's language: `fr` (the default) or `en`.
    #[serde(default)]
    #[param(inline, value_type = Option<Locale>)]
    lang: Param<Locale>,
}

fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

fn share_body(share: &ShareRow, now_ms: i64) -> Share {
    Share {
        id: share.id.clone(),
        expires_at: rfc3339(share.expires_at),
        expired: share.expires_at <= now_ms,
        created_at: rfc3339(share.created_at),
    }
}

async fn owned_heatmap(state: &AppState, user: &Member, id: &str) -> Result<String, ApiError> {
    hdb::find_owned(&state.db, user.workspace_id(), id)
        .await?
        .map(|found| found.heatmap.id)
        .ok_or_else(ApiError::not_found)
}

/// `POST /heatmaps/{id}/shares {expires_in_days?}` → 201 `{id, token, path, expires_at, …}`.
#[utoipa::path(
    post,
    path = "/heatmaps/{id}/shares",
    tag = "deliverables",
    params(("id" = String, Path, description = "The heatmap's id")),
    request_body = ShareRequest,
    responses((status = 201, description = "The new link, with its token", body = NewShare))
)]
async fn create(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
    Body(request, mut problems): Body<ShareRequest>,
) -> Result<(StatusCode, Json<NewShare>), ApiError> {
    let heatmap_id = owned_heatmap(&state, &user, &id).await?;
    let days = problems
        .in_range("expires_in_days", request.expires_in_days, |days| {
            (1..=MAX_DAYS).contains(&days)
        })
        .apply(None)
        .unwrap_or(DEFAULT_DAYS);
    problems.finish()?;
    let now = db::now_ms();
    let share = ShareRow {
        id: uuid::Uuid::new_v4().to_string(),
        heatmap_id,
        owner_id: user.workspace_id().to_owned(),
        expires_at: now + days * DAY_MS,
        created_at: now,
    };
    let token = random_token();
    sdb::insert(&state.db, &share, &token_hash(&token)).await?;
    record(
        &state,
        &user,
        ActivityAction::Shared,
        ActivitySubject::Heatmap,
        &share.heatmap_id,
        None,
    )
    .await;
    let path = format!("/shared/{token}");
    Ok((
        StatusCode::CREATED,
        Json(NewShare {
            share: share_body(&share, now),
            token,
            path,
        }),
    ))
}

/// `GET /heatmaps/{id}/shares` → `{items}`, newest first, expired ones included (tokens never).
#[utoipa::path(
    get,
    path = "/heatmaps/{id}/shares",
    tag = "deliverables",
    params(("id" = String, Path, description = "The heatmap's id")),
    responses((status = 200, description = "Its links, newest first", body = ShareList))
)]
async fn list(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
) -> Result<Json<ShareList>, ApiError> {
    let heatmap_id = owned_heatmap(&state, &user, &id).await?;
    let now = db::now_ms();
    let items = sdb::for_heatmap(&state.db, user.workspace_id(), &heatmap_id)
        .await?
        .iter()
        .map(|share| share_body(share, now))
        .collect();
    Ok(Json(ShareList { items }))
}

/// `DELETE /heatmaps/{id}/shares/{share_id}` → 204: the link stops working at once.
#[utoipa::path(
    delete,
    path = "/heatmaps/{id}/shares/{share_id}",
    tag = "deliverables",
    params(
        ("id" = String, Path, description = "The heatmap's id"),
        ("share_id" = String, Path, description = "The link's id"),
    ),
    responses((status = 204, description = "Revoked"))
)]
async fn revoke(
    State(state): State<AppState>,
    user: Member,
    IdPath((id, share_id)): IdPath<(Id, Id)>,
) -> Result<StatusCode, ApiError> {
    let heatmap_id = owned_heatmap(&state, &user, &id).await?;
    if sdb::delete(&state.db, user.workspace_id(), &heatmap_id, &share_id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found())
    }
}

/// `GET /shared/{token}` (no account) → `{heatmap, expires_at}`: the heatmap JSON with its
/// items, as its owner sees it less what a visitor does not need: no file names
/// (`original_name` is null), no GPS position, previews instead of originals, and image URLs
/// that last a few minutes and end with the link. 404 `not_found` for a token that is not (or no longer) a link;
/// 410 `share_expired` once it has expired.
#[utoipa::path(
    get,
    path = "/shared/{token}",
    tag = "deliverables",
    security(()),
    params(("token" = String, Path, description = "The link's token")),
    responses((status = 200, description = "The shared heatmap", body = SharedHeatmap))
)]
async fn open(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    Path(token): Path<String>,
) -> Result<Json<SharedHeatmap>, ApiError> {
    let (share, found) = opened(&state, ip, &token).await?;
    let now = now_secs();
    let branding = shared_branding(&state, &share, now).await?;
    Ok(Json(SharedHeatmap {
        heatmap: shared_body(&state, &found, &share.id, now),
        benchmarks: heatmap_benchmarks(&found, None),
        expires_at: rfc3339(share.expires_at),
        branding,
    }))
}

/// `GET /shared/{token}/report.pdf?lang=` (no account): the heatmap's PDF report as its owner
/// would download it, with their branding, benchmarks against the reference only. Same answers
/// as `GET /shared/{token}` for a link that is gone or expired.
#[utoipa::path(
    get,
    path = "/shared/{token}/report.pdf",
    tag = "deliverables",
    security(()),
    params(("token" = String, Path, description = "The link's token"), SharedReportQuery),
    responses((status = 200, description = "The report", content_type = "application/pdf", body = Vec<u8>))
)]
async fn open_report(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    Path(token): Path<String>,
    Params(query): Params<SharedReportQuery>,
) -> Result<Response, ApiError> {
    let (share, found) = opened(&state, ip, &token).await?;
    let lang = query.lang.0.unwrap_or(Locale::Fr);
    // Drawn once per share, heatmap as it is, language, branding and day, then served again:
    // anonymous readers cannot make the server draw it over and over.
    let branding = db::branding::get(&state.db, &share.owner_id).await?;
    let day = db::now_ms().div_euclid(DAY_MS);
    let key = KeptKey::new(&share.id, &[&found, &branding, &lang, &day]);
    let name = found.heatmap.name.clone();
    let bytes = state
        .shared_reports
        .get_or_draw(&key, || async {
            super::reports::draw_pdf(&state, &share.owner_id, found, lang, false)
                .await
                .map(bytes::Bytes::from)
        })
        .await?;
    super::reports::pdf_answer(&name, bytes)
}

/// The share a token opens and its heatmap: 404 `not_found` for a token that is not (or no
/// longer) a link, 410 `share_expired` once it has expired. Counted first against the client
/// address's allowance of public share requests, then, once the link is found, against the
/// link's (429 `rate_limited` with `Retry-After`).
async fn opened(
    state: &AppState,
    ip: std::net::IpAddr,
    token: &str,
) -> Result<(ShareRow, hdb::HeatmapWithItems), ApiError> {
    let limited = |wait| ApiError::new(ErrorCode::RateLimited).retry_after(wait);
    state.limits.shared(ip).await.map_err(limited)?;
    // Our tokens are refresh-token shaped (`random_token`): anything else is no link.
    if token.len() != REFRESH_TOKEN_LENGTH || !is_well_formed(token) {
        return Err(ApiError::not_found());
    }
    let share = sdb::find_by_hash(&state.db, &token_hash(token))
        .await?
        .ok_or_else(ApiError::not_found)?;
    if share.expires_at <= db::now_ms() {
        return Err(ApiError::new(ErrorCode::ShareExpired));
    }
    state.limits.shared_link(&share.id).await.map_err(limited)?;
    let found = hdb::find_owned(&state.db, &share.owner_id, &share.heatmap_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok((share, found))
}

/// The owner's branding for a share page: `None` when unset.
async fn shared_branding(
    state: &AppState,
    share: &ShareRow,
    now: u64,
) -> Result<Option<SharedBranding>, ApiError> {
    let row = db::branding::get(&state.db, &share.owner_id).await?;
    if row.is_empty() {
        return Ok(None);
    }
    let exp = UrlSigner::share_expiry(now);
    Ok(Some(SharedBranding {
        agency_name: row.agency_name,
        accent_color: row.accent_color,
        logo_url: row
            .logo_media_id
            .map(|id| state.signer.share_url(&id, "preview", &share.id, exp)),
    }))
}

/// The heatmap as a share shows it: [`heatmap_body`] without file names or GPS positions, with
/// previews for originals, and every image URL scoped to the share.
fn shared_body(
    state: &AppState,
    found: &hdb::HeatmapWithItems,
    share_id: &str,
    now: u64,
) -> Heatmap {
    // Signed for no member, then every URL replaced by the share's own: one left behind by
    // mistake would serve nothing.
    let mut heatmap = heatmap_body(&state.signer.for_member(""), found, now);
    let exp = UrlSigner::share_expiry(now);
    let url = |id: &str, variant: &str| state.signer.share_url(id, variant, share_id, exp);
    heatmap.summary.thumbnail = found.items.first().map(|i| url(&i.source.id, "thumbnail"));
    for (item, row) in heatmap.items.iter_mut().zip(&found.items) {
        let source = &mut item.source;
        source.original_name = None;
        source.gps = None;
        source.urls = MediaUrls {
            original: url(&source.id, "preview"),
            preview: url(&source.id, "preview"),
            thumbnail: url(&source.id, "thumbnail"),
        };
        source.urls_expire_at = rfc3339(i64::try_from(exp).unwrap_or(i64::MAX / 1000) * 1000);
        if let (Some(result), Some(urls)) = (item.result.as_mut(), result_urls(row, &url)) {
            // The engine's outputs are at the analysed size (the preview's), without metadata.
            result.urls = urls;
        }
    }
    heatmap
}
