//! Queries on `jobs`: the durable queue. A job is claimed with a lease by one
//! atomic statement: `UPDATE ... WHERE id = (SELECT ... FOR UPDATE SKIP LOCKED)` on PostgreSQL,
//! so concurrent workers on many nodes never take the same row and never wait on each other;
//! the same statement without the locking clause on SQLite, whose single writer makes it
//! atomic. Every later write is guarded by `lease_owner`, so a worker whose lease expired (and
//! whose job another worker took) cannot overwrite the newer attempt's outcome.
//!
//! The claim is fair between users ([`ClaimOrder::Fair`], issue 26): among the ready jobs it
//! takes one of the user with the fewest jobs running now, then of the user served least
//! recently (the latest `claimed_at` of their jobs), and only then the oldest. One user's
//! 50-render batch therefore takes turns with another user's single heatmap instead of
//! holding it back until the batch is done. The order is worked out inside the same statement,
//! so the claim stays one atomic `UPDATE` on both databases.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Backend, Db, DbError};

/// Every job kind: a heatmap item, a simulation render. Each has a handler registered at start
/// (`jobs::Handler`); the metrics report a queue length for each, 0 included.
pub const KINDS: [&str; 2] = [super::heatmaps::ITEM_JOB, super::simulations::RENDER_JOB];

/// A job to insert.
#[derive(Debug, Clone)]

pub struct NewJob<'a> {
    pub id: &'a str,
    /// The user the job works for (the owner of its subject): the fair claim shares the
    /// workers between users.
    pub owner_id: &'a str,
    /// Which handler runs it (e.g. `heatmap_item`).
    pub kind: &'a str,
    /// The row it works on.
    pub subject_id: &'a str,
    /// JSON text.
    pub payload: &'a str,
    pub max_attempts: i64,
    /// Not before this time (epoch ms).
    pub run_after: i64,
}

/// A claimed job.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimedJob {
    pub id: String,
    pub kind: String,
    pub subject_id: String,
    pub payload: String,
    /// Attempts so far, this one included.
    pub attempts: i64,
    pub max_attempts: i64,
}

/// Status and bookkeeping of a job, for tests and diagnostics.
#[derive(Debug, Clone, PartialEq)]
pub struct JobState {
    pub status: String,
    pub attempts: i64,
    pub lease_owner: Option<String>,
    pub last_error: Option<String>,
}

/// Inserts a job inside the caller's transaction (so it exists exactly when the rows it works on
/// do).
pub async fn insert(conn: &mut sqlx::AnyConnection, job: &NewJob<'_>) -> Result<(), DbError> {
    let now = super::now_ms();
    sqlx::query(
        "INSERT INTO jobs (id, kind, subject_id, payload, status, attempts, max_attempts, \
         run_after, created_at, updated_at, owner_id) \
         VALUES ($1, $2, $3, $4, 'queued', 0, $5, $6, $7, $7, $8)",
    )
    .bind(job.id)
    .bind(job.kind)
    .bind(job.subject_id)
    .bind(job.payload)
    .bind(job.max_attempts)
    .bind(job.run_after)
    .bind(now)
    .bind(job.owner_id)
    .execute(conn)
    .await?;
    Ok(())
}

fn claimed(row: &AnyRow) -> Result<ClaimedJob, sqlx::Error> {
    Ok(ClaimedJob {
        id: row.try_get("id")?,
        kind: row.try_get("kind")?,
        subject_id: row.try_get("subject_id")?,
        payload: row.try_get("payload")?,
        attempts: row.try_get("attempts")?,
        max_attempts: row.try_get("max_attempts")?,
    })
}

/// In which order ready jobs are claimed (`REGARD_JOB_FAIR_QUEUE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimOrder {
    /// The user with the fewest running jobs first, then the user served least recently, then
    /// the oldest job: users take turns.
    Fair,
    /// The oldest job first, whoever it is for (the order before issue 26; for comparisons).
    Fifo,
}

/// Claims a ready job for `owner` (a worker) until `now + lease_ms`, in the fair order (see
/// [`claim_ordered`]).
pub async fn claim(
    db: &Db,
    owner: &str,
    now: i64,
    lease_ms: i64,
) -> Result<Option<ClaimedJob>, DbError> {
    claim_ordered(db, owner, now, lease_ms, ClaimOrder::Fair).await
}

/// Claims a ready job for `owner` (a worker) until `now + lease_ms`: a queued job that is due,
/// or a running one whose lease expired (its worker died or stalled), chosen in `order`.
/// `None` when nothing is ready.
pub async fn claim_ordered(
    db: &Db,
    owner: &str,
    now: i64,
    lease_ms: i64,
    order: ClaimOrder,
) -> Result<Option<ClaimedJob>, DbError> {
    let lock = match db.backend() {
        Backend::Postgres => " FOR UPDATE SKIP LOCKED",
        Backend::Sqlite => "",
    };
    // Per candidate, two index look-ups (jobs_owner_status_idx, jobs_owner_claimed_idx): the
    // user's live leases and their latest claim. A job without an owner (its subject was gone
    // before owners were recorded) counts as nobody's and goes first, to fail at once.
    let order = match order {
        ClaimOrder::Fair => {
            "(SELECT COUNT(*) FROM jobs r WHERE r.owner_id = j.owner_id AND r.status = 'running' \
               AND r.lease_until >= $3), \
             COALESCE((SELECT MAX(c.claimed_at) FROM jobs c WHERE c.owner_id = j.owner_id), -1), \
             j.run_after, j.id"
        }
        ClaimOrder::Fifo => "j.run_after, j.id",
    };
    let sql = format!(
        "UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_owner = $1, \
         lease_until = $2, claimed_at = $3, updated_at = $3 \
         WHERE id = (SELECT j.id FROM jobs j \
           WHERE (j.status = 'queued' AND j.run_after <= $3) \
              OR (j.status = 'running' AND j.lease_until < $3) \
           ORDER BY {order} LIMIT 1{lock}) \
         RETURNING id, kind, subject_id, payload, attempts, max_attempts"
    );
    let row = sqlx::query(&sql)
        .bind(owner)
        .bind(now + lease_ms)
        .bind(now)
        .fetch_optional(db.pool())
        .await?;
    Ok(row.as_ref().map(claimed).transpose()?)
}

