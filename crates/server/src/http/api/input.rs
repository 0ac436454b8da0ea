//! Request inputs of `/api/v1`: the signed-in user ([`ApiUser`]), their membership of the
//! workspace the request acts in ([`Member`], [`Reader`]) and list pagination. JSON
//! bodies and ids in paths are read by `body` ([`super::body::Body`], [`super::body::IdPath`]).

use crate::db::page::SortKey;
use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::ApiError;
use super::query::{Cursor, Limit, Param, Params};
use crate::auth::AuthUser;
use crate::codes::{ErrorCode, FieldCode};
use crate::db::workspaces::{Membership, WorkspaceRole};
use crate::state::AppState;

/// The signed-in user of an `/api/v1` request. Wraps [`AuthUser`] (same checks: valid token,
/// user and session still exist) but answers in the API's error shape: every auth failure is
/// 401 `unauthorized` with GoTrue's code in `details.reason`, so the web app has one rule
/// ("401: refresh the session or sign in again").
#[derive(Debug, Clone)]
pub struct ApiUser(pub AuthUser);

impl ApiUser {
    /// The user's id.
    pub fn user_id(&self) -> &str {
        &self.0.user.id
    }
}

impl FromRequestParts<AppState> for ApiUser {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        match AuthUser::from_request_parts(parts, state).await {
            // Only tokens issued for signed-in users (GoTrue's audience) open the API; any
            // other token the server's key signed (an admin's, another audience's) does not.
            Ok(user) if user.claims.aud != crate::auth::session::AUDIENCE => {
                Err(ApiError::unauthorized("bad_jwt"))
            }
            // A user with a verified second factor reaches their data only from an aal2
            // session: a stolen password alone opens nothing.
            Ok(user) if user.claims.aal != "aal2" && user.has_verified_factor => {
                Err(ApiError::new(ErrorCode::InsufficientAal))
            }
            Ok(user) => Ok(ApiUser(user)),
            // Already logged by `AuthError::unavailable` or `AuthError::internal`.
            Err(err) if err.status == StatusCode::SERVICE_UNAVAILABLE => {
                Err(ApiError::new(ErrorCode::Unavailable).retry_after(err.retry_after.unwrap_or(2)))
            }
            Err(err) if err.status.is_server_error() => Err(ApiError::new(ErrorCode::Internal)),
            Err(err) => Err(ApiError::unauthorized(err.code)),
        }
    }
}

/// A member of the workspace an `/api/v1` request acts in (named by `X-Workspace-Id`, else
/// the caller's personal one), on a route of the library. The checks of [`ApiUser`], then:
/// - a workspace the caller is not a member of answers 404 `not_found`, exactly as an unknown
///   id does (so ids of other workspaces cannot be told apart from made-up ones);
/// - a viewer's request with a method that changes things (anything but GET and HEAD) answers
///   403 `forbidden_role`. Routes that only read whatever their method take [`Reader`].
///
/// So a new route is closed to viewers' changes unless it says otherwise.
#[derive(Debug, Clone)]
pub struct Member(pub AuthUser, pub Membership);

/// [`Member`] of any role whatever the method: for routes that use POST but change nothing
/// in the library (exports, reports, the assistant).
#[derive(Debug, Clone)]
pub struct Reader(pub Member);

impl Member {
    /// The workspace the request acts in: the owner of everything it reads and writes.
    pub fn workspace_id(&self) -> &str {
        &self.1.workspace_id
    }

    /// The signed-in user's id (who does it).
    pub fn user_id(&self) -> &str {
        &self.0.user.id
    }

    pub fn role(&self) -> WorkspaceRole {
        self.1.role
    }
}

impl std::ops::Deref for Reader {
    type Target = Member;
    fn deref(&self) -> &Member {
        &self.0
    }
}

/// The membership of an authenticated request, or 404 `not_found`.
async fn membership(parts: &mut Parts, state: &AppState) -> Result<Member, ApiError> {
    let ApiUser(mut auth) = ApiUser::from_request_parts(parts, state).await?;
    let membership = auth
        .membership
        .take()
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound))?;
    Ok(Member(auth, membership))
}

impl FromRequestParts<AppState> for Member {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let member = membership(parts, state).await?;
        if !member.role().can_write() && !parts.method.is_safe() {
            return Err(ApiError::new(ErrorCode::ForbiddenRole));
        }
        Ok(member)
    }
}

impl FromRequestParts<AppState> for Reader {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        Ok(Reader(membership(parts, state).await?))
    }
}

/// 400 `invalid_query`: a query string that cannot be decoded at all.
pub fn invalid_query() -> ApiError {
    ApiError::new(ErrorCode::InvalidQuery)
}

/// Default and largest page sizes of lists.
pub const DEFAULT_LIMIT: i64 = 50;
/// Largest `limit` accepted.
pub const MAX_LIMIT: i64 = 100;

/// A page request: `limit` and the keyset position after which to continue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub limit: i64,
    /// `(created_at, id)` of the last item of the previous page.
    pub after: Option<(i64, String)>,
}

impl Page {
    /// One page from rows fetched with `limit + 1` (the extra row only says that more
    /// follow). `key` gives an item's `(created_at, id)`.
    pub fn paged<R, T>(
        &self,
        mut rows: Vec<R>,
        key: impl Fn(&R) -> (i64, &str),
        to_item: impl Fn(&R) -> T,
    ) -> Paged<T> {
        let more = rows.len() as i64 > self.limit;
        rows.truncate(usize::try_from(self.limit).unwrap_or(0));
        let next_cursor = match rows.last() {
            Some(last) if more => {
                let (created_at, id) = key(last);
                Some(encode_cursor(created_at, id))
            }
            _ => None,
        };
        Paged {
            items: rows.iter().map(to_item).collect(),
            next_cursor,
        }
    }
}

