//! Workspaces (issue 29): `GET`/`POST /workspaces`, `PATCH`/`DELETE /workspaces/{id}`, their
//! members (`GET /workspaces/{id}/members`, `PATCH`/`DELETE …/members/{user_id}`), their
//! invitations (`POST`/`GET /workspaces/{id}/invitations`, `DELETE …/invitations/{id}`,
//! `POST …/invitations/{id}/resend`) and `POST /invitations/{token}/accept`.
//!
//! These routes name their workspace in the path, not in `X-Workspace-Id`. A workspace the
//! caller is not a member of answers 404 `not_found`, as an unknown id does; what only an owner
//! may do answers 403 `forbidden_role` to the others. A personal workspace is its account's
//! alone: it cannot be deleted and takes no invitations (409 `personal_workspace`).
//!
//! An invitation is a capability: its token (32 random characters) goes only into the mail,
//! and only its SHA-256 is stored. It is valid 7 days, single use, and only for an account
//! with the invited address (403 `invitation_for_another_account` otherwise): a new address
//! signs up first, then accepts.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::activity::record_in;
use super::body::{Body, Choice, IdPath, Line, Patch};
use super::error::ApiError;
use super::input::{ApiUser, rfc3339};
use crate::auth::email::Email;
use crate::auth::extract::request_lang;
use crate::auth::tokens::{is_well_formed, random_token};
use crate::codes::{ErrorCode, FieldCode};
use crate::db;
use crate::db::activity::{ActivityAction, ActivitySubject};
use crate::db::workspaces::{self as wdb, Accepted, InvitationRow, MemberChange, WorkspaceRole};
use crate::events::{Event, EventName};
use crate::state::AppState;

/// How long an invitation can be accepted.
const INVITATION_DAYS: i64 = 7;
const DAY_MS: i64 = 24 * 3600 * 1000;
/// The most invitations a workspace has waiting at once (each one sent a mail).
const MAX_PENDING: usize = 100;
const MAX_NAME: usize = 200;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(rename, delete))
        .routes(routes!(members))
        .routes(routes!(change_member, remove_member))
        .routes(routes!(invite, invitations))
        .routes(routes!(revoke_invitation))
        .routes(routes!(resend_invitation))
        .routes(routes!(accept))
}

/// A workspace, as the caller sees it.
#[derive(Debug, Serialize, ToSchema)]
pub struct Workspace {
    pub id: String,
    /// Empty for a personal workspace (the app names it in the reader's language).
    pub name: String,
    /// The caller's role in it.
    pub role: WorkspaceRole,
    /// Whether it is the caller's personal workspace.
    pub personal: bool,
}

/// The caller's workspaces: the personal one first, then by name.
#[derive(Debug, Serialize, ToSchema)]
pub struct WorkspaceList {
    pub items: Vec<Workspace>,
}

/// A member of a workspace.
#[derive(Debug, Serialize, ToSchema)]
pub struct WorkspaceMember {
    pub user_id: String,
    /// `null` for an account without an address (phone-only).
    pub email: Option<String>,
    pub role: WorkspaceRole,
}

/// A workspace's members, oldest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct MemberList {
    pub items: Vec<WorkspaceMember>,
}

/// An invitation (its token only ever goes into the mail).
#[derive(Debug, Serialize, ToSchema)]
pub struct Invitation {
    pub id: String,
    pub email: String,
    pub role: WorkspaceRole,
    /// RFC 3339.
    pub expires_at: String,
}

/// A workspace's invitations waiting for an answer, newest first (expired ones included).
#[derive(Debug, Serialize, ToSchema)]
pub struct InvitationList {
    pub items: Vec<Invitation>,
}

/// What accepting an invitation did.
#[derive(Debug, Serialize, ToSchema)]
pub struct Joined {
    pub workspace_id: String,
    /// The caller's role there now.
    pub role: WorkspaceRole,
}

/// The body of `POST /workspaces` and `PATCH /workspaces/{id}`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct WorkspaceName {
    /// 1 to 200 characters.
    #[serde(default)]
    #[schema(value_type = String, required = true, max_length = 200, format = "name")]
    name: Patch<Line<MAX_NAME>>,
}

