//! Start-up: prepares the data folder (database, generated JWT secret, media folder), builds
//! the state and the router, binds the listener, and runs until a shutdown signal.
//! `Application::build` binds before serving so tests can use port 0 and read the address.

use std::future::Future;
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::auth::limits::RateLimits;
use crate::auth::mfa::seal::Sealer;
use crate::auth::oidc::Providers;
use crate::auth::tokens::{self, JwtKeys};
use crate::auth::{AuthError, password};
use crate::config::{Config, Secret};
use crate::db::{self, Db, DbError};
use crate::events::Bus;
use crate::http;
use crate::jobs::WorkerPool;
use crate::media::signing::UrlSigner;
use crate::metrics::Metrics;
use crate::notify::mail::{Mailer, OutboxMailer, SmtpMailer};
use crate::notify::sms::{OutboxSms, SmsSender, WebhookSms};
use crate::state::AppState;
use crate::storage::{self, StorageError};

/// How long refresh tokens of ended sessions are kept.
const TOKEN_RETENTION: Duration = Duration::from_secs(7 * 24 * 3600);

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    /// The data folder (or a file in it) could not be created or read.
    #[error("cannot prepare {path}: {source}")]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The database could not be opened or migrated.
    #[error("cannot open the database: {0}")]
    Database(#[from] DbError),
    /// The listen address is taken or not ours.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        address: SocketAddr,
        source: std::io::Error,
    },
    /// `REGARD_STORAGE_URL` is invalid or the storage folder cannot be created.
    #[error("cannot open media storage: {0}")]
    Storage(#[from] StorageError),
    /// The HTTP client for sign-in providers could not be built.
    #[error("cannot prepare third-party sign-in: {0}")]
    OAuth(#[from] crate::auth::oidc::OidcError),
    /// The mailer or SMS sender settings are invalid.
    #[error("invalid mail or SMS settings: {0}")]
    Notify(String),
    /// `REGARD_ASSISTANT_*` are incomplete.
    #[error("invalid assistant settings: {0}")]
    Assistant(String),
    /// Computing the dummy password hash failed.
    /// `REGARD_JWT_KEYS` cannot be used.
    #[error("invalid signing keys: {0}")]
    Keys(#[from] crate::auth::keys::KeyError),
    #[error("cannot prepare password hashing: {0}")]
    Password(#[from] AuthError),
}

/// A bound, ready-to-run server.
pub struct Application {
    listener: TcpListener,
    address: SocketAddr,
    state: AppState,
    /// Tells long-lived responses (event streams) that the server is stopping.
    stop: watch::Sender<bool>,
}

/// What both `serve` and `worker` open from the configuration: the data folder, the database
/// (migrated), media storage, the event bus and the JWT secret.
struct Backing {
    db: Db,
    storage: Arc<dyn storage::Storage>,
    bus: Bus,
    jwt_secret: Secret,
    metrics: Metrics,
}

impl Backing {
    async fn open(config: &Config) -> Result<Self, StartupError> {
        let data_dir = config.data_dir.clone();
        // Everything created from here on is the server user's alone (docs/security.md).
        crate::private::restrict_umask();
        create_dir(&data_dir)?;
        for dir in ["", "media", "outbox", "tmp"] {
            crate::private::tighten(&data_dir.join(dir));
        }
        if let Some(root) = config
            .storage_url
            .as_deref()
            .and_then(|url| url.trim().strip_prefix("file://"))
        {
            crate::private::tighten(Path::new(root));
        }
        let metrics = Metrics::new();
        let storage: Arc<dyn storage::Storage> = Arc::new(storage::Metered::new(
            storage::from_url(config.storage_url.as_deref(), &data_dir)?,
            metrics.clone(),
        ));
        tracing::info!(storage = %storage.describe(), "media storage ready");

        let jwt_secret = match &config.jwt_secret {
            Some(secret) => secret.clone(),
            None => load_or_create_secret(&data_dir.join("jwt_secret"))?,
        };
        let database_url = match &config.database_url {
            Some(url) => url.clone(),
            None => {
                let path = data_dir.join("regard.db");
                create_private_file(&path)?;
                Secret::new(format!("sqlite://{}?mode=rwc", path.display()))
            }
        };
        let db = Db::connect(database_url.expose(), config.database_max_connections).await?;
        tracing::info!(backend = ?db.backend(), "database ready");
        // Refresh tokens of a database from before they were hashed (docs/security.md).
        match db::refresh_tokens::hash_plaintext_rows(&db).await {
            Ok(0) => {}
            Ok(count) => tracing::info!(count, "hashed the refresh tokens stored in plain text"),
            Err(err) => return Err(err.into()),
        }
        let bus = Bus::start(db.clone(), database_url.expose()).await?;
        Ok(Self {
            db,
            storage,
            bus,
            jwt_secret,
            metrics,
        })
    }
}

/// The handler of every job kind: the domains that queue jobs register here, so the job
/// workers (`crate::jobs`) depend on none of them.
pub fn job_handlers() -> crate::jobs::Handlers {
    crate::jobs::Handlers::new(vec![
        Arc::new(crate::heatmaps::job::ItemJob),
        Arc::new(crate::simulations::job::RenderJob),
    ])
}

/// Runs job workers only (`regard worker`) until `signal` completes, then lets them finish the
/// jobs in hand. With `metrics_bind`, it also answers `/metrics`, `/healthz` and `/readyz` on
/// that address (and nothing else), so a worker is scraped and probed like an API node.
pub async fn run_worker(
    config: Config,
    metrics_bind: Option<SocketAddr>,
    signal: impl Future<Output = ()> + Send + 'static,
) -> Result<(), StartupError> {
    let Backing {
        db,
        storage,
        bus,
        metrics,
        ..
    } = Backing::open(&config).await?;
    let (stop, stopping) = watch::channel(false);
    let listener = match metrics_bind {
        Some(address) => {
            let scrape = http::metrics::Scrape {
                metrics: metrics.clone(),
                db: db.clone(),
                token: config.metrics_token.clone(),
            };
            Some(serve_worker_metrics(address, scrape, &config, stopping).await?)
        }
        None => None,
    };
    let render_budget = crate::render_budget::RenderBudget::from_config(&config);
    let config = Arc::new(config);
    let pool = WorkerPool::start(crate::jobs::Context {
        db: db.clone(),
        storage,
        bus: bus.clone(),
        config,
        metrics,
        render_budget,
        handlers: job_handlers(),
    });
    signal.await;
    pool.shutdown().await;
    // Scrapes are answered until the jobs in hand are finished.
    let _ = stop.send(true);
    if let Some(listener) = listener {
        let _ = listener.await;
    }
    bus.stop();
    db.close().await;
    tracing::info!("stopped");
    Ok(())
}

/// Binds `address` (port 0 picks a free port); the listener and the address it got.
async fn bind(address: SocketAddr) -> Result<(TcpListener, SocketAddr), StartupError> {
    let listener = TcpListener::bind(address)
        .await
        .map_err(|source| StartupError::Bind { address, source })?;
    let bound = listener
        .local_addr()
        .map_err(|source| StartupError::Bind { address, source })?;
    Ok((listener, bound))
}

/// Binds a worker's metrics listener and serves it until `stopping` turns true.
async fn serve_worker_metrics(
    address: SocketAddr,
    scrape: http::metrics::Scrape,
    config: &Config,
    mut stopping: watch::Receiver<bool>,
) -> Result<tokio::task::JoinHandle<()>, StartupError> {
    let (listener, address) = bind(address).await?;
    let limits = http::serve::ServeLimits::from_config(config);
    let app = axum::Router::new()
        .merge(http::health::router())
        .merge(http::metrics::router())
        .with_state(scrape);
    tracing::info!(address = %address, "metrics listening");
    Ok(tokio::spawn(async move {
        let stopped = async move {
            let _ = stopping.wait_for(|stop| *stop).await;
        };
        if let Err(err) = http::serve::serve(listener, app, limits, stopped).await {
            tracing::error!(error = %err, "metrics listener failed");
        }
    }))
}

/// Completes on Ctrl-C or SIGTERM (what `regard serve` and `regard worker` stop on).
pub async fn stop_signal() {
    shutdown_signal().await;
}

/// The shared state of a server over the configured database, storage and keys, without a
/// listener (`regard serve` binds one; `regard admin` works on the state directly).
/// `stopping` tells long-lived responses that the server is stopping.
pub async fn open_state(
    config: Config,
    stopping: watch::Receiver<bool>,
) -> Result<AppState, StartupError> {
    crate::tls::install_provider();
    let Backing {
        db,
        storage,
        bus,
        jwt_secret,
        metrics,
    } = Backing::open(&config).await?;
    let hasher = Arc::new(password::Hasher::from_config(&config));
    let limits = Arc::new(RateLimits::new(&config, Some(&db)));
    Ok(AppState {
        db,
        jwt: match &config.jwt_keys {
            Some(keys) => JwtKeys::from_jwks(jwt_secret.expose().as_bytes(), keys.expose())?,
            None => JwtKeys::from_secret(jwt_secret.expose().as_bytes()),
        }
        .with_issuer(config.issuer()),
        limits,
        oauth: Arc::new(Providers::new(&config.oauth)?),
        dummy_hash: password::dummy_hash(&hasher).await?.into(),
        hasher,
        storage,
        signer: UrlSigner::new(jwt_secret.expose().as_bytes(), config.media_url_ttl),
        bus,
        stopping,
        event_streams: crate::events::StreamSlots::new(config.event_streams_per_user),
        sealer: Sealer::from_secret(jwt_secret.expose().as_bytes()),
        mailer: mailer(&config)?,
        sms: sms_sender(&config)?,
        ingest_slots: Arc::new(tokio::sync::Semaphore::new(
            config.media_ingest_concurrency.max(1),
        )),
        decode_budget: Arc::new(tokio::sync::Semaphore::new(
            usize::try_from(config.media_decode_budget)
                .unwrap_or(usize::MAX)
                .clamp(1, tokio::sync::Semaphore::MAX_PERMITS),
        )),
        render_budget: crate::render_budget::RenderBudget::from_config(&config),
        assistant: Arc::new(assistant(&config)?),
        metrics,
        upload_reservations: Arc::default(),
        job_handlers: job_handlers(),
        answers: Arc::new(crate::answers::Answers::new(crate::answers::BUDGET)),
        shared_reports: Arc::new(crate::reports::kept::KeptReports::new(
            crate::reports::kept::BUDGET,
        )),
        config: Arc::new(config),
    })
}

impl Application {
    /// Prepares everything and binds `config.bind` (port 0 picks a free port).
    pub async fn build(config: Config) -> Result<Self, StartupError> {
        let (stop, stopping) = watch::channel(false);
        let state = open_state(config, stopping).await?;
        let (listener, address) = bind(state.config.bind).await?;
        Ok(Self {
            listener,
            address,
            state,
            stop,
        })
    }

    /// The address actually bound.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The shared state (tests reach the database through it).
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Serves until SIGINT or SIGTERM, then finishes in-flight requests and closes the pool.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.run_until(shutdown_signal()).await
    }

    /// Serves until `signal` completes (graceful shutdown).
    pub async fn run_until(
        self,
        signal: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let state = self.state.clone();
        let workers = (!state.config.no_worker).then(|| WorkerPool::start(state.job_context()));
        if workers.is_none() {
            tracing::info!("no job workers in this process (--no-worker)");
        }
        let stop = self.stop;
        let signal = async move {
            signal.await;
            // Event streams end now, so the graceful shutdown does not wait for them.
            let _ = stop.send(true);
        };
        let limits = Arc::clone(&state.limits);
        let sweep_db = state.db.clone();
        let staging_dir = state.config.data_dir.join("tmp");
        let sweep_storage = Arc::clone(&state.storage);
        let link_ttl = Duration::from_secs(state.config.mail_link_ttl);
        let challenge_expiry_ms = crate::auth::mfa::challenge_expiry_ms(&state.config);
        let sweeper = tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            let mut minutes = 0u64;
            loop {
                tick.tick().await;
                minutes += 1;
                if minutes.is_multiple_of(60)
                    && let Err(err) = sweep_db.optimize().await
                {
                    tracing::warn!(error = %err, "refreshing planner statistics failed");
                }
                limits.forget_idle().await;
                if minutes.is_multiple_of(60) {
                    sweep_staging(&staging_dir);
                }
                // Hourly, from five minutes after the start: objects no row has and uploads
                // nothing uses, a day old (media::sweep_orphans; safe on every node at once).
                if minutes % 60 == 5 {
                    match crate::media::sweep_orphans(
                        &sweep_db,
                        sweep_storage.as_ref(),
                        db::now_ms(),
                    )
                    .await
                    {
                        Ok(swept) if swept != crate::media::Swept::default() => tracing::info!(
                            media = swept.media,
                            objects = swept.objects,
                            "swept orphaned media"
                        ),
                        Ok(_) => {}
                        Err(err) => tracing::warn!(error = %err, "sweeping orphaned media failed"),
                    }
                }
                // A workspace's activity is kept 180 days.
                if minutes % 60 == 10
                    && let Err(err) =
                        db::activity::prune(&sweep_db, db::now_ms() - db::activity::KEEP_MS).await
                {
                    tracing::warn!(error = %err, "pruning old activity failed");
                }
                // Tokens of ended sessions are kept a week for `session_not_found` answers.
                let cutoff = db::now_ms() - TOKEN_RETENTION.as_millis() as i64;
                if let Err(err) = db::refresh_tokens::prune(&sweep_db, cutoff).await {
                    tracing::warn!(error = %err, "pruning old refresh tokens failed");
                }
                // Flow states (sign-ins in progress, auth codes) outlive any link sent by mail.
                let flow_cutoff =
                    db::now_ms() - crate::auth::flow::FLOW_STATE_RETENTION.as_millis() as i64;
                if let Err(err) = db::flow_states::prune(&sweep_db, flow_cutoff).await {
                    tracing::warn!(error = %err, "pruning old flow states failed");
                }
                // Expired challenges, unverified factors and mailed links go (they no longer work).
                let now = db::now_ms();
                if let Err(err) = db::factors::prune(
                    &sweep_db,
                    now - challenge_expiry_ms,
                    now - crate::auth::mfa::FACTOR_EXPIRY_MS,
                )
                .await
                {
                    tracing::warn!(error = %err, "pruning expired MFA challenges failed");
                }
                let link_ttl_ms = i64::try_from(link_ttl.as_millis()).unwrap_or(i64::MAX);
                if let Err(err) = db::one_time_tokens::prune(&sweep_db, now - link_ttl_ms).await {
                    tracing::warn!(error = %err, "pruning expired mail links failed");
                }
                // Finished jobs are kept a week for diagnostics.
                if let Err(err) = db::jobs::prune_finished(&sweep_db, cutoff).await {
                    tracing::warn!(error = %err, "pruning finished jobs failed");
                }
            }
        });
        sweep_staging(&state.config.data_dir.join("tmp"));
        tracing::info!(address = %self.address, "listening");
        let limits = http::serve::ServeLimits::from_config(&self.state.config);
        let app = http::router(self.state);
        let result = http::serve::serve(self.listener, app, limits, signal).await;
        sweeper.abort();
        if let Some(workers) = workers {
            workers.shutdown().await;
        }
        state.bus.stop();
        state.db.close().await;
        tracing::info!("stopped");
        result
    }
}

