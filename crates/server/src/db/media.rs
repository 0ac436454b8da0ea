//! Queries on `media`: one row per stored image per owner. Objects are content-addressed
//! (`sha256`), so two rows (two users uploading the same file) can share objects; they are
//! deleted only when the last row with that hash goes.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError, Float};

/// A stored image.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaRow {
    pub id: String,
    pub owner_id: String,
    /// `upload`, `render` or `heatmap`.
    pub kind: String,
    /// MIME type of the original.
    pub mime: String,
    pub width: i64,
    pub height: i64,
    /// Size of the stored original.
    pub bytes: i64,
    pub sha256: String,
    /// The uploaded file's name, as the client sent it.
    pub original_name: Option<String>,
    pub original_key: String,
    pub preview_key: String,
    pub preview_mime: String,
    pub thumbnail_key: String,
    pub thumbnail_mime: String,
    pub gps_latitude: Option<f64>,
    pub gps_longitude: Option<f64>,
    pub created_at: i64,
}

const FIELDS: [&str; 17] = [
    "id",
    "owner_id",
    "kind",
    "mime",
    "width",
    "height",
    "bytes",
    "sha256",
    "original_name",
    "original_key",
    "preview_key",
    "preview_mime",
    "thumbnail_key",
    "thumbnail_mime",
    "gps_latitude",
    "gps_longitude",
    "created_at",
];

