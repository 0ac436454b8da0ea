//! Queries on `sessions` and their `session_amr_claims`. A session is one sign-in on one device;
//! deleting it signs that device out (its access tokens stop working at the next check).

use sqlx::Row;

use super::{Db, DbError};

/// A stored session.
#[derive(Debug, Clone)]
pub struct SessionRow {
    pub id: String,
    pub user_id: String,
    pub aal: String,
    pub created_at: i64,
}

/// What a new session starts with.
#[derive(Debug, Clone)]
pub struct NewSession<'a> {
    pub id: &'a str,
    pub user_id: &'a str,
    /// Authentication method for the first AMR claim (`password`, ...).
    pub amr_method: &'a str,
    /// The first refresh token of the session.
    pub refresh_token_id: &'a str,
    pub refresh_token: &'a str,
    pub user_agent: Option<&'a str>,
    pub ip: Option<&'a str>,
    pub now: i64,
}

/// Creates a session with its first AMR claim and refresh token, in one transaction.
pub async fn create(db: &Db, new: &NewSession<'_>) -> Result<(), DbError> {
    let mut tx = db.begin_write().await?;
    sqlx::query(
        "INSERT INTO sessions (id, user_id, aal, created_at, updated_at, refreshed_at, user_agent, ip) \
         VALUES ($1, $2, 'aal1', $3, $3, NULL, $4, $5)",
    )
    .bind(new.id)
    .bind(new.user_id)
    .bind(new.now)
    .bind(new.user_agent)
    .bind(new.ip)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO session_amr_claims (session_id, method, created_at, updated_at) \
         VALUES ($1, $2, $3, $3)",
    )
    .bind(new.id)
    .bind(new.amr_method)
    .bind(new.now)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO refresh_tokens (id, token, user_id, session_id, parent, revoked_at, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, NULL, NULL, $5, $5)",
    )
    .bind(new.refresh_token_id)
    .bind(super::refresh_tokens::stored(new.refresh_token))
    .bind(new.user_id)
    .bind(new.id)
    .bind(new.now)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The session with this id, if it still exists.
pub async fn find(db: &Db, id: &str) -> Result<Option<SessionRow>, DbError> {
    let row = sqlx::query("SELECT id, user_id, aal, created_at FROM sessions WHERE id = $1")
        .bind(id)
        .fetch_optional(db.pool())
        .await?;
    let Some(row) = row else { return Ok(None) };
    Ok(Some(SessionRow {
        id: row.try_get("id")?,
        user_id: row.try_get("user_id")?,
        aal: row.try_get("aal")?,
        created_at: row.try_get("created_at")?,
    }))
}

/// The session's AMR claims as `(method, epoch ms)`, newest first (the JWT's `amr` order).
pub async fn amr_claims(db: &Db, session_id: &str) -> Result<Vec<(String, i64)>, DbError> {
    let rows = sqlx::query(
        "SELECT method, updated_at FROM session_amr_claims WHERE session_id = $1 \
         ORDER BY updated_at DESC, method",
    )
    .bind(session_id)
    .fetch_all(db.pool())
    .await?;
    rows.iter()
        .map(|row| Ok((row.try_get("method")?, row.try_get("updated_at")?)))
        .collect::<Result<_, sqlx::Error>>()
        .map_err(DbError::from)
}

/// Which sessions of a user a sign-out ends.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    /// Every session of the user.
    All,
    /// Only this session.
    Only(&'a str),
    /// Every session except this one.
    AllExcept(&'a str),
}

/// Deletes sessions of `user_id` and revokes their refresh tokens (kept so that presenting one
/// later answers `session_not_found`). Returns how many sessions ended.
pub async fn delete(db: &Db, user_id: &str, scope: Scope<'_>, now: i64) -> Result<u64, DbError> {
    // Every variant binds the same parameters so one query text serves all three; `All` uses
    // `$2` in a tautology because PostgreSQL refuses a parameter that appears nowhere.
    let (filter, session) = match scope {
        Scope::All => ("user_id = $1 AND $2 = $2", ""),
        Scope::Only(id) => ("user_id = $1 AND id = $2", id),
        Scope::AllExcept(id) => ("user_id = $1 AND id <> $2", id),
    };
    let mut tx = db.begin_write().await?;
    // The write comes first so SQLite takes its write lock at once (busy timeout applies).
    sqlx::query(&format!(
        "UPDATE refresh_tokens SET revoked_at = $3, updated_at = $3 \
         WHERE revoked_at IS NULL AND session_id IN (SELECT id FROM sessions WHERE {filter})"
    ))
    .bind(user_id)
    .bind(session)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    let done = sqlx::query(&format!("DELETE FROM sessions WHERE {filter}"))
        .bind(user_id)
        .bind(session)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(done.rows_affected())
}

/// A session as the account page lists it.
#[derive(Debug, Clone)]
pub struct SessionInfo {
    pub id: String,
    pub aal: String,
    pub created_at: i64,
    /// The last refresh of its tokens (a signed-in tab refreshes hourly), else its start.
    pub last_used_at: i64,
    pub user_agent: Option<String>,
    pub ip: Option<String>,
}

/// The user's sessions, the most recently used first.
pub async fn for_user(db: &Db, user_id: &str) -> Result<Vec<SessionInfo>, DbError> {
    let rows = sqlx::query(
        "SELECT id, aal, created_at, COALESCE(refreshed_at, created_at) AS last_used_at, \
         user_agent, ip FROM sessions WHERE user_id = $1 \
         ORDER BY last_used_at DESC, id",
    )
    .bind(user_id)
    .fetch_all(db.pool())
    .await?;
    rows.iter()
        .map(|row| {
            Ok(SessionInfo {
                id: row.try_get("id")?,
                aal: row.try_get("aal")?,
                created_at: row.try_get("created_at")?,
                last_used_at: row.try_get("last_used_at")?,
                user_agent: row.try_get("user_agent")?,
                ip: row.try_get("ip")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(DbError::from)
}
