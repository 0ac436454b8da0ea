//! Light, owner-scoped reads for the assistant (docs/assistant.md): the columns the assistant
//! needs of all of a user's creatives, locations, heatmaps and simulations, one query each,
//! newest first. The API's list queries select every column with the images' media rows
//! (30 to 80 columns a row) for pages of 50; reading whole accounts through them cost
//! 0.2–0.4 ms a row, too slow for an answer over 1,000 creatives and 1,000 locations. The
//! filters are the same: `owner_id = $1` on every table read; a simulation's attention is the
//! latest heatmap item of its render, as in [`super::simulations`].

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError};

/// A panel's attention in a render: `{share, area_share, visibility}`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Panel {
    pub share: f64,
    pub area_share: f64,
    pub visibility: f64,
    /// The probability that a passer-by looks at the panel within the first second (model v3
    /// analyses; calibrated on eye-tracking data).
    pub first_second: Option<f64>,
    /// The panel's share of the first second's attention (as `first_second`).
    pub glance_share: Option<f64>,
}

impl Panel {
    /// Reads `{share, area_share, visibility, glance_share, first_second_probability}` JSON text.
    pub fn parse(json: Option<&str>) -> Option<Panel> {
        let value: serde_json::Value = serde_json::from_str(json?).ok()?;
        let share = value["share"].as_f64()?;
        let area_share = value["area_share"].as_f64().unwrap_or(0.0);
        let visibility = value["visibility"].as_f64().unwrap_or(if area_share > 0.0 {
            share / area_share
        } else {
            0.0
        });
        Some(Panel {
            share,
            area_share,
            visibility,
            first_second: value["first_second_probability"].as_f64(),
            glance_share: value["glance_share"].as_f64(),
        })
    }
}

/// A score and the heatmap it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    pub score: f64,
    pub heatmap_id: String,
}

/// What the assistant knows of a creative.
#[derive(Debug, Clone, PartialEq)]
pub struct Creative {
    pub id: String,
    pub name: String,
    pub brand: Option<String>,
    pub campaign: Option<String>,
    pub media_id: String,
    pub created_at: i64,
}

/// What the assistant knows of a location.
#[derive(Debug, Clone, PartialEq)]
pub struct Location {
    pub id: String,
    pub name: String,
    pub address: Option<String>,
    pub city: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
    pub format: String,
    pub illumination: String,
    pub panel_width_cm: Option<i64>,
    pub panel_height_cm: Option<i64>,
    pub photo_media_id: Option<String>,
    pub has_quad: bool,
    /// `pedestrian` or `road`.
    pub audience: Option<String>,
    pub viewing_distance_min_m: Option<f64>,
    pub viewing_distance_max_m: Option<f64>,
    pub speed_kmh: Option<f64>,
    pub created_at: i64,
}

/// What the assistant knows of a heatmap.
#[derive(Debug, Clone, PartialEq)]
pub struct Heatmap {
    pub id: String,
    pub name: String,
    /// `queued`, `processing`, `done`, `failed` or `partial`.
    pub status: &'static str,
    pub total: i64,
    pub done: i64,
    pub failed: i64,
    /// Mean score of the done images.
    pub score: Option<f64>,
    pub created_at: i64,
}

/// What the assistant knows of a simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    pub id: String,
    pub name: String,
    pub creative_id: String,
    pub creative_name: Option<String>,
    pub location_id: String,
    pub location_name: Option<String>,
    pub city: Option<String>,
    /// `draft`, `queued`, `rendering`, `done` or `failed`.
    pub status: String,
    /// Night mode of the render (`backlit`, `led`), if any.
    pub night: Option<String>,
    /// The latest attention analysis of the render, once done.
    pub attention_score: Option<f64>,
    pub attention_heatmap: Option<String>,
    pub attention_status: Option<String>,
    pub panel: Option<Panel>,
    pub created_at: i64,
}

fn rows<T>(
    rows: Vec<AnyRow>,
    from: fn(&AnyRow) -> Result<T, sqlx::Error>,
) -> Result<Vec<T>, DbError> {
    rows.iter()
        .map(from)
        .collect::<Result<_, _>>()
        .map_err(DbError::from)
}

/// The owner's creatives, newest first.
pub async fn creatives(db: &Db, owner_id: &str) -> Result<Vec<Creative>, DbError> {
    let found = sqlx::query(
        "SELECT id, name, brand, campaign, media_id, created_at FROM creatives \
         WHERE owner_id = $1 ORDER BY created_at DESC, id DESC",
    )
    .bind(owner_id)
    .fetch_all(db.pool())
    .await?;
    rows(found, |r| {
        Ok(Creative {
            id: r.try_get("id")?,
            name: r.try_get("name")?,
            brand: r.try_get("brand")?,
            campaign: r.try_get("campaign")?,
            media_id: r.try_get("media_id")?,
            created_at: r.try_get("created_at")?,
        })
    })
}

