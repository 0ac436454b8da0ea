//! Queries on `refresh_tokens`: lookup, rotation and the session's active token.
//!
//! Tokens are stored in plain text, as GoTrue does: the reuse rules must hand the session's
//! *current* token back to a client that lost a response, which a hash cannot do. They are
//! random 32-character strings, bound to one session, and rotated on every use.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError};

/// A stored refresh token.
#[derive(Debug, Clone)]
pub struct RefreshTokenRow {
    pub id: String,
    pub token: String,
    pub user_id: String,
    pub session_id: String,
    /// The token this one replaced.
    pub parent: Option<String>,
    /// When it was revoked; `None` while it is the session's active token.
    pub revoked_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

const COLUMNS: &str = "id, token, user_id, session_id, parent, revoked_at, created_at, updated_at";

fn from_row(row: &AnyRow) -> Result<RefreshTokenRow, sqlx::Error> {
    Ok(RefreshTokenRow {
        id: row.try_get("id")?,
        token: row.try_get("token")?,
        user_id: row.try_get("user_id")?,
        session_id: row.try_get("session_id")?,
        parent: row.try_get("parent")?,
        revoked_at: row.try_get("revoked_at")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

/// The token row for a presented token string.
pub async fn find(db: &Db, token: &str) -> Result<Option<RefreshTokenRow>, DbError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM refresh_tokens WHERE token = $1"
    ))
    .bind(token)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// The session's current (newest unrevoked) token.
pub async fn active_for_session(
    db: &Db,
    session_id: &str,
) -> Result<Option<RefreshTokenRow>, DbError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM refresh_tokens WHERE session_id = $1 AND revoked_at IS NULL \
         ORDER BY created_at DESC, id LIMIT 1"
    ))
    .bind(session_id)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// Revokes `old` and issues `new_token` as its child, in one transaction. Returns `false`
/// (and changes nothing) when `old` was revoked meanwhile by a concurrent refresh, so that the
/// caller can apply the reuse rules instead: the conditional update is what serialises
/// concurrent refreshes of one token on both backends.
pub async fn rotate(
    db: &Db,
    old: &RefreshTokenRow,
    new_id: &str,
    new_token: &str,
    now: i64,
) -> Result<bool, DbError> {
    let mut tx = db.begin_write().await?;
    let revoked = sqlx::query(
        "UPDATE refresh_tokens SET revoked_at = $1, updated_at = $1 WHERE id = $2 AND revoked_at IS NULL",
    )
    .bind(now)
    .bind(&old.id)
    .execute(&mut *tx)
    .await?;
    if revoked.rows_affected() != 1 {
        tx.rollback().await?;
        return Ok(false);
    }
    sqlx::query(
        "INSERT INTO refresh_tokens (id, token, user_id, session_id, parent, revoked_at, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, NULL, $6, $6)",
    )
    .bind(new_id)
    .bind(new_token)
    .bind(&old.user_id)
    .bind(&old.session_id)
    .bind(&old.token)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    sqlx::query("UPDATE sessions SET refreshed_at = $1, updated_at = $1 WHERE id = $2")
        .bind(now)
        .bind(&old.session_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(true)
}

/// Deletes tokens of ended sessions revoked before `cutoff` (epoch ms). Until then they answer
/// `session_not_found`; afterwards `refresh_token_not_found`, which auth-js treats the same.
pub async fn prune(db: &Db, cutoff: i64) -> Result<u64, DbError> {
    let done = sqlx::query(
        "DELETE FROM refresh_tokens WHERE revoked_at IS NOT NULL AND revoked_at < $1 \
         AND NOT EXISTS (SELECT 1 FROM sessions WHERE sessions.id = refresh_tokens.session_id)",
    )
    .bind(cutoff)
    .execute(db.pool())
    .await?;
    Ok(done.rows_affected())
}
