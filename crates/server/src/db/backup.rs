//! Queries for `regard backup` and `regard restore` (embedded SQLite only).

use std::path::Path;

use sqlx::Row;

use super::{Backend, Db, DbError};

/// Writes a consistent copy of the whole SQLite database to `to` while others keep reading
/// and writing (`VACUUM INTO`: one read transaction, so the copy is one point in time). The
/// caller checks that the backend is SQLite (PostgreSQL has `pg_dump`).
pub async fn snapshot_sqlite(db: &Db, to: &Path) -> Result<(), DbError> {
    debug_assert_eq!(db.backend(), Backend::Sqlite);
    sqlx::query("VACUUM INTO $1")
        .bind(to.to_string_lossy().into_owned())
        .execute(db.pool())
        .await?;
    Ok(())
}

/// SQLite's own check of the file: `ok` when sound, else the first problems it lists.
pub async fn integrity_check(db: &Db) -> Result<String, DbError> {
    let rows = sqlx::query("PRAGMA integrity_check")
        .fetch_all(db.pool())
        .await?;
    let lines: Vec<String> = rows
        .iter()
        .filter_map(|row| row.try_get::<String, _>(0).ok())
        .collect();
    Ok(lines.join("; "))
}

/// Every storage key the media rows name (originals and variants), without repeats.
pub async fn media_keys(db: &Db) -> Result<Vec<String>, DbError> {
    let rows = sqlx::query(
        "SELECT original_key AS k FROM media UNION SELECT preview_key FROM media \
         UNION SELECT thumbnail_key FROM media ORDER BY 1",
    )
    .fetch_all(db.pool())
    .await?;
    Ok(rows
        .iter()
        .map(|row| row.try_get::<String, _>(0))
        .collect::<Result<_, _>>()?)
}
