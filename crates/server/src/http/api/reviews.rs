//! Comments and approval on a heatmap result and on a simulation (issue 29):
//! `GET`/`POST /{heatmaps|simulations}/{id}/comments`, `DELETE …/comments/{comment_id}`,
//! `GET`/`PUT /{heatmaps|simulations}/{id}/approval`.
//!
//! Every member reads, comments and sets the review status: a viewer is often the client who
//! approves. A comment is deleted by its author or an owner. A comment that mentions a member
//! by address (`@name@agency.fr`) mails them, in the language of the request.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::activity::{Actor, record};
use super::body::{Body, Choice, Id, IdPath, Lines};
use super::error::ApiError;
use super::input::{Reader, rfc3339};
use crate::auth::extract::request_lang;
use crate::codes::ErrorCode;
use crate::db;
use crate::db::activity::{ActivityAction, ActivitySubject};
use crate::db::reviews::{self as rdb, ApprovalStatus, CommentRow, Subject};
use crate::db::workspaces::WorkspaceRole;
use crate::state::AppState;

const MAX_COMMENT: usize = 5000;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(heatmap_comments, comment_heatmap))
        .routes(routes!(delete_heatmap_comment))
        .routes(routes!(heatmap_approval, review_heatmap))
        .routes(routes!(simulation_comments, comment_simulation))
        .routes(routes!(delete_simulation_comment))
        .routes(routes!(simulation_approval, review_simulation))
}

/// A comment.
#[derive(Debug, Serialize, ToSchema)]
pub struct Comment {
    pub id: String,
    /// `null` once the author's account is deleted.
    pub author: Option<Actor>,
    pub body: String,
    /// The user ids of the members the body mentions.
    pub mentions: Vec<String>,
    /// RFC 3339.
    pub created_at: String,
}

/// The comments on a heatmap or a simulation, oldest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct CommentList {
    pub items: Vec<Comment>,
}

/// Where a heatmap or a simulation stands with its reviewers.
#[derive(Debug, Serialize, ToSchema)]
pub struct Approval {
    pub status: ApprovalStatus,
    /// Who set it; `null` while nobody has.
    pub set_by: Option<Actor>,
    /// RFC 3339; `null` while nobody has set it.
    pub set_at: Option<String>,
}

/// The body of `POST …/comments`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct NewComment {
    /// 1 to 5000 characters, several lines; `@address` mentions a member.
    #[serde(default)]
    #[schema(value_type = String, required = true, max_length = 5000, format = "text")]
    body: super::body::Patch<Lines<MAX_COMMENT>>,
}

/// The body of `PUT …/approval`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ApprovalChange {
    #[serde(default)]
    #[schema(value_type = ApprovalStatus, required = true)]
    status: super::body::Patch<Choice<ApprovalStatus, 32>>,
}

fn comment_body(c: CommentRow) -> Comment {
    Comment {
        id: c.id,
        author: c.author_id.map(|user_id| Actor {
            user_id,
            email: c.author_email,
        }),
        body: c.body,
        mentions: c.mentions,
        created_at: rfc3339(c.created_at),
    }
}

/// The subject's name, or 404 `not_found` when the workspace has no such subject.
async fn subject(
    state: &AppState,
    user: &Reader,
    kind: Subject,
    id: &str,
) -> Result<String, ApiError> {
    rdb::subject_name(&state.db, kind, user.workspace_id(), id)
        .await?
        .ok_or_else(ApiError::not_found)
}

fn activity_subject(kind: Subject) -> ActivitySubject {
    match kind {
        Subject::Heatmap => ActivitySubject::Heatmap,
        Subject::Simulation => ActivitySubject::Simulation,
    }
}

async fn comments(
    state: &AppState,
    user: &Reader,
    kind: Subject,
    id: &str,
) -> Result<Json<CommentList>, ApiError> {
    subject(state, user, kind, id).await?;
    let items = rdb::comments(&state.db, kind, user.workspace_id(), id)
        .await?
        .into_iter()
        .map(comment_body)
        .collect();
    Ok(Json(CommentList { items }))
}

