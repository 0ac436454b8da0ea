//! The database layer: one `AnyPool` over SQLite (default) or PostgreSQL, chosen from the URL
//! scheme, its migrations, and one function per use case. Handlers never write SQL; they call
//! the functions in the submodules.
//!
//! Portability rules for every query here: `$N` placeholders, ids as TEXT uuids, times as
//! BIGINT epoch milliseconds, booleans, JSON as TEXT.

pub mod activity;
pub mod aois;
pub mod assistant;
pub mod backup;
pub mod branding;
pub mod creatives;
pub mod factors;
pub mod flow_states;
pub mod heatmaps;
pub mod identities;
pub mod jobs;
pub mod locations;
pub mod media;
mod migrations;
pub mod one_time_tokens;
pub mod page;
pub mod plans;
pub mod rate_limits;
pub mod recovery_codes;
pub mod refresh_tokens;
pub mod reviews;
pub mod search;
pub mod sessions;
pub mod shares;
pub mod simulations;
pub mod users;
pub mod workspaces;

use std::str::FromStr;
use std::time::Duration;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, Executor};

/// Errors from the database layer.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// A unique constraint refused the write (e.g. an email already registered).
    #[error("unique constraint violated")]
    Conflict,
    /// Anything else the driver reports.
    #[error(transparent)]
    Sqlx(#[from] sqlx::Error),
    /// Migrations failed at start.
    #[error(transparent)]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The URL names a database we do not support.
    #[error("unsupported database URL scheme (expected sqlite: or postgres:)")]
    UnsupportedScheme,
}

impl DbError {
    /// The database cannot be reached or dropped the connection (a pool timeout, an I/O or
    /// TLS error, a server shutting down): worth trying again shortly, unlike a bug.
    pub fn is_unavailable(&self) -> bool {
        match self {
            DbError::Sqlx(err) => match err {
                sqlx::Error::PoolTimedOut
                | sqlx::Error::PoolClosed
                | sqlx::Error::Io(_)
                | sqlx::Error::Tls(_)
                | sqlx::Error::Protocol(_)
                | sqlx::Error::WorkerCrashed => true,
                // PostgreSQL: SQLSTATE class 08 (connection exception), 57P01-57P03 (admin
                // shutdown, crash shutdown, cannot connect now), 53300 (too many connections).
                // SQLite: SQLITE_BUSY and SQLITE_LOCKED with their extended codes (the writer
                // held the lock past the busy timeout).
                sqlx::Error::Database(db) => db.code().is_some_and(|code| {
                    code.starts_with("08")
                        || matches!(
                            code.as_ref(),
                            "57P01" | "57P02" | "57P03" | "53300" | "5" | "6" | "261" | "517"
                        )
                }),
                _ => false,
            },
            _ => false,
        }
    }

    /// Maps a unique-violation to [`DbError::Conflict`], keeps the rest.
    fn from_write(err: sqlx::Error) -> Self {
        match &err {
            sqlx::Error::Database(db) if db.is_unique_violation() => DbError::Conflict,
            _ => DbError::Sqlx(err),
        }
    }
}

/// Which engine sits behind the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// SQLite file in the data folder (embedded default).
    Sqlite,
    /// PostgreSQL (scale-out).
    Postgres,
}

impl Backend {
    /// Picks the backend from a database URL's scheme.
    pub fn from_url(url: &str) -> Result<Self, DbError> {
        if url.starts_with("sqlite:") {
            Ok(Backend::Sqlite)
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Ok(Backend::Postgres)
        } else {
            Err(DbError::UnsupportedScheme)
        }
    }
}

/// A snapshot of the connection pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolStats {
    /// Connections open, idle or in use.
    pub size: u32,
    /// Connections open and idle.
    pub idle: usize,
    /// The pool's largest size.
    pub max: u32,
}

/// The connection pool and the backend it talks to. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Db {
    pool: AnyPool,
    backend: Backend,
}

