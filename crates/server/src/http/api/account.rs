//! The signed-in account's security, beyond what GoTrue's `/auth/v1` offers (issue 31):
//! `GET /account/sessions` (every device signed in, with its browser and last use) and
//! `DELETE /account/sessions/{id}` (signs that device out); `GET /account/recovery-codes`
//! (how many are left) and `POST /account/recovery-codes` (a new set of single-use codes for
//! two-step verification, shown this once; the previous set stops working);
//! `GET`/`PUT /account/branding` (the agency's name, accent colour and logo on its PDF reports
//! and share pages).
//!
//! These routes act on the account itself, so [`ApiUser`]'s rule holds: with a verified
//! second factor, only an aal2 session reaches them.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::body::{Body, HexColour, Id, IdPath, Line, Patch, Ref};
use super::error::ApiError;
use super::input::{ApiUser, rfc3339};
use super::media::{Media, media_body, now_secs};
use crate::auth::mfa::recovery;
use crate::codes::{ErrorCode, FieldCode};
use crate::db::branding::BrandingRow;
use crate::db::{self, branding, factors, recovery_codes, sessions};
use crate::state::AppState;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_sessions))
        .routes(routes!(end_session))
        .routes(routes!(recovery_summary, new_recovery_codes))
        .routes(routes!(get_branding, put_branding))
}

/// One signed-in device.
#[derive(Debug, Serialize, ToSchema)]
pub struct Session {
    pub id: String,
    /// The browser's `User-Agent` when it signed in; `null` when it sent none.
    pub user_agent: Option<String>,
    /// The address it signed in from.
    pub ip: Option<String>,
    /// RFC 3339: when it signed in.
    pub created_at: String,
    /// RFC 3339: its last token refresh (an open tab refreshes about hourly), else its
    /// sign-in.
    pub last_used_at: String,
    /// `aal2` once it passed two-step verification.
    pub aal: String,
    /// The session making this request.
    pub current: bool,
}

/// The account's sessions, the most recently used first.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionList {
    pub items: Vec<Session>,
}

/// `GET /account/sessions`.
#[utoipa::path(
    get,
    path = "/account/sessions",
    tag = "account",
    responses((status = 200, description = "The account's sessions", body = SessionList))
)]
async fn list_sessions(
    State(state): State<AppState>,
    user: ApiUser,
) -> Result<Json<SessionList>, ApiError> {
    let items = sessions::for_user(&state.db, user.user_id())
        .await?
        .into_iter()
        .map(|s| Session {
            current: s.id == user.0.session_id,
            id: s.id,
            user_agent: s.user_agent,
            ip: s.ip,
            created_at: rfc3339(s.created_at),
            last_used_at: rfc3339(s.last_used_at),
            aal: s.aal,
        })
        .collect();
    Ok(Json(SessionList { items }))
}

/// `DELETE /account/sessions/{id}` → 204: that device is signed out (its refresh token stops
/// working, its access token at the next check, its event stream within
/// `REGARD_EVENTS_SESSION_CHECK` seconds). The current session may end itself too.
#[utoipa::path(
    delete,
    path = "/account/sessions/{id}",
    tag = "account",
    params(("id" = String, Path, description = "The session's id")),
    responses((status = 204, description = "Signed out"))
)]
async fn end_session(
    State(state): State<AppState>,
    user: ApiUser,
    IdPath(id): IdPath<Id>,
) -> Result<StatusCode, ApiError> {
    let ended = sessions::delete(
        &state.db,
        user.user_id(),
        sessions::Scope::Only(&id),
        db::now_ms(),
    )
    .await?;
    if ended == 0 {
        return Err(ApiError::not_found());
    }
    Ok(StatusCode::NO_CONTENT)
}

/// What is left of the account's recovery codes (never the codes).
#[derive(Debug, Serialize, ToSchema)]
pub struct RecoveryCodesSummary {
    /// Codes not used yet.
    pub remaining: u32,
    /// Codes in the current set (0 when none was ever made).
    pub total: u32,
    /// RFC 3339: when the current set was made; `null` without one.
    pub created_at: Option<String>,
}

/// A new set of recovery codes: the only time they are given.
#[derive(Debug, Serialize, ToSchema)]
pub struct NewRecoveryCodes {
    /// Ten codes as `xxxx-xxxx-xxxx`; each works once at the code screen, in place of the
    /// authenticator's code.
    pub codes: Vec<String>,
    /// RFC 3339.
    pub created_at: String,
}

/// `GET /account/recovery-codes`.
#[utoipa::path(
    get,
    path = "/account/recovery-codes",
    tag = "account",
    responses((status = 200, description = "The recovery codes left", body = RecoveryCodesSummary))
)]
async fn recovery_summary(
    State(state): State<AppState>,
    user: ApiUser,
) -> Result<Json<RecoveryCodesSummary>, ApiError> {
    let summary = recovery_codes::summary(&state.db, user.user_id()).await?;
    Ok(Json(RecoveryCodesSummary {
        remaining: u32::try_from(summary.remaining).unwrap_or(0),
        total: u32::try_from(summary.total).unwrap_or(0),
        created_at: summary.created_at.map(rfc3339),
    }))
}

