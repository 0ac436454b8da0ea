//! Queries on `heatmap_shares`: read-only links to a heatmap. Only the SHA-256 of a link's
//! token is stored; a link is found by that hash, and revoked by deleting its row.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError};

/// A stored share link (without its token).
#[derive(Debug, Clone, PartialEq)]
pub struct ShareRow {
    pub id: String,
    pub heatmap_id: String,
    pub owner_id: String,
    pub expires_at: i64,
    pub created_at: i64,
}

const COLUMNS: &str = "id, heatmap_id, owner_id, expires_at, created_at";

fn from_row(row: &AnyRow) -> Result<ShareRow, sqlx::Error> {
    Ok(ShareRow {
        id: row.try_get("id")?,
        heatmap_id: row.try_get("heatmap_id")?,
        owner_id: row.try_get("owner_id")?,
        expires_at: row.try_get("expires_at")?,
        created_at: row.try_get("created_at")?,
    })
}

/// Stores a link by its token's hash.
pub async fn insert(db: &Db, share: &ShareRow, token_hash: &str) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO heatmap_shares (id, heatmap_id, owner_id, token_hash, expires_at, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(&share.id)
    .bind(&share.heatmap_id)
    .bind(&share.owner_id)
    .bind(token_hash)
    .bind(share.expires_at)
    .bind(share.created_at)
    .execute(db.pool())
    .await?;
    Ok(())
}

/// The links of an owned heatmap, newest first.
pub async fn for_heatmap(
    db: &Db,
    owner_id: &str,
    heatmap_id: &str,
) -> Result<Vec<ShareRow>, DbError> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM heatmap_shares WHERE heatmap_id = $1 AND owner_id = $2 \
         ORDER BY created_at DESC, id DESC"
    ))
    .bind(heatmap_id)
    .bind(owner_id)
    .fetch_all(db.pool())
    .await?;
    Ok(rows.iter().map(from_row).collect::<Result<_, _>>()?)
}

/// The link whose token has this hash, if any (expired or not: the caller decides).
pub async fn find_by_hash(db: &Db, token_hash: &str) -> Result<Option<ShareRow>, DbError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM heatmap_shares WHERE token_hash = $1"
    ))
    .bind(token_hash)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// The link with this id, if any (expired or not: the caller decides).
pub async fn find(db: &Db, id: &str) -> Result<Option<ShareRow>, DbError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM heatmap_shares WHERE id = $1"
    ))
    .bind(id)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// Revokes an owned link of that heatmap; whether there was one.
pub async fn delete(db: &Db, owner_id: &str, heatmap_id: &str, id: &str) -> Result<bool, DbError> {
    let done = sqlx::query(
        "DELETE FROM heatmap_shares WHERE id = $1 AND heatmap_id = $2 AND owner_id = $3",
    )
    .bind(id)
    .bind(heatmap_id)
    .bind(owner_id)
    .execute(db.pool())
    .await?;
    Ok(done.rows_affected() > 0)
}

/// Moves a link's expiry (the tests use it to see a link expire without waiting for it).
pub async fn set_expires_at(db: &Db, id: &str, expires_at: i64) -> Result<(), DbError> {
    sqlx::query("UPDATE heatmap_shares SET expires_at = $1 WHERE id = $2")
        .bind(expires_at)
        .bind(id)
        .execute(db.pool())
        .await?;
    Ok(())
}