/// One page of a list.
#[derive(Debug, Serialize, ToSchema)]
pub struct Paged<T> {
    pub items: Vec<T>,
    /// Pass as `cursor` to get the next page; `null` on the last one.
    pub next_cursor: Option<String>,
}

/// The query of a list endpoint: `?limit=&cursor=&q=` (read by [`ListQuery`]).
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListParams {
    /// Items per page, 1 to 100 (50 by default).
    #[serde(default)]
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    limit: Param<Limit>,
    /// The `next_cursor` of the previous page.
    #[serde(default)]
    #[param(value_type = Option<String>)]
    cursor: Param<Cursor>,
    /// Search text: keeps the items whose name (or address, brand, …) holds every word,
    /// ignoring case and accents.
    #[serde(default)]
    #[param(value_type = Option<String>)]
    q: Param<String>,
}

/// The query string of a list endpoint, read: the page and the search text.
pub struct ListQuery {
    pub page: Page,
    /// The search text (empty: no filter).
    pub q: String,
}

impl ListQuery {
    /// `(created_at, id)` to continue after, as the `db` list functions take it.
    pub fn after(&self) -> Option<(i64, &str)> {
        self.page.after.as_ref().map(|(at, id)| (*at, id.as_str()))
    }
}

impl<S: Send + Sync> FromRequestParts<S> for ListQuery {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Params(params) = Params::<ListParams>::from_request_parts(parts, state).await?;
        Ok(Self {
            page: Page {
                limit: params.limit.0.map_or(DEFAULT_LIMIT, |Limit(n)| n),
                after: params.cursor.0.map(|Cursor(at, id)| (at, id)),
            },
            q: params.q.0.unwrap_or_default(),
        })
    }
}

/// The cursor after an item: hex of `created_at:id` (opaque to clients).
pub fn encode_cursor(created_at: i64, id: &str) -> String {
    hex::encode(format!("{created_at}:{id}"))
}

/// The `(created_at, id)` of a cursor made by [`encode_cursor`].
pub fn decode_cursor(raw: &str) -> Option<(i64, String)> {
    let text = String::from_utf8(hex::decode(raw).ok()?).ok()?;
    let (created_at, id) = text.split_once(':')?;
    let id = uuid::Uuid::parse_str(id).ok()?.hyphenated().to_string();
    Some((created_at.parse().ok()?, id))
}

/// An order of a sorted list, as its cursors name it.
pub trait SortOrder: Copy {
    /// The order's wire name (`name`, `city`, ...).
    fn name(self) -> &'static str;
    /// Whether it is newest first, whose cursors are the shared lists' (`created_at:id`).
    fn newest(self) -> bool;
    /// Whether its key is text rather than a number.
    fn text(self) -> bool;
}

/// The cursor after an item: newest-first cursors are the shared lists' (`created_at:id`),
/// others hex of `sort|id|key`.
pub fn encode_sorted_cursor(sort: impl SortOrder, id: &str, key: &SortKey) -> String {
    match key {
        SortKey::Number(at) if sort.newest() => encode_cursor(*at, id),
        SortKey::Number(v) => hex::encode(format!("{}|{id}|{v}", sort.name())),
        SortKey::Text(v) => hex::encode(format!("{}|{id}|{v}", sort.name())),
    }
}

/// The `(key, id)` of a cursor made by [`encode_sorted_cursor`] for the same order.
pub fn decode_sorted_cursor(sort: impl SortOrder, raw: &str) -> Option<(SortKey, String)> {
    if sort.newest() {
        return decode_cursor(raw).map(|(at, id)| (SortKey::Number(at), id));
    }
    let text = String::from_utf8(hex::decode(raw).ok()?).ok()?;
    let mut parts = text.splitn(3, '|');
    let (name, id, key) = (parts.next()?, parts.next()?, parts.next()?);
    if name != sort.name() {
        return None;
    }
    let id = uuid::Uuid::parse_str(id).ok()?.hyphenated().to_string();
    let key = if sort.text() {
        SortKey::Text(key.to_owned())
    } else {
        SortKey::Number(key.parse().ok()?)
    };
    Some((key, id))
}

/// The keyset position a list's `cursor` names in `sort`'s order: `None` when absent or blank,
/// `cursor: invalid_value` when it is not a cursor of that order.
pub fn sorted_after(
    sort: impl SortOrder,
    cursor: Option<&str>,
) -> Result<Option<(SortKey, String)>, ApiError> {
    match cursor.map(str::trim) {
        None | Some("") => Ok(None),
        Some(raw) => decode_sorted_cursor(sort, raw)
            .map(Some)
            .ok_or_else(|| ApiError::field("cursor", FieldCode::InvalidValue)),
    }
}

/// One page of a sorted list from the `limit + 1` rows asked for: the first `limit` as `item`
/// makes them, and the cursor after the last when more follow.
pub fn sorted_page<T, I>(
    sort: impl SortOrder,
    limit: i64,
    mut rows: Vec<(T, SortKey)>,
    id: impl Fn(&T) -> &str,
    item: impl FnMut(T) -> I,
) -> Paged<I> {
    let more = rows.len() as i64 > limit;
    rows.truncate(usize::try_from(limit).unwrap_or(0));
    let next_cursor = match rows.last() {
        Some((last, key)) if more => Some(encode_sorted_cursor(sort, id(last), key)),
        _ => None,
    };
    let items = rows.into_iter().map(|(row, _)| row).map(item).collect();
    Paged { items, next_cursor }
}

/// Epoch milliseconds as RFC 3339 (UTC, milliseconds).
pub fn rfc3339(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
