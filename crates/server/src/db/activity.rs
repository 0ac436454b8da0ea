//! Queries on `activity` (issue 29): who did what to what in a workspace, and when. Rows are
//! written by the handlers after the change they record, and deleted after
//! [`KEEP_MS`] by the sweep.

use sqlx::Row;

use super::{Db, DbError};

/// How long activity is kept: 180 days.
pub const KEEP_MS: i64 = 180 * 24 * 3600 * 1000;

wire_enum! {
    /// What was done.
    pub enum ActivityAction {
        Created = "created";
        Changed = "changed";
        Rendered = "rendered";
        Exported = "exported";
        Shared = "shared";
        Deleted = "deleted";
        Commented = "commented";
        /// A review status was set (`approved`, `changes_requested`, `pending`).
        Reviewed = "reviewed";
        /// Someone was invited (the subject is the invitation, named by the address).
        Invited = "invited";
        /// An invitation was accepted.
        Joined = "joined";
    }
}

wire_enum! {
    /// What it was done to.
    pub enum ActivitySubject {
        Media = "media";
        Creative = "creative";
        Location = "location";
        Simulation = "simulation";
        Plan = "plan";
        Heatmap = "heatmap";
        Workspace = "workspace";
        Member = "member";
        Invitation = "invitation";
    }
}

/// One thing done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActivityRow {
    pub id: String,
    pub actor_id: Option<String>,
    pub actor_email: Option<String>,
    pub action: ActivityAction,
    pub subject_type: ActivitySubject,
    pub subject_id: String,
    pub subject_name: Option<String>,
    pub created_at: i64,
}

/// Records one thing done.
#[allow(clippy::too_many_arguments)]
pub async fn record(
    db: &Db,
    workspace_id: &str,
    actor_id: &str,
    action: ActivityAction,
    subject_type: ActivitySubject,
    subject_id: &str,
    subject_name: Option<&str>,
    now: i64,
) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO activity (id, workspace_id, actor_id, action, subject_type, subject_id, \
         subject_name, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(uuid::Uuid::new_v4().to_string())
    .bind(workspace_id)
    .bind(actor_id)
    .bind(action.as_str())
    .bind(subject_type.as_str())
    .bind(subject_id)
    .bind(subject_name)
    .bind(now)
    .execute(db.pool())
    .await?;
    Ok(())
}

/// Records the same action on many subjects (an import's locations), a hundred rows a
/// statement.
#[allow(clippy::too_many_arguments)]
pub async fn record_many(
    db: &Db,
    workspace_id: &str,
    actor_id: &str,
    action: ActivityAction,
    subject_type: ActivitySubject,
    subjects: &[(String, String)],
    now: i64,
) -> Result<(), DbError> {
    for chunk in subjects.chunks(100) {
        let values: Vec<String> = (0..chunk.len())
            .map(|i| {
                let n = 6 + 3 * i;
                format!("(${}, $1, $2, $3, $4, ${}, ${}, $5)", n, n + 1, n + 2)
            })
            .collect();
        let sql = format!(
            "INSERT INTO activity (id, workspace_id, actor_id, action, subject_type, \
             subject_id, subject_name, created_at) VALUES {}",
            values.join(", ")
        );
        let mut query = sqlx::query(&sql)
            .bind(workspace_id)
            .bind(actor_id)
            .bind(action.as_str())
            .bind(subject_type.as_str())
            .bind(now);
        for (id, name) in chunk {
            query = query
                .bind(uuid::Uuid::new_v4().to_string())
                .bind(id)
                .bind(name);
        }
        query.execute(db.pool()).await?;
    }
    Ok(())
}

/// What a page of activity keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActivityFilter {
    pub action: Option<ActivityAction>,
    pub subject_type: Option<ActivitySubject>,
    pub actor_id: Option<String>,
    /// Only what happened to this subject.
    pub subject_id: Option<String>,
}

/// Up to `limit` rows of the workspace's activity, newest first, after `(created_at, id)`.
pub async fn page(
    db: &Db,
    workspace_id: &str,
    filter: &ActivityFilter,
    limit: i64,
    after: Option<(i64, &str)>,
) -> Result<Vec<ActivityRow>, DbError> {
    let mut sql = String::from(
        "SELECT a.id AS id, a.actor_id AS actor_id, u.email AS actor_email, a.action AS action, \
         a.subject_type AS subject_type, a.subject_id AS subject_id, \
         a.subject_name AS subject_name, a.created_at AS created_at \
         FROM activity a LEFT JOIN users u ON u.id = a.actor_id WHERE a.workspace_id = $1",
    );
    let mut texts: Vec<String> = Vec::new();
    let mut condition = |column: &str, value: Option<String>, sql: &mut String| {
        if let Some(value) = value {
            texts.push(value);
            sql.push_str(&format!(" AND a.{column} = ${}", texts.len() + 1));
        }
    };
    condition(
        "action",
        filter.action.map(|a| a.as_str().to_owned()),
        &mut sql,
    );
    condition(
        "subject_type",
        filter.subject_type.map(|s| s.as_str().to_owned()),
        &mut sql,
    );
    condition("actor_id", filter.actor_id.clone(), &mut sql);
    condition("subject_id", filter.subject_id.clone(), &mut sql);
    let n = texts.len() + 1;
    if after.is_some() {
        sql.push_str(&format!(
            " AND (a.created_at < ${a} OR (a.created_at = ${a} AND a.id < ${b}))",
            a = n + 1,
            b = n + 2
        ));
    }
    sql.push_str(&format!(
        " ORDER BY a.created_at DESC, a.id DESC LIMIT ${}",
        n + 1 + if after.is_some() { 2 } else { 0 }
    ));
    let mut query = sqlx::query(&sql).bind(workspace_id);
    for text in &texts {
        query = query.bind(text);
    }
    if let Some((at, id)) = after {
        query = query.bind(at).bind(id);
    }
    let rows = query.bind(limit).fetch_all(db.pool()).await?;
    rows.iter()
        .map(|row| {
            let action: String = row.try_get("action")?;
            let subject_type: String = row.try_get("subject_type")?;
            let unknown = |what: &str, text: &str| {
                sqlx::Error::Decode(format!("unknown activity {what} {text:?}").into())
            };
            Ok(ActivityRow {
                id: row.try_get("id")?,
                actor_id: row.try_get("actor_id")?,
                actor_email: row.try_get("actor_email")?,
                action: ActivityAction::parse(&action).ok_or_else(|| unknown("action", &action))?,
                subject_type: ActivitySubject::parse(&subject_type)
                    .ok_or_else(|| unknown("subject", &subject_type))?,
                subject_id: row.try_get("subject_id")?,
                subject_name: row.try_get("subject_name")?,
                created_at: row.try_get("created_at")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(DbError::from)
}

/// Deletes the activity older than `before`; how many rows went.
pub async fn prune(db: &Db, before: i64) -> Result<u64, DbError> {
    let done = sqlx::query("DELETE FROM activity WHERE created_at < $1")
        .bind(before)
        .execute(db.pool())
        .await?;
    Ok(done.rows_affected())
}
