//! `regard worker`: runs job workers only (no API, no web app), against the configured database and
//! storage. Start any number of them beside `regard serve --no-worker` nodes. With
//! `--metrics-bind`, a worker answers `/metrics`, `/healthz` and `/readyz` on that address.

use std::net::SocketAddr;

use crate::config::Config;
use crate::startup;
use crate::telemetry;

/// Flags of `regard worker`: the same `REGARD_*` settings as `regard serve` (the HTTP ones are
/// ignored).
#[derive(Debug, clap::Args)]
pub struct WorkerArgs {
    /// Address to answer `/metrics`, `/healthz` and `/readyz` on (e.g. `0.0.0.0:9090`; port 0
    /// picks a free one). Unset: the worker listens on nothing. `REGARD_METRICS_TOKEN` applies.
    #[arg(long, env = "REGARD_WORKER_METRICS_BIND")]
    pub metrics_bind: Option<SocketAddr>,

    #[command(flatten)]
    pub config: Config,
}

/// Runs workers until SIGINT/SIGTERM, then lets them finish the jobs in hand.
pub fn run(args: WorkerArgs) -> anyhow::Result<()> {
    telemetry::init(args.config.log_format);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        startup::run_worker(args.config, args.metrics_bind, startup::stop_signal()).await?;
        anyhow::Ok(())
    })
}
