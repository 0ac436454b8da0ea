//! Queries on `workspaces`, `workspace_members` and `workspace_invitations` (issue 29).
//!
//! Every library row's `owner_id` names the workspace that holds it. An account's personal
//! workspace has the account's own id and is made by a trigger when the account is
//! (migration `20261204000000_workspaces`), so it always exists; it has one member, its owner.
//! Whether the caller may act in a workspace is read with the caller on every request
//! ([`super::users::find_signed_in`]), so a membership change holds on every node at once.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError};

wire_enum! {
    /// A member's role in a workspace.
    pub enum WorkspaceRole {
        /// Members, settings and deletion of the workspace, and everything an editor does.
        Owner = "owner";
        /// Everything in the library.
        Editor = "editor";
        /// Reads, exports and comments; no changes.
        Viewer = "viewer";
    }
}

impl WorkspaceRole {
    /// Whether the role may change the library.
    pub fn can_write(self) -> bool {
        self != WorkspaceRole::Viewer
    }
}

/// The caller's membership of the workspace a request acts in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Membership {
    pub workspace_id: String,
    pub role: WorkspaceRole,
    /// Whether it is the caller's personal workspace.
    pub personal: bool,
    /// The revision of the workspace's library (creatives and media): raised by every write to
    /// them, by triggers.
    pub library_revision: i64,
}

/// A workspace as its members see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceRow {
    pub id: String,
    pub name: String,
    pub role: WorkspaceRole,
    pub personal: bool,
}

fn role_of(row: &AnyRow, column: &str) -> Result<WorkspaceRole, sqlx::Error> {
    let text: String = row.try_get(column)?;
    WorkspaceRole::parse(&text)
        .ok_or_else(|| sqlx::Error::Decode(format!("unknown role {text:?}").into()))
}

fn workspace_from_row(row: &AnyRow) -> Result<WorkspaceRow, sqlx::Error> {
    Ok(WorkspaceRow {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        role: role_of(row, "role")?,
        personal: row.try_get::<Option<String>, _>("personal_of")?.is_some(),
    })
}

/// The workspaces `user_id` is a member of: the personal one first, then by name.
pub async fn for_user(db: &Db, user_id: &str) -> Result<Vec<WorkspaceRow>, DbError> {
    let rows = sqlx::query(
        "SELECT w.id AS id, w.name AS name, m.role AS role, w.personal_of AS personal_of \
         FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id \
         WHERE m.user_id = $1 \
         ORDER BY CASE WHEN w.personal_of IS NULL THEN 1 ELSE 0 END, w.name, w.id",
    )
    .bind(user_id)
    .fetch_all(db.pool())
    .await?;
    Ok(rows
        .iter()
        .map(workspace_from_row)
        .collect::<Result<_, _>>()?)
}

/// `user_id`'s view of workspace `id`, when a member.
pub async fn find_for_user(
    db: &Db,
    user_id: &str,
    id: &str,
) -> Result<Option<WorkspaceRow>, DbError> {
    let row = sqlx::query(
        "SELECT w.id AS id, w.name AS name, m.role AS role, w.personal_of AS personal_of \
         FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id \
         WHERE m.user_id = $1 AND m.workspace_id = $2",
    )
    .bind(user_id)
    .bind(id)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.as_ref().map(workspace_from_row).transpose()?)
}

/// Makes a shared workspace with `owner_id` as its owner.
pub async fn create(
    db: &Db,
    id: &str,
    name: &str,
    owner_id: &str,
    now: i64,
) -> Result<(), DbError> {
    let mut tx = db.begin_write().await?;
    sqlx::query(
        "INSERT INTO workspaces (id, name, personal_of, library_revision, created_at, updated_at) \
         VALUES ($1, $2, NULL, 0, $3, $3)",
    )
    .bind(id)
    .bind(name)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO workspace_members (workspace_id, user_id, role, created_at) \
         VALUES ($1, $2, 'owner', $3)",
    )
    .bind(id)
    .bind(owner_id)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Renames a workspace; whether it exists.
pub async fn rename(db: &Db, id: &str, name: &str, now: i64) -> Result<bool, DbError> {
    let done = sqlx::query("UPDATE workspaces SET name = $1, updated_at = $2 WHERE id = $3")
        .bind(name)
        .bind(now)
        .bind(id)
        .execute(db.pool())
        .await?;
    Ok(done.rows_affected() > 0)
}