/// `alias.col AS prefixcol, ...` for selecting a media row beside another table's columns.
pub(crate) fn columns(alias: &str, prefix: &str) -> String {
    FIELDS
        .iter()
        .map(|f| format!("{alias}.{f} AS {prefix}{f}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads a media row whose columns carry `prefix`; `None` when its id is NULL (a LEFT JOIN
/// that found nothing).
pub(crate) fn from_row(row: &AnyRow, prefix: &str) -> Result<Option<MediaRow>, sqlx::Error> {
    let col = |name: &str| format!("{prefix}{name}");
    let Some(id) = row.try_get::<Option<String>, _>(col("id").as_str())? else {
        return Ok(None);
    };
    Ok(Some(MediaRow {
        id,
        owner_id: row.try_get(col("owner_id").as_str())?,
        kind: row.try_get(col("kind").as_str())?,
        mime: row.try_get(col("mime").as_str())?,
        width: row.try_get(col("width").as_str())?,
        height: row.try_get(col("height").as_str())?,
        bytes: row.try_get(col("bytes").as_str())?,
        sha256: row.try_get(col("sha256").as_str())?,
        original_name: row.try_get(col("original_name").as_str())?,
        original_key: row.try_get(col("original_key").as_str())?,
        preview_key: row.try_get(col("preview_key").as_str())?,
        preview_mime: row.try_get(col("preview_mime").as_str())?,
        thumbnail_key: row.try_get(col("thumbnail_key").as_str())?,
        thumbnail_mime: row.try_get(col("thumbnail_mime").as_str())?,
        gps_latitude: row.try_get(col("gps_latitude").as_str())?,
        gps_longitude: row.try_get(col("gps_longitude").as_str())?,
        created_at: row.try_get(col("created_at").as_str())?,
    }))
}

/// What the API shows of a media row: no owner, no storage keys. Lists read only these
/// columns (every column a row carries is copied twice on its way out of SQLite).
#[derive(Debug, Clone, PartialEq)]
pub struct MediaCard {
    pub id: String,
    pub kind: String,
    pub mime: String,
    pub width: i64,
    pub height: i64,
    pub bytes: i64,
    pub sha256: String,
    pub original_name: Option<String>,
    pub gps_latitude: Option<f64>,
    pub gps_longitude: Option<f64>,
    pub created_at: i64,
}

/// The columns of a [`MediaCard`], in the order [`card_at`] reads them.
const CARD_FIELDS: [&str; 11] = [
    "id",
    "kind",
    "mime",
    "width",
    "height",
    "bytes",
    "sha256",
    "original_name",
    "gps_latitude",
    "gps_longitude",
    "created_at",
];

impl MediaRow {
    /// What the API shows of this row.
    pub fn card(&self) -> MediaCard {
        MediaCard {
            id: self.id.clone(),
            kind: self.kind.clone(),
            mime: self.mime.clone(),
            width: self.width,
            height: self.height,
            bytes: self.bytes,
            sha256: self.sha256.clone(),
            original_name: self.original_name.clone(),
            gps_latitude: self.gps_latitude,
            gps_longitude: self.gps_longitude,
            created_at: self.created_at,
        }
    }
}

/// `alias.col, ...`: the columns of a [`MediaCard`], for a select that reads them by position.
pub(crate) fn card_columns(alias: &str) -> String {
    CARD_FIELDS
        .iter()
        .map(|f| format!("{alias}.{f}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads the [`card_columns`] that start at column `first` (by position: a list's rows are
/// read without looking their columns up by name).
pub(crate) fn card_at(row: &AnyRow, first: usize) -> Result<MediaCard, sqlx::Error> {
    Ok(MediaCard {
        id: row.try_get(first)?,
        kind: row.try_get(first + 1)?,
        mime: row.try_get(first + 2)?,
        width: row.try_get(first + 3)?,
        height: row.try_get(first + 4)?,
        bytes: row.try_get(first + 5)?,
        sha256: row.try_get(first + 6)?,
        original_name: row.try_get(first + 7)?,
        gps_latitude: row.try_get(first + 8)?,
        gps_longitude: row.try_get(first + 9)?,
        created_at: row.try_get(first + 10)?,
    })
}

/// Inserts a media row.
pub async fn insert(db: &Db, media: &MediaRow) -> Result<(), DbError> {
    let mut conn = db.pool().acquire().await?;
    insert_in(&mut conn, media).await
}

/// Inserts a media row on the caller's connection (inside its transaction).
pub async fn insert_in(conn: &mut sqlx::AnyConnection, media: &MediaRow) -> Result<(), DbError> {
    let placeholders = (1..=FIELDS.len())
        .map(|n| format!("${n}"))
        .collect::<Vec<_>>()
        .join(", ");
    sqlx::query(&format!(
        "INSERT INTO media ({}) VALUES ({placeholders})",
        FIELDS.join(", ")
    ))
    .bind(&media.id)
    .bind(&media.owner_id)
    .bind(&media.kind)
    .bind(&media.mime)
    .bind(media.width)
    .bind(media.height)
    .bind(media.bytes)
    .bind(&media.sha256)
    .bind(&media.original_name)
    .bind(&media.original_key)
    .bind(&media.preview_key)
    .bind(&media.preview_mime)
    .bind(&media.thumbnail_key)
    .bind(&media.thumbnail_mime)
    .bind(Float(media.gps_latitude))
    .bind(Float(media.gps_longitude))
    .bind(media.created_at)
    .execute(conn)
    .await
    .map_err(DbError::from_write)?;
    Ok(())
}

/// The media row with this id, whoever owns it (for signed URLs, which carry their own proof).
pub async fn find(db: &Db, id: &str) -> Result<Option<MediaRow>, DbError> {
    let row = sqlx::query(&format!(
        "SELECT {} FROM media m WHERE m.id = $1",
        columns("m", "")
    ))
    .bind(id)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.as_ref().map(|r| from_row(r, "")).transpose()?.flatten())
}

/// Every media row `owner_id` owns (to delete their objects after the account goes).
pub async fn all_owned(db: &Db, owner_id: &str) -> Result<Vec<MediaRow>, DbError> {
    let rows = sqlx::query(&format!(
        "SELECT {} FROM media m WHERE m.owner_id = $1",
        columns("m", "")
    ))
    .bind(owner_id)
    .fetch_all(db.pool())
    .await?;
    let mut media = Vec::with_capacity(rows.len());
    for row in &rows {
        media.extend(from_row(row, "")?);
    }
    Ok(media)
}

/// What `owner_id` stores: the sum of the `bytes` of their media rows, and how many rows.
pub async fn usage(db: &Db, owner_id: &str) -> Result<(i64, i64), DbError> {
    let row = sqlx::query(
        "SELECT CAST(COALESCE(SUM(bytes), 0) AS BIGINT) AS used, COUNT(*) AS n \
         FROM media WHERE owner_id = $1",
    )
    .bind(owner_id)
    .fetch_one(db.pool())
    .await?;
    Ok((row.try_get("used")?, row.try_get("n")?))
}

/// The media row with this id if `owner_id` owns it.
pub async fn find_owned(db: &Db, owner_id: &str, id: &str) -> Result<Option<MediaRow>, DbError> {
    Ok(find(db, id).await?.filter(|m| m.owner_id == owner_id))
}

/// Deletes the row unless something still references it (a creative, a location photo, a
/// heatmap item's source or output, a simulation's output, PNG or mask). Returns whether it
/// was deleted.
pub async fn delete_if_unreferenced(db: &Db, id: &str) -> Result<bool, DbError> {
    let done = sqlx::query(
        "DELETE FROM media WHERE id = $1 \
         AND NOT EXISTS (SELECT 1 FROM creatives WHERE creatives.media_id = $1) \
         AND NOT EXISTS (SELECT 1 FROM locations WHERE locations.photo_media_id = $1) \
         AND NOT EXISTS (SELECT 1 FROM heatmap_items h WHERE h.source_media_id = $1 \
           OR h.map_media_id = $1 OR h.overlay_media_id = $1 OR h.fog_media_id = $1 \
           OR h.glance_map_media_id = $1 OR h.glance_overlay_media_id = $1 \
           OR h.glance_fog_media_id = $1) \
         AND NOT EXISTS (SELECT 1 FROM simulations s WHERE s.output_media_id = $1 \
           OR s.output_png_media_id = $1 OR s.mask_media_id = $1) \
         AND NOT EXISTS (SELECT 1 FROM account_branding b WHERE b.logo_media_id = $1)",
    )
    .bind(id)
    .execute(db.pool())
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Uploads created before `cutoff_ms` that nothing uses (see [`delete_if_unreferenced`]),
/// oldest first, at most `limit`.
pub async fn unused_uploads(db: &Db, cutoff_ms: i64, limit: i64) -> Result<Vec<String>, DbError> {
    let rows = sqlx::query(
        "SELECT m.id FROM media m WHERE m.kind = 'upload' AND m.created_at < $1 \
         AND NOT EXISTS (SELECT 1 FROM creatives WHERE creatives.media_id = m.id) \
         AND NOT EXISTS (SELECT 1 FROM locations WHERE locations.photo_media_id = m.id) \
         AND NOT EXISTS (SELECT 1 FROM heatmap_items h WHERE h.source_media_id = m.id) \
         AND NOT EXISTS (SELECT 1 FROM simulations s WHERE s.mask_media_id = m.id) \
         AND NOT EXISTS (SELECT 1 FROM account_branding b WHERE b.logo_media_id = m.id) \
         ORDER BY m.created_at, m.id LIMIT $2",
    )
    .bind(cutoff_ms)
    .bind(limit)
    .fetch_all(db.pool())
    .await?;
    rows.iter()
        .map(|row| row.try_get("id").map_err(DbError::from))
        .collect()
}

/// Which of `hashes` some media row (of any owner) has.
pub async fn existing_hashes(
    db: &Db,
    hashes: &[String],
) -> Result<std::collections::HashSet<String>, DbError> {
    let mut found = std::collections::HashSet::new();
    if hashes.is_empty() {
        return Ok(found);
    }
    let placeholders: Vec<String> = (1..=hashes.len()).map(|n| format!("${n}")).collect();
    let sql = format!(
        "SELECT DISTINCT sha256 FROM media WHERE sha256 IN ({})",
        placeholders.join(", ")
    );
    let mut query = sqlx::query(&sql);
    for hash in hashes {
        query = query.bind(hash);
    }
    for row in query.fetch_all(db.pool()).await? {
        found.insert(row.try_get("sha256")?);
    }
    Ok(found)
}

/// How many rows (of any owner) use the objects of this content hash.
pub async fn count_by_sha256(db: &Db, sha256: &str) -> Result<i64, DbError> {
    let row = sqlx::query("SELECT COUNT(*) AS n FROM media WHERE sha256 = $1")
        .bind(sha256)
        .fetch_one(db.pool())
        .await?;
    Ok(row.try_get("n")?)
}

/// Number of media rows (tests and diagnostics).
pub async fn count_all(db: &Db) -> Result<i64, DbError> {
    let row = sqlx::query("SELECT COUNT(*) AS n FROM media")
        .fetch_one(db.pool())
        .await?;
    Ok(row.try_get("n")?)
}

/// What a media shows, by name: the creative, location (photo) or simulation (render) it
/// belongs to, so that pages and reports name images as the user named them.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaLabel {
    /// `creative`, `location` or `simulation`.
    pub kind: &'static str,
    pub id: String,
    pub name: String,
}

/// The labels of the owner's media among `ids` (those with none are absent). A media used by
/// several rows takes the first of creative, location, simulation, and the newest of its kind.
pub async fn labels(
    db: &Db,
    owner_id: &str,
    ids: &[String],
) -> Result<std::collections::HashMap<String, MediaLabel>, DbError> {
    let mut out = std::collections::HashMap::new();
    if ids.is_empty() {
        return Ok(out);
    }
    let placeholders: Vec<String> = (0..ids.len()).map(|i| format!("${}", i + 2)).collect();
    let sources = [
        ("creative", "creatives", "media_id"),
        ("location", "locations", "photo_media_id"),
        ("simulation", "simulations", "output_media_id"),
    ];
    for (kind, table, column) in sources {
        let sql = format!(
            "SELECT id, name, {column} AS media_id FROM {table} \
             WHERE owner_id = $1 AND {column} IN ({}) ORDER BY created_at DESC, id DESC",
            placeholders.join(", ")
        );
        let mut query = sqlx::query(&sql).bind(owner_id);
        for id in ids {
            query = query.bind(id);
        }
        for row in query.fetch_all(db.pool()).await? {
            let media_id: String = row.try_get("media_id")?;
            out.entry(media_id).or_insert(MediaLabel {
                kind,
                id: row.try_get("id")?,
                name: row.try_get("name")?,
            });
        }
    }
    Ok(out)
}

/// The lines of text found in an image (JSON text) and the detector version that found them.
pub async fn text_lines(db: &Db, media_id: &str) -> Result<Option<(String, i64)>, DbError> {
    let row =
        sqlx::query("SELECT lines, detector_version FROM media_text_lines WHERE media_id = $1")
            .bind(media_id)
            .fetch_optional(db.pool())
            .await?;
    Ok(match row {
        Some(row) => Some((row.try_get("lines")?, row.try_get("detector_version")?)),
        None => None,
    })
}

/// Keeps the lines of text found in an image, replacing what an older detector found.
pub async fn save_text_lines(
    db: &Db,
    media_id: &str,
    lines: &str,
    version: i64,
) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO media_text_lines (media_id, lines, detector_version, created_at) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (media_id) DO UPDATE \
         SET lines = excluded.lines, detector_version = excluded.detector_version, \
         created_at = excluded.created_at",
    )
    .bind(media_id)
    .bind(lines)
    .bind(version)
    .bind(super::now_ms())
    .execute(db.pool())
    .await
    .map_err(DbError::from_write)?;
    Ok(())
}
