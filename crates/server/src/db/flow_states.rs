//! Queries on `flow_states`: sign-ins in progress (OAuth, links sent by mail) and the one-time
//! auth codes of the PKCE flow. Auth codes are stored as their SHA-256 only.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError};

/// A stored flow state.
#[derive(Debug, Clone)]
pub struct FlowStateRow {
    pub id: String,
    pub provider: String,
    pub authentication_method: String,
    pub code_challenge: Option<String>,
    pub code_challenge_method: Option<String>,
    pub redirect_to: String,
    pub nonce: Option<String>,
    pub user_id: Option<String>,
    pub auth_code_issued_at: Option<i64>,
    pub provider_access_token: Option<String>,
    pub provider_refresh_token: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// What a new flow state starts with.
#[derive(Debug, Clone)]
pub struct NewFlowState<'a> {
    pub id: &'a str,
    pub provider: &'a str,
    pub authentication_method: &'a str,
    pub code_challenge: Option<&'a str>,
    pub code_challenge_method: Option<&'a str>,
    pub redirect_to: &'a str,
    pub nonce: Option<&'a str>,
    pub now: i64,
}

/// What completing a flow records.
#[derive(Debug, Clone)]
pub struct Completion<'a> {
    pub user_id: &'a str,
    pub auth_code_hash: &'a str,
    pub provider_access_token: Option<&'a str>,
    pub provider_refresh_token: Option<&'a str>,
    pub now: i64,
}

const COLUMNS: &str = "id, provider, authentication_method, code_challenge, \
                       code_challenge_method, redirect_to, nonce, user_id, auth_code_issued_at, \
                       provider_access_token, provider_refresh_token, created_at, updated_at";

fn from_row(row: &AnyRow) -> Result<FlowStateRow, sqlx::Error> {
    Ok(FlowStateRow {
        id: row.try_get("id")?,
        provider: row.try_get("provider")?,
        authentication_method: row.try_get("authentication_method")?,
        code_challenge: row.try_get("code_challenge")?,
        code_challenge_method: row.try_get("code_challenge_method")?,
        redirect_to: row.try_get("redirect_to")?,
        nonce: row.try_get("nonce")?,
        user_id: row.try_get("user_id")?,
        auth_code_issued_at: row.try_get("auth_code_issued_at")?,
        provider_access_token: row.try_get("provider_access_token")?,
        provider_refresh_token: row.try_get("provider_refresh_token")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

/// Inserts a flow state, and first deletes those created before `stale_before` (epoch ms), so
/// that abandoned flows do not pile up between sweeps.
pub async fn insert(db: &Db, new: &NewFlowState<'_>, stale_before: i64) -> Result<(), DbError> {
    prune(db, stale_before).await?;
    sqlx::query(
        "INSERT INTO flow_states (id, provider, authentication_method, code_challenge, \
         code_challenge_method, redirect_to, nonce, user_id, auth_code_hash, auth_code_issued_at, \
         provider_access_token, provider_refresh_token, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, NULL, NULL, NULL, NULL, $8, $8)",
    )
    .bind(new.id)
    .bind(new.provider)
    .bind(new.authentication_method)
    .bind(new.code_challenge)
    .bind(new.code_challenge_method)
    .bind(new.redirect_to)
    .bind(new.nonce)
    .bind(new.now)
    .execute(db.pool())
    .await
    .map_err(DbError::from_write)?;
    Ok(())
}

/// The flow state with this id.
pub async fn find(db: &Db, id: &str) -> Result<Option<FlowStateRow>, DbError> {
    let row = sqlx::query(&format!("SELECT {COLUMNS} FROM flow_states WHERE id = $1"))
        .bind(id)
        .fetch_optional(db.pool())
        .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// The flow state whose auth code hashes to `auth_code_hash`.
pub async fn find_by_auth_code(
    db: &Db,
    auth_code_hash: &str,
) -> Result<Option<FlowStateRow>, DbError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM flow_states WHERE auth_code_hash = $1"
    ))
    .bind(auth_code_hash)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// Records the user and the auth code of a flow that has none yet. Returns `false` (and
/// changes nothing) when the flow is gone or was completed already: the conditional update is
/// what makes a flow complete at most once when two callbacks race.
pub async fn complete(db: &Db, id: &str, done: &Completion<'_>) -> Result<bool, DbError> {
    let updated = sqlx::query(
        "UPDATE flow_states SET user_id = $1, auth_code_hash = $2, auth_code_issued_at = $3, \
         provider_access_token = $4, provider_refresh_token = $5, updated_at = $3 \
         WHERE id = $6 AND user_id IS NULL AND auth_code_hash IS NULL",
    )
    .bind(done.user_id)
    .bind(done.auth_code_hash)
    .bind(done.now)
    .bind(done.provider_access_token)
    .bind(done.provider_refresh_token)
    .bind(id)
    .execute(db.pool())
    .await
    .map_err(DbError::from_write)?;
    Ok(updated.rows_affected() == 1)
}

/// Deletes a flow state. Returns whether it existed: of two concurrent exchanges of one code,
/// only the one that deleted the row may open a session.
pub async fn delete(db: &Db, id: &str) -> Result<bool, DbError> {
    let done = sqlx::query("DELETE FROM flow_states WHERE id = $1")
        .bind(id)
        .execute(db.pool())
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Deletes the flow states created before `cutoff` (epoch ms). Returns how many went.
pub async fn prune(db: &Db, cutoff: i64) -> Result<u64, DbError> {
    let done = sqlx::query("DELETE FROM flow_states WHERE created_at < $1")
        .bind(cutoff)
        .execute(db.pool())
        .await?;
    Ok(done.rows_affected())
}

/// Moves a flow state's times `by_ms` into the past, as if it had been created (and
/// completed) that much earlier. For tests of expiry, which must not sleep.
pub async fn backdate(db: &Db, id: &str, by_ms: i64) -> Result<(), DbError> {
    sqlx::query(
        "UPDATE flow_states SET created_at = created_at - $1, updated_at = updated_at - $1, \
         auth_code_issued_at = auth_code_issued_at - $1 WHERE id = $2",
    )
    .bind(by_ms)
    .bind(id)
    .execute(db.pool())
    .await?;
    Ok(())
}
