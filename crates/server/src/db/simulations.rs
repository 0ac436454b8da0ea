//! Queries on `simulations`: a creative placed on a location's photo, with its render settings,
//! its status and its rendered output (docs/architecture/simulations.md).
//!
//! Every render is a job written in the same transaction as the row it renders, and carries
//! the row's `render_token`: an update or a retry gives the row a new token, so a job whose
//! token no longer matches starts nothing and saves nothing (an older render never overwrites a
//! newer one). Deleting a simulation, or the creative or location it was made from, deletes its
//! jobs in the same transaction and returns its media ids for the caller to release.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::jobs::{self, NewJob};
use super::media::{self, MediaRow};
use super::{Db, DbError, page, search};

/// The job kind that renders one simulation.
pub const RENDER_JOB: &str = "render_simulation";

/// A stored simulation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SimulationRow {
    pub id: String,
    pub owner_id: String,
    pub name: String,
    pub creative_id: String,
    pub location_id: String,
    /// JSON text of four normalised points, or `None` for the location's quad.
    pub quad: Option<String>,
    /// `stretch`, `cover` or `contain`.
    pub fit: String,
    /// `#rrggbb`.
    pub background: String,
    /// JSON text of `regard_vision::composite::Adjustments`.
    pub adjustments: String,
    pub mask_media_id: Option<String>,
    /// `draft`, `queued`, `rendering`, `done` or `failed`.
    pub status: String,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
    /// The token of the render in progress (queued or rendering), if any.
    pub render_token: Option<String>,
    /// The rendered JPEG (kind `render`).
    pub output_media_id: Option<String>,
    /// The same render as PNG.
    pub output_png_media_id: Option<String>,
    pub rendered_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl SimulationRow {
    fn search(&self) -> String {
        search::document(&[Some(&self.name)])
    }

    /// The media this simulation holds on to (output, PNG, mask).
    pub fn media_ids(&self) -> Vec<String> {
        [
            &self.output_media_id,
            &self.output_png_media_id,
            &self.mask_media_id,
        ]
        .into_iter()
        .flatten()
        .cloned()
        .collect()
    }
}

/// The creative a simulation shows.
#[derive(Debug, Clone, PartialEq)]
pub struct SimCreative {
    pub id: String,
    pub name: String,
    pub media: MediaRow,
}

/// The location a simulation is placed in.
#[derive(Debug, Clone, PartialEq)]
pub struct SimLocation {
    pub id: String,
    pub name: String,
    pub city: Option<String>,
    pub format: String,
    pub illumination: String,
    pub panel_width_cm: Option<i64>,
    pub panel_height_cm: Option<i64>,
    /// JSON text of the location's own quad.
    pub panel_quad: Option<String>,
    pub photo: Option<MediaRow>,
    /// The location's viewing conditions (see `LocationRow`).
    pub audience: Option<String>,
    pub viewing_distance_min_m: Option<f64>,
    pub viewing_distance_max_m: Option<f64>,
    pub speed_kmh: Option<f64>,
    /// The location's contacts a day and where they come from.
    pub daily_contacts: Option<i64>,
    pub audience_source: Option<String>,
}

/// The latest heatmap item made from a simulation's current output ("attention in context").
#[derive(Debug, Clone, PartialEq)]
pub struct Attention {
    pub item_id: String,
    pub heatmap_id: String,
    pub status: String,
    pub score: Option<f64>,
    /// JSON text `{share, area_share, visibility}` once done.
    pub panel: Option<String>,
}

/// A simulation with everything its JSON shows.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulationView {
    pub sim: SimulationRow,
    /// `None` only while a cascade deletes it.
    pub creative: Option<SimCreative>,
    pub location: Option<SimLocation>,
    pub mask: Option<MediaRow>,
    pub output: Option<MediaRow>,
    pub attention: Option<Attention>,
}

const COLUMNS: [&str; 20] = [
    "id",
    "owner_id",
    "name",
    "creative_id",
    "location_id",
    "quad",
    "fit",
    "background",
    "adjustments",
    "mask_media_id",
    "status",
    "error_code",
    "error_message",
    "render_token",
    "output_media_id",
    "output_png_media_id",
    "rendered_at",
    "created_at",
    "updated_at",
    "search",
];