impl Db {
    /// Connects, applies the backend's pragmas, and runs the pending migrations.
    pub async fn connect(url: &str, max_connections: u32) -> Result<Self, DbError> {
        sqlx::any::install_default_drivers();
        let backend = Backend::from_url(url)?;
        let options = AnyConnectOptions::from_str(url)?;
        let mut pool_options = AnyPoolOptions::new()
            .max_connections(max_connections.max(1))
            .acquire_timeout(Duration::from_secs(10))
            // A PostgreSQL connection is tested before it is lent (the server may have dropped
            // it: a restart, a failover). A SQLite connection has no other end to lose: its
            // "ping" is only a round trip to its own worker thread, two of them a request.
            .test_before_acquire(backend == Backend::Postgres);
        if backend == Backend::Sqlite {
            pool_options = pool_options.after_connect(|conn, _meta| {
                Box::pin(async move {
                    // WAL lets readers run beside the single writer; the busy timeout makes a
                    // second writer wait instead of failing; foreign keys are off by default.
                    conn.execute("PRAGMA journal_mode = WAL").await?;
                    conn.execute("PRAGMA synchronous = NORMAL").await?;
                    conn.execute("PRAGMA foreign_keys = ON").await?;
                    conn.execute("PRAGMA busy_timeout = 5000").await?;
                    // Gathers the planner statistics that are missing or stale (SQLite's
                    // recommended start-up call); without them searches pick worse plans.
                    conn.execute("PRAGMA optimize = 0x10002").await?;
                    Ok(())
                })
            });
        }
        let pool = pool_options.connect_with(options).await?;
        let db = Db { pool, backend };
        db.migrate().await?;
        let written = search::backfill(&db).await?;
        if written > 0 {
            tracing::info!(
                rows = written,
                "sort keys and search texts written for older rows"
            );
        }
        Ok(db)
    }

    async fn migrate(&self) -> Result<(), DbError> {
        match self.backend {
            Backend::Sqlite => {
                // As SQLite's documentation advises for schema changes, migrations run with
                // foreign keys off (a table rebuild's DROP TABLE must not cascade into the
                // tables that reference it), then the whole database is checked before they
                // are turned on again. The pragma is a no-op inside a transaction, so it is
                // set on the connection, around the migrator's own transactions.
                let mut conn = self.pool.acquire().await?;
                conn.execute("PRAGMA foreign_keys = OFF").await?;
                let migrated = migrations::sqlite().run(&mut *conn).await;
                let violations = sqlx::query("PRAGMA foreign_key_check")
                    .fetch_all(&mut *conn)
                    .await;
                conn.execute("PRAGMA foreign_keys = ON").await?;
                migrated?;
                let violations = violations?;
                if !violations.is_empty() {
                    return Err(DbError::Migrate(sqlx::migrate::MigrateError::Execute(
                        sqlx::Error::Protocol(format!(
                            "the migrated schema breaks {} foreign key(s)",
                            violations.len()
                        )),
                    )));
                }
            }
            Backend::Postgres => migrations::postgres().run(&self.pool).await?,
        }
        Ok(())
    }

