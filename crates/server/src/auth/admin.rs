//! GoTrue's admin API under `/auth/v1/admin` (and `POST /invite`), for operators and back
//! ends holding a `service_role` token signed with the server's key (auth-js
//! `GoTrueAdminApi`): users created, listed, read, updated, banned and deleted; links
//! generated without mailing them; invitations; a user's factors. `regard admin` runs the
//! same functions from the command line.
//!
//! Authorisation: the bearer token must verify with the server's key and carry a `role` of
//! `service_role` or `supabase_admin` (GoTrue's default admin roles); a signed-in user's
//! `authenticated` token is 403 `not_admin`.

use axum::body::Bytes;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::email::Email;
use super::error::AuthError;
use super::extract::{
    GoTrueJson, bad_jwt, bearer, json_or_default, no_authorization, request_lang,
};
use super::links::{self, LinkKind};
use super::metadata::{self, checked, merge};
use super::mfa::factor_json;
use super::password;
use super::phone;
use super::redirect;
use super::session::{self, user_body};
use crate::db::users::UserRow;
use crate::db::{self, DbError, factors, sessions, users};
use crate::state::AppState;

/// The roles an admin token may carry (GoTrue's `GOTRUE_JWT_ADMIN_ROLES` default).
pub const ADMIN_ROLES: [&str; 2] = ["service_role", "supabase_admin"];

/// Default and largest page of `GET /admin/users`.
const DEFAULT_PER_PAGE: u64 = 50;
const MAX_PER_PAGE: u64 = 1000;

/// Routes of this module (nested under `/auth/v1`).
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/users", get(list_users).post(create_user))
        .route(
            "/admin/users/{user_id}",
            get(get_user).put(update_user).delete(delete_user),
        )
        .route("/admin/users/{user_id}/factors", get(list_factors))
        .route(
            "/admin/users/{user_id}/factors/{factor_id}",
            delete(delete_factor).put(update_factor),
        )
        .route("/admin/generate_link", post(generate_link))
        .route("/invite", post(invite))
}

/// A request made with an admin token.
#[derive(Debug, Clone)]
pub struct Admin {
    pub role: String,
}

impl FromRequestParts<AppState> for Admin {
    type Rejection = AuthError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let token = bearer(parts).ok_or_else(no_authorization)?;
        let claims = state.jwt.verify_any(token).map_err(bad_jwt)?;
        let role = claims
            .get("role")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if ADMIN_ROLES.contains(&role) {
            // A token that never expires works for ever once leaked (docs/security.md).
            if claims.get("exp").is_none() && !state.config.admin_tokens_without_exp {
                return Err(bad_jwt(
                    "an admin token needs an expiry (exp); see REGARD_ADMIN_TOKENS_WITHOUT_EXP",
                ));
            }
            Ok(Admin {
                role: role.to_owned(),
            })
        } else {
            Err(AuthError::new(
                StatusCode::FORBIDDEN,
                "not_admin",
                "User not allowed",
            ))
        }
    }
}

fn user_not_found() -> AuthError {
    AuthError::new(StatusCode::NOT_FOUND, "user_not_found", "User not found")
}

/// The user of a path's `user_id`: 404 `validation_failed` for a malformed id (as GoTrue),
/// 404 `user_not_found` for an unknown one.
pub async fn load_user(state: &AppState, user_id: &str) -> Result<UserRow, AuthError> {
    if uuid::Uuid::parse_str(user_id).is_err() {
        return Err(AuthError::new(
            StatusCode::NOT_FOUND,
            "validation_failed",
            "user_id must be an UUID",
        ));
    }
    users::find_by_id(&state.db, user_id)
        .await?
        .ok_or_else(user_not_found)
}

/// What an administrator may set on a user (`AdminUserParams`); every field is optional on
/// update.
#[derive(Debug, Default, Deserialize)]
pub struct AdminUserParams {
    pub email: Option<String>,
    pub phone: Option<String>,
    pub password: Option<String>,
    pub email_confirm: Option<bool>,
    pub phone_confirm: Option<bool>,
    pub user_metadata: Option<Value>,
    pub app_metadata: Option<Value>,
    /// A Go duration (`24h`, `1h30m`) or `none` to lift a ban.
    pub ban_duration: Option<String>,
    pub role: Option<String>,
}

