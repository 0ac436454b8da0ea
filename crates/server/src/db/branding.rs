//! Queries on `account_branding`: an account's agency name, accent colour and logo.

use sqlx::Row;

use super::{Db, DbError};

/// An account's branding; every part optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BrandingRow {
    pub agency_name: Option<String>,
    /// `#rrggbb`.
    pub accent_color: Option<String>,
    pub logo_media_id: Option<String>,
}

impl BrandingRow {
    /// Whether nothing is set (reports and share pages look as without branding).
    pub fn is_empty(&self) -> bool {
        self.agency_name.is_none() && self.accent_color.is_none() && self.logo_media_id.is_none()
    }
}

/// The account's branding; empty when never set.
pub async fn get(db: &Db, user_id: &str) -> Result<BrandingRow, DbError> {
    let row = sqlx::query(
        "SELECT agency_name, accent_color, logo_media_id FROM account_branding WHERE user_id = $1",
    )
    .bind(user_id)
    .fetch_optional(db.pool())
    .await?;
    let Some(row) = row else {
        return Ok(BrandingRow::default());
    };
    Ok(BrandingRow {
        agency_name: row.try_get("agency_name")?,
        accent_color: row.try_get("accent_color")?,
        logo_media_id: row.try_get("logo_media_id")?,
    })
}

/// Replaces the account's branding.
pub async fn put(db: &Db, user_id: &str, branding: &BrandingRow, now: i64) -> Result<(), DbError> {
    let mut tx = db.begin_write().await?;
    sqlx::query("DELETE FROM account_branding WHERE user_id = $1")
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
    if !branding.is_empty() {
        sqlx::query(
            "INSERT INTO account_branding (user_id, agency_name, accent_color, logo_media_id, updated_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(user_id)
        .bind(&branding.agency_name)
        .bind(&branding.accent_color)
        .bind(&branding.logo_media_id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}