    /// The engine in use.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Begins a transaction that will write. On SQLite it takes the write lock at once
    /// (`BEGIN IMMEDIATE`): a deferred transaction that reads, then writes after another
    /// connection committed, fails with `SQLITE_BUSY` at once, without the busy timeout's wait.
    /// With the lock taken first, a second writer waits its turn instead.
    pub(crate) async fn begin_write(
        &self,
    ) -> Result<sqlx::Transaction<'static, sqlx::Any>, sqlx::Error> {
        match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await,
            Backend::Postgres => self.pool.begin().await,
        }
    }

    /// The underlying pool, for the query functions of this module (and tests of the driver's
    /// behaviour; handlers never write SQL).
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// How the connection pool is used now (for the metrics).
    pub fn pool_stats(&self) -> PoolStats {
        PoolStats {
            size: self.pool.size(),
            idle: self.pool.num_idle(),
            max: self.pool.options().get_max_connections(),
        }
    }

    /// Readiness check: one round trip to the database.
    pub async fn ping(&self) -> Result<(), DbError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    /// Refreshes the query planner's statistics where they are stale (SQLite's
    /// `PRAGMA optimize`; PostgreSQL's autovacuum does this on its own). Cheap when nothing
    /// changed; called periodically.
    pub async fn optimize(&self) -> Result<(), DbError> {
        if self.backend == Backend::Sqlite {
            sqlx::query("PRAGMA optimize").execute(&self.pool).await?;
        }
        Ok(())
    }

    /// PostgreSQL `NOTIFY` on `channel` (delivered to every listening node). Not for SQLite.
    pub async fn notify(&self, channel: &str, payload: &str) -> Result<(), DbError> {
        // pg_notify returns `void`, which the Any driver cannot decode: select a constant.
        sqlx::query("SELECT 1 AS sent FROM (SELECT pg_notify($1, $2)) AS n")
            .bind(channel)
            .bind(payload)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Closes every connection (graceful shutdown).
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// An optional `f64` to bind. sqlx 0.8.6's `Any` driver declares a NULL `f64` to PostgreSQL as
/// a `float4` parameter (its `Real`/`Double` null mapping is swapped), and PostgreSQL keeps a
/// cached statement's parameter types: after a statement was first prepared with a NULL there,
/// a real value (eight bytes of `float8`) is refused with "incorrect binary data format", at
/// random (whichever connection prepared it first). This binds NULL as a `float8` parameter.
/// Use it for every `Option<f64>` bound to a statement (`tests/api/locations.rs` checks one
/// connection inserting NULL then a value, on both databases).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Float(pub Option<f64>);

impl sqlx::Type<sqlx::Any> for Float {
    fn type_info() -> sqlx::any::AnyTypeInfo {
        <f64 as sqlx::Type<sqlx::Any>>::type_info()
    }
}

impl<'q> sqlx::Encode<'q, sqlx::Any> for Float {
    fn encode_by_ref(
        &self,
        buf: &mut sqlx_core::any::AnyArgumentBuffer<'q>,
    ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
        use sqlx_core::any::{AnyTypeInfoKind, AnyValueKind};
        Ok(match self.0 {
            Some(value) => {
                buf.0.push(AnyValueKind::Double(value));
                sqlx::encode::IsNull::No
            }
            None => {
                // `Real` is the kind the driver turns into a NULL `float8`.
                buf.0.push(AnyValueKind::Null(AnyTypeInfoKind::Real));
                sqlx::encode::IsNull::Yes
            }
        })
    }
}

/// Now, as epoch milliseconds (the storage format of every timestamp).
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A transaction that reads, then writes while another connection writes, succeeds, and so
    /// does the other: with a deferred `BEGIN`, SQLite refused the first one's write at once
    /// (`SQLITE_BUSY`) whenever the other had committed in between.
    #[tokio::test]
    async fn read_then_write_transactions_wait_for_each_other_on_sqlite() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
        let db = Db::connect(&url, 4).await.unwrap();
        sqlx::query("CREATE TABLE counter (n BIGINT NOT NULL)")
            .execute(db.pool())
            .await
            .unwrap();
        sqlx::query("INSERT INTO counter (n) VALUES (0)")
            .execute(db.pool())
            .await
            .unwrap();
        let tasks: Vec<_> = (0..8)
            .map(|_| {
                let db = db.clone();
                tokio::spawn(async move {
                    let mut tx = db.begin_write().await?;
                    let n: i64 = sqlx::query_scalar("SELECT n FROM counter")
                        .fetch_one(&mut *tx)
                        .await?;
                    tokio::task::yield_now().await;
                    sqlx::query("UPDATE counter SET n = $1")
                        .bind(n + 1)
                        .execute(&mut *tx)
                        .await?;
                    tx.commit().await
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap().unwrap();
        }
        // Every increment saw the one before: no lost update either.
        let n: i64 = sqlx::query_scalar("SELECT n FROM counter")
            .fetch_one(db.pool())
            .await
            .unwrap();
        assert_eq!(n, 8);
        db.close().await;
    }

    /// SQLite's "database is locked" is worth retrying (503 `unavailable`), not a bug.
    #[tokio::test]
    async fn a_locked_sqlite_database_is_unavailable() {
        use sqlx::{Connection, Executor};
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
        let db = Db::connect(&url, 2).await.unwrap();
        sqlx::query("CREATE TABLE t (n BIGINT NOT NULL)")
            .execute(db.pool())
            .await
            .unwrap();
        sqlx::query("INSERT INTO t (n) VALUES (0)")
            .execute(db.pool())
            .await
            .unwrap();
        // A deferred transaction reads; another connection writes; its write is refused.
        let mut a = sqlx::AnyConnection::connect(&url).await.unwrap();
        let mut b = sqlx::AnyConnection::connect(&url).await.unwrap();
        a.execute("PRAGMA journal_mode = WAL").await.unwrap();
        a.execute("BEGIN").await.unwrap();
        a.execute("SELECT n FROM t").await.unwrap();
        b.execute("UPDATE t SET n = 1").await.unwrap();
        let err = a.execute("UPDATE t SET n = 2").await.unwrap_err();
        assert!(DbError::Sqlx(err).is_unavailable());
        assert!(!DbError::Sqlx(sqlx::Error::RowNotFound).is_unavailable());
        db.close().await;
    }
}