/// The members a comment mentions: each `@` followed by a member's address (any case), but
/// the author.
fn mentioned(
    body: &str,
    members: &[db::workspaces::MemberRow],
    author: &str,
) -> Vec<(String, String)> {
    let lower = body.to_lowercase();
    members
        .iter()
        .filter(|m| m.user_id != author)
        .filter_map(|m| {
            let email = m.email.as_deref()?;
            let needle = format!("@{}", email.to_lowercase());
            // The address ends there: not a longer one that starts the same (a sentence's
            // full stop may follow).
            let ends = |rest: &str| {
                let mut chars = rest.chars();
                match chars.next() {
                    None => true,
                    Some('.') => chars.next().is_none_or(|d| !d.is_alphanumeric()),
                    Some(c) => !(c.is_alphanumeric() || "-_@".contains(c)),
                }
            };
            let found = lower
                .match_indices(&needle)
                .any(|(at, _)| ends(&lower[at + needle.len()..]));
            found.then(|| (m.user_id.clone(), email.to_owned()))
        })
        .collect()
}

async fn comment(
    state: &AppState,
    user: &Reader,
    headers: &HeaderMap,
    kind: Subject,
    id: &str,
    body: NewComment,
    mut problems: super::body::Problems,
) -> Result<(StatusCode, Json<Comment>), ApiError> {
    let name = subject(state, user, kind, id).await?;
    let text = problems.required("body", body.body);
    problems.finish()?;
    let Some(Lines(text)) = text else {
        return Err(ApiError::internal(
            "comment validation let a missing body through",
        ));
    };
    let members = db::workspaces::members(&state.db, user.workspace_id()).await?;
    let mentions = mentioned(&text, &members, user.user_id());
    let now = db::now_ms();
    let row = CommentRow {
        id: uuid::Uuid::new_v4().to_string(),
        author_id: Some(user.user_id().to_owned()),
        author_email: Some(user.0.0.user.email.clone()).filter(|e| !e.is_empty()),
        body: text,
        mentions: mentions.iter().map(|(id, _)| id.clone()).collect(),
        created_at: now,
    };
    rdb::insert_comment(&state.db, kind, user.workspace_id(), id, &row).await?;
    record(
        state,
        user,
        ActivityAction::Commented,
        activity_subject(kind),
        id,
        Some(&name),
    )
    .await;
    let link = format!(
        "{}/{}/{id}?ws={}",
        state.config.site_url.trim_end_matches('/'),
        match kind {
            Subject::Heatmap => "heatmap/results",
            Subject::Simulation => "simulation",
        },
        user.workspace_id(),
    );
    for (_, email) in &mentions {
        // Past the author's hourly allowance the comment stands and the mentioned members see
        // it in the app; only the mail is not sent (comments cannot be made a mail cannon).
        if state.limits.mention(user.user_id()).await.is_err() {
            tracing::info!("a mention mail was held back: its author's hourly allowance is spent");
            continue;
        }
        let mail = crate::notify::templates::mention(
            request_lang(headers),
            email,
            &user.0.0.user.email,
            &name,
            &row.body,
            &link,
        );
        // The comment is saved: a mail that fails is logged, not answered.
        if let Err(err) = state.mailer.send(&mail).await {
            tracing::warn!(error = %err, "mailing a mention failed");
        }
    }
    Ok((StatusCode::CREATED, Json(comment_body(row))))
}