/// Deletes a shared workspace and, by cascade, its library, members and invitations; whether
/// a row went. A personal workspace goes only with its account.
pub async fn delete(db: &Db, id: &str) -> Result<bool, DbError> {
    let done = sqlx::query("DELETE FROM workspaces WHERE id = $1 AND personal_of IS NULL")
        .bind(id)
        .execute(db.pool())
        .await?;
    Ok(done.rows_affected() > 0)
}

/// One member of a workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberRow {
    pub user_id: String,
    pub email: Option<String>,
    pub role: WorkspaceRole,
    pub created_at: i64,
}

/// The members of a workspace, oldest first.
pub async fn members(db: &Db, workspace_id: &str) -> Result<Vec<MemberRow>, DbError> {
    let rows = sqlx::query(
        "SELECT m.user_id AS user_id, u.email AS email, m.role AS role, m.created_at AS created_at \
         FROM workspace_members m JOIN users u ON u.id = m.user_id \
         WHERE m.workspace_id = $1 ORDER BY m.created_at, m.user_id",
    )
    .bind(workspace_id)
    .fetch_all(db.pool())
    .await?;
    rows.iter()
        .map(|row| {
            Ok(MemberRow {
                user_id: row.try_get("user_id")?,
                email: row.try_get("email")?,
                role: role_of(row, "role")?,
                created_at: row.try_get("created_at")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(DbError::from)
}

/// What a change of members did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberChange {
    Done,
    /// No such member.
    NotMember,
    /// It would leave the workspace without an owner.
    LastOwner,
}

/// The number of owners of a workspace, read inside `tx`.
async fn owners(tx: &mut sqlx::AnyConnection, workspace_id: &str) -> Result<i64, DbError> {
    Ok(sqlx::query(
        "SELECT COUNT(*) AS n FROM workspace_members WHERE workspace_id = $1 AND role = 'owner'",
    )
    .bind(workspace_id)
    .fetch_one(&mut *tx)
    .await?
    .try_get("n")?)
}

/// The role of `user_id` in a workspace, read inside `tx`.
async fn role_in(
    tx: &mut sqlx::AnyConnection,
    workspace_id: &str,
    user_id: &str,
) -> Result<Option<WorkspaceRole>, DbError> {
    let row =
        sqlx::query("SELECT role FROM workspace_members WHERE workspace_id = $1 AND user_id = $2")
            .bind(workspace_id)
            .bind(user_id)
            .fetch_optional(&mut *tx)
            .await?;
    Ok(row.as_ref().map(|r| role_of(r, "role")).transpose()?)
}

/// Gives a member another role; the last owner keeps theirs.
pub async fn set_role(
    db: &Db,
    workspace_id: &str,
    user_id: &str,
    role: WorkspaceRole,
) -> Result<MemberChange, DbError> {
    // A write transaction: on SQLite it holds the write lock from the start, on PostgreSQL the
    // owners are counted under a lock on their rows, so two owners cannot demote each other at
    // once and leave none.
    let mut tx = db.begin_write().await?;
    lock_members(&mut tx, db, workspace_id).await?;
    let Some(current) = role_in(&mut tx, workspace_id, user_id).await? else {
        return Ok(MemberChange::NotMember);
    };
    if current == WorkspaceRole::Owner
        && role != WorkspaceRole::Owner
        && owners(&mut tx, workspace_id).await? <= 1
    {
        return Ok(MemberChange::LastOwner);
    }
    sqlx::query("UPDATE workspace_members SET role = $1 WHERE workspace_id = $2 AND user_id = $3")
        .bind(role.as_str())
        .bind(workspace_id)
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(MemberChange::Done)
}

/// Removes a member; the last owner stays.
pub async fn remove_member(
    db: &Db,
    workspace_id: &str,
    user_id: &str,
) -> Result<MemberChange, DbError> {
    let mut tx = db.begin_write().await?;
    lock_members(&mut tx, db, workspace_id).await?;
    let Some(current) = role_in(&mut tx, workspace_id, user_id).await? else {
        return Ok(MemberChange::NotMember);
    };
    if current == WorkspaceRole::Owner && owners(&mut tx, workspace_id).await? <= 1 {
        return Ok(MemberChange::LastOwner);
    }
    sqlx::query("DELETE FROM workspace_members WHERE workspace_id = $1 AND user_id = $2")
        .bind(workspace_id)
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(MemberChange::Done)
}

/// On PostgreSQL, locks the workspace's row for the rest of the transaction, so that changes
/// of its members run one after the other (SQLite's write transaction already does).
async fn lock_members(
    tx: &mut sqlx::AnyConnection,
    db: &Db,
    workspace_id: &str,
) -> Result<(), DbError> {
    if db.backend() == super::Backend::Postgres {
        sqlx::query("SELECT id FROM workspaces WHERE id = $1 FOR UPDATE")
            .bind(workspace_id)
            .fetch_optional(&mut *tx)
            .await?;
    }
    Ok(())
}

/// A pending or past invitation (without its token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvitationRow {
    pub id: String,
    pub workspace_id: String,
    pub email: String,
    pub role: WorkspaceRole,
    pub invited_by: Option<String>,
    pub created_at: i64,
    pub expires_at: i64,
    pub accepted_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

const INVITATION_COLUMNS: &str = "id, workspace_id, email, role, invited_by, created_at, \
     expires_at, accepted_at, revoked_at";

fn invitation_from_row(row: &AnyRow) -> Result<InvitationRow, sqlx::Error> {
    Ok(InvitationRow {
        id: row.try_get("id")?,
        workspace_id: row.try_get("workspace_id")?,
        email: row.try_get("email")?,
        role: role_of(row, "role")?,
        invited_by: row.try_get("invited_by")?,
        created_at: row.try_get("created_at")?,
        expires_at: row.try_get("expires_at")?,
        accepted_at: row.try_get("accepted_at")?,
        revoked_at: row.try_get("revoked_at")?,
    })
}

/// Stores an invitation by its token's hash.
pub async fn insert_invitation(
    db: &Db,
    invitation: &InvitationRow,
    token_hash: &str,
) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO workspace_invitations (id, workspace_id, email, role, token_hash, \
         invited_by, created_at, expires_at, accepted_at, revoked_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, NULL)",
    )
    .bind(&invitation.id)
    .bind(&invitation.workspace_id)
    .bind(&invitation.email)
    .bind(invitation.role.as_str())
    .bind(token_hash)
    .bind(&invitation.invited_by)
    .bind(invitation.created_at)
    .bind(invitation.expires_at)
    .execute(db.pool())
    .await?;
    Ok(())
}

/// The invitation whose token has this hash.
pub async fn invitation_by_hash(
    db: &Db,
    token_hash: &str,
) -> Result<Option<InvitationRow>, DbError> {
    let row = sqlx::query(&format!(
        "SELECT {INVITATION_COLUMNS} FROM workspace_invitations WHERE token_hash = $1"
    ))
    .bind(token_hash)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.as_ref().map(invitation_from_row).transpose()?)
}