/// Milliseconds of a Go duration (`300ms`, `1.5h`, `2h45m`), as GoTrue's `ban_duration`.
pub fn parse_go_duration(text: &str) -> Option<i64> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let mut rest = text;
    let mut total_ms = 0f64;
    while !rest.is_empty() {
        let number_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..number_end].parse().ok()?;
        rest = &rest[number_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit_ms = match &rest[..unit_end] {
            "ns" => 1e-6,
            "us" | "µs" => 1e-3,
            "ms" => 1.0,
            "s" => 1e3,
            "m" => 60e3,
            "h" => 3600e3,
            _ => return None,
        };
        rest = &rest[unit_end..];
        total_ms += number * unit_ms;
    }
    // Up to about 290 million years, like Go's int64 nanoseconds.
    (total_ms.is_finite() && total_ms < 9.2e15).then_some(total_ms.round() as i64)
}

/// The `banned_until` a `ban_duration` sets: `None` for `none`.
fn ban_until(duration: &str, now: i64) -> Result<Option<i64>, AuthError> {
    if duration.trim() == "none" {
        return Ok(None);
    }
    let ms = parse_go_duration(duration).ok_or_else(|| {
        AuthError::validation(format!("invalid format for ban duration: {duration}"))
    })?;
    Ok(Some(now.saturating_add(ms)))
}

fn check_role(role: Option<&str>) -> Result<(), AuthError> {
    match role.map(str::trim).filter(|r| !r.is_empty()) {
        None | Some(session::AUDIENCE) => Ok(()),
        Some(other) => Err(AuthError::validation(format!(
            "Unsupported role {other}: every user has the role authenticated"
        ))),
    }
}

/// Creates a user as an administrator: an address or a phone number (or both), an optional
/// password, metadata, confirmation and ban. No mail is sent.
pub async fn create(state: &AppState, params: AdminUserParams) -> Result<UserRow, AuthError> {
    let email = match params
        .email
        .as_deref()
        .map(str::trim)
        .filter(|e| !e.is_empty())
    {
        Some(raw) => Some(Email::parse(raw)?),
        None => None,
    };
    let phone = match params
        .phone
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        Some(raw) => Some(phone::parse(raw)?),
        None => None,
    };
    if email.is_none() && phone.is_none() {
        return Err(AuthError::validation(
            "Cannot create a user without either an email or phone",
        ));
    }
    check_role(params.role.as_deref())?;
    let user_metadata = metadata::object(params.user_metadata, "user_metadata")?;
    let app_metadata = metadata::object(params.app_metadata, "app_metadata")?;
    if let Some(email) = &email
        && users::find_by_email(&state.db, email.as_str())
            .await?
            .is_some()
    {
        return Err(AuthError::email_exists());
    }
    if let Some(phone) = &phone
        && users::find_by_phone(&state.db, phone).await?.is_some()
    {
        return Err(AuthError::phone_exists());
    }
    let encrypted_password = match params.password.filter(|p| !p.is_empty()) {
        Some(password) => {
            password::check_strength(&password)?;
            state.hasher.hash(password).await?
        }
        None => String::new(),
    };
    let now = db::now_ms();
    let provider = if email.is_some() { "email" } else { "phone" };
    let base = json!({"provider": provider, "providers": [provider]}).to_string();
    let mut user = UserRow {
        email: email.map(|e| e.as_str().to_owned()).unwrap_or_default(),
        phone: phone.unwrap_or_default(),
        encrypted_password,
        app_metadata: checked(
            match app_metadata {
                Some(patch) => merge(&base, patch),
                None => base,
            },
            "app_metadata",
        )?,
        user_metadata: checked(
            Value::Object(user_metadata.unwrap_or_default()).to_string(),
            "user_metadata",
        )?,
        ..UserRow::new(now)
    };
    if params.email_confirm == Some(true) && !user.email.is_empty() {
        user.email_confirmed_at = Some(now);
    }
    if params.phone_confirm == Some(true) && !user.phone.is_empty() {
        user.phone_confirmed_at = Some(now);
    }
    if let Some(duration) = params.ban_duration.as_deref() {
        user.banned_until = ban_until(duration, now)?;
    }
    match users::insert(&state.db, &user).await {
        Ok(()) => {}
        // A concurrent request took the address or the number.
        Err(DbError::Conflict) => return Err(AuthError::email_exists()),
        Err(err) => return Err(err.into()),
    }
    tracing::info!(user_id = %user.id, "user created by an administrator");
    Ok(user)
}

