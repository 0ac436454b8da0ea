//! Queries on `heatmap_aois`: named areas of interest saved on heatmap items. Every query is
//! scoped by owner; names are unique per item (case and accents ignored, `name_key`), so areas
//! of the same name line up across the images of a heatmap.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError, search};

/// A stored area of interest.
#[derive(Debug, Clone, PartialEq)]
pub struct AoiRow {
    pub id: String,
    pub item_id: String,
    pub heatmap_id: String,
    pub owner_id: String,
    pub name: String,
    /// `rect` or `polygon`.
    pub shape: String,
    /// JSON text `[{"x", "y"}, …]`, relative to the image.
    pub points: String,
    pub created_at: i64,
    pub updated_at: i64,
}

/// A new shape (and name) for an area.
#[derive(Debug, Clone, PartialEq)]
pub struct AoiShape {
    pub shape: &'static str,
    /// JSON text of the points.
    pub points: String,
}

/// Why a write was refused.
#[derive(Debug, thiserror::Error)]
pub enum AoiWriteError {
    /// Another area of the item has that name.
    #[error("an area of this item already has that name")]
    NameTaken,
    /// The item would hold more than the allowed number of areas.
    #[error("too many areas of interest on one item")]
    TooMany,
    #[error(transparent)]
    Db(#[from] DbError),
}

impl From<sqlx::Error> for AoiWriteError {
    fn from(err: sqlx::Error) -> Self {
        match DbError::from_write(err) {
            DbError::Conflict => AoiWriteError::NameTaken,
            other => AoiWriteError::Db(other),
        }
    }
}

const COLUMNS: &str =
    "id, item_id, heatmap_id, owner_id, name, shape, points, created_at, updated_at";

fn from_row(row: &AnyRow) -> Result<AoiRow, sqlx::Error> {
    Ok(AoiRow {
        id: row.try_get("id")?,
        item_id: row.try_get("item_id")?,
        heatmap_id: row.try_get("heatmap_id")?,
        owner_id: row.try_get("owner_id")?,
        name: row.try_get("name")?,
        shape: row.try_get("shape")?,
        points: row.try_get("points")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

/// The key that makes names unique per item: lowercase, no diacritics, spaces collapsed.
pub fn name_key(name: &str) -> String {
    search::normalize(name)
}

/// The areas of every item of a heatmap, by item and in the order they were made.
pub async fn for_heatmap(db: &Db, heatmap_id: &str) -> Result<Vec<AoiRow>, DbError> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM heatmap_aois WHERE heatmap_id = $1 ORDER BY item_id, position"
    ))
    .bind(heatmap_id)
    .fetch_all(db.pool())
    .await?;
    Ok(rows.iter().map(from_row).collect::<Result<_, _>>()?)
}

/// Another of the owner's areas with a name some area of the heatmap has, as [`with_names`]
/// reads it for the benchmarks (`heatmaps::benchmark`).
#[derive(Debug, Clone, PartialEq)]
pub struct NamedArea {
    pub id: String,
    pub item_id: String,
    pub name_key: String,
    /// JSON text of the points.
    pub points: String,
}

/// The owner's areas whose name key is one of `keys`, on done items, for benchmarks (an area
/// against the owner's other areas of its name).
pub async fn with_names(
    db: &Db,
    owner_id: &str,
    keys: &[String],
) -> Result<Vec<NamedArea>, DbError> {
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let placeholders: Vec<String> = (0..keys.len()).map(|i| format!("${}", i + 2)).collect();
    let sql = format!(
        "SELECT a.id, a.item_id, a.name_key, a.points FROM heatmap_aois a \
         JOIN heatmap_items i ON i.id = a.item_id \
         WHERE a.owner_id = $1 AND i.status = 'done' AND a.name_key IN ({}) \
         ORDER BY a.created_at, a.id",
        placeholders.join(", ")
    );
    let mut query = sqlx::query(&sql).bind(owner_id);
    for key in keys {
        query = query.bind(key);
    }
    let rows = query.fetch_all(db.pool()).await?;
    rows.iter()
        .map(|row| {
            Ok(NamedArea {
                id: row.try_get("id")?,
                item_id: row.try_get("item_id")?,
                name_key: row.try_get("name_key")?,
                points: row.try_get("points")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(DbError::from)
}

/// The areas of one item, in the order they were made.
pub async fn for_item(db: &Db, item_id: &str) -> Result<Vec<AoiRow>, DbError> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM heatmap_aois WHERE item_id = $1 ORDER BY item_id, position"
    ))
    .bind(item_id)
    .fetch_all(db.pool())
    .await?;
    Ok(rows.iter().map(from_row).collect::<Result<_, _>>()?)
}

/// One area, if `owner_id` owns it and it belongs to that item of that heatmap.
pub async fn find_owned(
    db: &Db,
    owner_id: &str,
    heatmap_id: &str,
    item_id: &str,
    id: &str,
) -> Result<Option<AoiRow>, DbError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM heatmap_aois \
         WHERE id = $1 AND item_id = $2 AND heatmap_id = $3 AND owner_id = $4"
    ))
    .bind(id)
    .bind(item_id)
    .bind(heatmap_id)
    .bind(owner_id)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// How many areas the item holds, and the position of the next one.
