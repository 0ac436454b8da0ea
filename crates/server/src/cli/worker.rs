//! `regard worker`: runs job workers only (no HTTP), against the configured database and
//! storage. Start any number of them beside `regard serve --no-worker` nodes.

use crate::config::Config;
use crate::startup;
use crate::telemetry;

/// Flags of `regard worker`: the same `REGARD_*` settings as `regard serve` (the HTTP ones are
/// ignored).
#[derive(Debug, clap::Args)]
pub struct WorkerArgs {
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
        startup::run_worker(args.config, startup::stop_signal()).await?;
        anyhow::Ok(())
    })
}
