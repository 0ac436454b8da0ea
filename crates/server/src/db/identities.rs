//! Queries on `identities`: the provider accounts (OpenID Connect `sub`) a user signs in with.
//! Writes that touch a user and an identity together run in one transaction.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::users::UserRow;
use super::{Db, DbError};

/// A stored provider identity. `identity_data` holds JSON text.
#[derive(Debug, Clone)]
pub struct IdentityRow {
    pub id: String,
    pub user_id: String,
    pub provider: String,
    /// The provider's subject (`sub`).
    pub provider_id: String,
    pub identity_data: String,
    pub email: Option<String>,
    pub last_sign_in_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// How a sign-in through an identity changes its user.
#[derive(Debug, Clone)]
pub struct UserChange<'a> {
    pub app_metadata: &'a str,
    pub user_metadata: &'a str,
    /// Marks the email confirmed (when it is not yet).
    pub confirm_email: bool,
    /// Removes the password: an unconfirmed password set by someone else must not stay a way
    /// into an account whose address the provider has just proven.
    pub clear_password: bool,
    pub now: i64,
}

const COLUMNS: &str = "id, user_id, provider, provider_id, identity_data, email, \
                       last_sign_in_at, created_at, updated_at";

fn from_row(row: &AnyRow) -> Result<IdentityRow, sqlx::Error> {
    Ok(IdentityRow {
        id: row.try_get("id")?,
        user_id: row.try_get("user_id")?,
        provider: row.try_get("provider")?,
        provider_id: row.try_get("provider_id")?,
        identity_data: row.try_get("identity_data")?,
        email: row.try_get("email")?,
        last_sign_in_at: row.try_get("last_sign_in_at")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

/// The identity of this provider account.
pub async fn find(
    db: &Db,
    provider: &str,
    provider_id: &str,
) -> Result<Option<IdentityRow>, DbError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM identities WHERE provider = $1 AND provider_id = $2"
    ))
    .bind(provider)
    .bind(provider_id)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// A user's identities, oldest first.
pub async fn for_user(db: &Db, user_id: &str) -> Result<Vec<IdentityRow>, DbError> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM identities WHERE user_id = $1 ORDER BY created_at, id"
    ))
    .bind(user_id)
    .fetch_all(db.pool())
    .await?;
    Ok(rows.iter().map(from_row).collect::<Result<_, _>>()?)
}

async fn insert_identity(
    conn: &mut sqlx::AnyConnection,
    identity: &IdentityRow,
) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO identities (id, user_id, provider, provider_id, identity_data, email, \
         last_sign_in_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(&identity.id)
    .bind(&identity.user_id)
    .bind(&identity.provider)
    .bind(&identity.provider_id)
    .bind(&identity.identity_data)
    .bind(&identity.email)
    .bind(identity.last_sign_in_at)
    .bind(identity.created_at)
    .bind(identity.updated_at)
    .execute(conn)
    .await
    .map_err(DbError::from_write)?;
    Ok(())
}

async fn change_user(
    conn: &mut sqlx::AnyConnection,
    user_id: &str,
    change: &UserChange<'_>,
) -> Result<(), DbError> {
    // Two fixed query texts rather than a boolean parameter: sqlx's Any driver decodes SQLite
    // booleans poorly, and the texts stay readable.
    let password = if change.clear_password {
        ", encrypted_password = ''"
    } else {
        ""
    };
    let confirm = if change.confirm_email {
        ", email_confirmed_at = COALESCE(email_confirmed_at, $3)"
    } else {
        ""
    };
    sqlx::query(&format!(
        "UPDATE users SET app_metadata = $1, user_metadata = $2, updated_at = $3{confirm}{password} \
         WHERE id = $4"
    ))
    .bind(change.app_metadata)
    .bind(change.user_metadata)
    .bind(change.now)
    .bind(user_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Creates a user and its first identity together; [`DbError::Conflict`] when the email or
/// the provider account is taken (a concurrent sign-in).
pub async fn create_user(db: &Db, user: &UserRow, identity: &IdentityRow) -> Result<(), DbError> {
    let mut tx = db.begin_write().await?;
    super::users::insert_on(&mut tx, user).await?;
    insert_identity(&mut tx, identity).await?;
    tx.commit().await?;
    Ok(())
}

/// Adds an identity to an existing user and applies `change` to the user.
pub async fn link(db: &Db, identity: &IdentityRow, change: &UserChange<'_>) -> Result<(), DbError> {
    let mut tx = db.begin_write().await?;
    // The user's row is written first so SQLite takes its write lock at once.
    change_user(&mut tx, &identity.user_id, change).await?;
    insert_identity(&mut tx, identity).await?;
    tx.commit().await?;
    Ok(())
}

/// Records a sign-in through an existing identity: its latest data, and `change` on the user.
pub async fn record_sign_in(
    db: &Db,
    identity: &IdentityRow,
    change: &UserChange<'_>,
) -> Result<(), DbError> {
    let mut tx = db.begin_write().await?;
    change_user(&mut tx, &identity.user_id, change).await?;
    sqlx::query(
        "UPDATE identities SET identity_data = $1, email = $2, last_sign_in_at = $3, \
         updated_at = $3 WHERE id = $4",
    )
    .bind(&identity.identity_data)
    .bind(&identity.email)
    .bind(change.now)
    .bind(&identity.id)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}
