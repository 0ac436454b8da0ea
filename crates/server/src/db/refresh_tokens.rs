//! Queries on `refresh_tokens`: lookup, rotation and the session's active token.
//!
//! Only a SHA-256 of each token is stored ([`stored`], in `token` and in the child's
//! `parent`), as GoTrue's newer versions do: a copy of the database gives no live session.
//! Every statement that writes a token goes through [`stored`]. GoTrue's reuse rules still
//! hand the session's *current* token back to a client that lost a response: a child token is
//! derived from its parent with a key of the server's secret (`JwtKeys::refresh_child`), so
//! the server, shown the parent, works the child out again, while the database alone, or an
//! old token without the secret, cannot. Tokens are random 32-character strings (the first of
//! a session) or such derivations, bound to one session, and rotated on every use.

use sha2::{Digest, Sha256};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError};

/// Length of a stored token: 64 hex digits. No token is ever this long, which is how
/// [`hash_plaintext_rows`] tells rows written before hashing from the others.
pub const STORED_LENGTH: usize = 64;

/// What the database keeps of a refresh token: its SHA-256, in hex.
pub fn stored(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// A stored refresh token.
#[derive(Debug, Clone)]
pub struct RefreshTokenRow {
    pub id: String,
    /// [`stored`] of the token.
    pub token_hash: String,
    pub user_id: String,
    pub session_id: String,
    /// [`stored`] of the token this one replaced.
    pub parent_hash: Option<String>,
    /// When it was revoked; `None` while it is the session's active token.
    pub revoked_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

const COLUMNS: &str = "id, token, user_id, session_id, parent, revoked_at, created_at, updated_at";

fn from_row(row: &AnyRow) -> Result<RefreshTokenRow, sqlx::Error> {
    Ok(RefreshTokenRow {
        id: row.try_get("id")?,
        token_hash: row.try_get("token")?,
        user_id: row.try_get("user_id")?,
        session_id: row.try_get("session_id")?,
        parent_hash: row.try_get("parent")?,
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
    .bind(stored(token))
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
    .bind(stored(new_token))
    .bind(&old.user_id)
    .bind(&old.session_id)
    .bind(&old.token_hash)
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

/// Hashes the tokens of rows written before tokens were hashed (plain text in `token` and
/// `parent`), at start; returns how many rows changed. Safe to run on several nodes at once:
/// each row changes only while it still holds what was read.
pub async fn hash_plaintext_rows(db: &Db) -> Result<u64, DbError> {
    const BATCH: i64 = 500;
    let mut changed = 0;
    loop {
        let rows = sqlx::query(
            "SELECT id, token, parent FROM refresh_tokens \
             WHERE length(token) <> $1 OR length(parent) <> $1 LIMIT $2",
        )
        .bind(STORED_LENGTH as i64)
        .bind(BATCH)
        .fetch_all(db.pool())
        .await?;
        if rows.is_empty() {
            return Ok(changed);
        }
        let hash = |text: &str| {
            if text.len() == STORED_LENGTH {
                text.to_owned()
            } else {
                stored(text)
            }
        };
        let mut tx = db.begin_write().await?;
        for row in &rows {
            let id: String = row.try_get("id")?;
            let token: String = row.try_get("token")?;
            let parent: Option<String> = row.try_get("parent")?;
            let done = sqlx::query(
                "UPDATE refresh_tokens SET token = $1, parent = $2 WHERE id = $3 AND token = $4",
            )
            .bind(hash(&token))
            .bind(parent.as_deref().map(hash))
            .bind(&id)
            .bind(&token)
            .execute(&mut *tx)
            .await?;
            changed += done.rows_affected();
        }
        tx.commit().await?;
    }
}
