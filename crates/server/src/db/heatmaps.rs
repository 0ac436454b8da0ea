//! Queries on `heatmaps` and `heatmap_items`: a named set of images, each with its attention
//! result once its job has run. A heatmap's status is derived from its items, never stored.
//! Creating a heatmap, retrying an item and deleting a heatmap each write their jobs in the same
//! transaction as the rows (see [`super::jobs`]).

use std::collections::HashMap;

use sqlx::Row;
use sqlx::any::AnyRow;

use super::aois::AoiRow;
use super::jobs::{self, NewJob};
use super::media::{self, MediaLabel, MediaRow};
use super::{Backend, Db, DbError, page, search};

/// A stored heatmap.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatmapRow {
    pub id: String,
    pub owner_id: String,
    pub name: String,
    pub created_at: i64,
    pub updated_at: i64,
}

/// A heatmap in a list: counts of its items by status, the mean and the best score of the done
/// ones, and the first image (for the card's thumbnail).
#[derive(Debug, Clone, PartialEq)]
pub struct HeatmapSummary {
    pub heatmap: HeatmapRow,
    pub counts: ItemCounts,
    pub score: Option<f64>,
    pub best_score: Option<f64>,
    pub first_source: Option<MediaRow>,
}

/// Items of a heatmap by status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ItemCounts {
    pub total: i64,
    pub queued: i64,
    pub done: i64,
    pub failed: i64,
}

impl ItemCounts {
    /// The heatmap's status: `queued`, `processing`, `done`, `failed` or `partial`.
    pub fn status(&self) -> &'static str {
        let finished = self.done + self.failed;
        if self.total == 0 || self.queued == self.total {
            "queued"
        } else if finished < self.total {
            "processing"
        } else if self.failed == 0 {
            "done"
        } else if self.done == 0 {
            "failed"
        } else {
            "partial"
        }
    }

    fn of(items: &[ItemRow]) -> Self {
        let count = |s: &str| items.iter().filter(|i| i.status == s).count() as i64;
        Self {
            total: items.len() as i64,
            queued: count("queued"),
            done: count("done"),
            failed: count("failed"),
        }
    }
}

/// One image of a heatmap, with its source media.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemRow {
    pub id: String,
    pub heatmap_id: String,
    pub owner_id: String,
    pub position: i64,
    pub source: MediaRow,
    /// `queued`, `processing`, `done` or `failed`.
    pub status: String,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
    pub attempts: i64,
    /// JSON text of the result (done items).
    pub result: Option<String>,
    pub score: Option<f64>,
    pub map_media_id: Option<String>,
    pub overlay_media_id: Option<String>,
    pub fog_media_id: Option<String>,
    /// The first glance's map, overlay and fog (`None` for items analysed before they were
    /// stored).
    pub glance_map_media_id: Option<String>,
    pub glance_overlay_media_id: Option<String>,
    pub glance_fog_media_id: Option<String>,
    /// JSON text of the automatic area of interest (a simulation's panel quad, normalised).
    pub aoi: Option<String>,
    /// JSON text of the area of interest's [`crate::heatmaps::result::PanelShare`], once done.
    pub panel: Option<String>,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// A heatmap with its items in order, and their areas of interest.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatmapWithItems {
    pub heatmap: HeatmapRow,
    pub items: Vec<ItemRow>,
    /// Areas of every item, by item and in order (see [`super::aois::for_heatmap`]).
    pub aois: Vec<AoiRow>,
    /// What each source image is (creative, location, simulation), by media id.
    pub labels: HashMap<String, MediaLabel>,
}

impl HeatmapWithItems {
    /// Counts of the items by status.
    pub fn counts(&self) -> ItemCounts {
        ItemCounts::of(&self.items)
    }

    /// Mean score of the done items.
    pub fn score(&self) -> Option<f64> {
        let scores: Vec<f64> = self.items.iter().filter_map(|i| i.score).collect();
        (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64)
    }

    /// Best score of the done items.
    pub fn best_score(&self) -> Option<f64> {
        self.items.iter().filter_map(|i| i.score).reduce(f64::max)
    }