async fn count_on_item(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    item_id: &str,
) -> Result<(i64, i64), sqlx::Error> {
    let row = sqlx::query(
        "SELECT COUNT(*) AS n, COALESCE(MAX(position), -1) + 1 AS next \
         FROM heatmap_aois WHERE item_id = $1",
    )
    .bind(item_id)
    .fetch_one(&mut **tx)
    .await?;
    Ok((row.try_get("n")?, row.try_get("next")?))
}

async fn insert_row(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    aoi: &AoiRow,
    position: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO heatmap_aois (id, item_id, heatmap_id, owner_id, name, name_key, shape, \
         points, position, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    )
    .bind(&aoi.id)
    .bind(&aoi.item_id)
    .bind(&aoi.heatmap_id)
    .bind(&aoi.owner_id)
    .bind(&aoi.name)
    .bind(name_key(&aoi.name))
    .bind(&aoi.shape)
    .bind(&aoi.points)
    .bind(position)
    .bind(aoi.created_at)
    .bind(aoi.updated_at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Inserts an area, unless its item already holds `max` areas or one of the same name.
pub async fn insert(db: &Db, aoi: &AoiRow, max: i64) -> Result<(), AoiWriteError> {
    let mut tx = db.begin_write().await.map_err(DbError::from)?;
    let (count, position) = count_on_item(&mut tx, &aoi.item_id).await?;
    if count >= max {
        return Err(AoiWriteError::TooMany);
    }
    insert_row(&mut tx, aoi, position).await?;
    tx.commit().await.map_err(DbError::from)?;
    Ok(())
}

/// Renames and/or reshapes an owned area; `None` when there is no such area.
pub async fn update(
    db: &Db,
    owner_id: &str,
    id: &str,
    name: Option<&str>,
    shape: Option<&AoiShape>,
    now: i64,
) -> Result<Option<()>, AoiWriteError> {
    let done = sqlx::query(
        "UPDATE heatmap_aois SET name = COALESCE($1, name), name_key = COALESCE($2, name_key), \
         shape = COALESCE($3, shape), points = COALESCE($4, points), updated_at = $5 \
         WHERE id = $6 AND owner_id = $7",
    )
    .bind(name)
    .bind(name.map(name_key))
    .bind(shape.map(|s| s.shape))
    .bind(shape.map(|s| s.points.as_str()))
    .bind(now)
    .bind(id)
    .bind(owner_id)
    .execute(db.pool())
    .await?;
    Ok((done.rows_affected() > 0).then_some(()))
}

/// Deletes an owned area of that item; whether there was one.
pub async fn delete(db: &Db, owner_id: &str, item_id: &str, id: &str) -> Result<bool, DbError> {
    let done =
        sqlx::query("DELETE FROM heatmap_aois WHERE id = $1 AND item_id = $2 AND owner_id = $3")
            .bind(id)
            .bind(item_id)
            .bind(owner_id)
            .execute(db.pool())
            .await?;
    Ok(done.rows_affected() > 0)
}

/// Copies areas onto other items of the same heatmap, in one transaction: on each target, an
/// area of the same name takes the copied shape, otherwise a new area is made (fresh ids from
/// `new_id`). Nothing is written when a target would exceed `max` areas.
pub async fn copy(
    db: &Db,
    sources: &[AoiRow],
    targets: &[String],
    max: i64,
    now: i64,
    mut new_id: impl FnMut() -> String,
) -> Result<(), AoiWriteError> {
    let mut tx = db.begin_write().await.map_err(DbError::from)?;
    for target in targets {
        for source in sources {
            let updated = sqlx::query(
                "UPDATE heatmap_aois SET shape = $1, points = $2, updated_at = $3 \
                 WHERE item_id = $4 AND name_key = $5",
            )
            .bind(&source.shape)
            .bind(&source.points)
            .bind(now)
            .bind(target)
            .bind(name_key(&source.name))
            .execute(&mut *tx)
            .await?;
            if updated.rows_affected() > 0 {
                continue;
            }
            let (count, position) = count_on_item(&mut tx, target).await?;
            if count >= max {
                return Err(AoiWriteError::TooMany);
            }
            let copy = AoiRow {
                id: new_id(),
                item_id: target.clone(),
                created_at: now,
                updated_at: now,
                ..source.clone()
            };
            insert_row(&mut tx, &copy, position).await?;
        }
    }
    tx.commit().await.map_err(DbError::from)?;
    Ok(())
}