/// Updates a user as an administrator: address and phone (kept confirmed as they were, unless
/// `email_confirm`/`phone_confirm`), password, metadata (merged), ban (which also ends every
/// session). Returns the user as saved.
pub async fn update(
    state: &AppState,
    mut user: UserRow,
    params: AdminUserParams,
) -> Result<UserRow, AuthError> {
    check_role(params.role.as_deref())?;
    let user_metadata = metadata::object(params.user_metadata, "user_metadata")?;
    let app_metadata = metadata::object(params.app_metadata, "app_metadata")?;
    let now = db::now_ms();
    if let Some(raw) = params
        .email
        .as_deref()
        .map(str::trim)
        .filter(|e| !e.is_empty())
    {
        let email = Email::parse(raw)?;
        if email.as_str() != user.email {
            if users::find_by_email(&state.db, email.as_str())
                .await?
                .is_some()
            {
                return Err(AuthError::email_exists());
            }
            user.email = email.as_str().to_owned();
            user.email_change = None;
            // An anonymous user given an address by an administrator becomes permanent.
            user.is_anonymous = false;
        }
    }
    if let Some(raw) = params
        .phone
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        let number = phone::parse(raw)?;
        if number != user.phone {
            if users::find_by_phone(&state.db, &number).await?.is_some() {
                return Err(AuthError::phone_exists());
            }
            user.phone = number;
            user.is_anonymous = false;
        }
    }
    if let Some(password) = params.password.filter(|p| !p.is_empty()) {
        password::check_strength(&password)?;
        user.encrypted_password = state.hasher.hash(password).await?;
    }
    if params.email_confirm == Some(true) && !user.email.is_empty() {
        user.email_confirmed_at.get_or_insert(now);
    }
    if params.phone_confirm == Some(true) && !user.phone.is_empty() {
        user.phone_confirmed_at.get_or_insert(now);
    }
    if let Some(patch) = user_metadata {
        user.user_metadata = checked(merge(&user.user_metadata, patch), "user_metadata")?;
    }
    if let Some(patch) = app_metadata {
        user.app_metadata = checked(merge(&user.app_metadata, patch), "app_metadata")?;
    }
    let mut ended_sessions = false;
    if let Some(duration) = params.ban_duration.as_deref() {
        user.banned_until = ban_until(duration, now)?;
        ended_sessions = user.is_banned(now);
    }
    user.updated_at = now;
    match users::save(&state.db, &user).await {
        Ok(()) => {}
        Err(DbError::Conflict) => return Err(AuthError::email_exists()),
        Err(err) => return Err(err.into()),
    }
    if ended_sessions {
        sessions::delete(&state.db, &user.id, sessions::Scope::All, now).await?;
    }
    tracing::info!(user_id = %user.id, "user updated by an administrator");
    users::find_by_id(&state.db, &user.id)
        .await?
        .ok_or_else(user_not_found)
}

/// Deletes a user. Hard: the row and everything the user owns (their personal workspace, and
/// the shared ones they are the only member of), then their stored files that no other row
/// shares. Soft: the row stays (GoTrue's `should_soft_delete`), the address, phone number,
/// password, sessions, identities and factors go. Either way, a shared workspace they were the
/// only owner of passes to its longest-standing member first (`db::workspaces::hand_over`).
pub async fn remove(state: &AppState, user: &UserRow, soft: bool) -> Result<(), AuthError> {
    let now = db::now_ms();
    let alone = db::workspaces::hand_over(&state.db, &user.id).await?;
    if soft {
        if !users::soft_delete(&state.db, &user.id, now).await? {
            return Err(user_not_found());
        }
        tracing::info!(user_id = %user.id, "user soft-deleted by an administrator");
        return Ok(());
    }
    let mut media = db::media::all_owned(&state.db, &user.id).await?;
    for workspace in &alone {
        media.extend(db::media::all_owned(&state.db, workspace).await?);
    }
    if !users::delete(&state.db, &user.id).await? {
        return Err(user_not_found());
    }
    for workspace in &alone {
        db::workspaces::delete(&state.db, workspace).await?;
    }
    for item in &media {
        crate::media::delete_objects_if_orphaned(&state.db, state.storage.as_ref(), item).await;
    }
    tracing::info!(user_id = %user.id, files = media.len(), "user deleted by an administrator");
    Ok(())
}