/// The body of `POST /workspaces/{id}/invitations`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct NewInvitation {
    /// The address the invitation is mailed to; only an account with it can accept.
    #[serde(default)]
    #[schema(value_type = String, required = true, format = "email")]
    email: Patch<String>,
    /// The role the invited person gets.
    #[serde(default)]
    #[schema(value_type = WorkspaceRole, required = true)]
    role: Patch<Choice<WorkspaceRole, 16>>,
}

/// The body of `PATCH /workspaces/{id}/members/{user_id}`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct MemberChanges {
    #[serde(default)]
    #[schema(value_type = WorkspaceRole, required = true)]
    role: Patch<Choice<WorkspaceRole, 16>>,
}

fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

fn workspace_body(w: wdb::WorkspaceRow) -> Workspace {
    Workspace {
        id: w.id,
        name: w.name,
        role: w.role,
        personal: w.personal,
    }
}

fn invitation_body(i: &InvitationRow) -> Invitation {
    Invitation {
        id: i.id.clone(),
        email: i.email.clone(),
        role: i.role,
        expires_at: rfc3339(i.expires_at),
    }
}

/// The caller's view of workspace `id`: 404 `not_found` when not a member.
async fn member_of(
    state: &AppState,
    user: &ApiUser,
    id: &str,
) -> Result<wdb::WorkspaceRow, ApiError> {
    wdb::find_for_user(&state.db, user.user_id(), id)
        .await?
        .ok_or_else(ApiError::not_found)
}

/// [`member_of`], and 403 `forbidden_role` unless the caller owns it.
async fn owner_of(
    state: &AppState,
    user: &ApiUser,
    id: &str,
) -> Result<wdb::WorkspaceRow, ApiError> {
    let workspace = member_of(state, user, id).await?;
    if workspace.role != WorkspaceRole::Owner {
        return Err(ApiError::new(ErrorCode::ForbiddenRole));
    }
    Ok(workspace)
}

/// Tells the workspace's open streams that its members changed (on every node): a removed
/// member's stream ends, the others read their role again.
async fn members_changed(state: &AppState, workspace_id: &str) {
    state
        .bus
        .publish(Event::for_workspace(
            workspace_id,
            EventName::Members,
            &serde_json::json!({ "workspace_id": workspace_id }),
        ))
        .await;
}

/// `GET /workspaces` → `{items: [{id, name, role, personal}]}`.
#[utoipa::path(
    get,
    path = "/workspaces",
    tag = "workspaces",
    responses((status = 200, description = "The caller's workspaces", body = WorkspaceList))
)]
async fn list(
    State(state): State<AppState>,
    user: ApiUser,
) -> Result<Json<WorkspaceList>, ApiError> {
    let items = wdb::for_user(&state.db, user.user_id())
        .await?
        .into_iter()
        .map(workspace_body)
        .collect();
    Ok(Json(WorkspaceList { items }))
}

/// `POST /workspaces {name}` → 201 `{id, name, role: "owner", personal: false}`.
#[utoipa::path(
    post,
    path = "/workspaces",
    tag = "workspaces",
    request_body = WorkspaceName,
    responses((status = 201, description = "The new workspace; the caller owns it", body = Workspace))
)]
async fn create(
    State(state): State<AppState>,
    user: ApiUser,
    Body(body, mut problems): Body<WorkspaceName>,
) -> Result<(StatusCode, Json<Workspace>), ApiError> {
    let name = problems.required("name", body.name);
    problems.finish()?;
    let Some(Line(name)) = name else {
        return Err(ApiError::internal(
            "workspace validation let a missing name through",
        ));
    };
    let max = state.config.max_workspaces_per_user;
    if max > 0 {
        let owned = wdb::for_user(&state.db, user.user_id())
            .await?
            .iter()
            .filter(|w| !w.personal && w.role == WorkspaceRole::Owner)
            .count();
        if owned >= max as usize {
            return Err(ApiError::new(ErrorCode::LimitReached)
                .with_details(serde_json::json!({"limit": "workspaces", "max": max})));
        }
    }
    let id = uuid::Uuid::new_v4().to_string();
    wdb::create(&state.db, &id, &name, user.user_id(), db::now_ms()).await?;
    Ok((
        StatusCode::CREATED,
        Json(Workspace {
            id,
            name,
            role: WorkspaceRole::Owner,
            personal: false,
        }),
    ))
}

