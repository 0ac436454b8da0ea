//! Logging: `tracing` events to stdout, as text or JSON lines, filtered by `RUST_LOG`.
//!
//! Invariant: no secret, token or password is ever recorded. Request spans carry the method,
//! the path without its query string, and a request id; never headers or bodies.

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

/// Installs the global subscriber (a second call is a no-op, which suits tests).
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}