fn create_dir(path: &Path) -> Result<(), StartupError> {
    crate::private::create_dir_all(path).map_err(|source| StartupError::DataDir {
        path: path.to_owned(),
        source,
    })
}

/// Removes the staging files a killed process left in `dir` (logged; a failure is only logged).
fn sweep_staging(dir: &Path) {
    match crate::media::sweep_staging(dir, crate::media::STAGING_MAX_AGE) {
        Ok(0) => {}
        Ok(count) => tracing::info!(count, dir = %dir.display(), "removed leftover staging files"),
        Err(err) => {
            tracing::warn!(error = %err, dir = %dir.display(), "sweeping staging files failed")
        }
    }
}

/// Creates an empty file readable by its owner only (mode 0600) unless it exists: the embedded
/// database holds password hashes and tokens, and SQLite gives its `-wal` and `-shm` files the
/// database's mode.
fn create_private_file(path: &Path) -> Result<(), StartupError> {
    let mut options = crate::private::options();
    options.create_new(true);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(source) => Err(StartupError::DataDir {
            path: path.to_owned(),
            source,
        }),
    }
}

/// Reads the JWT secret file, or creates it (mode 0600) with a random secret on first start.
fn load_or_create_secret(path: &Path) -> Result<Secret, StartupError> {
    let error = |source| StartupError::DataDir {
        path: path.to_owned(),
        source,
    };
    let mut options = crate::private::options();
    options.create_new(true);
    match options.open(path) {
        Ok(mut file) => {
            let secret = tokens::random_secret();
            file.write_all(secret.as_bytes()).map_err(error)?;
            file.sync_all().map_err(error)?;
            tracing::info!(path = %path.display(), "generated a new JWT secret");
            Ok(Secret::new(secret))
        }
        // Created earlier (or by a concurrent start): use it.
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
            let text = std::fs::read_to_string(path).map_err(error)?;
            let secret = text.trim();
            if secret.is_empty() {
                return Err(error(std::io::Error::other("the JWT secret file is empty")));
            }
            Ok(Secret::new(secret))
        }
        Err(err) => Err(error(err)),
    }
}

