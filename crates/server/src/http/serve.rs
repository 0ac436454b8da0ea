//! The accept loop: serves a router over HTTP/1.1 with the limits that keep slow or idle
//! clients from holding the server (docs/operations.md, "Connections and timeouts"):
//!
//! - a header-read timeout (hyper's), which also ends idle keep-alive connections, since hyper
//!   starts it whenever a connection waits for a request head;
//! - a pace on request bodies ([`PacedBody`]): after a grace, a body must keep up a minimum
//!   average rate, so a slow upload goes on but one byte every few seconds does not;
//! - a cap on open connections, logged when reached, under the file limit raised at start.
//!
//! A hand-written loop rather than `axum::serve`, which sets no timer (so no header timeout)
//! and has no connection cap. Graceful shutdown: on the signal, the loop stops accepting, every
//! connection finishes its request in flight and closes, and `serve` returns when all are gone.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::ConnectInfo;
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, mpsc, watch};
use tower::ServiceExt;

use crate::config::Config;

/// File descriptors kept for the database pool, storage, staging files and logs when the
/// connection cap is fitted under the file limit.
const RESERVED_FILES: u64 = 256;

/// How often the "connection limit reached" line may be logged.
const LIMIT_LOG_INTERVAL: Duration = Duration::from_secs(10);

/// The connection limits (`REGARD_HTTP_*`).
#[derive(Debug, Clone, Copy)]
pub struct ServeLimits {
    /// Time to send a request's headers, and to start the next request on a kept-alive
    /// connection. `None`: no limit.
    pub header_timeout: Option<Duration>,
    /// Grace before a request body must keep up `body_min_rate`. `None`: no limit.
    pub body_timeout: Option<Duration>,
    /// Bytes per second a body must average after the grace (0: done within the grace).
    pub body_min_rate: u64,
    /// Open connections at most; 0: unlimited.
    pub max_connections: usize,
}

/// A number of seconds from the configuration as a duration; 0 (or less) is `None`.
fn seconds(value: f64) -> Option<Duration> {
    (value > 0.0)
        .then(|| Duration::try_from_secs_f64(value).ok())
        .flatten()
}

impl ServeLimits {
    /// From `REGARD_HTTP_HEADER_TIMEOUT`, `_BODY_TIMEOUT`, `_BODY_MIN_RATE` and
    /// `_MAX_CONNECTIONS`.
    pub fn from_config(config: &Config) -> Self {
        Self {
            header_timeout: seconds(config.http_header_timeout),
            body_timeout: seconds(config.http_body_timeout),
            body_min_rate: config.http_body_min_rate,
            max_connections: config.http_max_connections,
        }
    }
}

/// Raises this process's open-file limit (soft) to its hard limit where the system allows,
/// and returns the soft limit now in force (`None` where it cannot be read). Idle clients
/// otherwise use up the default 1,024 descriptors long before the connection cap.
pub fn raise_file_limit() -> Option<u64> {
    // `rlimit` wraps getrlimit/setrlimit safely (`unsafe_code` is forbidden here).
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => Some(limit),
        Err(err) => {
            tracing::warn!(error = %err, "cannot raise the open-file limit");
            rlimit::getrlimit(rlimit::Resource::NOFILE)
                .ok()
                .map(|(soft, _)| soft)
        }
    }
}

/// The connection cap that fits under `file_limit` (see [`RESERVED_FILES`]); 0 stays
/// unlimited.
fn fitted_cap(configured: usize, file_limit: Option<u64>) -> usize {
    let Some(limit) = file_limit else {
        return configured;
    };
    let room = usize::try_from(limit.saturating_sub(RESERVED_FILES).max(16)).unwrap_or(usize::MAX);
    if configured == 0 || configured <= room {
        return configured;
    }
    tracing::warn!(
        configured,
        file_limit = limit,
        cap = room,
        "REGARD_HTTP_MAX_CONNECTIONS is above what the open-file limit allows; lowered"
    );
    room
}