#[derive(Debug, Deserialize)]
struct PageQuery {
    page: Option<String>,
    per_page: Option<String>,
}

fn page_param(value: Option<&str>, default: u64) -> Result<u64, AuthError> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(default),
        Some(text) => text
            .parse::<u64>()
            .ok()
            .filter(|n| *n >= 1)
            .ok_or_else(|| AuthError::validation(format!("Bad Pagination Parameters: {text}"))),
    }
}

async fn list_users(
    State(state): State<AppState>,
    _admin: Admin,
    Query(query): Query<PageQuery>,
) -> Result<Response, AuthError> {
    let page = page_param(query.page.as_deref(), 1)?;
    let per_page = page_param(query.per_page.as_deref(), DEFAULT_PER_PAGE)?.min(MAX_PER_PAGE);
    let offset = i64::try_from((page - 1).saturating_mul(per_page)).unwrap_or(i64::MAX);
    let limit = i64::try_from(per_page).unwrap_or(i64::MAX);
    let (rows, total) = users::list(&state.db, offset, limit).await?;
    let mut list = Vec::with_capacity(rows.len());
    for user in &rows {
        list.push(user_body(&state, user).await?);
    }
    let total_u = u64::try_from(total).unwrap_or(0);
    let last = total_u.div_ceil(per_page).max(1);
    let base = format!(
        "{}/auth/v1/admin/users",
        state.config.site_url.trim_end_matches('/')
    );
    let mut links = Vec::new();
    if page < last {
        links.push(format!(
            "<{base}?page={}&per_page={per_page}>; rel=\"next\"",
            page + 1
        ));
    }
    links.push(format!(
        "<{base}?page={last}&per_page={per_page}>; rel=\"last\""
    ));
    let mut headers = HeaderMap::new();
    headers.insert("x-total-count", HeaderValue::from(total_u));
    if let Ok(value) = HeaderValue::from_str(&links.join(", ")) {
        headers.insert(axum::http::header::LINK, value);
    }
    Ok((
        headers,
        Json(json!({"users": list, "aud": session::AUDIENCE})),
    )
        .into_response())
}

async fn create_user(
    State(state): State<AppState>,
    _admin: Admin,
    GoTrueJson(params): GoTrueJson<AdminUserParams>,
) -> Result<Json<Value>, AuthError> {
    let user = create(&state, params).await?;
    Ok(Json(user_body(&state, &user).await?))
}

async fn get_user(
    State(state): State<AppState>,
    _admin: Admin,
    Path(user_id): Path<String>,
) -> Result<Json<Value>, AuthError> {
    let user = load_user(&state, &user_id).await?;
    Ok(Json(user_body(&state, &user).await?))
}

async fn update_user(
    State(state): State<AppState>,
    _admin: Admin,
    Path(user_id): Path<String>,
    GoTrueJson(params): GoTrueJson<AdminUserParams>,
) -> Result<Json<Value>, AuthError> {
    let user = load_user(&state, &user_id).await?;
    let user = update(&state, user, params).await?;
    Ok(Json(user_body(&state, &user).await?))
}

#[derive(Debug, Default, Deserialize)]
struct DeleteParams {
    #[serde(default)]
    should_soft_delete: bool,
}

