//! Logging: `tracing` events to stdout, as text or JSON lines, filtered by `RUST_LOG` (by
//! default `info`, with the search index's per-segment chatter at `warn`). Colours only when
//! stdout is a terminal: a log file or a collector gets plain text.
//!
//! Invariant: no secret, token or password is ever recorded. Request spans carry the method,
//! the path without its query string, and a request id; never headers or bodies.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

/// What is logged without `RUST_LOG`: our events from `info` on; tantivy (the search index)
/// logs each segment it opens, merges or commits at `info`, a dozen lines at every start.
pub const DEFAULT_FILTER: &str = "info,tantivy=warn";

/// Installs the global subscriber (a second call is a no-op, which suits tests).
pub fn init(format: LogFormat) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stdout().is_terminal());
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}
