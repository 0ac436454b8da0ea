//! Queries on `creatives`: an ad image (a media row) with a name, brand, campaign and notes.
//! Lists are newest first with keyset pagination on `(created_at, id)`; `search` holds the
//! normalised name, brand, campaign and notes, `sort_name` the normalised name (see
//! [`super::search`]).

use sqlx::Row;
use sqlx::any::AnyRow;

use super::media::{self, MediaCard, MediaRow};
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
        search_of(
            &self.name,
            self.brand.as_deref(),
            self.campaign.as_deref(),
            self.notes.as_deref(),
        )
    }
}

/// The `search` text of a creative's fields.
pub(super) fn search_of(
    name: &str,
    brand: Option<&str>,
    campaign: Option<&str>,
    notes: Option<&str>,
) -> String {
    search::document(&[Some(name), brand, campaign, notes])
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

/// A creative with what the API shows of its image: a list's row.
#[derive(Debug, Clone, PartialEq)]
pub struct CreativeCard {
    pub creative: CreativeRow,
    pub media: MediaCard,
}

/// The number of creative columns before the image's in [`card_select`].
const CARD_CREATIVE_COLUMNS: usize = 9;

/// A list's select: the creative's columns, then its image's card, read by position
/// ([`card_from_row`]).
fn card_select() -> String {
    format!(
        "SELECT c.id, c.owner_id, c.media_id, c.name, c.brand, c.campaign, c.notes, \
         c.created_at, c.updated_at, {} FROM creatives c JOIN media m ON m.id = c.media_id",
        media::card_columns("m")
    )
}

fn card_from_row(row: &AnyRow) -> Result<CreativeCard, sqlx::Error> {
    Ok(CreativeCard {
        creative: CreativeRow {
            id: row.try_get(0)?,
            owner_id: row.try_get(1)?,
            media_id: row.try_get(2)?,
            name: row.try_get(3)?,
            brand: row.try_get(4)?,
            campaign: row.try_get(5)?,
            notes: row.try_get(6)?,
            created_at: row.try_get(7)?,
            updated_at: row.try_get(8)?,
        },
        media: media::card_at(row, CARD_CREATIVE_COLUMNS)?,
    })
}

/// Inserts a creative.
pub async fn insert(db: &Db, creative: &CreativeRow) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO creatives (id, owner_id, media_id, name, brand, campaign, notes, search, \
         created_at, updated_at, sort_name) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
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
    .bind(search::normalize(&creative.name))
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

/// How a creatives list is ordered (ties broken by id, in the same direction).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Sort {
    /// Newest first (the default, as [`list`]).
    Newest,
    Oldest,
    /// By name, A → Z (lowercased by the database).
    Name,
    /// By name, Z → A.
    NameDesc,
    /// Most pixels first.
    Largest,
    Smallest,
}

impl Sort {
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "newest" => Sort::Newest,
            "oldest" => Sort::Oldest,
            "name" => Sort::Name,
            "name_desc" => Sort::NameDesc,
            "largest" => Sort::Largest,
            "smallest" => Sort::Smallest,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Sort::Newest => "newest",
            Sort::Oldest => "oldest",
            Sort::Name => "name",
            Sort::NameDesc => "name_desc",
            Sort::Largest => "largest",
            Sort::Smallest => "smallest",
        }
    }

    /// The SQL of the sort key and whether it descends.
    fn key(self) -> (&'static str, bool) {
        match self {
            Sort::Newest => ("c.created_at", true),
            Sort::Oldest => ("c.created_at", false),
            Sort::Name => ("c.sort_name", false),
            Sort::NameDesc => ("c.sort_name", true),
            Sort::Largest => ("(m.width * m.height)", true),
            Sort::Smallest => ("(m.width * m.height)", false),
        }
    }

    /// Whether the key is text (names) rather than a number.
    pub fn is_text(self) -> bool {
        matches!(self, Sort::Name | Sort::NameDesc)
    }
}

pub use super::page::SortKey;

/// What a sorted page asks for.
#[derive(Debug, Clone)]
pub struct SortedPage<'a> {
    pub sort: Sort,
    pub limit: i64,
    /// `(key, id)` of the last item of the previous page.
    pub after: Option<(SortKey, &'a str)>,
    pub query: &'a str,
    /// Exact brand and campaign (as stored).
    pub brand: Option<&'a str>,
    pub campaign: Option<&'a str>,
}

/// One page of the owner's creatives in `page.sort` order, filtered by the search text, brand
/// and campaign, after the keyset position when given, each with its sort key as the database
/// computed it (the next cursor carries it, so `LOWER` need not agree with Rust's). Fetches
/// `limit + 1` rows so the caller knows whether more follow.
pub async fn list_sorted(
    db: &Db,
    owner_id: &str,
    page: &SortedPage<'_>,
) -> Result<Vec<(CreativeCard, SortKey)>, DbError> {
    let (key, descending) = page.sort.key();
    let mut filters = Vec::new();
    if let Some(brand) = page.brand {
        filters.push(("c.brand", brand));
    }
    if let Some(campaign) = page.campaign {
        filters.push(("c.campaign", campaign));
    }
    let request = super::page::SortedRequest {
        owner_id,
        limit: page.limit,
        key,
        descending,
        text: page.sort.is_text(),
        after: page.after.as_ref().map(|(key, id)| (key, *id)),
        query: page.query,
        filters: &filters,
    };
    super::page::sorted(db, &card_select(), "c", request, card_from_row).await
}

/// The owner's brands and campaigns with how many creatives have each, in alphabetical order
/// (accents and case ignored), for the library's filters.
pub async fn facets(
    db: &Db,
    owner_id: &str,
) -> Result<(Vec<(String, i64)>, Vec<(String, i64)>), DbError> {
    Ok((
        page::value_counts(db, "creatives", "brand", owner_id).await?,
        page::value_counts(db, "creatives", "campaign", owner_id).await?,
    ))
}

/// Saves the editable fields (name, brand, campaign, notes) and `updated_at`.
pub async fn update(db: &Db, creative: &CreativeRow) -> Result<bool, DbError> {
    let done = sqlx::query(
        "UPDATE creatives SET name = $1, brand = $2, campaign = $3, notes = $4, search = $5, \
         updated_at = $6, sort_name = $9 WHERE id = $7 AND owner_id = $8",
    )
    .bind(&creative.name)
    .bind(&creative.brand)
    .bind(&creative.campaign)
    .bind(&creative.notes)
    .bind(creative.search())
    .bind(creative.updated_at)
    .bind(&creative.id)
    .bind(&creative.owner_id)
    .bind(search::normalize(&creative.name))
    .execute(db.pool())
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Deletes the owner's creative with the simulations made from it (and their jobs), in one
/// transaction. Returns the media ids to release (the creative's image first, then the
/// simulations' outputs and masks), or `None` when there was no such creative.
pub async fn delete(db: &Db, owner_id: &str, id: &str) -> Result<Option<Vec<String>>, DbError> {
    let mut tx = db.begin_write().await?;
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