/// `POST /account/recovery-codes` → 201 with ten new codes, replacing any earlier set; 409
/// `mfa_not_enabled` without a verified second factor (the codes stand in for one).
#[utoipa::path(
    post,
    path = "/account/recovery-codes",
    tag = "account",
    responses(
        (status = 201, description = "The new codes, shown this once", body = NewRecoveryCodes),
        (status = 409, description = "`mfa_not_enabled`: no verified second factor", body = super::error::ErrorBody),
    )
)]
async fn new_recovery_codes(
    State(state): State<AppState>,
    user: ApiUser,
) -> Result<(StatusCode, Json<NewRecoveryCodes>), ApiError> {
    let verified = factors::for_user(&state.db, user.user_id())
        .await?
        .iter()
        .any(factors::FactorRow::is_verified);
    if !verified {
        return Err(ApiError::new(ErrorCode::MfaNotEnabled));
    }
    let codes: Vec<String> = (0..recovery::COUNT).map(|_| recovery::generate()).collect();
    let hashes: Vec<String> = codes
        .iter()
        .filter_map(|code| recovery::normalize(code))
        .map(|canonical| recovery::hash(&state.sealer, user.user_id(), &canonical))
        .collect();
    let now = db::now_ms();
    recovery_codes::replace(&state.db, user.user_id(), &hashes, now).await?;
    tracing::info!(user_id = %user.user_id(), "recovery codes made anew");
    Ok((
        StatusCode::CREATED,
        Json(NewRecoveryCodes {
            codes,
            created_at: rfc3339(now),
        }),
    ))
}

/// Longest agency name, in characters.
pub const MAX_AGENCY_NAME: usize = 80;

/// The agency's branding on its PDF reports and share pages; every part optional.
#[derive(Debug, Serialize, ToSchema)]
pub struct Branding {
    pub agency_name: Option<String>,
    /// `#rrggbb`: headings and rules of the reports, the share page's accent.
    pub accent_color: Option<String>,
    /// One of the account's uploads (PNG, JPEG or WebP), shown at most 48 px high.
    pub logo: Option<Media>,
}

/// The body of `PUT /account/branding`: the whole branding (a part left out or `null` is
/// cleared).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct BrandingFields {
    /// At most 80 characters; empty or `null` clears it.
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 80, format = "line")]
    agency_name: Patch<Line<MAX_AGENCY_NAME>>,
    /// `#rrggbb`; empty or `null` for Regard's colour.
    #[serde(default)]
    #[schema(value_type = Option<String>, pattern = r"^\s*(#[0-9A-Fa-f]{6})?\s*$")]
    accent_color: Patch<HexColour>,
    /// One of the caller's images (`POST /media`); empty or `null` clears it.
    #[serde(default)]
    #[schema(
        value_type = Option<String>,
        pattern = r"^\s*([0-9a-fA-F]{32}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?\s*$"
    )]
    logo_media_id: Patch<Ref>,
}

async fn branding_body(state: &AppState, user_id: &str) -> Result<Branding, ApiError> {
    let row = branding::get(&state.db, user_id).await?;
    let logo = match &row.logo_media_id {
        Some(id) => db::media::find_owned(&state.db, user_id, id)
            .await?
            .map(|media| media_body(&state.signer.for_member(user_id), &media, now_secs())),
        None => None,
    };
    Ok(Branding {
        agency_name: row.agency_name,
        accent_color: row.accent_color,
        logo,
    })
}

/// `GET /account/branding`.
#[utoipa::path(
    get,
    path = "/account/branding",
    tag = "account",
    responses((status = 200, description = "The account's branding", body = Branding))
)]
async fn get_branding(
    State(state): State<AppState>,
    user: ApiUser,
) -> Result<Json<Branding>, ApiError> {
    Ok(Json(branding_body(&state, user.user_id()).await?))
}

/// `PUT /account/branding {agency_name?, accent_color?, logo_media_id?}` → 200 the branding.
/// Codes: `agency_name` `too_long`, `invalid_characters`; `accent_color` `invalid_value`;
/// `logo_media_id` `not_found` (not one of the caller's images).
#[utoipa::path(
    put,
    path = "/account/branding",
    tag = "account",
    request_body = BrandingFields,
    responses((status = 200, description = "The account's branding", body = Branding))
)]
async fn put_branding(
    State(state): State<AppState>,
    user: ApiUser,
    Body(body, mut problems): Body<BrandingFields>,
) -> Result<Json<Branding>, ApiError> {
    let agency_name = body.agency_name.apply(None).map(|Line(name)| name);
    let accent_color = body
        .accent_color
        .apply(None)
        .map(|HexColour(colour)| colour);
    let logo_media_id = body.logo_media_id.apply(None).map(|Ref(id)| id);
    if let Some(id) = &logo_media_id
        && db::media::find_owned(&state.db, user.user_id(), id)
            .await?
            .is_none()
    {
        problems.add("logo_media_id", FieldCode::NotFound);
    }
    problems.finish()?;
    let row = BrandingRow {
        agency_name,
        accent_color,
        logo_media_id,
    };
    branding::put(&state.db, user.user_id(), &row, db::now_ms()).await?;
    Ok(Json(branding_body(&state, user.user_id()).await?))
}

/// The account's branding as the reports draw it (the logo's preview read from storage), or
/// `None` when nothing is set. A logo missing from storage is left out, not an error.
pub(super) async fn report_brand(
    state: &AppState,
    user_id: &str,
) -> Result<Option<crate::reports::Brand>, ApiError> {
    let row = branding::get(&state.db, user_id).await?;
    if row.is_empty() {
        return Ok(None);
    }
    let mut logo = None;
    if let Some(id) = &row.logo_media_id
        && let Some(media) = db::media::find_owned(&state.db, user_id, id).await?
        && let Ok(key) = crate::storage::StorageKey::new(media.preview_key)
    {
        match state.storage.get_bytes(&key).await {
            Ok(bytes) => logo = Some(bytes.to_vec()),
            Err(err) => {
                tracing::warn!(error = %err, media_id = %id, "a logo is missing from storage")
            }
        }
    }
    Ok(Some(crate::reports::Brand {
        name: row.agency_name,
        accent: row
            .accent_color
            .as_deref()
            .and_then(crate::reports::Brand::parse_colour),
        logo,
    }))
}
