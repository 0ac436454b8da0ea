//! Queries on the `users` table.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError};

/// A stored user. Metadata columns hold JSON text. `email` and `phone` are `""` when the user
/// has none (NULL in the table, so that the unique indexes allow many). Soft-deleted users are
/// never read back.
#[derive(Debug, Clone)]
pub struct UserRow {
    pub id: String,
    pub email: String,
    /// Argon2id PHC string; empty for users without a password.
    pub encrypted_password: String,
    pub email_confirmed_at: Option<i64>,
    pub app_metadata: String,
    pub user_metadata: String,
    pub last_sign_in_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
    /// E.164 digits without the '+'.
    pub phone: String,
    pub phone_confirmed_at: Option<i64>,
    /// The address of a pending email change.
    pub email_change: Option<String>,
    pub invited_at: Option<i64>,
    pub banned_until: Option<i64>,
    pub is_anonymous: bool,
}

impl UserRow {
    /// A user with a fresh id, created now, with nothing else set (the caller fills in the
    /// credentials and metadata).
    pub fn new(now: i64) -> Self {
        Self {
            id: uuid::Uuid::new_v4().to_string(),
            email: String::new(),
            encrypted_password: String::new(),
            email_confirmed_at: None,
            app_metadata: "{}".to_owned(),
            user_metadata: "{}".to_owned(),
            last_sign_in_at: None,
            created_at: now,
            updated_at: now,
            phone: String::new(),
            phone_confirmed_at: None,
            email_change: None,
            invited_at: None,
            banned_until: None,
            is_anonymous: false,
        }
    }

    /// Whether sign-ins are refused at `now` (epoch ms).
    pub fn is_banned(&self, now: i64) -> bool {
        self.banned_until.is_some_and(|until| until > now)
    }
}

const COLUMNS: &str = "id, email, encrypted_password, email_confirmed_at, app_metadata, \
                       user_metadata, last_sign_in_at, created_at, updated_at, phone, \
                       phone_confirmed_at, email_change, invited_at, banned_until, is_anonymous";

fn from_row(row: &AnyRow) -> Result<UserRow, sqlx::Error> {
    Ok(UserRow {
        id: row.try_get("id")?,
        email: row
            .try_get::<Option<String>, _>("email")?
            .unwrap_or_default(),
        encrypted_password: row.try_get("encrypted_password")?,
        email_confirmed_at: row.try_get("email_confirmed_at")?,
        app_metadata: row.try_get("app_metadata")?,
        user_metadata: row.try_get("user_metadata")?,
        last_sign_in_at: row.try_get("last_sign_in_at")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
        phone: row
            .try_get::<Option<String>, _>("phone")?
            .unwrap_or_default(),
        phone_confirmed_at: row.try_get("phone_confirmed_at")?,
        email_change: row.try_get("email_change")?,
        invited_at: row.try_get("invited_at")?,
        banned_until: row.try_get("banned_until")?,
        is_anonymous: row.try_get::<i64, _>("is_anonymous")? != 0,
    })
}

/// `""` as NULL, for the optional unique columns.
fn nullable(text: &str) -> Option<&str> {
    (!text.is_empty()).then_some(text)
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
         user_metadata, last_sign_in_at, created_at, updated_at, phone, phone_confirmed_at, \
         email_change, invited_at, banned_until, is_anonymous) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
    )
    .bind(&user.id)
    .bind(nullable(&user.email))
    .bind(&user.encrypted_password)
    .bind(user.email_confirmed_at)
    .bind(&user.app_metadata)
    .bind(&user.user_metadata)
    .bind(user.last_sign_in_at)
    .bind(user.created_at)
    .bind(user.updated_at)
    .bind(nullable(&user.phone))
    .bind(user.phone_confirmed_at)
    .bind(&user.email_change)
    .bind(user.invited_at)
    .bind(user.banned_until)
    .bind(i64::from(user.is_anonymous))
    .execute(conn)
    .await
    .map_err(DbError::from_write)?;
    Ok(())
}