/// The owner's locations, newest first.
pub async fn locations(db: &Db, owner_id: &str) -> Result<Vec<Location>, DbError> {
    let found = sqlx::query(
        "SELECT id, name, address, city, postal_code, country, format, illumination, \
         panel_width_cm, panel_height_cm, photo_media_id, \
         CAST(CASE WHEN panel_quad IS NULL THEN 0 ELSE 1 END AS BIGINT) AS has_quad, \
         audience, viewing_distance_min_m, viewing_distance_max_m, speed_kmh, created_at \
         FROM locations WHERE owner_id = $1 ORDER BY created_at DESC, id DESC",
    )
    .bind(owner_id)
    .fetch_all(db.pool())
    .await?;
    rows(found, |r| {
        Ok(Location {
            id: r.try_get("id")?,
            name: r.try_get("name")?,
            address: r.try_get("address")?,
            city: r.try_get("city")?,
            postal_code: r.try_get("postal_code")?,
            country: r.try_get("country")?,
            format: r.try_get("format")?,
            illumination: r.try_get("illumination")?,
            panel_width_cm: r.try_get("panel_width_cm")?,
            panel_height_cm: r.try_get("panel_height_cm")?,
            photo_media_id: r.try_get("photo_media_id")?,
            has_quad: r.try_get::<i64, _>("has_quad")? == 1,
            audience: r.try_get("audience")?,
            viewing_distance_min_m: r.try_get("viewing_distance_min_m")?,
            viewing_distance_max_m: r.try_get("viewing_distance_max_m")?,
            speed_kmh: r.try_get("speed_kmh")?,
            created_at: r.try_get("created_at")?,
        })
    })
}

/// The owner's heatmaps with their items counted by status and the mean score of the done
/// ones, newest first.
pub async fn heatmaps(db: &Db, owner_id: &str) -> Result<Vec<Heatmap>, DbError> {
    let count = |status: &str| {
        format!(
            "CAST(COALESCE(SUM(CASE WHEN i.status = '{status}' THEN 1 ELSE 0 END), 0) AS BIGINT)"
        )
    };
    let found = sqlx::query(&format!(
        "SELECT h.id, h.name, h.created_at, CAST(COUNT(i.id) AS BIGINT) AS n_total, \
         {} AS n_queued, {} AS n_done, {} AS n_failed, \
         AVG(CASE WHEN i.status = 'done' THEN i.score END) AS mean_score \
         FROM heatmaps h LEFT JOIN heatmap_items i ON i.heatmap_id = h.id \
         WHERE h.owner_id = $1 GROUP BY h.id, h.name, h.created_at \
         ORDER BY h.created_at DESC, h.id DESC",
        count("queued"),
        count("done"),
        count("failed"),
    ))
    .bind(owner_id)
    .fetch_all(db.pool())
    .await?;
    rows(found, |r| {
        let counts = super::heatmaps::ItemCounts {
            total: r.try_get("n_total")?,
            queued: r.try_get("n_queued")?,
            done: r.try_get("n_done")?,
            failed: r.try_get("n_failed")?,
        };
        Ok(Heatmap {
            id: r.try_get("id")?,
            name: r.try_get("name")?,
            status: counts.status(),
            total: counts.total,
            done: counts.done,
            failed: counts.failed,
            score: r.try_get("mean_score")?,
            created_at: r.try_get("created_at")?,
        })
    })
}

/// The owner's simulations with their creative's and location's names and the latest attention
/// analysis of their render, newest first.
pub async fn simulations(db: &Db, owner_id: &str) -> Result<Vec<Simulation>, DbError> {
    let found = sqlx::query(
        "SELECT s.id, s.name, s.creative_id, s.location_id, s.status, s.adjustments, s.created_at, \
         c.name AS c_name, l.name AS l_name, l.city AS l_city, \
         ai.heatmap_id AS a_heatmap_id, ai.status AS a_status, ai.score AS a_score, ai.panel AS a_panel \
         FROM simulations s \
         LEFT JOIN creatives c ON c.id = s.creative_id AND c.owner_id = s.owner_id \
         LEFT JOIN locations l ON l.id = s.location_id AND l.owner_id = s.owner_id \
         LEFT JOIN heatmap_items ai ON ai.id = (SELECT a.id FROM heatmap_items a \
           WHERE a.source_media_id = s.output_media_id AND a.owner_id = s.owner_id \
           ORDER BY a.created_at DESC, a.id DESC LIMIT 1) \
         WHERE s.owner_id = $1 ORDER BY s.created_at DESC, s.id DESC",
    )
    .bind(owner_id)
    .fetch_all(db.pool())
    .await?;
    rows(found, |r| {
        let adjustments: String = r.try_get("adjustments")?;
        let night = serde_json::from_str::<serde_json::Value>(&adjustments)
            .ok()
            .and_then(|a| a["night"].as_str().map(str::to_owned));
        let panel: Option<String> = r.try_get("a_panel")?;
        Ok(Simulation {
            id: r.try_get("id")?,
            name: r.try_get("name")?,
            creative_id: r.try_get("creative_id")?,
            creative_name: r.try_get("c_name")?,
            location_id: r.try_get("location_id")?,
            location_name: r.try_get("l_name")?,
            city: r.try_get("l_city")?,
            status: r.try_get("status")?,
            night,
            attention_score: r.try_get("a_score")?,
            attention_heatmap: r.try_get("a_heatmap_id")?,
            attention_status: r.try_get("a_status")?,
            panel: Panel::parse(panel.as_deref()),
            created_at: r.try_get("created_at")?,
        })
    })
}
