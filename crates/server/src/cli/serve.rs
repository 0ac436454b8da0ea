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
pub fn run(mut args: ServeArgs) -> anyhow::Result<()> {
    telemetry::init(args.config.log_format);
    // Provider names are only known at run time, so their variables are read here.
    args.config
        .load_oauth_providers(|name| std::env::var(name).ok())?;
    if !args.config.oauth.is_empty() {
        let names: Vec<&str> = args.config.oauth.iter().map(|p| p.name.as_str()).collect();
        tracing::info!(providers = ?names, callback = %args.config.oauth_callback(), "third-party sign-in enabled");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let app = Application::build(args.config).await?;
        app.run_until_stopped().await?;
        anyhow::Ok(())
    })
}
