//! Queries on `one_time_tokens`: the tokens mailed in recovery, confirmation, email-change,
//! magic and invitation links, and the reauthentication codes. Only their SHA-256 is stored,
//! so a database leak does not hand out working links.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError};

/// A stored token (its hash).
#[derive(Debug, Clone)]
pub struct OneTimeTokenRow {
    pub id: String,
    pub user_id: String,
    /// `recovery`, `confirmation`, `email_change`, `magiclink`, `invite` or
    /// `reauthentication`.
    pub kind: String,
    pub token_hash: String,
    /// SHA-256 of the user id and the mail's 6-digit code.
    pub otp_hash: String,
    /// Wrong codes presented so far.
    pub failed_count: i64,
    /// The address the link was sent to (the new address for an email change).
    pub relates_to: String,
    /// The PKCE flow state the link completes, if the client asked for one.
    pub flow_state_id: Option<String>,
    pub created_at: i64,
}

const COLUMNS: &str =
    "id, user_id, kind, token_hash, otp_hash, failed_count, relates_to, flow_state_id, created_at";

fn from_row(row: &AnyRow) -> Result<OneTimeTokenRow, sqlx::Error> {
    Ok(OneTimeTokenRow {
        id: row.try_get("id")?,
        user_id: row.try_get("user_id")?,
        kind: row.try_get("kind")?,
        token_hash: row.try_get("token_hash")?,
        otp_hash: row.try_get("otp_hash")?,
        failed_count: row.try_get("failed_count")?,
        relates_to: row.try_get("relates_to")?,
        flow_state_id: row.try_get("flow_state_id")?,
        created_at: row.try_get("created_at")?,
    })
}

/// Stores a token, replacing the user's earlier tokens of the same kind (only the newest link
/// works, as GoTrue).
pub async fn replace(db: &Db, token: &OneTimeTokenRow) -> Result<(), DbError> {
    let mut tx = db.begin_write().await?;
    sqlx::query("DELETE FROM one_time_tokens WHERE user_id = $1 AND kind = $2")
        .bind(&token.user_id)
        .bind(&token.kind)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO one_time_tokens (id, user_id, kind, token_hash, otp_hash, failed_count, \
         relates_to, flow_state_id, created_at) VALUES ($1, $2, $3, $4, $5, 0, $6, $7, $8)",
    )
    .bind(&token.id)
    .bind(&token.user_id)
    .bind(&token.kind)
    .bind(&token.token_hash)
    .bind(&token.otp_hash)
    .bind(&token.relates_to)
    .bind(token.flow_state_id.as_deref())
    .bind(token.created_at)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The newest token of this kind for the user (to rate-limit sending).
pub async fn latest(
    db: &Db,
    user_id: &str,
    kind: &str,
) -> Result<Option<OneTimeTokenRow>, DbError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM one_time_tokens WHERE user_id = $1 AND kind = $2 \
         ORDER BY created_at DESC LIMIT 1"
    ))
    .bind(user_id)
    .bind(kind)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// The user whose newest token of `kind` was sent to `address` (an email change: the code went
/// to the new address, which no user has yet).
pub async fn user_for_address(
    db: &Db,
    kind: &str,
    address: &str,
) -> Result<Option<String>, DbError> {
    let row = sqlx::query(
        "SELECT user_id FROM one_time_tokens WHERE kind = $1 AND relates_to = $2 \
         ORDER BY created_at DESC LIMIT 1",
    )
    .bind(kind)
    .bind(address)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.map(|row| row.try_get("user_id")).transpose()?)
}

/// Takes the token with this hash: deletes it and returns it, so a link works once even when
/// clicked twice at the same time.
pub async fn take(db: &Db, token_hash: &str) -> Result<Option<OneTimeTokenRow>, DbError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM one_time_tokens WHERE token_hash = $1"
    ))
    .bind(token_hash)
    .fetch_optional(db.pool())
    .await?;
    let Some(token) = row.as_ref().map(from_row).transpose()? else {
        return Ok(None);
    };
    let done = sqlx::query("DELETE FROM one_time_tokens WHERE id = $1")
        .bind(&token.id)
        .execute(db.pool())
        .await?;
    Ok((done.rows_affected() == 1).then_some(token))
}

/// Takes the user's newest token of one of `kinds` whose code hashes to `otp_hash` (deleting
/// it). A wrong code counts against each of those tokens, which die at `max_failures`.
pub async fn take_by_code(
    db: &Db,
    user_id: &str,
    kinds: &[&str],
    otp_hash: &str,
    max_failures: i64,
) -> Result<Option<OneTimeTokenRow>, DbError> {
    let mut candidates = Vec::new();
    for kind in kinds {
        if let Some(token) = latest(db, user_id, kind).await? {
            candidates.push(token);
        }
    }
    if let Some(token) = candidates.iter().find(|t| t.otp_hash == otp_hash) {
        let done = sqlx::query("DELETE FROM one_time_tokens WHERE id = $1")
            .bind(&token.id)
            .execute(db.pool())
            .await?;
        return Ok((done.rows_affected() == 1).then(|| token.clone()));
    }
    for token in &candidates {
        sqlx::query("UPDATE one_time_tokens SET failed_count = failed_count + 1 WHERE id = $1")
            .bind(&token.id)
            .execute(db.pool())
            .await?;
        sqlx::query("DELETE FROM one_time_tokens WHERE id = $1 AND failed_count >= $2")
            .bind(&token.id)
            .bind(max_failures)
            .execute(db.pool())
            .await?;
    }
    Ok(None)
}

/// Deletes tokens created before `cutoff` (expired links).
pub async fn prune(db: &Db, cutoff: i64) -> Result<u64, DbError> {
    let done = sqlx::query("DELETE FROM one_time_tokens WHERE created_at < $1")
        .bind(cutoff)
        .execute(db.pool())
        .await?;
    Ok(done.rows_affected())
}
