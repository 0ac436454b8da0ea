//! Queries on `mfa_factors` and `mfa_challenges`: second factors (TOTP, phone), their
//! challenges, and the verification that raises a session to aal2.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError};

/// A stored factor. `secret` is sealed (see `auth::mfa::seal`), never the plain base32 text.
#[derive(Debug, Clone)]
pub struct FactorRow {
    pub id: String,
    pub user_id: String,
    pub friendly_name: Option<String>,
    pub factor_type: String,
    pub status: String,
    pub secret: Option<String>,
    pub phone: Option<String>,
    pub last_step: Option<i64>,
    pub last_challenged_at: Option<i64>,
    pub failed_count: i64,
    pub failed_window_start: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl FactorRow {
    /// Whether the factor has been verified once.
    pub fn is_verified(&self) -> bool {
        self.status == VERIFIED
    }
}

/// Status of a factor that passed its first verification.
pub const VERIFIED: &str = "verified";
/// Status of a newly enrolled factor.
pub const UNVERIFIED: &str = "unverified";

const COLUMNS: &str = "id, user_id, friendly_name, factor_type, status, secret, phone, last_step, \
                       last_challenged_at, failed_count, failed_window_start, created_at, updated_at";

fn from_row(row: &AnyRow) -> Result<FactorRow, sqlx::Error> {
    Ok(FactorRow {
        id: row.try_get("id")?,
        user_id: row.try_get("user_id")?,
        friendly_name: row.try_get("friendly_name")?,
        factor_type: row.try_get("factor_type")?,
        status: row.try_get("status")?,
        secret: row.try_get("secret")?,
        phone: row.try_get("phone")?,
        last_step: row.try_get("last_step")?,
        last_challenged_at: row.try_get("last_challenged_at")?,
        failed_count: row.try_get("failed_count")?,
        failed_window_start: row.try_get("failed_window_start")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

/// Every factor of a user, oldest first.
pub async fn for_user(db: &Db, user_id: &str) -> Result<Vec<FactorRow>, DbError> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM mfa_factors WHERE user_id = $1 ORDER BY created_at, id"
    ))
    .bind(user_id)
    .fetch_all(db.pool())
    .await?;
    Ok(rows.iter().map(from_row).collect::<Result<_, _>>()?)
}

/// The factor `id` if it belongs to `user_id`.
pub async fn find(db: &Db, user_id: &str, id: &str) -> Result<Option<FactorRow>, DbError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM mfa_factors WHERE id = $1 AND user_id = $2"
    ))
    .bind(id)
    .bind(user_id)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// Inserts a new (unverified) factor.
pub async fn insert(db: &Db, factor: &FactorRow) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO mfa_factors (id, user_id, friendly_name, factor_type, status, secret, phone, \
         last_step, last_challenged_at, failed_count, failed_window_start, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, NULL, 0, NULL, $8, $8)",
    )
    .bind(&factor.id)
    .bind(&factor.user_id)
    .bind(factor.friendly_name.as_deref())
    .bind(&factor.factor_type)
    .bind(&factor.status)
    .bind(factor.secret.as_deref())
    .bind(factor.phone.as_deref())
    .bind(factor.created_at)
    .execute(db.pool())
    .await
    .map_err(DbError::from_write)?;
    Ok(())
}

/// Deletes the user's unverified factors created before `cutoff` (they expire), and, when
/// `phone` is given, the unverified phone factors for that number (a new enrolment replaces
/// them).
pub async fn delete_stale_unverified(
    db: &Db,
    user_id: &str,
    cutoff: i64,
    phone: Option<&str>,
) -> Result<(), DbError> {
    sqlx::query(
        "DELETE FROM mfa_factors WHERE user_id = $1 AND status = 'unverified' \
         AND (created_at < $2 OR (factor_type = 'phone' AND phone = $3))",
    )
    .bind(user_id)
    .bind(cutoff)
    .bind(phone.unwrap_or(""))
    .execute(db.pool())
    .await?;
    Ok(())
}

