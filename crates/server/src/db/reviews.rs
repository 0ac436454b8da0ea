//! Queries on `comments` and `approvals` (issue 29): the comments and the review status of a
//! heatmap or a simulation. Both go with their subject (foreign keys, `ON DELETE CASCADE`).

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError};

wire_enum! {
    /// Where a heatmap or a simulation stands with its reviewers.
    pub enum ApprovalStatus {
        /// No decision yet.
        Pending = "pending";
        /// Approved.
        Approved = "approved";
        /// Changes asked for.
        ChangesRequested = "changes_requested";
    }
}

/// What is reviewed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    Heatmap,
    Simulation,
}

impl Subject {
    /// The subject's table.
    fn table(self) -> &'static str {
        match self {
            Subject::Heatmap => "heatmaps",
            Subject::Simulation => "simulations",
        }
    }

    /// The column of `comments` and `approvals` that names a subject of this kind.
    fn column(self) -> &'static str {
        match self {
            Subject::Heatmap => "heatmap_id",
            Subject::Simulation => "simulation_id",
        }
    }
}

/// The name of subject `id` of the workspace, when it has one by that id.
pub async fn subject_name(
    db: &Db,
    subject: Subject,
    workspace_id: &str,
    id: &str,
) -> Result<Option<String>, DbError> {
    let row = sqlx::query(&format!(
        "SELECT name FROM {} WHERE id = $1 AND owner_id = $2",
        subject.table()
    ))
    .bind(id)
    .bind(workspace_id)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.map(|r| r.try_get("name")).transpose()?)
}

/// A comment, with its author's address when the author still exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentRow {
    pub id: String,
    pub author_id: Option<String>,
    pub author_email: Option<String>,
    pub body: String,
    /// User ids.
    pub mentions: Vec<String>,
    pub created_at: i64,
}

fn comment_from_row(row: &AnyRow) -> Result<CommentRow, sqlx::Error> {
    let mentions: String = row.try_get("mentions")?;
    Ok(CommentRow {
        id: row.try_get("id")?,
        author_id: row.try_get("author_id")?,
        author_email: row.try_get("author_email")?,
        body: row.try_get("body")?,
        mentions: serde_json::from_str(&mentions)
            .map_err(|err| sqlx::Error::Decode(Box::new(err)))?,
        created_at: row.try_get("created_at")?,
    })
}

/// The comments of a subject of the workspace, oldest first.
pub async fn comments(
    db: &Db,
    subject: Subject,
    workspace_id: &str,
    id: &str,
) -> Result<Vec<CommentRow>, DbError> {
    let rows = sqlx::query(&format!(
        "SELECT c.id AS id, c.author_id AS author_id, u.email AS author_email, c.body AS body, \
         c.mentions AS mentions, c.created_at AS created_at \
         FROM comments c LEFT JOIN users u ON u.id = c.author_id \
         WHERE c.{} = $1 AND c.workspace_id = $2 ORDER BY c.created_at, c.id",
        subject.column()
    ))
    .bind(id)
    .bind(workspace_id)
    .fetch_all(db.pool())
    .await?;
    Ok(rows
        .iter()
        .map(comment_from_row)
        .collect::<Result<_, _>>()?)
}

/// Stores a comment on subject `subject_id`.
pub async fn insert_comment(
    db: &Db,
    subject: Subject,
    workspace_id: &str,
    subject_id: &str,
    comment: &CommentRow,
) -> Result<(), DbError> {
    let mentions = serde_json::to_string(&comment.mentions).unwrap_or_else(|_| "[]".into());
    sqlx::query(&format!(
        "INSERT INTO comments (id, workspace_id, {}, author_id, body, mentions, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        subject.column()
    ))
    .bind(&comment.id)
    .bind(workspace_id)
    .bind(subject_id)
    .bind(&comment.author_id)
    .bind(&comment.body)
    .bind(mentions)
    .bind(comment.created_at)
    .execute(db.pool())
    .await?;
    Ok(())
}

/// The comment `id` on that subject of the workspace.
pub async fn find_comment(
    db: &Db,
    subject: Subject,
    workspace_id: &str,
    subject_id: &str,
    id: &str,
) -> Result<Option<CommentRow>, DbError> {
    Ok(comments(db, subject, workspace_id, subject_id)
        .await?
        .into_iter()
        .find(|c| c.id == id))
}

/// Deletes a comment of the workspace; whether it went.
pub async fn delete_comment(db: &Db, workspace_id: &str, id: &str) -> Result<bool, DbError> {
    let done = sqlx::query("DELETE FROM comments WHERE id = $1 AND workspace_id = $2")
        .bind(id)
        .bind(workspace_id)
        .execute(db.pool())
        .await?;
    Ok(done.rows_affected() > 0)
}

/// A subject's review status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalRow {
    pub status: ApprovalStatus,
    pub set_by: Option<String>,
    pub set_by_email: Option<String>,
    pub set_at: Option<i64>,
}

/// The review status of a subject: `pending`, set by nobody, until someone sets it.
pub async fn approval(db: &Db, subject: Subject, id: &str) -> Result<ApprovalRow, DbError> {
    let row = sqlx::query(&format!(
        "SELECT a.status AS status, a.set_by AS set_by, u.email AS set_by_email, \
         a.set_at AS set_at FROM approvals a LEFT JOIN users u ON u.id = a.set_by \
         WHERE a.{} = $1",
        subject.column()
    ))
    .bind(id)
    .fetch_optional(db.pool())
    .await?;
    let Some(row) = row else {
        return Ok(ApprovalRow {
            status: ApprovalStatus::Pending,
            set_by: None,
            set_by_email: None,
            set_at: None,
        });
    };
    let status: String = row.try_get("status")?;
    Ok(ApprovalRow {
        status: ApprovalStatus::parse(&status).ok_or_else(|| {
            sqlx::Error::Decode(format!("unknown approval status {status:?}").into())
        })?,
        set_by: row.try_get("set_by")?,
        set_by_email: row.try_get("set_by_email")?,
        set_at: Some(row.try_get("set_at")?),
    })
}

/// Sets the review status of a subject of the workspace.
pub async fn set_approval(
    db: &Db,
    subject: Subject,
    workspace_id: &str,
    id: &str,
    status: ApprovalStatus,
    user_id: &str,
    now: i64,
) -> Result<(), DbError> {
    let column = subject.column();
    sqlx::query(&format!(
        "INSERT INTO approvals (id, workspace_id, {column}, status, set_by, set_at) \
         VALUES ($1, $2, $3, $4, $5, $6) \
         ON CONFLICT ({column}) DO UPDATE SET status = excluded.status, \
         set_by = excluded.set_by, set_at = excluded.set_at"
    ))
    .bind(uuid::Uuid::new_v4().to_string())
    .bind(workspace_id)
    .bind(id)
    .bind(status.as_str())
    .bind(user_id)
    .bind(now)
    .execute(db.pool())
    .await?;
    Ok(())
}
