//! `regard serve`: runs the HTTP server (API, auth, web app).

use crate::config::Config;
use crate::startup::Application;
use crate::telemetry;

/// Flags of `regard serve`; each has a `REGARD_*` environment variable (docs/configuration.md).
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub config: Config,
}

/// Starts the server and blocks until SIGINT/SIGTERM.
pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    telemetry::init(args.config.log_format);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let app = Application::build(args.config).await?;
        app.run_until_stopped().await?;
        anyhow::Ok(())
    })
}
