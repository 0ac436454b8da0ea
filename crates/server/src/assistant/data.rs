//! The user's data as the assistant sees it: read-only, owner-scoped, loaded on demand through
//! the same `db` queries as the API's lists (creatives, locations, heatmaps, simulations) plus
//! one owner-scoped query for the images' latest scores. Each list is loaded at most once per
//! question and kept for the rest of it.

use std::collections::HashMap;

use tokio::sync::OnceCell;

use crate::db::{self, Db, DbError};

/// Rows fetched per page while walking a list (the API's pages are ≤ 100; the assistant reads
/// whole lists, so larger pages mean fewer round trips).
const PAGE: i64 = 500;

/// The kinds of items a question can be about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Creative,
    Location,
    Simulation,
    Heatmap,
}

impl Kind {
    pub const ALL: [Kind; 4] = [
        Kind::Creative,
        Kind::Location,
        Kind::Simulation,
        Kind::Heatmap,
    ];

    /// The name used by the LLM tools (`creative`, ...).
    pub fn code(self) -> &'static str {
        match self {
            Kind::Creative => "creative",
            Kind::Location => "location",
            Kind::Simulation => "simulation",
            Kind::Heatmap => "heatmap",
        }
    }

    /// Parses a tool argument (singular or plural).
    pub fn parse(value: &str) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .find(|k| value.trim_end_matches('s') == k.code())
    }

    /// The list page of this kind.
    pub fn page(self) -> &'static str {
        match self {
            Kind::Creative => "/creatives",
            Kind::Location => "/locations",
            Kind::Simulation => "/simulation",
            Kind::Heatmap => "/heatmap",
        }
    }
}

/// A panel's attention in a render: `{share, area_share, visibility}`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Panel {
    pub share: f64,
    pub area_share: f64,
    pub visibility: f64,
}

impl Panel {
    fn parse(json: Option<&str>) -> Option<Panel> {
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

/// The user's data for one question, each list loaded on first use.
pub struct Data<'a> {
    db: &'a Db,
    owner_id: &'a str,
    creatives: OnceCell<Vec<Creative>>,
    locations: OnceCell<Vec<Location>>,
    heatmaps: OnceCell<Vec<Heatmap>>,
    simulations: OnceCell<Vec<Simulation>>,
    scores: OnceCell<HashMap<String, Scored>>,
}

/// Walks every page of an owner-scoped list.
async fn all_pages<T, F, Fut>(
    mut page: F,
    key: impl Fn(&T) -> (i64, String),
) -> Result<Vec<T>, DbError>
where
    F: FnMut(Option<(i64, String)>) -> Fut,
    Fut: std::future::Future<Output = Result<Vec<T>, DbError>>,
{
    let mut out: Vec<T> = Vec::new();
    let mut after = None;
    loop {
        let mut rows = page(after.clone()).await?;
        let more = rows.len() as i64 > PAGE;
        rows.truncate(PAGE as usize);
        after = rows.last().map(&key);
        out.extend(rows);
        if !more {
            return Ok(out);
        }
    }
}

impl<'a> Data<'a> {
    /// The data of `owner_id`; nothing is read yet.
    pub fn new(db: &'a Db, owner_id: &'a str) -> Self {
        Self {
            db,
            owner_id,
            creatives: OnceCell::new(),
            locations: OnceCell::new(),
            heatmaps: OnceCell::new(),
            simulations: OnceCell::new(),
            scores: OnceCell::new(),
        }
    }

    /// The user's creatives, newest first.
    pub async fn creatives(&self) -> Result<&[Creative], DbError> {
        let (db, owner) = (self.db, self.owner_id);
        self.creatives
            .get_or_try_init(|| async move {
                let rows = all_pages(
                    |after| async move {
                        let after = after.as_ref().map(|(t, id)| (*t, id.as_str()));
                        db::creatives::list(db, owner, PAGE, after, "").await
                    },
                    |c| (c.creative.created_at, c.creative.id.clone()),
                )
                .await?;
                Ok(rows
                    .into_iter()
                    .map(|c| Creative {
                        id: c.creative.id,
                        name: c.creative.name,
                        brand: c.creative.brand,
                        campaign: c.creative.campaign,
                        media_id: c.creative.media_id,
                        created_at: c.creative.created_at,
                    })
                    .collect())
            })
            .await
            .map(Vec::as_slice)
    }

