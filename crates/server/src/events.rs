//! Live events and job wake-ups across the process and, on PostgreSQL, across nodes.
//!
//! [`Bus::publish`] sends a user's event (a heatmap item changed) to every open
//! `GET /api/v1/events` stream of that user. [`Bus::jobs_enqueued`] wakes idle workers.
//!
//! - SQLite (one node): both stay in the process (a broadcast channel and a `Notify`).
//! - PostgreSQL: both go through `pg_notify` on the channels [`EVENTS_CHANNEL`] and
//!   [`JOBS_CHANNEL`]; every node holds one `LISTEN` connection and feeds what arrives into its
//!   own broadcast channel and `Notify`. Local events take the same path, so each is delivered
//!   once. Notifications sent while the listening connection is being re-established are lost:
//!   a `resync` is broadcast after each reconnection so that streams tell their tabs to refetch,
//!   and idle workers still poll at `REGARD_JOB_POLL_SECS`.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::{Notify, broadcast};

use crate::db::{Backend, Db, DbError};

/// PostgreSQL channel carrying [`Event`]s as JSON.
pub const EVENTS_CHANNEL: &str = "regard_events";
/// PostgreSQL channel announcing new jobs (empty payload).
pub const JOBS_CHANNEL: &str = "regard_jobs";

/// The data of the events that carry none (`ready`, `resync`).
pub const EMPTY: &str = "{}";

/// Events kept per stream before a slow one misses some (it then gets a `resync`).
const CAPACITY: usize = 1024;

/// The name of a live event: the `event:` line of `GET /api/v1/events`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EventName {
    /// The stream is subscribed: anything published from now on reaches it.
    Ready,
    /// A heatmap image's job moved on.
    HeatmapItem,
    /// A simulation's render moved on.
    Simulation,
    /// The stream fell behind and missed events: refetch what is shown.
    Resync,
    /// The workspace's members or roles changed: the stream checks that its caller is still a
    /// member (a removed member's stream ends there) and the app reads its role again.
    Members,
}

impl EventName {
    /// The name as sent.
    pub fn as_str(self) -> &'static str {
        match self {
            EventName::Ready => "ready",
            EventName::HeatmapItem => "heatmap_item",
            EventName::Simulation => "simulation",
            EventName::Resync => "resync",
            EventName::Members => "members",
        }
    }
}

/// Something that happened to one workspace's data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// The workspace whose streams receive it; `None`: every stream (a `resync`).
    pub workspace_id: Option<String>,
    /// SSE event name.
    pub name: EventName,
    /// SSE data: the JSON text of the domain's typed event (`HeatmapItemEvent`,
    /// `SimulationEvent`), written once where it is published and sent as it is.
    pub data: String,
}

impl Event {
    /// An event for one workspace's streams, its data a typed value of the domain.
    pub fn for_workspace(workspace_id: &str, name: EventName, data: &impl Serialize) -> Self {
        Self {
            workspace_id: Some(workspace_id.to_owned()),
            name,
            // The domains' event types are plain structs of texts and numbers: always JSON.
            data: serde_json::to_string(data).unwrap_or_else(|_| EMPTY.to_owned()),
        }
    }

    /// Tells every stream that events may have been missed.
    pub fn resync() -> Self {
        Self {
            workspace_id: None,
            name: EventName::Resync,
            data: EMPTY.to_owned(),
        }
    }
}

/// The event bus of this process. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Bus {
    db: Db,
    sender: broadcast::Sender<Arc<Event>>,
    jobs: Arc<Notify>,
    listener: Option<Arc<tokio::task::JoinHandle<()>>>,
}

impl Bus {
    /// Starts the bus. On PostgreSQL this connects the `LISTEN` connection and returns once it
    /// listens, so nothing published after start-up is missed.
    pub async fn start(db: Db, database_url: &str) -> Result<Self, DbError> {
        let (sender, _) = broadcast::channel(CAPACITY);
        let jobs = Arc::new(Notify::new());
        let listener = match db.backend() {
            Backend::Sqlite => None,
            Backend::Postgres => {
                let mut listener = sqlx::postgres::PgListener::connect(database_url).await?;
                listener.listen_all([EVENTS_CHANNEL, JOBS_CHANNEL]).await?;
                let task = tokio::spawn(listen(listener, sender.clone(), Arc::clone(&jobs)));
                Some(Arc::new(task))
            }
        };
        Ok(Self {
            db,
            sender,
            jobs,
            listener,
        })
    }

