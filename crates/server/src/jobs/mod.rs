//! Job workers: a pool of tasks that claim jobs from the database queue ([`crate::db::jobs`]),
//! run them, and record the outcome.
//!
//! - **Claim with a lease**: a claimed job belongs to one worker until `lease_until`; the worker
//!   extends the lease every third of its length while it works. A worker that dies stops
//!   extending, the lease runs out, and any worker on any node claims the job again.
//! - **Outcomes**: success ends the job `done`. A [`JobError::Permanent`] error (bad input)
//!   ends it `failed` at once; a [`JobError::Transient`] one (storage or database trouble) puts
//!   it back in the queue after an exponential back-off, until `max_attempts` is reached. Each
//!   error is kept as `last_error`. When a job is given up, its kind's handler records the
//!   failure on its subject (the heatmap item shows "Failed to generate heatmap").
//! - **Where the work runs**: the loop is async; handlers do their pixel work on the blocking
//!   pool (`spawn_blocking`), so the runtime keeps serving requests.
//! - **Waking up**: idle workers wait for [`Bus::jobs_enqueued`] (in-process, or PostgreSQL
//!   `NOTIFY` from any node) and poll every `REGARD_JOB_POLL_SECS` for jobs that became due
//!   (back-offs) or whose lease expired.
//! - **Shutdown**: workers stop claiming, finish the job in hand, and return.
//! - **Kinds**: each domain that queues jobs implements [`Handler`] for its kind (the heatmap
//!   item, the simulation render); the composition root (`startup`) registers them in
//!   [`Handlers`], so this module runs jobs without knowing any domain, and a kind without a
//!   handler fails its jobs instead of being silently skipped.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::config::Config;
use crate::db::jobs::{self, ClaimedJob};
use crate::db::{self, Db};
use crate::events::Bus;
use crate::storage::Storage;

/// What one kind of job does, implemented by the domain that queues it.
#[async_trait::async_trait]
pub trait Handler: Send + Sync {
    /// The `kind` of the jobs this handler runs (one of [`crate::db::jobs::KINDS`]).
    fn kind(&self) -> &'static str;

    /// Runs one attempt. A [`JobError::Permanent`] error has already been recorded on the
    /// job's subject by the handler.
    async fn run(&self, ctx: &Context, job: &ClaimedJob, cancel: &Cancel) -> Result<(), JobError>;

    /// Tells the job's subject that another attempt will follow.
    async fn retrying(&self, ctx: &Context, job: &ClaimedJob);

    /// Records on the job's subject that the job was given up.
    async fn given_up(&self, ctx: &Context, job: &ClaimedJob, error: &str);
}

/// The registered handlers, one per kind. Cheap to clone.
#[derive(Clone)]
pub struct Handlers(Arc<[Arc<dyn Handler>]>);

impl Handlers {
    /// The handlers of a process; a kind registered twice keeps its first handler.
    pub fn new(handlers: Vec<Arc<dyn Handler>>) -> Self {
        Self(handlers.into())
    }

    /// The handler of `kind`, if one is registered.
    pub fn find(&self, kind: &str) -> Option<&dyn Handler> {
        self.0.iter().find(|h| h.kind() == kind).map(Arc::as_ref)
    }
}

impl std::fmt::Debug for Handlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|h| h.kind()))
            .finish()
    }
}

/// What job handlers can reach. Cheap to clone.
#[derive(Clone)]
pub struct Context {
    pub db: Db,
    pub storage: Arc<dyn Storage>,
    pub bus: Bus,
    pub config: Arc<Config>,
    pub metrics: crate::metrics::Metrics,
    /// Memory for renders (`REGARD_RENDER_MEMORY_BUDGET`): a handler takes its job's share
    /// before decoding, waiting while the lease is kept alive.
    pub render_budget: Arc<crate::render_budget::RenderBudget>,
    /// What each kind of job does.
    pub handlers: Handlers,
}

impl Context {
    /// Fault injection for tests (`REGARD_FAULT_HOLD_JOB_MS`): handlers call this in the middle
    /// of their work (after marking their subject as started), so a test can kill the process
    /// there. The lease keeps being extended meanwhile. Does nothing when unset.
    pub async fn fault_hold(&self, job_id: &str) {
        let ms = self.config.fault_hold_job_ms;
        if ms > 0 {
            tracing::warn!(job_id, ms, "fault injection: holding the job");
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
    }
}

/// Why a job attempt failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobError {
    /// Retrying cannot help (a corrupt image). The handler has recorded the failure.
    Permanent(String),
    /// Might work later (storage or database unavailable).
    Transient(String),
}

impl std::fmt::Display for JobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobError::Permanent(m) | JobError::Transient(m) => f.write_str(m),
        }
    }
}