/// Completes on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(err) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %err, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(err) => {
                tracing::error!(error = %err, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutdown signal received; finishing in-flight requests");
}

/// SMTP when `REGARD_SMTP_URL` is set, otherwise `.eml` files in `<data dir>/outbox`.
fn mailer(config: &Config) -> Result<Arc<dyn Mailer>, StartupError> {
    let notify = |err: crate::notify::mail::MailError| StartupError::Notify(err.to_string());
    Ok(match &config.smtp_url {
        Some(url) => Arc::new(SmtpMailer::new(url.expose(), &config.smtp_from).map_err(notify)?),
        None => {
            tracing::info!(
                outbox = %config.data_dir.join("outbox").display(),
                "no REGARD_SMTP_URL: mail is written to the outbox folder"
            );
            Arc::new(
                OutboxMailer::new(config.data_dir.join("outbox"), &config.smtp_from)
                    .map_err(notify)?,
            )
        }
    })
}

/// The SMS gateway webhook when `REGARD_SMS_WEBHOOK_URL` is set, otherwise the outbox folder.
fn sms_sender(config: &Config) -> Result<Arc<dyn SmsSender>, StartupError> {
    Ok(match &config.sms_webhook_url {
        Some(url) => Arc::new(
            WebhookSms::new(url.expose().to_owned())
                .map_err(|err| StartupError::Notify(err.to_string()))?,
        ),
        None => Arc::new(OutboxSms {
            dir: config.data_dir.join("outbox"),
        }),
    })
}