/// The invitations of a workspace that are neither accepted nor revoked, newest first
/// (expired ones included: the page offers to send them again).
pub async fn pending_invitations(
    db: &Db,
    workspace_id: &str,
) -> Result<Vec<InvitationRow>, DbError> {
    let rows = sqlx::query(&format!(
        "SELECT {INVITATION_COLUMNS} FROM workspace_invitations \
         WHERE workspace_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL \
         ORDER BY created_at DESC, id DESC"
    ))
    .bind(workspace_id)
    .fetch_all(db.pool())
    .await?;
    Ok(rows
        .iter()
        .map(invitation_from_row)
        .collect::<Result<_, _>>()?)
}

/// Revokes a pending invitation of the workspace; whether there was one.
pub async fn revoke_invitation(
    db: &Db,
    workspace_id: &str,
    id: &str,
    now: i64,
) -> Result<bool, DbError> {
    let done = sqlx::query(
        "UPDATE workspace_invitations SET revoked_at = $1 \
         WHERE id = $2 AND workspace_id = $3 AND accepted_at IS NULL AND revoked_at IS NULL",
    )
    .bind(now)
    .bind(id)
    .bind(workspace_id)
    .execute(db.pool())
    .await?;
    Ok(done.rows_affected() > 0)
}

/// Gives a pending invitation a new token and expiry (sent again); whether there was one.
pub async fn renew_invitation(
    db: &Db,
    workspace_id: &str,
    id: &str,
    token_hash: &str,
    expires_at: i64,
) -> Result<Option<InvitationRow>, DbError> {
    let done = sqlx::query(
        "UPDATE workspace_invitations SET token_hash = $1, expires_at = $2 \
         WHERE id = $3 AND workspace_id = $4 AND accepted_at IS NULL AND revoked_at IS NULL",
    )
    .bind(token_hash)
    .bind(expires_at)
    .bind(id)
    .bind(workspace_id)
    .execute(db.pool())
    .await?;
    if done.rows_affected() == 0 {
        return Ok(None);
    }
    invitation_by_hash(db, token_hash).await
}