/// The (not deleted) user with this address.
pub async fn find_by_email(db: &Db, email: &str) -> Result<Option<UserRow>, DbError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM users WHERE email = $1 AND deleted_at IS NULL"
    ))
    .bind(email)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// The (not deleted) user with this phone number (E.164 digits).
pub async fn find_by_phone(db: &Db, phone: &str) -> Result<Option<UserRow>, DbError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM users WHERE phone = $1 AND deleted_at IS NULL"
    ))
    .bind(phone)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// The (not deleted) user with this id.
pub async fn find_by_id(db: &Db, id: &str) -> Result<Option<UserRow>, DbError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM users WHERE id = $1 AND deleted_at IS NULL"
    ))
    .bind(id)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// What one authenticated request needs to know, read by one statement: the user (not
/// deleted), the session its token names (`None` when gone), and whether the user has a
/// verified second factor. One round trip instead of three on every API request.
#[derive(Debug, Clone)]
pub struct SignedIn {
    pub user: UserRow,
    pub session: Option<super::sessions::SessionRow>,
    pub has_verified_factor: bool,
    /// The user's membership of the workspace the request names (`None`: not a member).
    pub membership: Option<super::workspaces::Membership>,
}

/// [`SignedIn`] of user `user_id` and session `session_id`, with the user's membership of
/// workspace `workspace_id`; `None` when the user does not exist (or was deleted).
pub async fn find_signed_in(
    db: &Db,
    user_id: &str,
    session_id: &str,
    workspace_id: &str,
) -> Result<Option<SignedIn>, DbError> {
    static SQL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        let user_columns = COLUMNS
            .split(',')
            .map(|c| format!("u.{0} AS {0}", c.trim()))
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "SELECT {user_columns}, s.id AS session_id, s.user_id AS session_user_id, \
             s.aal AS session_aal, s.created_at AS session_created_at, \
             m.role AS member_role, w.personal_of AS personal_of, \
             w.library_revision AS library_revision, \
             (SELECT COUNT(*) FROM mfa_factors f \
              WHERE f.user_id = u.id AND f.status = 'verified') AS verified_factors \
             FROM users u LEFT JOIN sessions s ON s.id = $2 \
             LEFT JOIN workspace_members m ON m.workspace_id = $3 AND m.user_id = u.id \
             LEFT JOIN workspaces w ON w.id = m.workspace_id \
             WHERE u.id = $1 AND u.deleted_at IS NULL"
        )
    });
    let row = sqlx::query(&SQL)
        .bind(user_id)
        .bind(session_id)
        .bind(workspace_id)
        .fetch_optional(db.pool())
        .await?;
    let Some(row) = row else { return Ok(None) };
    let membership = match row.try_get::<Option<String>, _>("member_role")? {
        Some(role) => Some(super::workspaces::Membership {
            workspace_id: workspace_id.to_owned(),
            role: super::workspaces::WorkspaceRole::parse(&role)
                .ok_or_else(|| sqlx::Error::Decode(format!("unknown role {role:?}").into()))?,
            personal: row.try_get::<Option<String>, _>("personal_of")?.is_some(),
            library_revision: row.try_get("library_revision")?,
        }),
        None => None,
    };
    let session = match row.try_get::<Option<String>, _>("session_id")? {
        Some(id) => Some(super::sessions::SessionRow {
            id,
            user_id: row.try_get("session_user_id")?,
            aal: row.try_get("session_aal")?,
            created_at: row.try_get("session_created_at")?,
        }),
        None => None,
    };
    Ok(Some(SignedIn {
        user: from_row(&row)?,
        session,
        has_verified_factor: row.try_get::<i64, _>("verified_factors")? > 0,
        membership,
    }))
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
        "UPDATE users SET email = $1, email_confirmed_at = $2, email_change = NULL, \
         is_anonymous = 0, updated_at = $2 WHERE id = $3",
    )
    .bind(email)
    .bind(now)
    .bind(id)
    .execute(db.pool())
    .await
    .map_err(DbError::from_write)?;
    Ok(())
}

