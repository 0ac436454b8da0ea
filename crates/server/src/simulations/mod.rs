//! Simulations as jobs: [`compute`] is the pixel work of one render (no I/O), [`job`] the
//! `render_simulation` job around it (storage, database, events). The HTTP side is
//! `http/api/simulations/`; docs/architecture/simulations.md describes the whole.

pub mod compute;
pub mod job;
pub mod legibility;
pub mod service;

wire_enum! {
    /// Where a simulation's render is.
    pub enum SimulationStatus {
        /// Saved without a render (`render: false`).
        Draft = "draft";
        Queued = "queued";
        Rendering = "rendering";
        Done = "done";
        Failed = "failed";
    }
}