async fn delete_comment(
    state: &AppState,
    user: &Reader,
    kind: Subject,
    id: &str,
    comment_id: &str,
) -> Result<StatusCode, ApiError> {
    subject(state, user, kind, id).await?;
    let found = rdb::find_comment(&state.db, kind, user.workspace_id(), id, comment_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let own = found.author_id.as_deref() == Some(user.user_id());
    if !own && user.role() != WorkspaceRole::Owner {
        return Err(ApiError::new(ErrorCode::ForbiddenRole));
    }
    if !rdb::delete_comment(&state.db, user.workspace_id(), comment_id).await? {
        return Err(ApiError::not_found());
    }
    Ok(StatusCode::NO_CONTENT)
}

fn approval_body(a: rdb::ApprovalRow) -> Approval {
    Approval {
        status: a.status,
        set_by: a.set_by.map(|user_id| Actor {
            user_id,
            email: a.set_by_email,
        }),
        set_at: a.set_at.map(rfc3339),
    }
}

async fn approval(
    state: &AppState,
    user: &Reader,
    kind: Subject,
    id: &str,
) -> Result<Json<Approval>, ApiError> {
    subject(state, user, kind, id).await?;
    Ok(Json(approval_body(
        rdb::approval(&state.db, kind, id).await?,
    )))
}

async fn review(
    state: &AppState,
    user: &Reader,
    kind: Subject,
    id: &str,
    body: ApprovalChange,
    mut problems: super::body::Problems,
) -> Result<Json<Approval>, ApiError> {
    let name = subject(state, user, kind, id).await?;
    let status = problems.required("status", body.status);
    problems.finish()?;
    let Some(Choice(status)) = status else {
        return Err(ApiError::internal(
            "approval validation let a missing status through",
        ));
    };
    rdb::set_approval(
        &state.db,
        kind,
        user.workspace_id(),
        id,
        status,
        user.user_id(),
        db::now_ms(),
    )
    .await?;
    record(
        state,
        user,
        ActivityAction::Reviewed,
        activity_subject(kind),
        id,
        Some(&name),
    )
    .await;
    Ok(Json(approval_body(
        rdb::approval(&state.db, kind, id).await?,
    )))
}

/// `GET /heatmaps/{id}/comments` → `{items}`, oldest first.
#[utoipa::path(get, path = "/heatmaps/{id}/comments", tag = "reviews",
    params(("id" = String, Path, description = "The heatmap's id")),
    responses((status = 200, description = "Its comments", body = CommentList)))]
async fn heatmap_comments(
    State(state): State<AppState>,
    user: Reader,
    IdPath(id): IdPath<Id>,
) -> Result<Json<CommentList>, ApiError> {
    comments(&state, &user, Subject::Heatmap, &id).await
}

/// `POST /heatmaps/{id}/comments {body}` → 201 the comment (any member; mentions are mailed).
#[utoipa::path(post, path = "/heatmaps/{id}/comments", tag = "reviews",
    params(("id" = String, Path, description = "The heatmap's id")),
    request_body = NewComment,
    responses((status = 201, description = "The comment", body = Comment)))]
async fn comment_heatmap(
    State(state): State<AppState>,
    user: Reader,
    headers: HeaderMap,
    IdPath(id): IdPath<Id>,
    Body(body, problems): Body<NewComment>,
) -> Result<(StatusCode, Json<Comment>), ApiError> {
    comment(
        &state,
        &user,
        &headers,
        Subject::Heatmap,
        &id,
        body,
        problems,
    )
    .await
}

/// `DELETE /heatmaps/{id}/comments/{comment_id}` (its author or an owner) → 204.
#[utoipa::path(delete, path = "/heatmaps/{id}/comments/{comment_id}", tag = "reviews",
    params(("id" = String, Path, description = "The heatmap's id"), ("comment_id" = String, Path, description = "The comment's id")),
    responses((status = 204, description = "Deleted")))]
async fn delete_heatmap_comment(
    State(state): State<AppState>,
    user: Reader,
    IdPath((id, comment_id)): IdPath<(Id, Id)>,
) -> Result<StatusCode, ApiError> {
    delete_comment(&state, &user, Subject::Heatmap, &id, &comment_id).await
}

/// `GET /heatmaps/{id}/approval` → `{status, set_by, set_at}` (`pending` until set).
#[utoipa::path(get, path = "/heatmaps/{id}/approval", tag = "reviews",
    params(("id" = String, Path, description = "The heatmap's id")),
    responses((status = 200, description = "Its review status", body = Approval)))]
async fn heatmap_approval(
    State(state): State<AppState>,
    user: Reader,
    IdPath(id): IdPath<Id>,
) -> Result<Json<Approval>, ApiError> {
    approval(&state, &user, Subject::Heatmap, &id).await
}

/// `PUT /heatmaps/{id}/approval {status}` (any member) → the status, with who set it.
#[utoipa::path(put, path = "/heatmaps/{id}/approval", tag = "reviews",
    params(("id" = String, Path, description = "The heatmap's id")),
    request_body = ApprovalChange,
    responses((status = 200, description = "Its review status", body = Approval)))]
async fn review_heatmap(
    State(state): State<AppState>,
    user: Reader,
    IdPath(id): IdPath<Id>,
    Body(body, problems): Body<ApprovalChange>,
) -> Result<Json<Approval>, ApiError> {
    review(&state, &user, Subject::Heatmap, &id, body, problems).await
}