fn select() -> String {
    format!(
        "SELECT {}, c.id AS c_id, c.name AS c_name, {}, l.id AS l_id, l.name AS l_name, \
         l.city AS l_city, l.format AS l_format, l.illumination AS l_illumination, \
         l.panel_width_cm AS l_panel_width_cm, l.panel_height_cm AS l_panel_height_cm, \
         l.panel_quad AS l_panel_quad, l.audience AS l_audience, \
         l.viewing_distance_min_m AS l_distance_min, l.viewing_distance_max_m AS l_distance_max, \
         l.speed_kmh AS l_speed_kmh, l.daily_contacts AS l_daily_contacts, \
         l.audience_source AS l_audience_source, {}, {}, {}, \
         ai.id AS a_id, ai.heatmap_id AS a_heatmap_id, ai.status AS a_status, \
         ai.score AS a_score, ai.panel AS a_panel \
         FROM simulations s \
         LEFT JOIN creatives c ON c.id = s.creative_id \
         LEFT JOIN media cm ON cm.id = c.media_id \
         LEFT JOIN locations l ON l.id = s.location_id \
         LEFT JOIN media lp ON lp.id = l.photo_media_id \
         LEFT JOIN media mk ON mk.id = s.mask_media_id \
         LEFT JOIN media o ON o.id = s.output_media_id \
         LEFT JOIN heatmap_items ai ON ai.id = (SELECT a.id FROM heatmap_items a \
           WHERE a.source_media_id = s.output_media_id AND a.owner_id = s.owner_id \
           ORDER BY a.created_at DESC, a.id DESC LIMIT 1)",
        COLUMNS[..19]
            .iter()
            .map(|c| format!("s.{c}"))
            .collect::<Vec<_>>()
            .join(", "),
        media::columns("cm", "cm_"),
        media::columns("lp", "lp_"),
        media::columns("mk", "mk_"),
        media::columns("o", "o_"),
    )
}