/// Serves `app` on `listener` with `limits` until `signal` completes, then lets the
/// connections finish their requests in flight.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ServeLimits,
    signal: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let cap = fitted_cap(limits.max_connections, raise_file_limit());
    let slots = (cap > 0).then(|| Arc::new(Semaphore::new(cap.min(Semaphore::MAX_PERMITS))));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let http = Arc::new(http);
    let (stop, stopping) = watch::channel(false);
    // Every connection task holds a sender; `recv` answers `None` when the last one is gone.
    let (alive, mut all_closed) = mpsc::channel::<()>(1);
    let mut last_refusal_log: Option<Instant> = None;
    let mut refused_since_log = 0u64;
    tokio::pin!(signal);
    loop {
        let (stream, remote) = tokio::select! {
            () = &mut signal => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of descriptors, or a connection reset before it was accepted: log,
                    // and pause briefly so that the loop does not spin while none are free.
                    tracing::error!(error = %err, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let slot = match &slots {
            None => None,
            Some(slots) => match Arc::clone(slots).try_acquire_owned() {
                Ok(slot) => Some(slot),
                Err(_) => {
                    // Closed at once: a client learns now rather than after a timeout.
                    drop(stream);
                    refused_since_log += 1;
                    if last_refusal_log.is_none_or(|at| at.elapsed() >= LIMIT_LOG_INTERVAL) {
                        tracing::warn!(
                            limit = cap,
                            refused = refused_since_log,
                            "connection limit reached (REGARD_HTTP_MAX_CONNECTIONS): closing new connections"
                        );
                        last_refusal_log = Some(Instant::now());
                        refused_since_log = 0;
                    }
                    continue;
                }
            },
        };
        // Small answers go out at once: without TCP_NODELAY, a response written in two parts
        // (headers, then a streamed body) waits for the client's delayed ACK, 40 ms on Linux.
        if let Err(err) = stream.set_nodelay(true) {
            tracing::debug!(error = %err, "cannot set TCP_NODELAY");
        }
        let app = app.clone();
        let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            let (mut parts, body) = request.into_parts();
            parts.extensions.insert(ConnectInfo(remote));
            let body = axum::body::Body::new(PacedBody::new(body, &limits));
            app.clone()
                .oneshot(axum::http::Request::from_parts(parts, body))
        });
        let http = Arc::clone(&http);
        let mut stopping = stopping.clone();
        let alive = alive.clone();
        tokio::spawn(async move {
            let connection = http.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            let result = tokio::select! {
                result = connection.as_mut() => result,
                _ = async { stopping.wait_for(|stop| *stop).await.map(|_| ()) } => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(err) = result {
                tracing::debug!(error = %err, remote = %remote, "connection ended with an error");
            }
            drop(slot);
            drop(alive);
        });
    }
    drop(listener);
    let _ = stop.send(true);
    drop(alive);
    let _ = all_closed.recv().await;
    Ok(())
}

/// Why a request body was cut off.
#[derive(Debug, thiserror::Error)]
#[error("the request body arrived too slowly")]
pub struct BodyTooSlow;

/// A request body that must arrive in time: within the grace, then at a minimum average
/// rate (its deadline moves on by `1 / rate` seconds for every byte received). A body that
/// misses its deadline ends with [`BodyTooSlow`]; the handler answers an error and hyper
/// closes the connection, since the body was not read to its end.
pub struct PacedBody {
    inner: Incoming,
    pace: Option<Pace>,
}

struct Pace {
    start: tokio::time::Instant,
    grace: Duration,
    min_rate: u64,
    received: u64,
    /// Created when the body first has to wait.
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Pace {
    fn deadline(&self) -> tokio::time::Instant {
        let allowance = if self.min_rate == 0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(self.received as f64 / self.min_rate as f64)
        };
        self.start + self.grace + allowance
    }
}

impl PacedBody {
    /// Wraps `inner` with the pace of `limits` (none when there is no body timeout).
    pub fn new(inner: Incoming, limits: &ServeLimits) -> Self {
        let pace = limits.body_timeout.map(|grace| Pace {
            start: tokio::time::Instant::now(),
            grace,
            min_rate: limits.body_min_rate,
            received: 0,
            sleep: None,
        });
        Self { inner, pace }
    }
}

impl Body for PacedBody {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let (Some(pace), Some(data)) = (&mut this.pace, frame.data_ref()) {
                    pace.received += data.len() as u64;
                    let deadline = pace.deadline();
                    if let Some(sleep) = &mut pace.sleep {
                        sleep.as_mut().reset(deadline);
                    }
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(other) => Poll::Ready(other.map(|r| r.map_err(Into::into))),
            Poll::Pending => {
                let Some(pace) = &mut this.pace else {
                    return Poll::Pending;
                };
                let deadline = pace.deadline();
                let sleep = pace
                    .sleep
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
                match sleep.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        tracing::info!(received = pace.received, "request body too slow; cut off");
                        Poll::Ready(Some(Err(BodyTooSlow.into())))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connection_cap_fits_under_the_file_limit() {
        assert_eq!(fitted_cap(10_000, Some(1_048_576)), 10_000);
        assert_eq!(fitted_cap(10_000, Some(1_024)), 768);
        assert_eq!(fitted_cap(0, Some(1_024)), 0);
        assert_eq!(fitted_cap(500, None), 500);
    }

    #[test]
    fn zero_seconds_is_no_limit() {
        assert_eq!(seconds(0.0), None);
        assert_eq!(seconds(1.5), Some(Duration::from_millis(1500)));
    }
}