/// `GET /simulations/{id}/comments` → `{items}`, oldest first.
#[utoipa::path(get, path = "/simulations/{id}/comments", tag = "reviews",
    params(("id" = String, Path, description = "The simulation's id")),
    responses((status = 200, description = "Its comments", body = CommentList)))]
async fn simulation_comments(
    State(state): State<AppState>,
    user: Reader,
    IdPath(id): IdPath<Id>,
) -> Result<Json<CommentList>, ApiError> {
    comments(&state, &user, Subject::Simulation, &id).await
}

/// `POST /simulations/{id}/comments {body}` → 201 the comment (any member; mentions are mailed).
#[utoipa::path(post, path = "/simulations/{id}/comments", tag = "reviews",
    params(("id" = String, Path, description = "The simulation's id")),
    request_body = NewComment,
    responses((status = 201, description = "The comment", body = Comment)))]
async fn comment_simulation(
    State(state): State<AppState>,
    user: Reader,
    headers: HeaderMap,
    IdPath(id): IdPath<Id>,
    Body(body, problems): Body<NewComment>,
) -> Result<(StatusCode, Json<Comment>), ApiError> {
    comment(
        &state,
        &user,
        &headers,
        Subject::Simulation,
        &id,
        body,
        problems,
    )
    .await
}

/// `DELETE /simulations/{id}/comments/{comment_id}` (its author or an owner) → 204.
#[utoipa::path(delete, path = "/simulations/{id}/comments/{comment_id}", tag = "reviews",
    params(("id" = String, Path, description = "The simulation's id"), ("comment_id" = String, Path, description = "The comment's id")),
    responses((status = 204, description = "Deleted")))]
async fn delete_simulation_comment(
    State(state): State<AppState>,
    user: Reader,
    IdPath((id, comment_id)): IdPath<(Id, Id)>,
) -> Result<StatusCode, ApiError> {
    delete_comment(&state, &user, Subject::Simulation, &id, &comment_id).await
}

/// `GET /simulations/{id}/approval` → `{status, set_by, set_at}` (`pending` until set).
#[utoipa::path(get, path = "/simulations/{id}/approval", tag = "reviews",
    params(("id" = String, Path, description = "The simulation's id")),
    responses((status = 200, description = "Its review status", body = Approval)))]
async fn simulation_approval(
    State(state): State<AppState>,
    user: Reader,
    IdPath(id): IdPath<Id>,
) -> Result<Json<Approval>, ApiError> {
    approval(&state, &user, Subject::Simulation, &id).await
}

/// `PUT /simulations/{id}/approval {status}` (any member) → the status, with who set it.
#[utoipa::path(put, path = "/simulations/{id}/approval", tag = "reviews",
    params(("id" = String, Path, description = "The simulation's id")),
    request_body = ApprovalChange,
    responses((status = 200, description = "Its review status", body = Approval)))]
async fn review_simulation(
    State(state): State<AppState>,
    user: Reader,
    IdPath(id): IdPath<Id>,
    Body(body, problems): Body<ApprovalChange>,
) -> Result<Json<Approval>, ApiError> {
    review(&state, &user, Subject::Simulation, &id, body, problems).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(id: &str, email: &str) -> db::workspaces::MemberRow {
        db::workspaces::MemberRow {
            user_id: id.into(),
            email: Some(email.into()),
            role: WorkspaceRole::Editor,
            created_at: 0,
        }
    }

    #[test]
    fn mentions_are_members_addresses_after_an_at_sign() {
        let members = [
            member("a", "ana@agence.fr"),
            member("b", "bo@agence.fr"),
            member("c", "bo@agence.fr.example"),
            member("me", "me@agence.fr"),
        ];
        let ids = |body: &str| -> Vec<String> {
            mentioned(body, &members, "me")
                .into_iter()
                .map(|(id, _)| id)
                .collect()
        };
        assert_eq!(ids("Vu, @Ana@Agence.fr. Et @bo@agence.fr ?"), ["a", "b"]);
        assert_eq!(ids("@bo@agence.fr.example seul"), ["c"]);
        assert_eq!(
            ids("ana@agence.fr sans arobase devant"),
            Vec::<String>::new()
        );
        assert_eq!(ids("moi : @me@agence.fr"), Vec::<String>::new());
    }
}