    /// Delivers an event to its user's streams on every node. Failures are logged: the change
    /// itself is saved, and tabs refetch on their next (re)connection.
    pub async fn publish(&self, event: Event) {
        match self.db.backend() {
            Backend::Sqlite => {
                // No receiver (no open stream) is not an error.
                let _ = self.sender.send(Arc::new(event));
            }
            Backend::Postgres => {
                let payload = match serde_json::to_string(&event) {
                    Ok(payload) => payload,
                    Err(err) => {
                        tracing::error!(error = %err, "cannot encode an event");
                        return;
                    }
                };
                if let Err(err) = self.db.notify(EVENTS_CHANNEL, &payload).await {
                    tracing::warn!(error = %err, event = event.name.as_str(), "cannot publish an event");
                }
            }
        }
    }

    /// Receives every event published from now on (filter by user).
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.sender.subscribe()
    }

    /// Wakes idle workers here and, on PostgreSQL, on every node.
    pub async fn jobs_enqueued(&self) {
        match self.db.backend() {
            Backend::Sqlite => self.jobs.notify_waiters(),
            Backend::Postgres => {
                if let Err(err) = self.db.notify(JOBS_CHANNEL, "").await {
                    // Workers still poll; the job only starts a little later.
                    tracing::warn!(error = %err, "cannot announce new jobs");
                }
            }
        }
    }

    /// What idle workers wait on.
    pub fn job_wakeups(&self) -> Arc<Notify> {
        Arc::clone(&self.jobs)
    }

    /// Stops listening (shutdown).
    pub fn stop(&self) {
        if let Some(task) = &self.listener {
            task.abort();
        }
    }
}

/// Forwards notifications into this process until aborted. `PgListener::recv` reconnects by
/// itself after a lost connection; a short pause avoids spinning while the database is away.
async fn listen(
    mut listener: sqlx::postgres::PgListener,
    sender: broadcast::Sender<Arc<Event>>,
    jobs: Arc<Notify>,
) {
    loop {
        match listener.try_recv().await {
            Ok(Some(notification)) => match notification.channel() {
                JOBS_CHANNEL => jobs.notify_waiters(),
                _ => match serde_json::from_str::<Event>(notification.payload()) {
                    Ok(event) => {
                        let _ = sender.send(Arc::new(event));
                    }
                    Err(err) => tracing::warn!(error = %err, "ignoring a malformed event"),
                },
            },
            // The connection was lost and is re-established on the next call: whatever was
            // sent meanwhile is gone, so streams refetch and workers look for jobs.
            Ok(None) => {
                tracing::warn!("event listener reconnecting; asking open streams to resync");
                let _ = sender.send(Arc::new(Event::resync()));
                jobs.notify_waiters();
            }
            Err(err) => {
                tracing::warn!(error = %err, "event listener failed; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// The open event streams of each user in this process, for `REGARD_EVENT_STREAMS_PER_USER`.
pub struct StreamSlots {
    per_user: u64,
    open: Arc<crate::tally::Tally>,
}

/// One open stream; counted until dropped (when the stream ends).
pub type StreamSlot = crate::tally::Held;

impl StreamSlots {
    /// At most `per_user` streams per user (0: unlimited).
    pub fn new(per_user: usize) -> Arc<Self> {
        Arc::new(Self {
            per_user: u64::try_from(per_user).unwrap_or(u64::MAX),
            open: Arc::default(),
        })
    }

    /// A slot for one more stream of `user_id`, or `None` when the user holds the most.
    pub fn open(&self, user_id: &str) -> Option<StreamSlot> {
        self.open
            .take(user_id, 1, |open| {
                self.per_user == 0 || open < self.per_user
            })
            .ok()
    }
}

#[cfg(test)]
mod stream_slot_tests {
    use super::*;

    #[test]
    fn a_user_holds_at_most_the_cap_and_closed_streams_free_their_slots() {
        let slots = StreamSlots::new(2);
        let first = slots.open("a").unwrap();
        let _second = slots.open("a").unwrap();
        assert!(slots.open("a").is_none());
        assert!(slots.open("b").is_some());
        drop(first);
        assert!(slots.open("a").is_some());
        let unlimited = StreamSlots::new(0);
        let held: Vec<_> = (0..100).map(|_| unlimited.open("a").unwrap()).collect();
        assert_eq!(held.len(), 100);
    }
}

#[cfg(test)]
mod name_tests {
    use super::EventName;

    #[test]
    fn each_event_is_sent_under_its_documented_name() {
        for name in [
            EventName::Ready,
            EventName::HeatmapItem,
            EventName::Simulation,
            EventName::Resync,
        ] {
            assert_eq!(serde_json::to_value(name).unwrap(), name.as_str());
        }
    }
}