/// `PATCH /workspaces/{id} {name}` (owner) → the workspace.
#[utoipa::path(
    patch,
    path = "/workspaces/{id}",
    tag = "workspaces",
    params(("id" = String, Path, description = "The workspace's id")),
    request_body = WorkspaceName,
    responses((status = 200, description = "The renamed workspace", body = Workspace))
)]
async fn rename(
    State(state): State<AppState>,
    user: ApiUser,
    IdPath(id): IdPath<super::body::Id>,
    Body(body, mut problems): Body<WorkspaceName>,
) -> Result<Json<Workspace>, ApiError> {
    let mut workspace = owner_of(&state, &user, &id).await?;
    let name = problems.required("name", body.name);
    problems.finish()?;
    let Some(Line(name)) = name else {
        return Err(ApiError::internal(
            "workspace validation let a missing name through",
        ));
    };
    if !wdb::rename(&state.db, &workspace.id, &name, db::now_ms()).await? {
        return Err(ApiError::not_found());
    }
    workspace.name = name;
    record_in(
        &state,
        &workspace.id,
        user.user_id(),
        ActivityAction::Changed,
        ActivitySubject::Workspace,
        &workspace.id,
        Some(&workspace.name),
    )
    .await;
    Ok(Json(workspace_body(workspace)))
}

