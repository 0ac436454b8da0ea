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
    /// Codes presented so far (counted before each is compared).
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

/// Takes the token with this hash if it is of one of `kinds`: deletes it and returns it, in one
/// statement, so a link works once even when clicked twice at the same time, and a link
/// presented with the wrong `type` stays usable.
pub async fn take(
    db: &Db,
    token_hash: &str,
    kinds: &[&str],
) -> Result<Option<OneTimeTokenRow>, DbError> {
    let sql = format!(
        "DELETE FROM one_time_tokens WHERE token_hash = $1 AND kind IN ({}) RETURNING {COLUMNS}",
        placeholders(2, kinds.len())
    );
    let row = sqlx::query(&sql).bind(token_hash);
    let row = kinds
        .iter()
        .fold(row, |query, kind| query.bind(*kind))
        .fetch_optional(db.pool())
        .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// `$from, $from+1, …` for `count` values bound in order (`NULL` when there are none, which
/// matches nothing in `IN (…)`).
fn placeholders(from: usize, count: usize) -> String {
    if count == 0 {
        return "NULL".to_owned();
    }
    (from..from + count)
        .map(|n| format!("${n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Takes the user's token of one of `kinds` whose code hashes to `otp_hash` (deleting it).
///
/// Every code presented is counted against the user's tokens of those kinds *before* it is
/// compared, in one conditional `UPDATE … RETURNING`: a token takes part only while its count
/// is within `max_attempts`, so however many codes arrive at once, at most `max_attempts` are
/// ever compared with it, and the token is deleted when the last allowed one is wrong.
pub async fn take_by_code(
    db: &Db,
    user_id: &str,
    kinds: &[&str],
    otp_hash: &str,
    max_attempts: i64,
) -> Result<Option<OneTimeTokenRow>, DbError> {
    let sql = format!(
        "UPDATE one_time_tokens SET failed_count = failed_count + 1 \
         WHERE user_id = $1 AND failed_count < $2 AND kind IN ({}) RETURNING {COLUMNS}",
        placeholders(3, kinds.len())
    );
    let query = sqlx::query(&sql).bind(user_id).bind(max_attempts);
    let rows = kinds
        .iter()
        .fold(query, |query, kind| query.bind(*kind))
        .fetch_all(db.pool())
        .await?;
    let candidates = rows.iter().map(from_row).collect::<Result<Vec<_>, _>>()?;
    // Compared without an early exit, so the timing says nothing about the stored hash.
    let matching = candidates.iter().find(|token| {
        token.otp_hash.len() == otp_hash.len()
            && token
                .otp_hash
                .bytes()
                .zip(otp_hash.bytes())
                .fold(0u8, |acc, (x, y)| acc | (x ^ y))
                == 0
    });
    if let Some(token) = matching {
        let done = sqlx::query("DELETE FROM one_time_tokens WHERE id = $1")
            .bind(&token.id)
            .execute(db.pool())
            .await?;
        return Ok((done.rows_affected() == 1).then(|| token.clone()));
    }
    for token in candidates.iter().filter(|t| t.failed_count >= max_attempts) {
        sqlx::query("DELETE FROM one_time_tokens WHERE id = $1")
            .bind(&token.id)
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