/// Extends the lease while the job runs. False when the job is no longer ours (deleted with
/// its subject, or taken by another worker after our lease expired): the caller should stop.
pub async fn extend(db: &Db, id: &str, owner: &str, until: i64) -> Result<bool, DbError> {
    let done = sqlx::query(
        "UPDATE jobs SET lease_until = $1, updated_at = $2 \
         WHERE id = $3 AND lease_owner = $4 AND status = 'running'",
    )
    .bind(until)
    .bind(super::now_ms())
    .bind(id)
    .bind(owner)
    .execute(db.pool())
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Ends the job (`done` or `failed`), keeping `error` as its last error. False when it was no
/// longer ours.
pub async fn finish(
    db: &Db,
    id: &str,
    owner: &str,
    status: &str,
    error: Option<&str>,
) -> Result<bool, DbError> {
    let done = sqlx::query(
        "UPDATE jobs SET status = $1, last_error = COALESCE($2, last_error), lease_owner = NULL, \
         lease_until = NULL, updated_at = $3 WHERE id = $4 AND lease_owner = $5 AND status = 'running'",
    )
    .bind(status)
    .bind(error)
    .bind(super::now_ms())
    .bind(id)
    .bind(owner)
    .execute(db.pool())
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Puts the job back in the queue, due at `run_after`, with the error that ended this attempt.
pub async fn retry_later(
    db: &Db,
    id: &str,
    owner: &str,
    run_after: i64,
    error: &str,
) -> Result<bool, DbError> {
    let done = sqlx::query(
        "UPDATE jobs SET status = 'queued', run_after = $1, last_error = $2, lease_owner = NULL, \
         lease_until = NULL, updated_at = $3 WHERE id = $4 AND lease_owner = $5 AND status = 'running'",
    )
    .bind(run_after)
    .bind(error)
    .bind(super::now_ms())
    .bind(id)
    .bind(owner)
    .execute(db.pool())
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Deletes the jobs of these subjects, whatever their status (the subject is being deleted).
pub async fn delete_for_subject(
    conn: &mut sqlx::AnyConnection,
    subject_id: &str,
) -> Result<(), DbError> {
    sqlx::query("DELETE FROM jobs WHERE subject_id = $1")
        .bind(subject_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// The jobs of one subject, oldest first.
pub async fn for_subject(db: &Db, subject_id: &str) -> Result<Vec<JobState>, DbError> {
    let rows = sqlx::query(
        "SELECT status, attempts, lease_owner, last_error FROM jobs WHERE subject_id = $1 \
         ORDER BY created_at, id",
    )
    .bind(subject_id)
    .fetch_all(db.pool())
    .await?;
    rows.iter()
        .map(|row| {
            Ok(JobState {
                status: row.try_get("status")?,
                attempts: row.try_get("attempts")?,
                lease_owner: row.try_get("lease_owner")?,
                last_error: row.try_get("last_error")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(DbError::from)
}

/// Deletes finished jobs last touched before `cutoff` (the sweeper keeps the table small).
pub async fn prune_finished(db: &Db, cutoff: i64) -> Result<u64, DbError> {
    let done =
        sqlx::query("DELETE FROM jobs WHERE status IN ('done', 'failed') AND updated_at < $1")
            .bind(cutoff)
            .execute(db.pool())
            .await?;
    Ok(done.rows_affected())
}

/// The queue of one job kind, across every node.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueStats {
    pub kind: String,
    /// Jobs waiting (due or backing off).
    pub queued: i64,
    /// `run_after` of the oldest job that is due and waiting; `None` when none is.
    pub oldest_due: Option<i64>,
}

/// Depth and age of the queue by kind, for the metrics.
pub async fn queue_stats(db: &Db, now: i64) -> Result<Vec<QueueStats>, DbError> {
    let rows = sqlx::query(
        "SELECT kind, COUNT(*) AS queued, MIN(CASE WHEN run_after <= $1 THEN run_after END) AS oldest \
         FROM jobs WHERE status = 'queued' GROUP BY kind ORDER BY kind",
    )
    .bind(now)
    .fetch_all(db.pool())
    .await?;
    rows.iter()
        .map(|row| {
            Ok(QueueStats {
                kind: row.try_get("kind")?,
                queued: row.try_get("queued")?,
                oldest_due: row.try_get("oldest")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(DbError::from)
}
