//! Queries on `creatives`: an ad image (a media row) with a name, brand, campaign and notes.
//! Lists are newest first with keyset pagination on `(created_at, id)`; `search` holds the
//! normalised name, brand and campaign (see [`super::search`]).

use sqlx::Row;
use sqlx::any::AnyRow;

use super::media::{self, MediaRow};
use super::{Db, DbError, page, search};

/// A stored creative.
#[derive(Debug, Clone, PartialEq)]
pub struct CreativeRow {
    pub id: String,
    pub owner_id: String,
    pub media_id: String,
    pub name: String,
    pub brand: Option<String>,
    pub campaign: Option<String>,
    pub notes: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl CreativeRow {
    fn search(&self) -> String {
        search::document(&[
            Some(&self.name),
            self.brand.as_deref(),
            self.campaign.as_deref(),
        ])
    }
}

/// A creative with its image.
#[derive(Debug, Clone, PartialEq)]
pub struct CreativeWithMedia {
    pub creative: CreativeRow,
    pub media: MediaRow,
}

fn select() -> String {
    format!(
        "SELECT c.id, c.owner_id, c.media_id, c.name, c.brand, c.campaign, c.notes, \
         c.created_at, c.updated_at, {} FROM creatives c JOIN media m ON m.id = c.media_id",
        media::columns("m", "m_")
    )
}

fn from_row(row: &AnyRow) -> Result<CreativeWithMedia, sqlx::Error> {
    let media = media::from_row(row, "m_")?
        .ok_or_else(|| sqlx::Error::ColumnNotFound("m_id".to_owned()))?;
    Ok(CreativeWithMedia {
        creative: CreativeRow {
            id: row.try_get("id")?,
            owner_id: row.try_get("owner_id")?,
            media_id: row.try_get("media_id")?,
            name: row.try_get("name")?,
            brand: row.try_get("brand")?,
            campaign: row.try_get("campaign")?,
            notes: row.try_get("notes")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
        },
        media,
    })
}

/// Inserts a creative.
pub async fn insert(db: &Db, creative: &CreativeRow) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO creatives (id, owner_id, media_id, name, brand, campaign, notes, search, \
         created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(&creative.id)
    .bind(&creative.owner_id)
    .bind(&creative.media_id)
    .bind(&creative.name)
    .bind(&creative.brand)
    .bind(&creative.campaign)
    .bind(&creative.notes)
    .bind(creative.search())
    .bind(creative.created_at)
    .bind(creative.updated_at)
    .execute(db.pool())
    .await
    .map_err(DbError::from_write)?;
    Ok(())
}

/// The owner's creative with this id.
pub async fn find(db: &Db, owner_id: &str, id: &str) -> Result<Option<CreativeWithMedia>, DbError> {
    let row = sqlx::query(&format!("{} WHERE c.id = $1 AND c.owner_id = $2", select()))
        .bind(id)
        .bind(owner_id)
        .fetch_optional(db.pool())
        .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// One page of the owner's creatives, newest first, optionally after `(created_at, id)` and
/// filtered by a search query. Fetches `limit + 1` rows so the caller knows whether more follow.
pub async fn list(
    db: &Db,
    owner_id: &str,
    limit: i64,
    after: Option<(i64, &str)>,
    query: &str,
) -> Result<Vec<CreativeWithMedia>, DbError> {
    let request = page::PageRequest {
        owner_id,
        limit,
        after,
        query,
        filters: &[],
    };
    page::newest_first(db, &select(), "c", request, from_row).await
}

/// Saves the editable fields (name, brand, campaign, notes) and `updated_at`.
pub async fn update(db: &Db, creative: &CreativeRow) -> Result<bool, DbError> {
    let done = sqlx::query(
        "UPDATE creatives SET name = $1, brand = $2, campaign = $3, notes = $4, search = $5, \
         updated_at = $6 WHERE id = $7 AND owner_id = $8",
    )
    .bind(&creative.name)
    .bind(&creative.brand)
    .bind(&creative.campaign)
    .bind(&creative.notes)
    .bind(creative.search())
    .bind(creative.updated_at)
    .bind(&creative.id)
    .bind(&creative.owner_id)
    .execute(db.pool())
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Deletes the owner's creative with the simulations made from it (and their jobs), in one
/// transaction. Returns the media ids to release (the creative's image first, then the
/// simulations' outputs and masks), or `None` when there was no such creative.
pub async fn delete(db: &Db, owner_id: &str, id: &str) -> Result<Option<Vec<String>>, DbError> {
    let mut tx = db.pool().begin().await?;
    let released = super::simulations::delete_for_creative(&mut tx, owner_id, id).await?;
    let row =
        sqlx::query("DELETE FROM creatives WHERE id = $1 AND owner_id = $2 RETURNING media_id")
            .bind(id)
            .bind(owner_id)
            .fetch_optional(&mut *tx)
            .await?;
    let Some(row) = row else {
        tx.rollback().await?;
        return Ok(None);
    };
    tx.commit().await?;
    let mut media = vec![row.try_get::<String, _>("media_id")?];
    media.extend(released);
    Ok(Some(media))
}
