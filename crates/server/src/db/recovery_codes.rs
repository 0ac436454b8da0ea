//! Queries on `mfa_recovery_codes`: a user's single-use codes for two-step verification,
//! stored as keyed hashes (`auth::mfa::recovery`).

use sqlx::Row;

use super::{Db, DbError};

/// What the account page shows of a user's codes (never the codes themselves).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Codes not used yet.
    pub remaining: i64,
    /// Codes in the current set.
    pub total: i64,
    /// When the current set was made (epoch ms); `None` without one.
    pub created_at: Option<i64>,
}

/// What a hash names among a user's codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    Unused,
    Used,
    Unknown,
}

/// Replaces the user's codes with a new set, in one transaction.
pub async fn replace(db: &Db, user_id: &str, hashes: &[String], now: i64) -> Result<(), DbError> {
    let mut tx = db.begin_write().await?;
    sqlx::query("DELETE FROM mfa_recovery_codes WHERE user_id = $1")
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
    for hash in hashes {
        sqlx::query(
            "INSERT INTO mfa_recovery_codes (user_id, code_hash, created_at, used_at) \
             VALUES ($1, $2, $3, NULL)",
        )
        .bind(user_id)
        .bind(hash)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// How many codes the user has left, of how many, made when.
pub async fn summary(db: &Db, user_id: &str) -> Result<Summary, DbError> {
    let row = sqlx::query(
        "SELECT COUNT(*) AS total, \
         COALESCE(SUM(CASE WHEN used_at IS NULL THEN 1 ELSE 0 END), 0) AS remaining, \
         MAX(created_at) AS created_at \
         FROM mfa_recovery_codes WHERE user_id = $1",
    )
    .bind(user_id)
    .fetch_one(db.pool())
    .await?;
    Ok(Summary {
        remaining: row.try_get("remaining")?,
        total: row.try_get("total")?,
        created_at: row.try_get("created_at")?,
    })
}

/// Whether `hash` is one of the user's codes, and whether it was used.
pub async fn lookup(db: &Db, user_id: &str, hash: &str) -> Result<Lookup, DbError> {
    let row =
        sqlx::query("SELECT used_at FROM mfa_recovery_codes WHERE user_id = $1 AND code_hash = $2")
            .bind(user_id)
            .bind(hash)
            .fetch_optional(db.pool())
            .await?;
    Ok(match row {
        None => Lookup::Unknown,
        Some(row) => match row.try_get::<Option<i64>, _>("used_at")? {
            None => Lookup::Unused,
            Some(_) => Lookup::Used,
        },
    })
}

/// Deletes every code of the user (two-step verification turned off).
pub async fn delete_all(db: &Db, user_id: &str) -> Result<(), DbError> {
    sqlx::query("DELETE FROM mfa_recovery_codes WHERE user_id = $1")
        .bind(user_id)
        .execute(db.pool())
        .await?;
    Ok(())
}