/// `DELETE /workspaces/{id}` (owner) → 204: the workspace and its whole library go, for every
/// member at once. 409 `personal_workspace` for a personal one.
#[utoipa::path(
    delete,
    path = "/workspaces/{id}",
    tag = "workspaces",
    params(("id" = String, Path, description = "The workspace's id")),
    responses((status = 204, description = "Deleted with its library"))
)]
async fn delete(
    State(state): State<AppState>,
    user: ApiUser,
    IdPath(id): IdPath<super::body::Id>,
) -> Result<StatusCode, ApiError> {
    let workspace = owner_of(&state, &user, &id).await?;
    if workspace.personal {
        return Err(ApiError::new(ErrorCode::PersonalWorkspace));
    }
    let media = db::media::all_owned(&state.db, &workspace.id).await?;
    if !wdb::delete(&state.db, &workspace.id).await? {
        return Err(ApiError::not_found());
    }
    for item in &media {
        crate::media::delete_objects_if_orphaned(&state.db, state.storage.as_ref(), item).await;
    }
    members_changed(&state, &workspace.id).await;
    tracing::info!(workspace_id = %workspace.id, files = media.len(), "workspace deleted");
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /workspaces/{id}/members` → `{items: [{user_id, email, role}]}`.
#[utoipa::path(
    get,
    path = "/workspaces/{id}/members",
    tag = "workspaces",
    params(("id" = String, Path, description = "The workspace's id")),
    responses((status = 200, description = "Its members, oldest first", body = MemberList))
)]
async fn members(
    State(state): State<AppState>,
    user: ApiUser,
    IdPath(id): IdPath<super::body::Id>,
) -> Result<Json<MemberList>, ApiError> {
    let workspace = member_of(&state, &user, &id).await?;
    let items = wdb::members(&state.db, &workspace.id)
        .await?
        .into_iter()
        .map(|m| WorkspaceMember {
            user_id: m.user_id,
            email: m.email,
            role: m.role,
        })
        .collect();
    Ok(Json(MemberList { items }))
}

/// `PATCH /workspaces/{id}/members/{user_id} {role}` (owner) → the member. 409 `last_owner`
/// when it would leave no owner.
#[utoipa::path(
    patch,
    path = "/workspaces/{id}/members/{user_id}",
    tag = "workspaces",
    params(
        ("id" = String, Path, description = "The workspace's id"),
        ("user_id" = String, Path, description = "The member's user id"),
    ),
    request_body = MemberChanges,
    responses((status = 200, description = "The member with their new role", body = WorkspaceMember))
)]
async fn change_member(
    State(state): State<AppState>,
    user: ApiUser,
    IdPath((id, member_id)): IdPath<(super::body::Id, super::body::Id)>,
    Body(body, mut problems): Body<MemberChanges>,
) -> Result<Json<WorkspaceMember>, ApiError> {
    let workspace = owner_of(&state, &user, &id).await?;
    let role = problems.required("role", body.role);
    problems.finish()?;
    let Some(Choice(role)) = role else {
        return Err(ApiError::internal(
            "member validation let a missing role through",
        ));
    };
    match wdb::set_role(&state.db, &workspace.id, &member_id, role).await? {
        MemberChange::Done => {}
        MemberChange::NotMember => return Err(ApiError::not_found()),
        MemberChange::LastOwner => return Err(ApiError::new(ErrorCode::LastOwner)),
    }
    members_changed(&state, &workspace.id).await;
    let member = wdb::members(&state.db, &workspace.id)
        .await?
        .into_iter()
        .find(|m| m.user_id == *member_id)
        .ok_or_else(ApiError::not_found)?;
    record_in(
        &state,
        &workspace.id,
        user.user_id(),
        ActivityAction::Changed,
        ActivitySubject::Member,
        &member.user_id,
        member.email.as_deref(),
    )
    .await;
    Ok(Json(WorkspaceMember {
        user_id: member.user_id,
        email: member.email,
        role: member.role,
    }))
}

/// `DELETE /workspaces/{id}/members/{user_id}` (owner, or the member themselves to leave) →
/// 204; the member loses access at once, open event streams included. 409 `last_owner` for
/// the last owner, `personal_workspace` to leave one's personal workspace.
#[utoipa::path(
    delete,
    path = "/workspaces/{id}/members/{user_id}",
    tag = "workspaces",
    params(
        ("id" = String, Path, description = "The workspace's id"),
        ("user_id" = String, Path, description = "The member's user id"),
    ),
    responses((status = 204, description = "Removed"))
)]
async fn remove_member(
    State(state): State<AppState>,
    user: ApiUser,
    IdPath((id, member_id)): IdPath<(super::body::Id, super::body::Id)>,
) -> Result<StatusCode, ApiError> {
    let workspace = member_of(&state, &user, &id).await?;
    let leaving = *member_id == *user.user_id();
    if !leaving && workspace.role != WorkspaceRole::Owner {
        return Err(ApiError::new(ErrorCode::ForbiddenRole));
    }
    if workspace.personal && leaving {
        return Err(ApiError::new(ErrorCode::PersonalWorkspace));
    }
    let email = wdb::members(&state.db, &workspace.id)
        .await?
        .into_iter()
        .find(|m| m.user_id == *member_id)
        .and_then(|m| m.email);
    match wdb::remove_member(&state.db, &workspace.id, &member_id).await? {
        MemberChange::Done => {}
        MemberChange::NotMember => return Err(ApiError::not_found()),
        MemberChange::LastOwner => return Err(ApiError::new(ErrorCode::LastOwner)),
    }
    members_changed(&state, &workspace.id).await;
    record_in(
        &state,
        &workspace.id,
        user.user_id(),
        ActivityAction::Deleted,
        ActivitySubject::Member,
        &member_id,
        email.as_deref(),
    )
    .await;
    Ok(StatusCode::NO_CONTENT)
}

/// Takes one invitation mail from the inviter's and the address's hourly allowances
/// (`REGARD_RATE_LIMIT_INVITATIONS*`): 429 `over_email_send_rate_limit` with `Retry-After`
/// beyond either, so that invitations cannot be made a mail relay.
async fn take_invitation_mail(
    state: &AppState,
    inviter: &ApiUser,
    address: &str,
) -> Result<(), ApiError> {
    state
        .limits
        .invitation(inviter.user_id(), address)
        .await
        .map_err(|wait| ApiError::new(ErrorCode::OverEmailSendRateLimit).retry_after(wait))
}

/// Mails an invitation's link, in the language of the request.
async fn send_invitation(
    state: &AppState,
    headers: &HeaderMap,
    inviter: &ApiUser,
    workspace: &wdb::WorkspaceRow,
    invitation: &InvitationRow,
    token: &str,
) -> Result<(), ApiError> {
    let link = format!(
        "{}/invitations/{token}",
        state.config.site_url.trim_end_matches('/')
    );
    let mail = crate::notify::templates::workspace_invitation(
        request_lang(headers),
        &invitation.email,
        &inviter.0.user.email,
        &workspace.name,
        invitation.role,
        &link,
    );
    state
        .mailer
        .send(&mail)
        .await
        .map_err(|err| ApiError::internal(format!("sending an invitation failed: {err}")))
}

/// `POST /workspaces/{id}/invitations {email, role}` (owner) → 201 `{id, email, role,
/// expires_at}`, and a mail carrying the link. 409 `already_member` for a member's address,
/// `personal_workspace` for a personal workspace.
#[utoipa::path(
    post,
    path = "/workspaces/{id}/invitations",
    tag = "workspaces",
    params(("id" = String, Path, description = "The workspace's id")),
    request_body = NewInvitation,
    responses((status = 201, description = "The invitation, mailed", body = Invitation))
)]
async fn invite(
    State(state): State<AppState>,
    user: ApiUser,
    headers: HeaderMap,
    IdPath(id): IdPath<super::body::Id>,
    Body(body, mut problems): Body<NewInvitation>,
) -> Result<(StatusCode, Json<Invitation>), ApiError> {
    let workspace = owner_of(&state, &user, &id).await?;
    let email = problems.required("email", body.email);
    let email = match email.map(|raw| Email::parse(&raw)) {
        Some(Ok(email)) => Some(email),
        Some(Err(_)) => {
            problems.add("email", FieldCode::InvalidValue);
            None
        }
        None => None,
    };
    let role = problems.required("role", body.role);
    if workspace.personal {
        return Err(ApiError::new(ErrorCode::PersonalWorkspace));
    }
    let pending = wdb::pending_invitations(&state.db, &workspace.id).await?;
    if pending.len() >= MAX_PENDING {
        problems.add("email", FieldCode::TooMany);
    }
    problems.finish()?;
    let (Some(email), Some(Choice(role))) = (email, role) else {
        return Err(ApiError::internal(
            "invitation validation let a missing field through",
        ));
    };
    let members = wdb::members(&state.db, &workspace.id).await?;
    if members
        .iter()
        .any(|m| m.email.as_deref() == Some(email.as_str()))
    {
        return Err(ApiError::new(ErrorCode::AlreadyMember));
    }
    take_invitation_mail(&state, &user, email.as_str()).await?;
    let now = db::now_ms();
    let invitation = InvitationRow {
        id: uuid::Uuid::new_v4().to_string(),
        workspace_id: workspace.id.clone(),
        email: email.as_str().to_owned(),
        role,
        invited_by: Some(user.user_id().to_owned()),
        created_at: now,
        expires_at: now + INVITATION_DAYS * DAY_MS,
        accepted_at: None,
        revoked_at: None,
    };
    let token = random_token();
    wdb::insert_invitation(&state.db, &invitation, &token_hash(&token)).await?;
    send_invitation(&state, &headers, &user, &workspace, &invitation, &token).await?;
    record_in(
        &state,
        &workspace.id,
        user.user_id(),
        ActivityAction::Invited,
        ActivitySubject::Invitation,
        &invitation.id,
        Some(&invitation.email),
    )
    .await;
    Ok((StatusCode::CREATED, Json(invitation_body(&invitation))))
}