/// What accepting an invitation did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepted {
    /// The caller joined with this role (or already was a member: their role stays).
    Joined(WorkspaceRole),
    /// Used, revoked or taken by someone else in the meantime.
    Gone,
}

/// Marks the invitation used and makes `user_id` a member, in one transaction; single use:
/// of two acceptances at once, one joins.
pub async fn accept_invitation(
    db: &Db,
    invitation: &InvitationRow,
    user_id: &str,
    now: i64,
) -> Result<Accepted, DbError> {
    let mut tx = db.begin_write().await?;
    let used = sqlx::query(
        "UPDATE workspace_invitations SET accepted_at = $1 \
         WHERE id = $2 AND accepted_at IS NULL AND revoked_at IS NULL",
    )
    .bind(now)
    .bind(&invitation.id)
    .execute(&mut *tx)
    .await?;
    if used.rows_affected() == 0 {
        return Ok(Accepted::Gone);
    }
    if let Some(role) = role_in(&mut tx, &invitation.workspace_id, user_id).await? {
        tx.commit().await?;
        return Ok(Accepted::Joined(role));
    }
    sqlx::query(
        "INSERT INTO workspace_members (workspace_id, user_id, role, created_at) \
         VALUES ($1, $2, $3, $4)",
    )
    .bind(&invitation.workspace_id)
    .bind(user_id)
    .bind(invitation.role.as_str())
    .bind(now)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Accepted::Joined(invitation.role))
}

/// Whether `user_id` is a member of the workspace (for the event stream's checks).
pub async fn is_member(db: &Db, workspace_id: &str, user_id: &str) -> Result<bool, DbError> {
    let row = sqlx::query(
        "SELECT 1 AS one FROM workspace_members WHERE workspace_id = $1 AND user_id = $2",
    )
    .bind(workspace_id)
    .bind(user_id)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.is_some())
}

/// Before an account goes: in each shared workspace where it is the only owner, the editor who
/// joined first becomes owner (a viewer only when there is no editor), so no workspace is left
/// that nobody can manage, and nobody who could only read is made its owner ahead of one who
/// could write. Returns the
/// shared workspaces the account is the only member of (the caller deletes them with the
/// account).
pub async fn hand_over(db: &Db, user_id: &str) -> Result<Vec<String>, DbError> {
    let mut tx = db.begin_write().await?;
    let owned = sqlx::query(
        "SELECT w.id AS id FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id \
         WHERE m.user_id = $1 AND m.role = 'owner' AND w.personal_of IS NULL",
    )
    .bind(user_id)
    .fetch_all(&mut *tx)
    .await?;
    let mut alone = Vec::new();
    for row in &owned {
        let id: String = row.try_get("id")?;
        if owners(&mut tx, &id).await? > 1 {
            continue;
        }
        let heir = sqlx::query(
            "SELECT user_id FROM workspace_members WHERE workspace_id = $1 AND user_id <> $2 \
             ORDER BY CASE role WHEN 'owner' THEN 0 WHEN 'editor' THEN 1 ELSE 2 END, \
             created_at, user_id LIMIT 1",
        )
        .bind(&id)
        .bind(user_id)
        .fetch_optional(&mut *tx)
        .await?;
        match heir {
            Some(heir) => {
                let heir: String = heir.try_get("user_id")?;
                sqlx::query(
                    "UPDATE workspace_members SET role = 'owner' \
                     WHERE workspace_id = $1 AND user_id = $2",
                )
                .bind(&id)
                .bind(&heir)
                .execute(&mut *tx)
                .await?;
            }
            None => alone.push(id),
        }
    }
    tx.commit().await?;
    Ok(alone)
}
