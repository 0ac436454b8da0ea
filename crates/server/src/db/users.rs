//! Queries on the `users` table.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError};

/// A stored user. Metadata columns hold JSON text.
#[derive(Debug, Clone)]
pub struct UserRow {
    pub id: String,
    pub email: String,
    /// Argon2id PHC string.
    pub encrypted_password: String,
    pub email_confirmed_at: Option<i64>,
    pub app_metadata: String,
    pub user_metadata: String,
    pub last_sign_in_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

const COLUMNS: &str = "id, email, encrypted_password, email_confirmed_at, app_metadata, \
                       user_metadata, last_sign_in_at, created_at, updated_at";

fn from_row(row: &AnyRow) -> Result<UserRow, sqlx::Error> {
    Ok(UserRow {
        id: row.try_get("id")?,
        email: row.try_get("email")?,
        encrypted_password: row.try_get("encrypted_password")?,
        email_confirmed_at: row.try_get("email_confirmed_at")?,
        app_metadata: row.try_get("app_metadata")?,
        user_metadata: row.try_get("user_metadata")?,
        last_sign_in_at: row.try_get("last_sign_in_at")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

/// Inserts a new user; [`DbError::Conflict`] when the email is taken.
pub async fn insert(db: &Db, user: &UserRow) -> Result<(), DbError> {
    insert_on(&mut *db.pool().acquire().await?, user).await
}

/// [`insert`] on a given connection (inside a caller's transaction).
pub(super) async fn insert_on(
    conn: &mut sqlx::AnyConnection,
    user: &UserRow,
) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO users (id, email, encrypted_password, email_confirmed_at, app_metadata, \
         user_metadata, last_sign_in_at, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(&user.id)
    .bind(&user.email)
    .bind(&user.encrypted_password)
    .bind(user.email_confirmed_at)
    .bind(&user.app_metadata)
    .bind(&user.user_metadata)
    .bind(user.last_sign_in_at)
    .bind(user.created_at)
    .bind(user.updated_at)
    .execute(conn)
    .await
    .map_err(DbError::from_write)?;
    Ok(())
}

pub async fn find_by_email(db: &Db, email: &str) -> Result<Option<UserRow>, DbError> {
    let row = sqlx::query(&format!("SELECT {COLUMNS} FROM users WHERE email = $1"))
        .bind(email)
        .fetch_optional(db.pool())
        .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// The user with this id.
pub async fn find_by_id(db: &Db, id: &str) -> Result<Option<UserRow>, DbError> {
    let row = sqlx::query(&format!("SELECT {COLUMNS} FROM users WHERE id = $1"))
        .bind(id)
        .fetch_optional(db.pool())
        .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// Records a successful sign-in.
pub async fn touch_last_sign_in(db: &Db, id: &str, now: i64) -> Result<(), DbError> {
    sqlx::query("UPDATE users SET last_sign_in_at = $1, updated_at = $1 WHERE id = $2")
        .bind(now)
        .bind(id)
        .execute(db.pool())
        .await?;
    Ok(())
}

/// Replaces the password hash.
pub async fn update_password(db: &Db, id: &str, hash: &str, now: i64) -> Result<(), DbError> {
    sqlx::query("UPDATE users SET encrypted_password = $1, updated_at = $2 WHERE id = $3")
        .bind(hash)
        .bind(now)
        .bind(id)
        .execute(db.pool())
        .await?;
    Ok(())
}

/// Replaces the user metadata (the caller merges).
pub async fn update_user_metadata(
    db: &Db,
    id: &str,
    metadata_json: &str,
    now: i64,
) -> Result<(), DbError> {
    sqlx::query("UPDATE users SET user_metadata = $1, updated_at = $2 WHERE id = $3")
        .bind(metadata_json)
        .bind(now)
        .bind(id)
        .execute(db.pool())
        .await?;
    Ok(())
}

/// Marks the email address confirmed (first confirmation only; later calls keep the date).
pub async fn confirm_email(db: &Db, id: &str, now: i64) -> Result<(), DbError> {
    sqlx::query(
        "UPDATE users SET email_confirmed_at = $1, updated_at = $1 \
         WHERE id = $2 AND email_confirmed_at IS NULL",
    )
    .bind(now)
    .bind(id)
    .execute(db.pool())
    .await?;
    Ok(())
}

/// Replaces the email address (confirmed: the user followed a link sent to it);
/// [`DbError::Conflict`] when another user has it.
pub async fn update_email(db: &Db, id: &str, email: &str, now: i64) -> Result<(), DbError> {
    sqlx::query(
        "UPDATE users SET email = $1, email_confirmed_at = $2, updated_at = $2 WHERE id = $3",
    )
    .bind(email)
    .bind(now)
    .bind(id)
    .execute(db.pool())
    .await
    .map_err(DbError::from_write)?;
    Ok(())
}