fn sim_from_row(row: &AnyRow) -> Result<SimulationRow, sqlx::Error> {
    Ok(SimulationRow {
        id: row.try_get("id")?,
        owner_id: row.try_get("owner_id")?,
        name: row.try_get("name")?,
        creative_id: row.try_get("creative_id")?,
        location_id: row.try_get("location_id")?,
        quad: row.try_get("quad")?,
        fit: row.try_get("fit")?,
        background: row.try_get("background")?,
        adjustments: row.try_get("adjustments")?,
        mask_media_id: row.try_get("mask_media_id")?,
        status: row.try_get("status")?,
        error_code: row.try_get("error_code")?,
        error_message: row.try_get("error_message")?,
        render_token: row.try_get("render_token")?,
        output_media_id: row.try_get("output_media_id")?,
        output_png_media_id: row.try_get("output_png_media_id")?,
        rendered_at: row.try_get("rendered_at")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

fn from_row(row: &AnyRow) -> Result<SimulationView, sqlx::Error> {
    let creative = match (
        row.try_get::<Option<String>, _>("c_id")?,
        media::from_row(row, "cm_")?,
    ) {
        (Some(id), Some(media)) => Some(SimCreative {
            id,
            name: row.try_get("c_name")?,
            media,
        }),
        _ => None,
    };
    let location = match row.try_get::<Option<String>, _>("l_id")? {
        Some(id) => Some(SimLocation {
            id,
            name: row.try_get("l_name")?,
            city: row.try_get("l_city")?,
            format: row.try_get("l_format")?,
            illumination: row.try_get("l_illumination")?,
            panel_width_cm: row.try_get("l_panel_width_cm")?,
            panel_height_cm: row.try_get("l_panel_height_cm")?,
            panel_quad: row.try_get("l_panel_quad")?,
            photo: media::from_row(row, "lp_")?,
            audience: row.try_get("l_audience")?,
            viewing_distance_min_m: row.try_get("l_distance_min")?,
            viewing_distance_max_m: row.try_get("l_distance_max")?,
            speed_kmh: row.try_get("l_speed_kmh")?,
            daily_contacts: row.try_get("l_daily_contacts")?,
            audience_source: row.try_get("l_audience_source")?,
        }),
        None => None,
    };
    let attention = match row.try_get::<Option<String>, _>("a_id")? {
        Some(item_id) => Some(Attention {
            item_id,
            heatmap_id: row.try_get("a_heatmap_id")?,
            status: row.try_get("a_status")?,
            score: row.try_get("a_score")?,
            panel: row.try_get("a_panel")?,
        }),
        None => None,
    };
    Ok(SimulationView {
        sim: sim_from_row(row)?,
        creative,
        location,
        mask: media::from_row(row, "mk_")?,
        output: media::from_row(row, "o_")?,
        attention,
    })
}

/// A new simulation and, unless it is a draft, the job that renders it.
#[derive(Debug, Clone)]
pub struct NewSimulation {
    pub row: SimulationRow,
    /// The render job's id (the row is `queued` with a `render_token`), or `None` for a draft.
    pub job_id: Option<String>,
}

async fn insert_job(
    conn: &mut sqlx::AnyConnection,
    sim_id: &str,
    owner_id: &str,
    token: &str,
    job_id: &str,
    max_attempts: i64,
    now: i64,
) -> Result<(), DbError> {
    let payload = serde_json::json!({"simulation_id": sim_id, "render_token": token}).to_string();
    jobs::insert(
        conn,
        &NewJob {
            id: job_id,
            owner_id,
            kind: RENDER_JOB,
            subject_id: sim_id,
            payload: &payload,
            max_attempts,
            run_after: now,
        },
    )
    .await
}

/// Inserts simulations (one, or a batch) and their render jobs in one transaction.
pub async fn create(db: &Db, new: &[NewSimulation], max_attempts: i64) -> Result<(), DbError> {
    let mut tx = db.begin_write().await?;
    let placeholders = (1..=COLUMNS.len())
        .map(|n| format!("${n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let sql = format!(
        "INSERT INTO simulations ({}) VALUES ({placeholders})",
        COLUMNS.join(", ")
    );
    for item in new {
        let s = &item.row;
        sqlx::query(&sql)
            .bind(&s.id)
            .bind(&s.owner_id)
            .bind(&s.name)
            .bind(&s.creative_id)
            .bind(&s.location_id)
            .bind(&s.quad)
            .bind(&s.fit)
            .bind(&s.background)
            .bind(&s.adjustments)
            .bind(&s.mask_media_id)
            .bind(&s.status)
            .bind(&s.error_code)
            .bind(&s.error_message)
            .bind(&s.render_token)
            .bind(&s.output_media_id)
            .bind(&s.output_png_media_id)
            .bind(s.rendered_at)
            .bind(s.created_at)
            .bind(s.updated_at)
            .bind(s.search())
            .execute(&mut *tx)
            .await
            .map_err(DbError::from_write)?;
        if let (Some(job_id), Some(token)) = (&item.job_id, &s.render_token) {
            insert_job(
                &mut tx,
                &s.id,
                &s.owner_id,
                token,
                job_id,
                max_attempts,
                s.created_at,
            )
            .await?;
        }
    }
    tx.commit().await?;
    Ok(())
}

/// The owner's simulation with this id.
pub async fn find(db: &Db, owner_id: &str, id: &str) -> Result<Option<SimulationView>, DbError> {
    let row = sqlx::query(&format!("{} WHERE s.id = $1 AND s.owner_id = $2", select()))
        .bind(id)
        .bind(owner_id)
        .fetch_optional(db.pool())
        .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// A simulation, whoever owns it (workers).
pub async fn find_any(db: &Db, id: &str) -> Result<Option<SimulationView>, DbError> {
    let row = sqlx::query(&format!("{} WHERE s.id = $1", select()))
        .bind(id)
        .fetch_optional(db.pool())
        .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// Filters of the list besides the search text.
#[derive(Debug, Clone, Default)]
pub struct ListFilter<'a> {
    pub creative_id: Option<&'a str>,
    pub location_id: Option<&'a str>,
}

/// One page of the owner's simulations, newest first (see [`page::newest_first`]).
pub async fn list(
    db: &Db,
    owner_id: &str,
    limit: i64,
    after: Option<(i64, &str)>,
    query: &str,
    filter: &ListFilter<'_>,
) -> Result<Vec<SimulationView>, DbError> {
    let mut filters = Vec::new();
    if let Some(id) = filter.creative_id {
        filters.push(("s.creative_id", id));
    }
    if let Some(id) = filter.location_id {
        filters.push(("s.location_id", id));
    }
    let request = page::PageRequest {
        owner_id,
        limit,
        after,
        query,
        filters: &filters,
    };
    page::newest_first(db, &select(), "s", request, from_row).await
}

/// How an update touches the render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderChange {
    /// Settings only; status and token stay (a name change with `render: false`).
    Keep,
    /// Queue a new render: new token (carried by the row), this new job; older jobs deleted.
    Queue { job_id: String },
    /// The settings changed without a render: back to `draft`, any render in progress dropped.
    Draft,
}

/// Saves an update (every editable column, status, token) and its render change in one
/// transaction. False when the row is gone.
pub async fn update(
    db: &Db,
    sim: &SimulationRow,
    change: &RenderChange,
    max_attempts: i64,
) -> Result<bool, DbError> {
    let mut tx = db.begin_write().await?;
    let done = sqlx::query(
        "UPDATE simulations SET name = $1, search = $2, creative_id = $3, location_id = $4, \
         quad = $5, fit = $6, background = $7, adjustments = $8, mask_media_id = $9, \
         status = $10, error_code = $11, error_message = $12, render_token = $13, \
         updated_at = $14 WHERE id = $15 AND owner_id = $16",
    )
    .bind(&sim.name)
    .bind(sim.search())
    .bind(&sim.creative_id)
    .bind(&sim.location_id)
    .bind(&sim.quad)
    .bind(&sim.fit)
    .bind(&sim.background)
    .bind(&sim.adjustments)
    .bind(&sim.mask_media_id)
    .bind(&sim.status)
    .bind(&sim.error_code)
    .bind(&sim.error_message)
    .bind(&sim.render_token)
    .bind(sim.updated_at)
    .bind(&sim.id)
    .bind(&sim.owner_id)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() == 0 {
        tx.rollback().await?;
        return Ok(false);
    }
    match change {
        RenderChange::Keep => {}
        RenderChange::Draft => jobs::delete_for_subject(&mut tx, &sim.id).await?,
        RenderChange::Queue { job_id } => {
            jobs::delete_for_subject(&mut tx, &sim.id).await?;
            let token = sim.render_token.as_deref().unwrap_or_default();
            insert_job(
                &mut tx,
                &sim.id,
                &sim.owner_id,
                token,
                job_id,
                max_attempts,
                sim.updated_at,
            )
            .await?;
        }
    }
    tx.commit().await?;
    Ok(true)
}

/// What [`queue_render`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Render {
    /// Queued with a new token and job.
    Queued,
    /// No such simulation of this owner.
    NotFound,
    /// A render is already queued or running.
    AlreadyRendering,
}

/// Queues a render of a simulation that is not being rendered (`POST /simulations/{id}/render`):
/// new token, status `queued`, a new job, in one transaction.
pub async fn queue_render(
    db: &Db,
    owner_id: &str,
    id: &str,
    token: &str,
    job_id: &str,
    max_attempts: i64,
) -> Result<Render, DbError> {
    let now = super::now_ms();
    let mut tx = db.begin_write().await?;
    let done = sqlx::query(
        "UPDATE simulations SET status = 'queued', render_token = $1, error_code = NULL, \
         error_message = NULL, updated_at = $2 \
         WHERE id = $3 AND owner_id = $4 AND status NOT IN ('queued', 'rendering')",
    )
    .bind(token)
    .bind(now)
    .bind(id)
    .bind(owner_id)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() == 0 {
        let exists =
            sqlx::query("SELECT 1 AS one FROM simulations WHERE id = $1 AND owner_id = $2")
                .bind(id)
                .bind(owner_id)
                .fetch_optional(&mut *tx)
                .await?
                .is_some();
        tx.rollback().await?;
        return Ok(if exists {
            Render::AlreadyRendering
        } else {
            Render::NotFound
        });
    }
    jobs::delete_for_subject(&mut tx, id).await?;
    insert_job(&mut tx, id, owner_id, token, job_id, max_attempts, now).await?;
    tx.commit().await?;
    Ok(Render::Queued)
}

/// Marks the render with this token as started. `None` when the simulation is gone, or its
/// token changed (updated since: a newer job renders it), or it is no longer queued/rendering.
pub async fn start(
    db: &Db,
    id: &str,
    token: &str,
    now: i64,
) -> Result<Option<SimulationView>, DbError> {
    let done = sqlx::query(
        "UPDATE simulations SET status = 'rendering', updated_at = $1 \
         WHERE id = $2 AND render_token = $3 AND status IN ('queued', 'rendering')",
    )
    .bind(now)
    .bind(id)
    .bind(token)
    .execute(db.pool())
    .await?;
    if done.rows_affected() == 0 {
        return Ok(None);
    }
    find_any(db, id).await
}

/// Saves a finished render: its two media rows and the simulation, in one transaction guarded
/// by the status (`rendering`) and the token. Returns the previous output media ids (for the
/// caller to release), or `None` (nothing written) when the render is no longer wanted.
pub async fn complete(
    db: &Db,
    id: &str,
    token: &str,
    jpeg: &MediaRow,
    png: &MediaRow,
    now: i64,
) -> Result<Option<Vec<String>>, DbError> {
    let mut tx = db.begin_write().await?;
    // The guarded update comes first: it locks the row, so a concurrent update or delete
    // either happened before (nothing matches) or waits for this transaction.
    let done = sqlx::query(
        "UPDATE simulations SET status = 'done', render_token = NULL, error_code = NULL, \
         error_message = NULL, rendered_at = $1, updated_at = $1 \
         WHERE id = $2 AND render_token = $3 AND status = 'rendering'",
    )
    .bind(now)
    .bind(id)
    .bind(token)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() == 0 {
        tx.rollback().await?;
        return Ok(None);
    }
    let previous =
        sqlx::query("SELECT output_media_id, output_png_media_id FROM simulations WHERE id = $1")
            .bind(id)
            .fetch_one(&mut *tx)
            .await?;
    let mut released = Vec::new();
    for col in ["output_media_id", "output_png_media_id"] {
        if let Some(old) = previous.try_get::<Option<String>, _>(col)? {
            released.push(old);
        }
    }
    media::insert_in(&mut tx, jpeg).await?;
    media::insert_in(&mut tx, png).await?;
    sqlx::query(
        "UPDATE simulations SET output_media_id = $1, output_png_media_id = $2 WHERE id = $3",
    )
    .bind(&jpeg.id)
    .bind(&png.id)
    .bind(id)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Some(released))
}

/// Marks the render with this token failed. False when it is no longer wanted.
pub async fn fail(
    db: &Db,
    id: &str,
    token: &str,
    code: &str,
    message: &str,
    now: i64,
) -> Result<bool, DbError> {
    let done = sqlx::query(
        "UPDATE simulations SET status = 'failed', render_token = NULL, error_code = $1, \
         error_message = $2, updated_at = $3 \
         WHERE id = $4 AND render_token = $5 AND status IN ('queued', 'rendering')",
    )
    .bind(code)
    .bind(message)
    .bind(now)
    .bind(id)
    .bind(token)
    .execute(db.pool())
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Puts a rendering simulation back to queued (its job will run again later).
pub async fn requeue(db: &Db, id: &str, token: &str, now: i64) -> Result<bool, DbError> {
    let done = sqlx::query(
        "UPDATE simulations SET status = 'queued', updated_at = $1 \
         WHERE id = $2 AND render_token = $3 AND status = 'rendering'",
    )
    .bind(now)
    .bind(id)
    .bind(token)
    .execute(db.pool())
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Media ids of the deleted rows' output, PNG and mask.
fn media_of(rows: &[AnyRow]) -> Result<Vec<String>, DbError> {
    let mut ids = Vec::new();
    for row in rows {
        for col in ["output_media_id", "output_png_media_id", "mask_media_id"] {
            if let Some(id) = row.try_get::<Option<String>, _>(col)? {
                ids.push(id);
            }
        }
    }
    ids.sort();
    ids.dedup();
    Ok(ids)
}

/// Deletes the owner's simulation and its jobs in one transaction; returns its media ids (to
/// release), or `None` when there was no such simulation. With `RETURNING`, a worker saving a
/// render at that moment makes the delete wait, and its new output is returned too.
pub async fn delete(db: &Db, owner_id: &str, id: &str) -> Result<Option<Vec<String>>, DbError> {
    let mut tx = db.begin_write().await?;
    let rows = delete_where(&mut tx, "id = $1 AND owner_id = $2", id, owner_id).await?;
    if rows.is_empty() {
        tx.rollback().await?;
        return Ok(None);
    }
    tx.commit().await?;
    Ok(Some(media_of(&rows)?))
}

async fn delete_where(
    conn: &mut sqlx::AnyConnection,
    condition: &str,
    value: &str,
    owner_id: &str,
) -> Result<Vec<AnyRow>, DbError> {
    sqlx::query(&format!(
        "DELETE FROM jobs WHERE subject_id IN (SELECT id FROM simulations WHERE {condition})"
    ))
    .bind(value)
    .bind(owner_id)
    .execute(&mut *conn)
    .await?;
    Ok(sqlx::query(&format!(
        "DELETE FROM simulations WHERE {condition} \
         RETURNING output_media_id, output_png_media_id, mask_media_id"
    ))
    .bind(value)
    .bind(owner_id)
    .fetch_all(&mut *conn)
    .await?)
}

/// Deletes the simulations made from a creative, and their jobs, inside the caller's
/// transaction (the creative's deletion). Returns their media ids to release.
pub async fn delete_for_creative(
    conn: &mut sqlx::AnyConnection,
    owner_id: &str,
    creative_id: &str,
) -> Result<Vec<String>, DbError> {
    let rows = delete_where(
        conn,
        "creative_id = $1 AND owner_id = $2",
        creative_id,
        owner_id,
    )
    .await?;
    media_of(&rows)
}

/// Deletes the simulations placed in a location, and their jobs, inside the caller's
/// transaction (the location's deletion). Returns their media ids to release.
pub async fn delete_for_location(
    conn: &mut sqlx::AnyConnection,
    owner_id: &str,
    location_id: &str,
) -> Result<Vec<String>, DbError> {
    let rows = delete_where(
        conn,
        "location_id = $1 AND owner_id = $2",
        location_id,
        owner_id,
    )
    .await?;
    media_of(&rows)
}

/// Simulations of the owner using this creative (`column` = `creative_id`) or location.
async fn count(db: &Db, column: &str, owner_id: &str, id: &str) -> Result<i64, DbError> {
    let row = sqlx::query(&format!(
        "SELECT COUNT(*) AS n FROM simulations WHERE {column} = $1 AND owner_id = $2"
    ))
    .bind(id)
    .bind(owner_id)
    .fetch_one(db.pool())
    .await?;
    Ok(row.try_get("n")?)
}

/// Simulations made from this creative (what deleting it would also delete).
pub async fn count_for_creative(db: &Db, owner_id: &str, id: &str) -> Result<i64, DbError> {
    count(db, "creative_id", owner_id, id).await
}

/// Simulations placed in this location (what deleting it would also delete).
pub async fn count_for_location(db: &Db, owner_id: &str, id: &str) -> Result<i64, DbError> {
    count(db, "location_id", owner_id, id).await
}
