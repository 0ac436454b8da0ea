//! Pure pixel work for Regard: attention (saliency) prediction, its metrics, scores and overlays,
//! and (later) perspective rendering.
//!
//! Invariant: this crate does no I/O, no async and knows nothing of the web. It takes decoded
//! pixels in memory and returns pixels and plain data, so it can be benchmarked, fuzzed and used
//! from the command line as easily as from the server's workers.
