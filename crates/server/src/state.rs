//! The state shared by every request handler.

use std::sync::Arc;

use crate::auth::limits::RateLimits;
use crate::auth::oidc::Providers;
use crate::auth::tokens::JwtKeys;
use crate::config::Config;
use crate::db::Db;
use crate::events::Bus;
use crate::media::signing::UrlSigner;
use crate::storage::Storage;

/// Everything handlers need, cheap to clone (pool handles and `Arc`s).
#[derive(Clone)]
pub struct AppState {
    /// The database.
    pub db: Db,
    /// The configuration the server started with.
    pub config: Arc<Config>,
    /// Access token signing keys.
    pub jwt: JwtKeys,
    /// Per-IP rate limits of the auth API.
    pub limits: Arc<RateLimits>,
    /// Third-party sign-in providers (OpenID Connect), with their discovery and key caches.
    pub oauth: Arc<Providers>,
    /// Argon2id hash of a random password, verified against when an email is unknown.
    pub dummy_hash: Arc<str>,
    /// Password hashing within its memory budget (`REGARD_PASSWORD_HASH_MEMORY`).
    pub hasher: Arc<crate::auth::password::Hasher>,
    /// Media objects (local folder or S3).
    pub storage: Arc<dyn Storage>,
    /// Signs and checks the short-lived media URLs.
    pub signer: UrlSigner,
    /// Live events (SSE streams) and job wake-ups.
    pub bus: Bus,
    /// Open event streams per user (`REGARD_EVENT_STREAMS_PER_USER`).
    pub event_streams: Arc<crate::events::StreamSlots>,
    /// Becomes true when the server starts shutting down (event streams end).
    pub stopping: tokio::sync::watch::Receiver<bool>,
    /// Seals second-factor secrets at rest.
    pub sealer: crate::auth::mfa::seal::Sealer,
    /// Outgoing mail (SMTP, or the outbox folder in development).
    pub mailer: Arc<dyn crate::notify::mail::Mailer>,
    /// Outgoing SMS (a gateway webhook, or the outbox folder in development).
    pub sms: Arc<dyn crate::notify::sms::SmsSender>,
    /// Bounds the image ingests running at once (CPU).
    pub ingest_slots: Arc<tokio::sync::Semaphore>,
    /// Memory for decoding uploads, one permit per MiB (`REGARD_MEDIA_DECODE_BUDGET`): each
    /// ingest holds its worked-out cost while it decodes.
    pub decode_budget: Arc<tokio::sync::Semaphore>,
    /// Memory for exports, reports and renders (`REGARD_RENDER_MEMORY_BUDGET`), shared with
    /// this process's job workers.
    pub render_budget: Arc<crate::render_budget::RenderBudget>,
    /// The chat assistant (offline engine, optional language model).
    pub assistant: Arc<crate::assistant::Assistant>,
    /// This process's Prometheus series (`GET /metrics`).
    pub metrics: crate::metrics::Metrics,
    /// The sizes of uploads in progress, by user, held against the storage quota.
    pub upload_reservations: Arc<crate::media::quota::Reservations>,
    /// What each kind of job does (registered by `startup`).
    pub job_handlers: crate::jobs::Handlers,
    /// Recent list answers, by caller and library revision.
    pub answers: Arc<crate::answers::Answers>,
    /// Reports drawn for share links, kept and served again.
    pub shared_reports: Arc<crate::reports::kept::KeptReports>,
}

impl AppState {
    /// What job workers need, taken from the server's state.
    pub fn job_context(&self) -> crate::jobs::Context {
        crate::jobs::Context {
            db: self.db.clone(),
            storage: std::sync::Arc::clone(&self.storage),
            bus: self.bus.clone(),
            config: std::sync::Arc::clone(&self.config),
            metrics: self.metrics.clone(),
            render_budget: Arc::clone(&self.render_budget),
            handlers: self.job_handlers.clone(),
        }
    }
}
