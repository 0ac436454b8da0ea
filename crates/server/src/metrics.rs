//! Prometheus metrics (`GET /metrics`, text exposition format), with the official client
//! library, `prometheus-client`: one [`Metrics`] per process, no global state, so every
//! test server counts on its own.
//!
//! Counted as things happen: HTTP requests by method, route template and status, with their
//! latency; job attempts, outcomes and durations by kind; open event streams; storage errors
//! by operation. Read when scraped: the job queue (depth and age of the oldest due job by
//! kind) and the database pool. docs/operations.md lists every series.

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// Labels of the HTTP series: the route is axum's template (`/api/v1/media/{id}`), never the
/// raw path, so ids do not make new series.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct HttpLabels {
    pub method: String,
    pub route: String,
    pub status: u16,
}

/// A job kind (`heatmap_item`, `render_simulation`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct KindLabels {
    pub kind: String,
}

/// A job attempt's outcome: `done`, `failed` (given up) or `retried`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OutcomeLabels {
    pub kind: String,
    pub outcome: &'static str,
}

/// A storage operation (`put`, `get`, `delete`, ...).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OperationLabels {
    pub operation: &'static str,
}

/// Database pool connections by state (`idle`, `in_use`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct PoolLabels {
    pub state: &'static str,
}

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

/// Request latency buckets: 1 ms to about 33 s, doubling.
fn request_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 16))
}

/// Job duration buckets: 10 ms to about 5.5 min, doubling.
fn job_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.01, 2.0, 16))
}

/// Every series of one process. Cheap to clone (handles share their values).
#[derive(Clone)]
pub struct Metrics {
    registry: Arc<Registry>,
    pub http_requests: Family<HttpLabels, Counter>,
    pub http_duration: HistogramFamily<HttpLabels>,
    pub job_attempts: Family<KindLabels, Counter>,
    pub job_outcomes: Family<OutcomeLabels, Counter>,
    pub job_duration: HistogramFamily<KindLabels>,
    pub jobs_queued: Family<KindLabels, Gauge>,
    pub jobs_oldest_age: Family<KindLabels, Gauge<f64, std::sync::atomic::AtomicU64>>,
    pub sse_connections: Gauge,
    pub storage_errors: Family<OperationLabels, Counter>,
    pub db_connections: Family<PoolLabels, Gauge>,
    pub db_connections_max: Gauge,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics")
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// A fresh set of series, registered under the `regard_` prefix.
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("regard");
        let http_requests = Family::<HttpLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by method, route and status",
            http_requests.clone(),
        );
        let http_duration: HistogramFamily<HttpLabels> =
            Family::new_with_constructor(request_histogram);
        registry.register(
            "http_request_duration_seconds",
            "Time to answer HTTP requests (until the response head), by method, route and status",
            http_duration.clone(),
        );
        let job_attempts = Family::<KindLabels, Counter>::default();
        registry.register(
            "job_attempts",
            "Job attempts started, by kind",
            job_attempts.clone(),
        );
        let job_outcomes = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "job_outcomes",
            "Job attempts ended, by kind and outcome (done, retried, failed)",
            job_outcomes.clone(),
        );
        let job_duration: HistogramFamily<KindLabels> = Family::new_with_constructor(job_histogram);
        registry.register(
            "job_duration_seconds",
            "Time a job attempt took, by kind",
            job_duration.clone(),
        );
        let jobs_queued = Family::<KindLabels, Gauge>::default();
        registry.register(
            "jobs_queued",
            "Jobs waiting in the queue (all nodes), by kind",
            jobs_queued.clone(),
        );
        let jobs_oldest_age = Family::<KindLabels, Gauge<f64, _>>::default();
        registry.register(
            "jobs_oldest_queued_age_seconds",
            "How long the oldest due job has waited (all nodes), by kind; 0 when none waits",
            jobs_oldest_age.clone(),
        );
        let sse_connections = Gauge::default();
        registry.register(
            "sse_connections",
            "Open event streams (GET /api/v1/events) on this node",
            sse_connections.clone(),
        );
        let storage_errors = Family::<OperationLabels, Counter>::default();
        registry.register(
            "storage_errors",
            "Object storage operations that failed, by operation",
            storage_errors.clone(),
        );
        let db_connections = Family::<PoolLabels, Gauge>::default();
        registry.register(
            "db_pool_connections",
            "Database pool connections on this node, by state (idle, in_use)",
            db_connections.clone(),
        );
        let db_connections_max = Gauge::default();
        registry.register(
            "db_pool_max_connections",
            "Largest size of this node's database pool",
            db_connections_max.clone(),
        );
        Self {
            registry: Arc::new(registry),
            http_requests,
            http_duration,
            job_attempts,
            job_outcomes,
            job_duration,
            jobs_queued,
            jobs_oldest_age,
            sse_connections,
            storage_errors,
            db_connections,
            db_connections_max,
        }
    }

    /// Counts one answered request.
    pub fn observe_request(&self, method: &str, route: &str, status: u16, elapsed: Duration) {
        let labels = HttpLabels {
            method: method.to_owned(),
            route: route.to_owned(),
            status,
        };
        self.http_requests.get_or_create(&labels).inc();
        self.http_duration
            .get_or_create(&labels)
            .observe(elapsed.as_secs_f64());
    }

    /// Counts one job attempt's end.
    pub fn observe_job(&self, kind: &str, outcome: &'static str, elapsed: Duration) {
        self.job_outcomes
            .get_or_create(&OutcomeLabels {
                kind: kind.to_owned(),
                outcome,
            })
            .inc();
        self.job_duration
            .get_or_create(&KindLabels {
                kind: kind.to_owned(),
            })
            .observe(elapsed.as_secs_f64());
    }

    /// Counts a failed storage operation.
    pub fn storage_error(&self, operation: &'static str) {
        self.storage_errors
            .get_or_create(&OperationLabels { operation })
            .inc();
    }

    /// The text exposition of every series (OpenMetrics text, which Prometheus reads).
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

/// Keeps [`Metrics::sse_connections`] counted while an event stream is open.
pub struct SseGuard(Gauge);

impl SseGuard {
    /// Counts one more open stream until the guard is dropped.
    pub fn new(metrics: &Metrics) -> Self {
        metrics.sse_connections.inc();
        Self(metrics.sse_connections.clone())
    }
}

impl Drop for SseGuard {
    fn drop(&mut self) {
        self.0.dec();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_are_named_and_labelled_for_prometheus() {
        let metrics = Metrics::new();
        metrics.observe_request("GET", "/api/v1/media/{id}", 200, Duration::from_millis(3));
        metrics.observe_job("heatmap_item", "done", Duration::from_millis(1500));
        {
            let _stream = SseGuard::new(&metrics);
            assert!(metrics.encode().contains("regard_sse_connections 1\n"));
        }
        let text = metrics.encode();
        assert!(text.contains(
            "regard_http_requests_total{method=\"GET\",route=\"/api/v1/media/{id}\",status=\"200\"} 1\n"
        ), "{text}");
        assert!(text.contains(
            "regard_http_request_duration_seconds_count{method=\"GET\",route=\"/api/v1/media/{id}\",status=\"200\"} 1\n"
        ), "{text}");
        assert!(
            text.contains("regard_job_outcomes_total{kind=\"heatmap_item\",outcome=\"done\"} 1\n")
        );
        assert!(text.contains("regard_sse_connections 0\n"));
        assert!(text.ends_with("# EOF\n"));
    }
}
