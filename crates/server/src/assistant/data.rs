//! The user's data as the assistant sees it: read-only, owner-scoped, loaded on demand through
//! `db::assistant` (the few columns the assistant needs of every row, with the API lists'
//! owner filters) and `db::heatmaps::scored_items` (the images' latest scores). Each list is
//! loaded at most once per question and kept for the rest of it.

use std::collections::HashMap;

use tokio::sync::OnceCell;

pub use crate::db::assistant::{Creative, Heatmap, Location, Panel, Scored, Simulation};
use crate::db::{self, Db, DbError};

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
        self.creatives
            .get_or_try_init(|| db::assistant::creatives(self.db, self.owner_id))
            .await
            .map(Vec::as_slice)
    }

    /// The user's locations, newest first.
    pub async fn locations(&self) -> Result<&[Location], DbError> {
        self.locations
            .get_or_try_init(|| db::assistant::locations(self.db, self.owner_id))
            .await
            .map(Vec::as_slice)
    }

    /// The user's heatmaps, newest first.
    pub async fn heatmaps(&self) -> Result<&[Heatmap], DbError> {
        self.heatmaps
            .get_or_try_init(|| db::assistant::heatmaps(self.db, self.owner_id))
            .await
            .map(Vec::as_slice)
    }

    /// The user's simulations, newest first.
    pub async fn simulations(&self) -> Result<&[Simulation], DbError> {
        self.simulations
            .get_or_try_init(|| db::assistant::simulations(self.db, self.owner_id))
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