/// The assistant, with its language model when `REGARD_ASSISTANT_URL` is set. Builds the help
/// index now rather than on the first question.
fn assistant(config: &Config) -> Result<crate::assistant::Assistant, StartupError> {
    let url = config
        .assistant_url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty());
    let llm = match url {
        None => None,
        Some(url) => {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(StartupError::Assistant(
                    "REGARD_ASSISTANT_URL must be an http(s) address".to_owned(),
                ));
            }
            let model = config
                .assistant_model
                .as_deref()
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .ok_or_else(|| {
                    StartupError::Assistant(
                        "REGARD_ASSISTANT_MODEL is required with REGARD_ASSISTANT_URL".to_owned(),
                    )
                })?;
            Some(crate::assistant::llm::LlmConfig {
                url: url.to_owned(),
                model: model.to_owned(),
                api_key: config
                    .assistant_api_key
                    .clone()
                    .filter(|k| !k.expose().is_empty()),
                timeout: std::time::Duration::from_secs(config.assistant_timeout.max(1)),
            })
        }
    };
    Ok(crate::assistant::Assistant::new(llm))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_job_kind_has_exactly_one_handler() {
        let handlers = job_handlers();
        for kind in crate::db::jobs::KINDS {
            let handler = handlers.find(kind);
            assert_eq!(handler.map(|h| h.kind()), Some(kind), "{kind}");
        }
        assert_eq!(
            format!("{handlers:?}"),
            format!("{:?}", crate::db::jobs::KINDS),
            "one handler per kind, in the order of KINDS"
        );
        assert!(handlers.find("no_such_kind").is_none());
    }
}