/// `GET /workspaces/{id}/invitations` (owner) → `{items}`: those waiting for an answer.
#[utoipa::path(
    get,
    path = "/workspaces/{id}/invitations",
    tag = "workspaces",
    params(("id" = String, Path, description = "The workspace's id")),
    responses((status = 200, description = "Pending invitations, newest first", body = InvitationList))
)]
async fn invitations(
    State(state): State<AppState>,
    user: ApiUser,
    IdPath(id): IdPath<super::body::Id>,
) -> Result<Json<InvitationList>, ApiError> {
    let workspace = owner_of(&state, &user, &id).await?;
    let items = wdb::pending_invitations(&state.db, &workspace.id)
        .await?
        .iter()
        .map(invitation_body)
        .collect();
    Ok(Json(InvitationList { items }))
}

/// `DELETE /workspaces/{id}/invitations/{invitation_id}` (owner) → 204: its link stops working.
#[utoipa::path(
    delete,
    path = "/workspaces/{id}/invitations/{invitation_id}",
    tag = "workspaces",
    params(
        ("id" = String, Path, description = "The workspace's id"),
        ("invitation_id" = String, Path, description = "The invitation's id"),
    ),
    responses((status = 204, description = "Revoked"))
)]
async fn revoke_invitation(
    State(state): State<AppState>,
    user: ApiUser,
    IdPath((id, invitation_id)): IdPath<(super::body::Id, super::body::Id)>,
) -> Result<StatusCode, ApiError> {
    let workspace = owner_of(&state, &user, &id).await?;
    if wdb::revoke_invitation(&state.db, &workspace.id, &invitation_id, db::now_ms()).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found())
    }
}

