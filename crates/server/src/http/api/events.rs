//! `GET /events`: the caller's live events as server-sent events (docs/architecture/heatmaps.md).
//!
//! The stream starts with `event: ready` once it is subscribed (anything published after that
//! reaches it), then carries the user's events, with a `: ping` comment every 15 s. It ends when
//! the access token expires (the client reconnects with its refreshed token), when its session
//! ends (sign-out, password change, refresh-token reuse: checked every
//! `REGARD_EVENTS_SESSION_CHECK` seconds in the database, so on every node) and when the server
//! shuts down. A stream that falls more than the bus's capacity behind gets `event: resync`
//! (refetch what you show) instead of the events it missed. A user holds at most
//! `REGARD_EVENT_STREAMS_PER_USER` streams per process; more answer 429 `rate_limited`.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::response::IntoResponse;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use tokio::sync::{broadcast, watch};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ApiError;
use super::input::Member;
use crate::codes::ErrorCode;
use crate::events::{Event, EventName};
use crate::state::AppState;

/// `Retry-After` of a stream refused at the per-user cap (`REGARD_EVENT_STREAMS_PER_USER`).
const STREAM_CAP_RETRY_SECS: u64 = 30;

/// Interval of the keep-alive comments.
const PING: Duration = Duration::from_secs(15);

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(events))
}

/// Where a stream is.
struct Cursor {
    receiver: broadcast::Receiver<Arc<Event>>,
    /// The workspace whose events the stream carries.
    workspace_id: String,
    user_id: String,
    session_id: String,
    db: crate::db::Db,
    /// When to check next that the session still exists.
    session_check: tokio::time::Interval,
    /// When the access token expires.
    until: tokio::time::Instant,
    stopping: watch::Receiver<bool>,
    ready_sent: bool,
    /// Counts the stream in the metrics until it ends.
    _open: crate::metrics::SseGuard,
    /// Holds one of the user's stream slots until it ends.
    _slot: crate::events::StreamSlot,
}

/// One event of the stream as a client reads it: the schema of each item of the
/// `text/event-stream` answer, whose wire format is its `event:` and `data:` lines.
impl Cursor {
    /// Whether the stream may go on: its session still open and its caller still a member of
    /// the workspace (a signed-out session's or a removed member's stream ends, on whichever
    /// node it is open).
    async fn still_allowed(&self) -> Result<bool, crate::db::DbError> {
        Ok(crate::db::sessions::find(&self.db, &self.session_id)
            .await?
            .is_some()
            && crate::db::workspaces::is_member(&self.db, &self.workspace_id, &self.user_id)
                .await?)
    }
}

#[derive(utoipa::ToSchema)]
struct StreamEvent<'a> {
    #[schema(inline)]
    event: EventName,
    /// JSON text: `{}` for `ready` and `resync`, a `HeatmapItemEvent` for `heatmap_item`, a
    /// `SimulationEvent` for `simulation`.
    #[schema(value_type = String)]
    data: &'a str,
}

impl From<StreamEvent<'_>> for SseEvent {
    fn from(event: StreamEvent<'_>) -> Self {
        SseEvent::default()
            .event(event.event.as_str())
            .data(event.data)
    }
}

/// An event with no data.
fn bare(event: EventName) -> SseEvent {
    StreamEvent {
        event,
        data: crate::events::EMPTY,
    }
    .into()
}

/// `GET /events`: the caller's live events (server-sent events): `ready`, then `heatmap_item`,
/// `simulation` and the other events of the user's data, `resync` when the stream fell behind.
#[utoipa::path(
    get,
    path = "/events",
    tag = "events",
    responses((status = 200, description = "The event stream: each event as `StreamEvent`", content_type = "text/event-stream", body = StreamEvent))
)]
async fn events(
    State(state): State<AppState>,
    user: Member,
) -> Result<impl IntoResponse, ApiError> {
    // Past the cap, new streams are refused rather than old ones closed: closing the oldest
    // would let whoever holds a token push the user's own tabs off (docs/operations.md).
    let slot = state
        .event_streams
        .open(user.user_id())
        .ok_or_else(|| ApiError::new(ErrorCode::RateLimited).retry_after(STREAM_CAP_RETRY_SECS))?;
    let now = crate::db::now_ms() / 1000;
    let left = u64::try_from(user.0.claims.exp - now).unwrap_or(0);
    let period = Duration::from_secs(state.config.events_session_check.max(1));
    let mut session_check = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    session_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let cursor = Cursor {
        receiver: state.bus.subscribe(),
        workspace_id: user.workspace_id().to_owned(),
        user_id: user.user_id().to_owned(),
        session_id: user.0.session_id.clone(),
        db: state.db.clone(),
        session_check,
        until: tokio::time::Instant::now() + Duration::from_secs(left),
        stopping: state.stopping.clone(),
        ready_sent: false,
        _open: crate::metrics::SseGuard::new(&state.metrics),
        _slot: slot,
    };
    let stream = futures::stream::unfold(cursor, |mut cursor| async move {
        if !cursor.ready_sent {
            cursor.ready_sent = true;
            let ready = bare(EventName::Ready);
            return Some((Ok::<_, Infallible>(ready), cursor));
        }
        loop {
            if *cursor.stopping.borrow() {
                return None;
            }
            tokio::select! {
                received = cursor.receiver.recv() => match received {
                    Ok(event) => {
                        let mine = event
                            .workspace_id
                            .as_deref()
                            .is_none_or(|id| id == cursor.workspace_id);
                        // A change of members is checked at once, not at the next tick.
                        if mine
                            && event.name == EventName::Members
                            && matches!(cursor.still_allowed().await, Ok(false))
                        {
                            return None;
                        }
                        if mine {
                            let out = StreamEvent {
                                event: event.name,
                                data: &event.data,
                            }
                            .into();
                            return Some((Ok(out), cursor));
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::warn!(missed, "an event stream fell behind; asking it to resync");
                        let out = bare(EventName::Resync);
                        return Some((Ok(out), cursor));
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                () = tokio::time::sleep_until(cursor.until) => return None,
                _ = cursor.session_check.tick() => {
                    match cursor.still_allowed().await {
                        Ok(true) => {}
                        Ok(false) => return None,
                        // The database is away for a moment: keep the stream, check again later.
                        Err(err) => tracing::warn!(error = %err, "event stream session check failed"),
                    }
                }
                _ = cursor.stopping.changed() => return None,
            }
        }
    });
    let sse = Sse::new(stream).keep_alive(KeepAlive::new().interval(PING).text("ping"));
    // Reverse proxies that buffer responses (nginx) would hold the events back.
    Ok(([("x-accel-buffering", "no")], sse))
}
