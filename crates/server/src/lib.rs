//! The Regard server library: everything behind the `regard` binary.

pub mod answers;
pub mod archive;
pub mod assistant;
pub mod auth;
#[macro_use]
pub mod codes;
pub mod cli;
pub mod config;
pub mod db;
pub mod events;
pub mod heatmaps;
pub mod http;
pub mod i18n;
pub mod inventory;
pub mod jobs;
pub mod media;
pub mod metrics;
pub mod notify;
pub mod ooh;
pub mod plans;
pub mod private;
pub mod quad;
pub mod render_budget;
pub mod reports;
pub mod simulations;
pub mod startup;
pub mod state;
pub mod storage;
pub mod tally;
pub mod telemetry;
pub mod text;
pub mod tls;

pub use config::Config;
pub use startup::Application;