/// `POST /workspaces/{id}/invitations/{invitation_id}/resend` (owner) → the invitation with a
/// new link (the old one stops working) valid 7 days from now, mailed again.
#[utoipa::path(
    post,
    path = "/workspaces/{id}/invitations/{invitation_id}/resend",
    tag = "workspaces",
    params(
        ("id" = String, Path, description = "The workspace's id"),
        ("invitation_id" = String, Path, description = "The invitation's id"),
    ),
    responses((status = 200, description = "Sent again", body = Invitation))
)]
async fn resend_invitation(
    State(state): State<AppState>,
    user: ApiUser,
    headers: HeaderMap,
    IdPath((id, invitation_id)): IdPath<(super::body::Id, super::body::Id)>,
) -> Result<Json<Invitation>, ApiError> {
    let workspace = owner_of(&state, &user, &id).await?;
    let pending = wdb::pending_invitations(&state.db, &workspace.id).await?;
    let address = pending
        .iter()
        .find(|i| *i.id == *invitation_id)
        .map(|i| i.email.clone())
        .ok_or_else(ApiError::not_found)?;
    // Counted before the link is renewed: a refused resend leaves the old link working.
    take_invitation_mail(&state, &user, &address).await?;
    let token = random_token();
    let expires_at = db::now_ms() + INVITATION_DAYS * DAY_MS;
    let invitation = wdb::renew_invitation(
        &state.db,
        &workspace.id,
        &invitation_id,
        &token_hash(&token),
        expires_at,
    )
    .await?
    .ok_or_else(ApiError::not_found)?;
    send_invitation(&state, &headers, &user, &workspace, &invitation, &token).await?;
    Ok(Json(invitation_body(&invitation)))
}

/// `POST /invitations/{token}/accept` (signed in as the invited address) → `{workspace_id,
/// role}`. 404 `not_found` for a token that is not (or no longer) an invitation: used,
/// revoked, or made up; 410 `invitation_expired` after 7 days; 403
/// `invitation_for_another_account` when the caller's address is not the invited one.
#[utoipa::path(
    post,
    path = "/invitations/{token}/accept",
    tag = "workspaces",
    params(("token" = String, Path, description = "The invitation's token, from its mail")),
    responses((status = 200, description = "Joined", body = Joined))
)]
async fn accept(
    State(state): State<AppState>,
    user: ApiUser,
    Path(token): Path<String>,
) -> Result<Json<Joined>, ApiError> {
    if !is_well_formed(&token) {
        return Err(ApiError::not_found());
    }
    let invitation = wdb::invitation_by_hash(&state.db, &token_hash(&token))
        .await?
        .filter(|i| i.accepted_at.is_none() && i.revoked_at.is_none())
        .ok_or_else(ApiError::not_found)?;
    let now = db::now_ms();
    if invitation.expires_at <= now {
        return Err(ApiError::new(ErrorCode::InvitationExpired));
    }
    let email = &user.0.user.email;
    let mine = !email.is_empty() && Email::normalise(email) == invitation.email;
    if !mine {
        return Err(ApiError::new(ErrorCode::InvitationForAnotherAccount));
    }
    match wdb::accept_invitation(&state.db, &invitation, user.user_id(), now).await? {
        Accepted::Joined(role) => {
            members_changed(&state, &invitation.workspace_id).await;
            record_in(
                &state,
                &invitation.workspace_id,
                user.user_id(),
                ActivityAction::Joined,
                ActivitySubject::Member,
                user.user_id(),
                Some(&invitation.email),
            )
            .await;
            Ok(Json(Joined {
                workspace_id: invitation.workspace_id,
                role,
            }))
        }
        Accepted::Gone => Err(ApiError::not_found()),
    }
}