/// Renames a factor.
pub async fn rename(db: &Db, id: &str, friendly_name: &str, now: i64) -> Result<(), DbError> {
    sqlx::query("UPDATE mfa_factors SET friendly_name = $1, updated_at = $2 WHERE id = $3")
        .bind(friendly_name)
        .bind(now)
        .bind(id)
        .execute(db.pool())
        .await?;
    Ok(())
}

/// Deletes a factor and downgrades the sessions it raised to aal2 back to aal1 (their `totp`,
/// `mfa/phone` or `recovery_code` claim goes too). Returns whether it existed.
pub async fn delete(db: &Db, user_id: &str, id: &str, method: &str) -> Result<bool, DbError> {
    let mut tx = db.begin_write().await?;
    let done = sqlx::query("DELETE FROM mfa_factors WHERE id = $1 AND user_id = $2")
        .bind(id)
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
    if done.rows_affected() == 0 {
        tx.rollback().await?;
        return Ok(false);
    }
    sqlx::query(
        "DELETE FROM session_amr_claims WHERE method IN ($1, 'recovery_code') AND session_id IN \
         (SELECT id FROM sessions WHERE factor_id = $2)",
    )
    .bind(method)
    .bind(id)
    .execute(&mut *tx)
    .await?;
    sqlx::query("UPDATE sessions SET aal = 'aal1', factor_id = NULL WHERE factor_id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(true)
}

/// A stored challenge.
#[derive(Debug, Clone)]
pub struct ChallengeRow {
    pub id: String,
    pub factor_id: String,
    pub ip: String,
    pub code_hash: Option<String>,
    pub verified_at: Option<i64>,
    pub created_at: i64,
}

/// Creates a challenge and notes when the factor was last challenged.
pub async fn insert_challenge(db: &Db, challenge: &ChallengeRow) -> Result<(), DbError> {
    let mut tx = db.begin_write().await?;
    sqlx::query("UPDATE mfa_factors SET last_challenged_at = $1, updated_at = $1 WHERE id = $2")
        .bind(challenge.created_at)
        .bind(&challenge.factor_id)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO mfa_challenges (id, factor_id, ip, code_hash, verified_at, created_at) \
         VALUES ($1, $2, $3, $4, NULL, $5)",
    )
    .bind(&challenge.id)
    .bind(&challenge.factor_id)
    .bind(&challenge.ip)
    .bind(challenge.code_hash.as_deref())
    .bind(challenge.created_at)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The challenge `id` of factor `factor_id`.
pub async fn find_challenge(
    db: &Db,
    factor_id: &str,
    id: &str,
) -> Result<Option<ChallengeRow>, DbError> {
    let row = sqlx::query(
        "SELECT id, factor_id, ip, code_hash, verified_at, created_at FROM mfa_challenges \
         WHERE id = $1 AND factor_id = $2",
    )
    .bind(id)
    .bind(factor_id)
    .fetch_optional(db.pool())
    .await?;
    let Some(row) = row else { return Ok(None) };
    Ok(Some(ChallengeRow {
        id: row.try_get("id")?,
        factor_id: row.try_get("factor_id")?,
        ip: row.try_get("ip")?,
        code_hash: row.try_get("code_hash")?,
        verified_at: row.try_get("verified_at")?,
        created_at: row.try_get("created_at")?,
    }))
}

/// Deletes one challenge (an expired one).
pub async fn delete_challenge(db: &Db, id: &str) -> Result<(), DbError> {
    sqlx::query("DELETE FROM mfa_challenges WHERE id = $1")
        .bind(id)
        .execute(db.pool())
        .await?;
    Ok(())
}

/// Where a factor's attempt count stands after [`count_attempt`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attempts {
    /// Codes presented within the current window, this one included.
    pub count: i64,
    /// When the current window started (ms).
    pub window_start: i64,
}