async fn delete_user(
    State(state): State<AppState>,
    _admin: Admin,
    Path(user_id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, AuthError> {
    // auth-js sends `{should_soft_delete}`; other clients send no body at all.
    let params: DeleteParams = json_or_default(&body)?;
    let user = load_user(&state, &user_id).await?;
    let body = user_body(&state, &user).await?;
    remove(&state, &user, params.should_soft_delete).await?;
    Ok(Json(body))
}

async fn list_factors(
    State(state): State<AppState>,
    _admin: Admin,
    Path(user_id): Path<String>,
) -> Result<Json<Value>, AuthError> {
    let user = load_user(&state, &user_id).await?;
    let factors = factors::for_user(&state.db, &user.id).await?;
    Ok(Json(Value::Array(
        factors.iter().map(factor_json).collect(),
    )))
}

fn factor_not_found() -> AuthError {
    AuthError::new(
        StatusCode::NOT_FOUND,
        "mfa_factor_not_found",
        "Factor not found",
    )
}

async fn load_factor(
    state: &AppState,
    user: &UserRow,
    factor_id: &str,
) -> Result<factors::FactorRow, AuthError> {
    if uuid::Uuid::parse_str(factor_id).is_err() {
        return Err(AuthError::new(
            StatusCode::NOT_FOUND,
            "validation_failed",
            "factor_id must be an UUID",
        ));
    }
    factors::find(&state.db, &user.id, factor_id)
        .await?
        .ok_or_else(factor_not_found)
}

async fn delete_factor(
    State(state): State<AppState>,
    _admin: Admin,
    Path((user_id, factor_id)): Path<(String, String)>,
) -> Result<Json<Value>, AuthError> {
    let user = load_user(&state, &user_id).await?;
    let factor = load_factor(&state, &user, &factor_id).await?;
    let method = if factor.factor_type == "phone" {
        "mfa/phone"
    } else {
        "totp"
    };
    if !factors::delete(&state.db, &user.id, &factor.id, method).await? {
        return Err(factor_not_found());
    }
    tracing::info!(user_id = %user.id, factor_id = %factor.id, "factor removed by an administrator");
    Ok(Json(factor_json(&factor)))
}

#[derive(Debug, Deserialize)]
struct FactorUpdate {
    friendly_name: Option<String>,
}

async fn update_factor(
    State(state): State<AppState>,
    _admin: Admin,
    Path((user_id, factor_id)): Path<(String, String)>,
    GoTrueJson(params): GoTrueJson<FactorUpdate>,
) -> Result<Json<Value>, AuthError> {
    let user = load_user(&state, &user_id).await?;
    let mut factor = load_factor(&state, &user, &factor_id).await?;
    if let Some(name) = params.friendly_name {
        let name = name.trim().to_owned();
        factors::rename(&state.db, &factor.id, &name, db::now_ms()).await?;
        factor.friendly_name = Some(name);
    }
    Ok(Json(factor_json(&factor)))
}

#[derive(Debug, Deserialize)]
struct GenerateLinkParams {
    #[serde(rename = "type")]
    kind: Option<String>,
    email: Option<String>,
    new_email: Option<String>,
    password: Option<String>,
    data: Option<Value>,
    redirect_to: Option<String>,
}

/// The user of `email`, or a new one (unconfirmed, as a sign-up would make it, or invited).
async fn find_or_create(
    state: &AppState,
    email: &Email,
    password: Option<String>,
    data: Option<Map<String, Value>>,
    invited: bool,
) -> Result<UserRow, AuthError> {
    if let Some(user) = users::find_by_email(&state.db, email.as_str()).await? {
        if user.email_confirmed_at.is_some() {
            return Err(AuthError::email_exists());
        }
        let mut user = user;
        let now = db::now_ms();
        if let Some(patch) = data {
            user.user_metadata = checked(merge(&user.user_metadata, patch), "data")?;
        }
        if invited {
            user.invited_at = Some(now);
        }
        user.updated_at = now;
        users::save(&state.db, &user).await?;
        return Ok(user);
    }
    let encrypted_password = match password.filter(|p| !p.is_empty()) {
        Some(password) => {
            password::check_strength(&password)?;
            state.hasher.hash(password).await?
        }
        None => String::new(),
    };
    let now = db::now_ms();
    let user = UserRow {
        email: email.as_str().to_owned(),
        encrypted_password,
        app_metadata: json!({"provider": "email", "providers": ["email"]}).to_string(),
        user_metadata: checked(Value::Object(data.unwrap_or_default()).to_string(), "data")?,
        invited_at: invited.then_some(now),
        ..UserRow::new(now)
    };
    match users::insert(&state.db, &user).await {
        Ok(()) => Ok(user),
        Err(DbError::Conflict) => Err(AuthError::email_exists()),
        Err(err) => Err(err.into()),
    }
}

/// `POST /admin/generate_link`: the link (and code) a mail would carry, returned instead of
/// mailed, beside the user: `signup`, `invite`, `magiclink`, `recovery`,
/// `email_change_current`, `email_change_new`.
async fn generate_link(
    State(state): State<AppState>,
    _admin: Admin,
    Query(query): Query<redirect::RedirectQuery>,
    GoTrueJson(params): GoTrueJson<GenerateLinkParams>,
) -> Result<Json<Value>, AuthError> {
    let kind_name = params.kind.unwrap_or_default();
    let email = Email::parse(params.email.as_deref().unwrap_or_default())?;
    let data = metadata::object(params.data, "data")?;
    let redirect_to = redirect::checked_redirect(
        &state,
        params
            .redirect_to
            .as_deref()
            .or(query.redirect_to.as_deref()),
    );
    let existing = || async {
        users::find_by_email(&state.db, email.as_str())
            .await?
            .ok_or_else(user_not_found)
    };
    let (user, kind, to) = match kind_name.as_str() {
        "signup" => {
            let password = params
                .password
                .filter(|p| !p.is_empty())
                .ok_or_else(|| AuthError::validation("Password is required for a signup link"))?;
            let user = find_or_create(&state, &email, Some(password), data, false).await?;
            (user, LinkKind::Confirmation, email.as_str().to_owned())
        }
        "invite" => {
            let user = find_or_create(&state, &email, None, data, true).await?;
            (user, LinkKind::Invite, email.as_str().to_owned())
        }
        "magiclink" => (
            existing().await?,
            LinkKind::MagicLink,
            email.as_str().to_owned(),
        ),
        "recovery" => (
            existing().await?,
            LinkKind::Recovery,
            email.as_str().to_owned(),
        ),
        "email_change_current" | "email_change_new" => {
            let user = existing().await?;
            let new_email = Email::parse(params.new_email.as_deref().unwrap_or_default())?;
            if users::find_by_email(&state.db, new_email.as_str())
                .await?
                .is_some()
            {
                return Err(AuthError::email_exists());
            }
            (user, LinkKind::EmailChange, new_email.as_str().to_owned())
        }
        other => {
            return Err(AuthError::validation(format!(
                "Invalid link type {other:?}: use signup, invite, magiclink, recovery, \
                 email_change_current or email_change_new"
            )));
        }
    };
    let issued = links::issue(&state, kind, &user, &to, &redirect_to, None).await?;
    let user = users::find_by_id(&state.db, &user.id)
        .await?
        .ok_or_else(user_not_found)?;
    let mut body = user_body(&state, &user).await?;
    body["action_link"] = json!(issued.link);
    body["email_otp"] = json!(issued.code);
    body["hashed_token"] = json!(issued.token);
    body["redirect_to"] = json!(redirect_to);
    body["verification_type"] = json!(if kind == LinkKind::EmailChange {
        kind_name.as_str()
    } else {
        kind.link_type()
    });
    Ok(Json(body))
}

#[derive(Debug, Deserialize)]
struct InviteParams {
    email: Option<String>,
    data: Option<Value>,
}

/// `POST /invite`: creates the user (or refreshes an unconfirmed one) and mails an invitation;
/// following it confirms the address and signs in, and the app asks for a password.
async fn invite(
    State(state): State<AppState>,
    _admin: Admin,
    headers: HeaderMap,
    Query(query): Query<redirect::RedirectQuery>,
    GoTrueJson(params): GoTrueJson<InviteParams>,
) -> Result<Json<Value>, AuthError> {
    let email = Email::parse(params.email.as_deref().unwrap_or_default())?;
    let data = metadata::object(params.data, "data")?;
    let user = find_or_create(&state, &email, None, data, true).await?;
    let redirect_to = redirect::checked_redirect(&state, query.redirect_to.as_deref());
    links::send(
        &state,
        links::Send {
            kind: LinkKind::Invite,
            user: &user,
            to: &user.email,
            redirect_to: &redirect_to,
            lang: request_lang(&headers),
            pkce: None,
        },
    )
    .await?;
    Ok(Json(user_body(&state, &user).await?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations_parse_like_go() {
        assert_eq!(parse_go_duration("24h"), Some(86_400_000));
        assert_eq!(parse_go_duration("1h30m"), Some(5_400_000));
        assert_eq!(parse_go_duration("1.5s"), Some(1_500));
        assert_eq!(parse_go_duration("300ms"), Some(300));
        assert_eq!(parse_go_duration("876000h"), Some(876_000 * 3_600_000));
        for bad in ["", "h", "10", "10d", "1h-5m", "abc"] {
            assert_eq!(parse_go_duration(bad), None, "{bad}");
        }
    }

    #[test]
    fn pages_are_positive_numbers() {
        assert_eq!(page_param(None, 50).unwrap(), 50);
        assert_eq!(page_param(Some(""), 50).unwrap(), 50);
        assert_eq!(page_param(Some("3"), 50).unwrap(), 3);
        assert!(page_param(Some("-1"), 50).is_err());
        assert!(page_param(Some("0"), 50).is_err());
        assert!(page_param(Some("x"), 50).is_err());
    }
}
