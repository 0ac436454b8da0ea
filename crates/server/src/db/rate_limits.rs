//! Shared rate-limit buckets (`rate_limits`), for nodes that share a PostgreSQL database
//! (`auth::limits`): one row per limited key, holding its GCRA "theoretical arrival time", the
//! moment the bucket would be full again. A request costing `cost` milliseconds of allowance is
//! allowed when `max(tat, now) + cost − now ≤ window`, and then moves `tat` to
//! `max(tat, now) + cost`: one atomic upsert, so concurrent requests on any node cannot both
//! take the last unit. The SQL is portable (SQLite too, for its tests), though SQLite keeps
//! its limits in the process. On PostgreSQL the table is unlogged: a crash empties it, which
//! only refills buckets early.

use super::{Db, DbError};

/// Takes `cost` milliseconds of allowance (a request's share of the window: the window over
/// the count, times the requests) from `key`'s bucket at `now` (epoch milliseconds). `Ok(Err(wait))`:
/// refused, the milliseconds until it would be allowed (at least 1).
pub async fn take(
    db: &Db,
    key: &str,
    now: i64,
    cost: u64,
    window: u64,
) -> Result<Result<(), u64>, DbError> {
    let cost = i64::try_from(cost).unwrap_or(i64::MAX / 4);
    let window = i64::try_from(window).unwrap_or(i64::MAX / 4);
    let allowed: Option<i64> = sqlx::query_scalar(
        "INSERT INTO rate_limits (key, tat) SELECT $1, $2 + $3 WHERE $3 <= $4 \
         ON CONFLICT (key) DO UPDATE \
         SET tat = (CASE WHEN rate_limits.tat > $2 THEN rate_limits.tat ELSE $2 END) + $3 \
         WHERE (CASE WHEN rate_limits.tat > $2 THEN rate_limits.tat ELSE $2 END) + $3 - $2 <= $4 \
         RETURNING tat",
    )
    .bind(key)
    .bind(now)
    .bind(cost)
    .bind(window)
    .fetch_optional(db.pool())
    .await?;
    if allowed.is_some() {
        return Ok(Ok(()));
    }
    let tat: Option<i64> = sqlx::query_scalar("SELECT tat FROM rate_limits WHERE key = $1")
        .bind(key)
        .fetch_optional(db.pool())
        .await?;
    // No row: the cost alone is more than the window; never in one go, so a whole window.
    let wait = tat.map_or(window, |tat| tat.max(now) + cost - now - window);
    Ok(Err(u64::try_from(wait.max(1)).unwrap_or(1)))
}

/// Deletes the buckets that are full again at `now` (nothing to remember).
pub async fn forget_full(db: &Db, now: i64) -> Result<u64, DbError> {
    let done = sqlx::query("DELETE FROM rate_limits WHERE tat <= $1")
        .bind(now)
        .execute(db.pool())
        .await?;
    Ok(done.rows_affected())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn sqlite() -> (tempfile::TempDir, Db) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
        let db = Db::connect(&url, 4).await.unwrap();
        (dir, db)
    }

    #[tokio::test]
    async fn a_bucket_allows_its_burst_then_refills_evenly() {
        let (_dir, db) = sqlite().await;
        // 3 per 300 s: 100 s each.
        let (cost, window) = (100_000, 300_000);
        let t0 = 1_000_000_000;
        for _ in 0..3 {
            assert_eq!(take(&db, "k", t0, cost, window).await.unwrap(), Ok(()));
        }
        assert_eq!(
            take(&db, "k", t0, cost, window).await.unwrap(),
            Err(100_000)
        );
        assert_eq!(
            take(&db, "k", t0 + 60_000, cost, window).await.unwrap(),
            Err(40_000)
        );
        assert_eq!(
            take(&db, "k", t0 + 100_000, cost, window).await.unwrap(),
            Ok(())
        );
        // Other keys have their own buckets.
        assert_eq!(take(&db, "other", t0, cost, window).await.unwrap(), Ok(()));
        // Two at once when two are left, not three.
        assert_eq!(take(&db, "n", t0, 2 * cost, window).await.unwrap(), Ok(()));
        assert_eq!(
            take(&db, "n", t0, 2 * cost, window).await.unwrap(),
            Err(100_000)
        );
        // More than the whole burst is never allowed, and waits a window.
        assert_eq!(
            take(&db, "big", t0, 4 * cost, window).await.unwrap(),
            Err(300_000)
        );
        // Full buckets are forgotten, the others kept.
        assert_eq!(forget_full(&db, t0 + 200_000).await.unwrap(), 2);
        assert_eq!(
            take(&db, "k", t0 + 200_000, cost, window).await.unwrap(),
            Ok(())
        );
    }

    #[tokio::test]
    async fn concurrent_requests_never_take_more_than_the_allowance() {
        let (_dir, db) = sqlite().await;
        let tasks: Vec<_> = (0..40)
            .map(|_| {
                let db = db.clone();
                tokio::spawn(async move { take(&db, "k", 5_000, 10_000, 300_000).await.unwrap() })
            })
            .collect();
        let mut allowed = 0;
        for task in tasks {
            allowed += usize::from(task.await.unwrap().is_ok());
        }
        assert_eq!(allowed, 30);
    }
}