    /// The areas of one item, in order.
    pub fn aois_of<'a>(&'a self, item_id: &'a str) -> impl Iterator<Item = &'a AoiRow> + 'a {
        self.aois.iter().filter(move |a| a.item_id == item_id)
    }
}

/// What [`create`] inserts for one image.
#[derive(Debug, Clone)]
pub struct NewItem {
    pub id: String,
    pub source_media_id: String,
    pub job_id: String,
    /// JSON text of the area of interest (four normalised points), if any.
    pub aoi: Option<String>,
}

/// The columns naming an item's output media.
pub const OUTPUT_COLUMNS: [&str; 6] = [
    "map_media_id",
    "overlay_media_id",
    "fog_media_id",
    "glance_map_media_id",
    "glance_overlay_media_id",
    "glance_fog_media_id",
];

/// The job kind that computes one item.
pub const ITEM_JOB: &str = "heatmap_item";

fn heatmap_from_row(row: &AnyRow) -> Result<HeatmapRow, sqlx::Error> {
    Ok(HeatmapRow {
        id: row.try_get("id")?,
        owner_id: row.try_get("owner_id")?,
        name: row.try_get("name")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

fn item_select() -> String {
    format!(
        "SELECT i.id, i.heatmap_id, i.owner_id, i.position, i.status, i.error_code, \
         i.error_message, i.attempts, i.result, i.score, i.map_media_id, i.overlay_media_id, \
         i.fog_media_id, i.glance_map_media_id, i.glance_overlay_media_id, i.glance_fog_media_id, \
         i.aoi, i.panel, i.started_at, i.finished_at, i.created_at, i.updated_at, {} \
         FROM heatmap_items i JOIN media m ON m.id = i.source_media_id",
        media::columns("m", "m_")
    )
}

fn item_from_row(row: &AnyRow) -> Result<ItemRow, sqlx::Error> {
    let source =
        media::from_row(row, "m_")?.ok_or_else(|| sqlx::Error::ColumnNotFound("m_id".into()))?;
    Ok(ItemRow {
        id: row.try_get("id")?,
        heatmap_id: row.try_get("heatmap_id")?,
        owner_id: row.try_get("owner_id")?,
        position: row.try_get("position")?,
        source,
        status: row.try_get("status")?,
        error_code: row.try_get("error_code")?,
        error_message: row.try_get("error_message")?,
        attempts: row.try_get("attempts")?,
        result: row.try_get("result")?,
        score: row.try_get("score")?,
        map_media_id: row.try_get("map_media_id")?,
        overlay_media_id: row.try_get("overlay_media_id")?,
        fog_media_id: row.try_get("fog_media_id")?,
        glance_map_media_id: row.try_get("glance_map_media_id")?,
        glance_overlay_media_id: row.try_get("glance_overlay_media_id")?,
        glance_fog_media_id: row.try_get("glance_fog_media_id")?,
        aoi: row.try_get("aoi")?,
        panel: row.try_get("panel")?,
        started_at: row.try_get("started_at")?,
        finished_at: row.try_get("finished_at")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

/// Inserts the heatmap, its items (queued) and one job per item, in one transaction.
pub async fn create(
    db: &Db,
    heatmap: &HeatmapRow,
    items: &[NewItem],
    max_attempts: i64,
) -> Result<(), DbError> {
    let mut tx = db.begin_write().await?;
    sqlx::query(
        "INSERT INTO heatmaps (id, owner_id, name, search, created_at, updated_at, sort_name) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(&heatmap.id)
    .bind(&heatmap.owner_id)
    .bind(&heatmap.name)
    .bind(search::document(&[Some(&heatmap.name)]))
    .bind(heatmap.created_at)
    .bind(heatmap.updated_at)
    .bind(search::normalize(&heatmap.name))
    .execute(&mut *tx)
    .await?;
    for (position, item) in items.iter().enumerate() {
        sqlx::query(
            "INSERT INTO heatmap_items (id, heatmap_id, owner_id, position, source_media_id, \
             status, attempts, aoi, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, 'queued', 0, $6, $7, $7)",
        )
        .bind(&item.id)
        .bind(&heatmap.id)
        .bind(&heatmap.owner_id)
        .bind(position as i64)
        .bind(&item.source_media_id)
        .bind(&item.aoi)
        .bind(heatmap.created_at)
        .execute(&mut *tx)
        .await?;
        let payload = serde_json::json!({ "item_id": item.id }).to_string();
        jobs::insert(
            &mut tx,
            &NewJob {
                id: &item.job_id,
                owner_id: &heatmap.owner_id,
                kind: ITEM_JOB,
                subject_id: &item.id,
                payload: &payload,
                max_attempts,
                run_after: heatmap.created_at,
            },
        )
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

wire_enum! {
    /// How a heatmaps list is ordered (ties broken by id, in the same direction).
    pub enum HeatmapSort {
        /// Newest first (the default).
        Newest = "newest";
        /// Oldest first.
        Oldest = "oldest";
        /// By name, A → Z (accents and case folded).
        Name = "name";
        /// By name, Z → A.
        NameDesc = "name_desc";
    }
}

impl HeatmapSort {
    /// The SQL of the sort key and whether it descends.
    fn key(self) -> (&'static str, bool) {
        match self {
            Self::Newest => ("h.created_at", true),
            Self::Oldest => ("h.created_at", false),
            Self::Name => ("h.sort_name", false),
            Self::NameDesc => ("h.sort_name", true),
        }
    }

    /// Whether the key is text rather than a number.
    pub fn is_text(self) -> bool {
        matches!(self, Self::Name | Self::NameDesc)
    }
}

/// One page of the owner's heatmaps in `sort` order, filtered by the search text (see
/// [`page::sorted`]).
pub async fn list(
    db: &Db,
    owner_id: &str,
    sort: HeatmapSort,
    limit: i64,
    after: Option<(&page::SortKey, &str)>,
    query: &str,
) -> Result<Vec<(HeatmapSummary, page::SortKey)>, DbError> {
    let count = |filter: &str| {
        format!("(SELECT COUNT(*) FROM heatmap_items c WHERE c.heatmap_id = h.id{filter})")
    };
    let select = format!(
        "SELECT h.id, h.owner_id, h.name, h.created_at, h.updated_at, \
         {} AS n_total, {} AS n_queued, {} AS n_done, {} AS n_failed, \
         (SELECT AVG(s.score) FROM heatmap_items s WHERE s.heatmap_id = h.id AND s.status = 'done') \
         AS mean_score, \
         (SELECT MAX(s.score) FROM heatmap_items s WHERE s.heatmap_id = h.id AND s.status = 'done') \
         AS best_score, {} FROM heatmaps h \
         LEFT JOIN heatmap_items f ON f.heatmap_id = h.id AND f.position = 0 \
         LEFT JOIN media m ON m.id = f.source_media_id",
        count(""),
        count(" AND c.status = 'queued'"),
        count(" AND c.status = 'done'"),
        count(" AND c.status = 'failed'"),
        media::columns("m", "m_"),
    );
    let (key, descending) = sort.key();
    let request = page::SortedRequest {
        owner_id,
        limit,
        key,
        descending,
        text: sort.is_text(),
        after,
        query,
        filters: &[],
    };
    page::sorted(db, &select, "h", request, |row| {
        Ok(HeatmapSummary {
            heatmap: heatmap_from_row(row)?,
            counts: ItemCounts {
                total: row.try_get("n_total")?,
                queued: row.try_get("n_queued")?,
                done: row.try_get("n_done")?,
                failed: row.try_get("n_failed")?,
            },
            score: row.try_get("mean_score")?,
            best_score: row.try_get("best_score")?,
            first_source: media::from_row(row, "m_")?,
        })
    })
    .await
}

/// The heatmap with its items, if `owner_id` owns it.
pub async fn find_owned(
    db: &Db,
    owner_id: &str,
    id: &str,
) -> Result<Option<HeatmapWithItems>, DbError> {
    let Some(row) = sqlx::query(
        "SELECT id, owner_id, name, created_at, updated_at FROM heatmaps \
         WHERE id = $1 AND owner_id = $2",
    )
    .bind(id)
    .bind(owner_id)
    .fetch_optional(db.pool())
    .await?
    else {
        return Ok(None);
    };
    let heatmap = heatmap_from_row(&row)?;
    let rows = sqlx::query(&format!(
        "{} WHERE i.heatmap_id = $1 ORDER BY i.position",
        item_select()
    ))
    .bind(id)
    .fetch_all(db.pool())
    .await?;
    let items: Vec<ItemRow> = rows.iter().map(item_from_row).collect::<Result<_, _>>()?;
    let aois = super::aois::for_heatmap(db, id).await?;
    let sources: Vec<String> = items
        .iter()
        .map(|i: &ItemRow| i.source.id.clone())
        .collect();
    let labels = media::labels(db, owner_id, &sources).await?;
    Ok(Some(HeatmapWithItems {
        heatmap,
        items,
        aois,
        labels,
    }))
}

/// A done item's score, for the assistant's rankings ("which creative scored best?").
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredItem {
    pub item_id: String,
    pub heatmap_id: String,
    pub source_media_id: String,
    pub score: f64,
    pub created_at: i64,
}

/// The owner's done items that have a score, oldest first (so a later item of the same image
/// replaces an earlier one when collected into a map). One query, however many heatmaps.
pub async fn scored_items(db: &Db, owner_id: &str) -> Result<Vec<ScoredItem>, DbError> {
    let rows = sqlx::query(
        "SELECT id, heatmap_id, source_media_id, score, created_at FROM heatmap_items \
         WHERE owner_id = $1 AND status = 'done' AND score IS NOT NULL \
         ORDER BY created_at, id",
    )
    .bind(owner_id)
    .fetch_all(db.pool())
    .await?;
    rows.iter()
        .map(|row| {
            Ok(ScoredItem {
                item_id: row.try_get("id")?,
                heatmap_id: row.try_get("heatmap_id")?,
                source_media_id: row.try_get("source_media_id")?,
                score: row.try_get("score")?,
                created_at: row.try_get("created_at")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(DbError::from)
}

/// A done item of the owner's library, for benchmarks: its measures, and what its source image
/// is (`creative`, `location`, `simulation`, or `None`).
#[derive(Debug, Clone, PartialEq)]
pub struct LibraryItem {
    pub item_id: String,
    pub kind: Option<String>,
    pub score: f64,
    pub focus: f64,
    pub clarity: f64,
    /// A render's panel visibility (share of attention / share of surface).
    pub panel: Option<f64>,
    /// A render's probability of a look at the panel within the first second (model v3).
    pub first_second: Option<f64>,
}

/// Every done item of the owner with its measures and its source's kind, in one query that
/// reads the measures out of the stored results in the database (not the grids), so a large
/// library stays cheap. The kind follows [`media::labels`]: creative first, then location, then
/// simulation.
pub async fn library(db: &Db, owner_id: &str) -> Result<Vec<LibraryItem>, DbError> {
    let field = |path: &str| match db.backend() {
        Backend::Sqlite => format!("CAST(json_extract(i.result, '$.{path}') AS REAL)"),
        Backend::Postgres => {
            let pointer = path.replace('.', ",");
            format!("CAST(CAST(i.result AS jsonb) #>> '{{{pointer}}}' AS DOUBLE PRECISION)")
        }
    };
    let sql = format!(
        "SELECT i.id, {} AS focus, {} AS clarity, {} AS panel, {} AS first_second, i.score, CASE \
           WHEN EXISTS (SELECT 1 FROM creatives c \
                        WHERE c.owner_id = i.owner_id AND c.media_id = i.source_media_id) \
             THEN 'creative' \
           WHEN EXISTS (SELECT 1 FROM locations l \
                        WHERE l.owner_id = i.owner_id AND l.photo_media_id = i.source_media_id) \
             THEN 'location' \
           WHEN EXISTS (SELECT 1 FROM simulations s \
                        WHERE s.owner_id = i.owner_id AND s.output_media_id = i.source_media_id) \
             THEN 'simulation' \
           ELSE NULL END AS kind \
         FROM heatmap_items i \
         WHERE i.owner_id = $1 AND i.status = 'done' AND i.result IS NOT NULL \
           AND i.score IS NOT NULL \
         ORDER BY i.created_at, i.id",
        field("focus"),
        field("clarity"),
        field("panel.visibility"),
        field("panel.first_second_probability"),
    );
    let rows = sqlx::query(&sql)
        .bind(owner_id)
        .fetch_all(db.pool())
        .await?;
    rows.iter()
        .map(|row| {
            Ok(LibraryItem {
                item_id: row.try_get("id")?,
                kind: row.try_get("kind")?,
                score: row.try_get("score")?,
                focus: row.try_get::<Option<f64>, _>("focus")?.unwrap_or(f64::NAN),
                clarity: row
                    .try_get::<Option<f64>, _>("clarity")?
                    .unwrap_or(f64::NAN),
                panel: row.try_get("panel")?,
                first_second: row.try_get("first_second")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(DbError::from)
}

/// The results (JSON text) of the owner's done items among `ids`, by item id.
pub async fn results_of(
    db: &Db,
    owner_id: &str,
    ids: &[String],
) -> Result<HashMap<String, String>, DbError> {
    let mut out = HashMap::new();
    // In slices, so that a long list never meets a bound-parameter limit.
    for chunk in ids.chunks(500) {
        let placeholders: Vec<String> = (0..chunk.len()).map(|i| format!("${}", i + 2)).collect();
        let sql = format!(
            "SELECT id, result FROM heatmap_items \
             WHERE owner_id = $1 AND status = 'done' AND result IS NOT NULL AND id IN ({})",
            placeholders.join(", ")
        );
        let mut query = sqlx::query(&sql).bind(owner_id);
        for id in chunk {
            query = query.bind(id);
        }
        for row in query.fetch_all(db.pool()).await? {
            out.insert(row.try_get("id")?, row.try_get("result")?);
        }
    }
    Ok(out)
}

/// One item, whoever owns it (workers).
pub async fn find_item(db: &Db, item_id: &str) -> Result<Option<ItemRow>, DbError> {
    let row = sqlx::query(&format!("{} WHERE i.id = $1", item_select()))
        .bind(item_id)
        .fetch_optional(db.pool())
        .await?;
    Ok(row.as_ref().map(item_from_row).transpose()?)
}

/// The owner's most recent item made from this media, with its heatmap.
pub async fn latest_for_media(
    db: &Db,
    owner_id: &str,
    media_id: &str,
) -> Result<Option<(HeatmapRow, ItemRow)>, DbError> {
    let row = sqlx::query(&format!(
        "{} WHERE i.source_media_id = $1 AND i.owner_id = $2 \
         ORDER BY i.created_at DESC, i.id DESC LIMIT 1",
        item_select()
    ))
    .bind(media_id)
    .bind(owner_id)
    .fetch_optional(db.pool())
    .await?;
    let Some(item) = row.as_ref().map(item_from_row).transpose()? else {
        return Ok(None);
    };
    let heatmap = sqlx::query(
        "SELECT id, owner_id, name, created_at, updated_at FROM heatmaps WHERE id = $1",
    )
    .bind(&item.heatmap_id)
    .fetch_one(db.pool())
    .await?;
    Ok(Some((heatmap_from_row(&heatmap)?, item)))
}

/// Deletes the heatmap, its items and their jobs in one transaction. Returns the media its
/// items referenced (for the caller to release), or `None` when there was no such heatmap.
///
/// The items are deleted with `RETURNING`: if a worker is saving an item's outputs at that
/// moment, the delete waits for its transaction and returns the saved output ids, so none is
/// forgotten.
pub async fn delete(db: &Db, owner_id: &str, id: &str) -> Result<Option<Vec<String>>, DbError> {
    let mut tx = db.begin_write().await?;
    sqlx::query(
        "DELETE FROM jobs WHERE subject_id IN \
         (SELECT i.id FROM heatmap_items i JOIN heatmaps h ON h.id = i.heatmap_id \
          WHERE h.id = $1 AND h.owner_id = $2)",
    )
    .bind(id)
    .bind(owner_id)
    .execute(&mut *tx)
    .await?;
    let rows = sqlx::query(
        "DELETE FROM heatmap_items WHERE heatmap_id = $1 AND owner_id = $2 \
         RETURNING source_media_id, map_media_id, overlay_media_id, fog_media_id, \
         glance_map_media_id, glance_overlay_media_id, glance_fog_media_id",
    )
    .bind(id)
    .bind(owner_id)
    .fetch_all(&mut *tx)
    .await?;
    let done = sqlx::query("DELETE FROM heatmaps WHERE id = $1 AND owner_id = $2")
        .bind(id)
        .bind(owner_id)
        .execute(&mut *tx)
        .await?;
    if done.rows_affected() == 0 {
        tx.rollback().await?;
        return Ok(None);
    }
    tx.commit().await?;
    let mut media = Vec::new();
    for row in &rows {
        media.push(row.try_get::<String, _>("source_media_id")?);
        for col in OUTPUT_COLUMNS {
            if let Some(id) = row.try_get::<Option<String>, _>(col)? {
                media.push(id);
            }
        }
    }
    media.sort();
    media.dedup();
    Ok(Some(media))
}

/// Marks a queued (or interrupted) item as processing for attempt `attempt` of its job. `None`
/// when the item is gone or already finished: the job has nothing left to do.
pub async fn start_item(
    db: &Db,
    item_id: &str,
    attempt: i64,
    now: i64,
) -> Result<Option<ItemRow>, DbError> {
    let done = sqlx::query(
        "UPDATE heatmap_items SET status = 'processing', attempts = $1, \
         started_at = $2, updated_at = $2 WHERE id = $3 AND status IN ('queued', 'processing')",
    )
    .bind(attempt)
    .bind(now)
    .bind(item_id)
    .execute(db.pool())
    .await?;
    if done.rows_affected() == 0 {
        return Ok(None);
    }
    find_item(db, item_id).await
}

/// The outputs of a finished item.
#[derive(Debug, Clone)]
pub struct ItemOutputs<'a> {
    pub result: &'a str,
    pub score: f64,
    /// JSON text of the area of interest's shares, when the item has one.
    pub panel: Option<&'a str>,
    pub map: &'a MediaRow,
    pub overlay: &'a MediaRow,
    pub fog: &'a MediaRow,
    pub glance_map: &'a MediaRow,
    pub glance_overlay: &'a MediaRow,
    pub glance_fog: &'a MediaRow,
}

impl ItemOutputs<'_> {
    /// The output media rows, in [`OUTPUT_COLUMNS`] order.
    pub fn media(&self) -> [&MediaRow; 6] {
        [
            self.map,
            self.overlay,
            self.fog,
            self.glance_map,
            self.glance_overlay,
            self.glance_fog,
        ]
    }
}

/// Saves a finished item and its output media rows in one transaction. False (and nothing
/// written) when the item is gone or no longer processing (its heatmap was deleted).
pub async fn complete_item(
    db: &Db,
    item_id: &str,
    outputs: &ItemOutputs<'_>,
    now: i64,
) -> Result<bool, DbError> {
    let mut tx = db.begin_write().await?;
    // Claim the item first, so a concurrent delete either happened before (nothing to update)
    // or waits for this transaction (and then deletes the outputs with the item).
    let done = sqlx::query(
        "UPDATE heatmap_items SET status = 'done', result = $1, score = $2, panel = $5, \
         error_code = NULL, error_message = NULL, finished_at = $3, updated_at = $3 \
         WHERE id = $4 AND status = 'processing'",
    )
    .bind(outputs.result)
    .bind(outputs.score)
    .bind(now)
    .bind(item_id)
    .bind(outputs.panel)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() == 0 {
        tx.rollback().await?;
        return Ok(false);
    }
    for row in outputs.media() {
        media::insert_in(&mut tx, row).await?;
    }
    sqlx::query(
        "UPDATE heatmap_items SET map_media_id = $1, overlay_media_id = $2, fog_media_id = $3, \
         glance_map_media_id = $4, glance_overlay_media_id = $5, glance_fog_media_id = $6 \
         WHERE id = $7",
    )
    .bind(&outputs.map.id)
    .bind(&outputs.overlay.id)
    .bind(&outputs.fog.id)
    .bind(&outputs.glance_map.id)
    .bind(&outputs.glance_overlay.id)
    .bind(&outputs.glance_fog.id)
    .bind(item_id)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(true)
}

/// Marks an item failed with a stable error code and an English message. False when the item
/// is gone or already finished.
pub async fn fail_item(
    db: &Db,
    item_id: &str,
    code: &str,
    message: &str,
    now: i64,
) -> Result<bool, DbError> {
    let done = sqlx::query(
        "UPDATE heatmap_items SET status = 'failed', error_code = $1, error_message = $2, \
         finished_at = $3, updated_at = $3 WHERE id = $4 AND status IN ('queued', 'processing')",
    )
    .bind(code)
    .bind(message)
    .bind(now)
    .bind(item_id)
    .execute(db.pool())
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Puts a processing item back to queued (its job will run again later).
pub async fn requeue_item(db: &Db, item_id: &str, now: i64) -> Result<bool, DbError> {
    let done = sqlx::query(
        "UPDATE heatmap_items SET status = 'queued', updated_at = $1 \
         WHERE id = $2 AND status = 'processing'",
    )
    .bind(now)
    .bind(item_id)
    .execute(db.pool())
    .await?;
    Ok(done.rows_affected() == 1)
}

/// What [`retry_item`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// The item was failed and is queued again with a new job.
    Queued,
    /// No such item in the owner's heatmap.
    NotFound,
    /// The item is not failed.
    NotFailed,
}

/// Queues a failed item again, with a new job, in one transaction.
pub async fn retry_item(
    db: &Db,
    owner_id: &str,
    heatmap_id: &str,
    item_id: &str,
    job_id: &str,
    max_attempts: i64,
) -> Result<Retry, DbError> {
    let now = super::now_ms();
    let mut tx = db.begin_write().await?;
    let status: Option<String> = sqlx::query(
        "SELECT status FROM heatmap_items WHERE id = $1 AND heatmap_id = $2 AND owner_id = $3",
    )
    .bind(item_id)
    .bind(heatmap_id)
    .bind(owner_id)
    .fetch_optional(&mut *tx)
    .await?
    .map(|row| row.try_get("status"))
    .transpose()?;
    let outcome = match status.as_deref() {
        None => Retry::NotFound,
        Some("failed") => {
            let done = sqlx::query(
                "UPDATE heatmap_items SET status = 'queued', error_code = NULL, \
                 error_message = NULL, started_at = NULL, finished_at = NULL, updated_at = $1 \
                 WHERE id = $2 AND status = 'failed'",
            )
            .bind(now)
            .bind(item_id)
            .execute(&mut *tx)
            .await?;
            if done.rows_affected() == 1 {
                jobs::delete_for_subject(&mut tx, item_id).await?;
                let payload = serde_json::json!({ "item_id": item_id }).to_string();
                jobs::insert(
                    &mut tx,
                    &NewJob {
                        id: job_id,
                        owner_id,
                        kind: ITEM_JOB,
                        subject_id: item_id,
                        payload: &payload,
                        max_attempts,
                        run_after: now,
                    },
                )
                .await?;
                Retry::Queued
            } else {
                Retry::NotFailed
            }
        }
        Some(_) => Retry::NotFailed,
    };
    tx.commit().await?;
    Ok(outcome)
}