/// Set when the job stopped being ours (deleted with its subject, or re-claimed after our lease
/// expired); handlers check it before saving.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// Whether the job should stop.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Delay before attempt `attempts + 1`: 2 s, 4 s, 8 s, ... capped at 5 minutes, with ±20%
/// jitter so that jobs failed together do not retry together.
pub fn backoff(attempts: i64) -> Duration {
    let exp = attempts.clamp(1, 16) as u32 - 1;
    let base = (2_000u64 << exp).min(300_000) as f64;
    let jitter = 0.8 + 0.4 * rand::random::<f64>();
    Duration::from_millis((base * jitter) as u64)
}

/// Runs one attempt of a job by its kind.
async fn run(ctx: &Context, job: &ClaimedJob, cancel: &Cancel) -> Result<(), JobError> {
    match ctx.handlers.find(&job.kind) {
        Some(handler) => handler.run(ctx, job, cancel).await,
        None => Err(JobError::Permanent(format!(
            "unknown job kind {:?}",
            job.kind
        ))),
    }
}

/// Tells the job's subject that another attempt will follow.
async fn retrying(ctx: &Context, job: &ClaimedJob) {
    if let Some(handler) = ctx.handlers.find(&job.kind) {
        handler.retrying(ctx, job).await;
    }
}

/// Records on the job's subject that the job was given up.
async fn given_up(ctx: &Context, job: &ClaimedJob, error: &str) {
    if let Some(handler) = ctx.handlers.find(&job.kind) {
        handler.given_up(ctx, job, error).await;
    }
}

/// Runs, in this task, every job that is ready now (and those that become ready meanwhile),
/// exactly as a worker would, until none is left; returns how many were run. For tests and
/// tools on a server without workers: the queue is drained synchronously, no waiting. Jobs
/// retried with a back-off are not due yet, so they are left queued.
pub async fn run_ready(ctx: &Context) -> usize {
    let settings = Settings {
        lease: Duration::from_secs(ctx.config.job_lease_secs.max(1)),
        poll: Duration::from_secs(1),
    };
    let owner = format!("drain-{}", uuid::Uuid::new_v4().simple());
    let mut count = 0;
    loop {
        let lease_ms = settings.lease.as_millis() as i64;
        match jobs::claim_ordered(&ctx.db, &owner, db::now_ms(), lease_ms, claim_order(ctx)).await {
            Ok(Some(job)) => {
                execute(ctx, &owner, job, &settings).await;
                count += 1;
            }
            Ok(None) => return count,
            Err(err) => {
                tracing::warn!(error = %err, "cannot claim a job");
                return count;
            }
        }
    }
}

/// The claim order `REGARD_JOB_FAIR_QUEUE` asks for.
fn claim_order(ctx: &Context) -> jobs::ClaimOrder {
    if ctx.config.job_fair_queue {
        jobs::ClaimOrder::Fair
    } else {
        jobs::ClaimOrder::Fifo
    }
}

/// Settings of a pool, from the configuration.
#[derive(Debug, Clone)]
struct Settings {
    lease: Duration,
    poll: Duration,
}

/// A running pool of workers.
pub struct WorkerPool {
    handles: Vec<JoinHandle<()>>,
    stop: watch::Sender<bool>,
}

impl WorkerPool {
    /// Starts `REGARD_WORKERS` workers (default: one per CPU).
    pub fn start(ctx: Context) -> Self {
        let size = ctx.config.worker_count();
        let settings = Settings {
            lease: Duration::from_secs(ctx.config.job_lease_secs.max(1)),
            poll: Duration::from_millis((ctx.config.job_poll_secs * 1000.0).max(50.0) as u64),
        };
        let (stop, stopped) = watch::channel(false);
        let node = uuid::Uuid::new_v4().simple().to_string();
        let handles = (0..size)
            .map(|n| {
                let name = format!("{}-{}/{n}", std::process::id(), &node[..8]);
                tokio::spawn(worker(ctx.clone(), name, settings.clone(), stopped.clone()))
            })
            .collect();
        tracing::info!(
            workers = size,
            lease_secs = settings.lease.as_secs(),
            "job workers started"
        );
        Self { handles, stop }
    }

    /// Stops claiming, lets each worker finish the job in hand, and waits for them.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        for handle in self.handles {
            if let Err(err) = handle.await {
                tracing::error!(error = %err, "a job worker panicked");
            }
        }
        tracing::info!("job workers stopped");
    }
}

/// One worker: claim, run, record; wait for a wake-up when the queue is empty.
async fn worker(ctx: Context, name: String, settings: Settings, mut stop: watch::Receiver<bool>) {
    let wakeups = ctx.bus.job_wakeups();
    loop {
        if *stop.borrow() {
            return;
        }
        // Registered before looking, so a job enqueued between the look and the wait still
        // wakes this worker.
        let notified = wakeups.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let lease_ms = settings.lease.as_millis() as i64;
        match jobs::claim_ordered(&ctx.db, &name, db::now_ms(), lease_ms, claim_order(&ctx)).await {
            Ok(Some(job)) => {
                execute(&ctx, &name, job, &settings).await;
                continue;
            }
            Ok(None) => {}
            Err(err) => tracing::warn!(error = %err, worker = %name, "cannot claim a job"),
        }
        tokio::select! {
            () = &mut notified => {}
            () = tokio::time::sleep(settings.poll) => {}
            _ = stop.changed() => {}
        }
    }
}