/// Counts one code presented to the factor, before it is checked: one conditional
/// `UPDATE … RETURNING`, so concurrent requests each see a distinct count and no more than
/// the limit of them are ever checked within a window. The count restarts when the window is
/// over (and when a verification succeeds). `None` when the factor is gone.
pub async fn count_attempt(
    db: &Db,
    factor_id: &str,
    now: i64,
    window_ms: i64,
) -> Result<Option<Attempts>, DbError> {
    let window_start = now - window_ms;
    let row = sqlx::query(
        "UPDATE mfa_factors SET \
         failed_count = CASE WHEN failed_window_start IS NULL OR failed_window_start < $2 \
                        THEN 1 ELSE failed_count + 1 END, \
         failed_window_start = CASE WHEN failed_window_start IS NULL OR failed_window_start < $2 \
                        THEN $3 ELSE failed_window_start END \
         WHERE id = $1 RETURNING failed_count, failed_window_start",
    )
    .bind(factor_id)
    .bind(window_start)
    .bind(now)
    .fetch_optional(db.pool())
    .await?;
    let Some(row) = row else { return Ok(None) };
    Ok(Some(Attempts {
        count: row.try_get("failed_count")?,
        window_start: row
            .try_get::<Option<i64>, _>("failed_window_start")?
            .unwrap_or(now),
    }))
}

/// What a successful verification writes.
#[derive(Debug, Clone)]
pub struct Verification<'a> {
    pub factor: &'a FactorRow,
    pub challenge_id: &'a str,
    pub session_id: &'a str,
    /// `totp` or `mfa/phone`.
    pub method: &'a str,
    /// The TOTP time step of the accepted code (replay guard); `None` for phone codes.
    pub step: Option<i64>,
    /// The keyed hash of the recovery code given instead of the factor's code, used up in
    /// the same transaction.
    pub recovery_code_hash: Option<&'a str>,
    pub new_refresh_token_id: &'a str,
    pub new_refresh_token: &'a str,
    pub now: i64,
}

/// Why a verification could not be saved.
#[derive(Debug, PartialEq, Eq)]
pub enum VerifyOutcome {
    /// Saved: the session is aal2 with a new refresh token.
    Verified,
    /// The challenge was verified meanwhile (a concurrent request won).
    ChallengeUsed,
    /// The TOTP code's time step, or the recovery code, was already used (replay).
    CodeReplayed,
    /// The session ended meanwhile.
    SessionGone,
}

