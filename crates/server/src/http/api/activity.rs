//! A workspace's activity (issue 29): [`record`], which the handlers call after a change, and
//! `GET /workspaces/{id}/activity?limit=&cursor=&action=&subject_type=&actor_id=&subject_id=`,
//! newest first, for every member. Kept 180 days (the sweep prunes it).

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::body::{Id, IdPath};
use super::error::ApiError;
use super::input::{ApiUser, DEFAULT_LIMIT, Member, Page, Paged, rfc3339};
use super::query::{Cursor, FilterId, Limit, Param, Params, QueryValue};
use crate::codes::FieldCode;
use crate::db;
use crate::db::activity::{self as adb, ActivityAction, ActivityFilter, ActivitySubject};
use crate::state::AppState;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(activity))
}

/// Records that the caller did `action` to a subject of the request's workspace. Best effort:
/// the change is made already, so a failure to record it is logged, not answered.
pub async fn record(
    state: &AppState,
    member: &Member,
    action: ActivityAction,
    subject: ActivitySubject,
    subject_id: &str,
    subject_name: Option<&str>,
) {
    record_in(
        state,
        member.workspace_id(),
        member.user_id(),
        action,
        subject,
        subject_id,
        subject_name,
    )
    .await;
}

/// [`record`] for a workspace named otherwise (the workspace routes).
pub async fn record_in(
    state: &AppState,
    workspace_id: &str,
    actor_id: &str,
    action: ActivityAction,
    subject: ActivitySubject,
    subject_id: &str,
    subject_name: Option<&str>,
) {
    let recorded = adb::record(
        &state.db,
        workspace_id,
        actor_id,
        action,
        subject,
        subject_id,
        subject_name,
        db::now_ms(),
    )
    .await;
    if let Err(err) = recorded {
        tracing::warn!(error = %err, %workspace_id, action = %action, "recording activity failed");
    }
}

/// Who did it.
#[derive(Debug, Serialize, ToSchema)]
pub struct Actor {
    pub user_id: String,
    /// `null` for an account without an address.
    pub email: Option<String>,
}

/// One thing done in a workspace.
#[derive(Debug, Serialize, ToSchema)]
pub struct Activity {
    pub id: String,
    /// `null` once the account that did it is deleted.
    pub actor: Option<Actor>,
    pub action: ActivityAction,
    pub subject_type: ActivitySubject,
    pub subject_id: String,
    /// Its name when it was done (kept after the subject is deleted).
    pub subject_name: Option<String>,
    /// RFC 3339.
    pub created_at: String,
}

impl QueryValue for ActivityAction {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        Self::parse(text).map(Some).ok_or(FieldCode::InvalidValue)
    }
}

impl QueryValue for ActivitySubject {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        Self::parse(text).map(Some).ok_or(FieldCode::InvalidValue)
    }
}

/// The query of `GET /workspaces/{id}/activity`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ActivityQuery {
    /// Items per page, 1 to 100 (50 by default).
    #[serde(default)]
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    limit: Param<Limit>,
    /// The `next_cursor` of the previous page.
    #[serde(default)]
    #[param(value_type = Option<String>)]
    cursor: Param<Cursor>,
    /// Only this kind of action.
    #[serde(default)]
    #[param(inline, value_type = Option<ActivityAction>)]
    action: Param<ActivityAction>,
    /// Only what was done to this kind of subject.
    #[serde(default)]
    #[param(inline, value_type = Option<ActivitySubject>)]
    subject_type: Param<ActivitySubject>,
    /// Only what this member did.
    #[serde(default)]
    #[param(value_type = Option<String>)]
    actor_id: Param<FilterId>,
    /// Only what was done to this subject.
    #[serde(default)]
    #[param(value_type = Option<String>)]
    subject_id: Param<FilterId>,
}

/// `GET /workspaces/{id}/activity` → one page of `{items, next_cursor}`, newest first.
#[utoipa::path(
    get,
    path = "/workspaces/{id}/activity",
    tag = "workspaces",
    params(("id" = String, Path, description = "The workspace's id"), ActivityQuery),
    responses((status = 200, description = "One page of the activity", body = Paged<Activity>))
)]
async fn activity(
    State(state): State<AppState>,
    user: ApiUser,
    IdPath(id): IdPath<Id>,
    Params(query): Params<ActivityQuery>,
) -> Result<Json<Paged<Activity>>, ApiError> {
    let workspace = db::workspaces::find_for_user(&state.db, user.user_id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let page = Page {
        limit: query.limit.0.map_or(DEFAULT_LIMIT, |Limit(n)| n),
        after: query.cursor.0.map(|Cursor(at, id)| (at, id)),
    };
    let filter = ActivityFilter {
        action: query.action.0,
        subject_type: query.subject_type.0,
        actor_id: query.actor_id.0.map(|f| f.as_str().to_owned()),
        subject_id: query.subject_id.0.map(|f| f.as_str().to_owned()),
    };
    let rows = adb::page(
        &state.db,
        &workspace.id,
        &filter,
        page.limit + 1,
        page.after.as_ref().map(|(at, id)| (*at, id.as_str())),
    )
    .await?;
    Ok(Json(page.paged(
        rows,
        |r| (r.created_at, r.id.as_str()),
        |r| Activity {
            id: r.id.clone(),
            actor: r.actor_id.clone().map(|user_id| Actor {
                user_id,
                email: r.actor_email.clone(),
            }),
            action: r.action,
            subject_type: r.subject_type,
            subject_id: r.subject_id.clone(),
            subject_name: r.subject_name.clone(),
            created_at: rfc3339(r.created_at),
        },
    )))
}