/// Runs one claimed job with its lease kept alive, then records the outcome.
async fn execute(ctx: &Context, owner: &str, job: ClaimedJob, settings: &Settings) {
    tracing::info!(
        job_id = %job.id, kind = %job.kind, subject = %job.subject_id,
        attempt = job.attempts, worker = owner, "job started"
    );
    if job.attempts > job.max_attempts {
        // Claimed again after its lease expired once too often: its worker keeps dying on it.
        let error = "gave up: the job's worker stopped before finishing it too many times";
        given_up(ctx, &job, error).await;
        record(
            jobs::finish(&ctx.db, &job.id, owner, "failed", Some(error)).await,
            &job,
        );
        tracing::warn!(job_id = %job.id, "job given up after lost leases");
        return;
    }

    let cancel = Cancel::default();
    let keeper = {
        let (db, id, owner, cancel) = (
            ctx.db.clone(),
            job.id.clone(),
            owner.to_owned(),
            cancel.clone(),
        );
        let lease = settings.lease;
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(lease / 3).await;
                let until = db::now_ms() + lease.as_millis() as i64;
                match jobs::extend(&db, &id, &owner, until).await {
                    Ok(true) => {}
                    Ok(false) => {
                        cancel.cancel();
                        return;
                    }
                    Err(err) => tracing::warn!(error = %err, job_id = %id, "cannot extend a lease"),
                }
            }
        })
    };
    ctx.metrics
        .job_attempts
        .get_or_create(&crate::metrics::KindLabels {
            kind: job.kind.clone(),
        })
        .inc();
    let started = std::time::Instant::now();
    let outcome = run(ctx, &job, &cancel).await;
    keeper.abort();
    let elapsed = started.elapsed();
    let elapsed_ms = elapsed.as_millis() as u64;
    let counted = match &outcome {
        Ok(()) => "done",
        Err(JobError::Transient(_)) if job.attempts < job.max_attempts => "retried",
        Err(_) => "failed",
    };
    ctx.metrics.observe_job(&job.kind, counted, elapsed);
    match outcome {
        Ok(()) => {
            record(
                jobs::finish(&ctx.db, &job.id, owner, "done", None).await,
                &job,
            );
            tracing::info!(job_id = %job.id, elapsed_ms, "job done");
        }
        Err(JobError::Permanent(error)) => {
            record(
                jobs::finish(&ctx.db, &job.id, owner, "failed", Some(&error)).await,
                &job,
            );
            tracing::info!(job_id = %job.id, elapsed_ms, error = %error, "job failed");
        }
        Err(JobError::Transient(error)) if job.attempts < job.max_attempts => {
            let delay = backoff(job.attempts);
            let run_after = db::now_ms() + delay.as_millis() as i64;
            retrying(ctx, &job).await;
            record(
                jobs::retry_later(&ctx.db, &job.id, owner, run_after, &error).await,
                &job,
            );
            tracing::warn!(job_id = %job.id, error = %error, retry_in_ms = delay.as_millis() as u64, "job attempt failed; will retry");
        }
        Err(JobError::Transient(error)) => {
            given_up(ctx, &job, &error).await;
            record(
                jobs::finish(&ctx.db, &job.id, owner, "failed", Some(&error)).await,
                &job,
            );
            tracing::warn!(job_id = %job.id, error = %error, "job failed on its last attempt");
        }
    }
}

/// Logs the outcome of a job bookkeeping write. `false` means the job is no longer ours
/// (deleted with its subject, or re-claimed after our lease expired): nothing to do.
fn record(result: Result<bool, db::DbError>, job: &ClaimedJob) {
    match result {
        Ok(true) => {}
        Ok(false) => tracing::info!(job_id = %job.id, "job no longer ours; outcome not recorded"),
        Err(err) => {
            tracing::error!(error = %err, job_id = %job.id, "cannot record a job's outcome")
        }
    }
}

/// Why a job failed, as live events carry it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct JobFailure {
    pub code: crate::codes::JobErrorCode,
    /// English, for logs; the web app shows its translation of `code`.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        for attempts in 1..=20 {
            let expected = (2_000u64 << (attempts.min(16) - 1)).min(300_000) as f64;
            let got = backoff(attempts as i64).as_millis() as f64;
            assert!(
                got >= expected * 0.8 - 1.0 && got <= expected * 1.2 + 1.0,
                "attempt {attempts}: {got} ms, expected about {expected}"
            );
        }
    }
}