    /// The user's locations, newest first.
    pub async fn locations(&self) -> Result<&[Location], DbError> {
        let (db, owner) = (self.db, self.owner_id);
        self.locations
            .get_or_try_init(|| async move {
                let rows = all_pages(
                    |after| async move {
                        let after = after.as_ref().map(|(t, id)| (*t, id.as_str()));
                        db::locations::list(db, owner, PAGE, after, "").await
                    },
                    |l| (l.location.created_at, l.location.id.clone()),
                )
                .await?;
                Ok(rows
                    .into_iter()
                    .map(|l| {
                        let l = l.location;
                        Location {
                            has_quad: l.panel_quad.is_some(),
                            id: l.id,
                            name: l.name,
                            address: l.address,
                            city: l.city,
                            postal_code: l.postal_code,
                            country: l.country,
                            format: l.format,
                            illumination: l.illumination,
                            panel_width_cm: l.panel_width_cm,
                            panel_height_cm: l.panel_height_cm,
                            photo_media_id: l.photo_media_id,
                            created_at: l.created_at,
                        }
                    })
                    .collect())
            })
            .await
            .map(Vec::as_slice)
    }

    /// The user's heatmaps, newest first.
    pub async fn heatmaps(&self) -> Result<&[Heatmap], DbError> {
        let (db, owner) = (self.db, self.owner_id);
        self.heatmaps
            .get_or_try_init(|| async move {
                let rows = all_pages(
                    |after| async move {
                        let after = after.as_ref().map(|(t, id)| (*t, id.as_str()));
                        db::heatmaps::list(db, owner, PAGE, after, "").await
                    },
                    |h| (h.heatmap.created_at, h.heatmap.id.clone()),
                )
                .await?;
                Ok(rows
                    .into_iter()
                    .map(|h| Heatmap {
                        status: h.counts.status(),
                        total: h.counts.total,
                        done: h.counts.done,
                        failed: h.counts.failed,
                        score: h.score,
                        id: h.heatmap.id,
                        name: h.heatmap.name,
                        created_at: h.heatmap.created_at,
                    })
                    .collect())
            })
            .await
            .map(Vec::as_slice)
    }

    /// The user's simulations, newest first.
    pub async fn simulations(&self) -> Result<&[Simulation], DbError> {
        let (db, owner) = (self.db, self.owner_id);
        self.simulations
            .get_or_try_init(|| async move {
                let filter = db::simulations::ListFilter::default();
                let filter = &filter;
                let rows = all_pages(
                    |after| async move {
                        let after = after.as_ref().map(|(t, id)| (*t, id.as_str()));
                        db::simulations::list(db, owner, PAGE, after, "", filter).await
                    },
                    |s| (s.sim.created_at, s.sim.id.clone()),
                )
                .await?;
                Ok(rows.into_iter().map(simulation).collect())
            })
            .await
            .map(Vec::as_slice)
    }

    /// The latest score of each of the user's images (by media id).
    pub async fn scores(&self) -> Result<&HashMap<String, Scored>, DbError> {
        let (db, owner) = (self.db, self.owner_id);
        self.scores
            .get_or_try_init(|| async move {
                let items = db::heatmaps::scored_items(db, owner).await?;
                // Oldest first: a later analysis of the same image replaces an earlier one.
                Ok(items
                    .into_iter()
                    .map(|i| {
                        (
                            i.source_media_id,
                            Scored {
                                score: i.score,
                                heatmap_id: i.heatmap_id,
                            },
                        )
                    })
                    .collect())
            })
            .await
    }
}

fn simulation(view: db::simulations::SimulationView) -> Simulation {
    let s = view.sim;
    let night = serde_json::from_str::<serde_json::Value>(&s.adjustments)
        .ok()
        .and_then(|a| a["night"].as_str().map(str::to_owned))
        .filter(|mode| mode != "off" && mode != "day");
    let attention = view.attention;
    Simulation {
        id: s.id,
        name: s.name,
        creative_id: s.creative_id,
        creative_name: view.creative.map(|c| c.name),
        location_id: s.location_id,
        city: view.location.as_ref().and_then(|l| l.city.clone()),
        location_name: view.location.map(|l| l.name),
        status: s.status,
        night,
        attention_score: attention.as_ref().and_then(|a| a.score),
        attention_heatmap: attention.as_ref().map(|a| a.heatmap_id.clone()),
        attention_status: attention.as_ref().map(|a| a.status.clone()),
        panel: attention
            .as_ref()
            .and_then(|a| Panel::parse(a.panel.as_deref())),
        created_at: s.created_at,
    }
}