/// Saves a successful verification in one transaction, as GoTrue's `updateMFASessionAndClaims`:
/// the challenge is marked verified (once), the factor becomes verified (and its attempt count
/// resets), the TOTP step is recorded, the session gains the factor's AMR claim and aal2, its
/// refresh token is replaced (so the aal1 token cannot mint aal2 tokens), the user's other aal1
/// sessions end and other unverified factors of the same type are removed.
pub async fn save_verification(db: &Db, v: &Verification<'_>) -> Result<VerifyOutcome, DbError> {
    let mut tx = db.begin_write().await?;
    let challenge = sqlx::query(
        "UPDATE mfa_challenges SET verified_at = $1 WHERE id = $2 AND verified_at IS NULL",
    )
    .bind(v.now)
    .bind(v.challenge_id)
    .execute(&mut *tx)
    .await?;
    if challenge.rows_affected() != 1 {
        tx.rollback().await?;
        return Ok(VerifyOutcome::ChallengeUsed);
    }
    if let Some(hash) = v.recovery_code_hash {
        let used = sqlx::query(
            "UPDATE mfa_recovery_codes SET used_at = $1 \
             WHERE user_id = $2 AND code_hash = $3 AND used_at IS NULL",
        )
        .bind(v.now)
        .bind(&v.factor.user_id)
        .bind(hash)
        .execute(&mut *tx)
        .await?;
        if used.rows_affected() != 1 {
            tx.rollback().await?;
            return Ok(VerifyOutcome::CodeReplayed);
        }
    }
    let factor = sqlx::query(
        "UPDATE mfa_factors SET status = 'verified', last_step = $1, failed_count = 0, \
         failed_window_start = NULL, updated_at = $2 \
         WHERE id = $3 AND ($1 IS NULL OR last_step IS NULL OR last_step < $1)",
    )
    .bind(v.step)
    .bind(v.now)
    .bind(&v.factor.id)
    .execute(&mut *tx)
    .await?;
    if factor.rows_affected() != 1 {
        tx.rollback().await?;
        return Ok(VerifyOutcome::CodeReplayed);
    }
    let session = sqlx::query(
        "UPDATE sessions SET aal = 'aal2', factor_id = $1, updated_at = $2 WHERE id = $3",
    )
    .bind(&v.factor.id)
    .bind(v.now)
    .bind(v.session_id)
    .execute(&mut *tx)
    .await?;
    if session.rows_affected() != 1 {
        tx.rollback().await?;
        return Ok(VerifyOutcome::SessionGone);
    }
    // Upsert of the claim, portable: delete then insert.
    sqlx::query("DELETE FROM session_amr_claims WHERE session_id = $1 AND method = $2")
        .bind(v.session_id)
        .bind(v.method)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO session_amr_claims (session_id, method, created_at, updated_at) \
         VALUES ($1, $2, $3, $3)",
    )
    .bind(v.session_id)
    .bind(v.method)
    .bind(v.now)
    .execute(&mut *tx)
    .await?;
    // The session's earlier refresh tokens are deleted rather than revoked: the reuse rules
    // would hand a revoked parent the session's current (now aal2) token, and the aal1 token
    // must never mint aal2 tokens.
    sqlx::query("DELETE FROM refresh_tokens WHERE session_id = $1")
        .bind(v.session_id)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO refresh_tokens (id, token, user_id, session_id, parent, revoked_at, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, NULL, NULL, $5, $5)",
    )
    .bind(v.new_refresh_token_id)
    .bind(super::refresh_tokens::stored(v.new_refresh_token))
    .bind(&v.factor.user_id)
    .bind(v.session_id)
    .bind(v.now)
    .execute(&mut *tx)
    .await?;
    // Other sessions still at aal1 end, as GoTrue's InvalidateSessionsWithAALLessThan.
    sqlx::query(
        "UPDATE refresh_tokens SET revoked_at = $1, updated_at = $1 WHERE revoked_at IS NULL \
         AND session_id IN (SELECT id FROM sessions WHERE user_id = $2 AND aal = 'aal1' AND id <> $3)",
    )
    .bind(v.now)
    .bind(&v.factor.user_id)
    .bind(v.session_id)
    .execute(&mut *tx)
    .await?;
    sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND aal = 'aal1' AND id <> $2")
        .bind(&v.factor.user_id)
        .bind(v.session_id)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "DELETE FROM mfa_factors WHERE user_id = $1 AND factor_type = $2 \
         AND status = 'unverified' AND id <> $3",
    )
    .bind(&v.factor.user_id)
    .bind(&v.factor.factor_type)
    .bind(&v.factor.id)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(VerifyOutcome::Verified)
}

/// Deletes challenges created before `cutoff` (expired) and unverified factors created before
/// `factor_cutoff`. Returns how many rows went.
pub async fn prune(db: &Db, cutoff: i64, factor_cutoff: i64) -> Result<u64, DbError> {
    let challenges = sqlx::query("DELETE FROM mfa_challenges WHERE created_at < $1")
        .bind(cutoff)
        .execute(db.pool())
        .await?;
    let factors =
        sqlx::query("DELETE FROM mfa_factors WHERE status = 'unverified' AND created_at < $1")
            .bind(factor_cutoff)
            .execute(db.pool())
            .await?;
    Ok(challenges.rows_affected() + factors.rows_affected())
}
