//! Attention heatmaps as jobs: [`compute`] is the pixel work of one item (no I/O), [`job`] the
//! `heatmap_item` job around it (storage, database, events). The HTTP side is
//! `http/api/heatmaps.rs`; docs/architecture/heatmaps.md describes the whole.

pub mod aoi;
pub mod benchmark;
pub mod compute;
pub mod job;
pub mod result;
pub mod service;

wire_enum! {
    /// Where one image of a heatmap is.
    pub enum ItemStatus {
        Queued = "queued";
        Processing = "processing";
        Done = "done";
        Failed = "failed";
    }
}

impl ItemStatus {
    /// Whether an item stored with `status` has its result: only a `done` item's attention is
    /// shown, exported or put in a report (a retried item loses its old result).
    pub fn has_result(status: &str) -> bool {
        Self::parse(status) == Some(Self::Done)
    }
}