/// A page of (not deleted) users, newest first, and how many there are in all.
pub async fn list(db: &Db, offset: i64, limit: i64) -> Result<(Vec<UserRow>, i64), DbError> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM users WHERE deleted_at IS NULL \
         ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2"
    ))
    .bind(limit)
    .bind(offset)
    .fetch_all(db.pool())
    .await?;
    let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM users WHERE deleted_at IS NULL")
        .fetch_one(db.pool())
        .await?;
    let users = rows.iter().map(from_row).collect::<Result<_, _>>()?;
    Ok((users, total))
}

/// Writes every column an administrator (or an account upgrade) may change; the row is read,
/// changed and written back by the caller. [`DbError::Conflict`] when the address or the phone
/// number belongs to another user.
pub async fn save(db: &Db, user: &UserRow) -> Result<(), DbError> {
    sqlx::query(
        "UPDATE users SET email = $1, encrypted_password = $2, email_confirmed_at = $3, \
         app_metadata = $4, user_metadata = $5, phone = $6, phone_confirmed_at = $7, \
         email_change = $8, invited_at = $9, banned_until = $10, is_anonymous = $11, \
         updated_at = $12 WHERE id = $13 AND deleted_at IS NULL",
    )
    .bind(nullable(&user.email))
    .bind(&user.encrypted_password)
    .bind(user.email_confirmed_at)
    .bind(&user.app_metadata)
    .bind(&user.user_metadata)
    .bind(nullable(&user.phone))
    .bind(user.phone_confirmed_at)
    .bind(&user.email_change)
    .bind(user.invited_at)
    .bind(user.banned_until)
    .bind(i64::from(user.is_anonymous))
    .bind(user.updated_at)
    .bind(&user.id)
    .execute(db.pool())
    .await
    .map_err(DbError::from_write)?;
    Ok(())
}

/// Records the address of a pending email change.
pub async fn set_email_change(
    db: &Db,
    id: &str,
    email: Option<&str>,
    now: i64,
) -> Result<(), DbError> {
    sqlx::query("UPDATE users SET email_change = $1, updated_at = $2 WHERE id = $3")
        .bind(email)
        .bind(now)
        .bind(id)
        .execute(db.pool())
        .await?;
    Ok(())
}

/// Marks the phone number confirmed (first confirmation only).
pub async fn confirm_phone(db: &Db, id: &str, now: i64) -> Result<(), DbError> {
    sqlx::query(
        "UPDATE users SET phone_confirmed_at = $1, updated_at = $1 \
         WHERE id = $2 AND phone_confirmed_at IS NULL",
    )
    .bind(now)
    .bind(id)
    .execute(db.pool())
    .await?;
    Ok(())
}

/// Deletes the user and, by cascade, everything they own (sessions, factors, tokens, media,
/// creatives, locations, simulations, heatmaps). Returns whether a row went.
pub async fn delete(db: &Db, id: &str) -> Result<bool, DbError> {
    let done = sqlx::query("DELETE FROM users WHERE id = $1")
        .bind(id)
        .execute(db.pool())
        .await?;
    Ok(done.rows_affected() > 0)
}

/// Soft deletion (GoTrue's `should_soft_delete`): the row and what the user owns stay, but the
/// address and phone number are freed, the password and sessions go, and the user can no
/// longer be found or sign in. Returns whether a row changed.
pub async fn soft_delete(db: &Db, id: &str, now: i64) -> Result<bool, DbError> {
    let mut tx = db.begin_write().await?;
    let done = sqlx::query(
        "UPDATE users SET email = NULL, phone = NULL, email_change = NULL, \
         encrypted_password = '', deleted_at = $1, updated_at = $1 \
         WHERE id = $2 AND deleted_at IS NULL",
    )
    .bind(now)
    .bind(id)
    .execute(&mut *tx)
    .await?;
    for table in [
        "sessions",
        "refresh_tokens",
        "identities",
        "mfa_factors",
        "mfa_recovery_codes",
        "one_time_tokens",
    ] {
        sqlx::query(&format!("DELETE FROM {table} WHERE user_id = $1"))
            .bind(id)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(done.rows_affected() > 0)
}
