//! Command-line entry: `regard serve`, `regard worker`, `regard render`, `regard heatmap`,
//! `regard eval-saliency`, `regard assistant-eval`, `regard assistant-bench`, `regard admin`,
//! `regard keys`, `regard backup`, `regard restore`, ...

pub mod admin;
pub mod assistant;
pub mod attention;
pub mod backup;
pub mod render;
pub mod serve;
pub mod worker;

use clap::{Parser, Subcommand};

/// Regard: creatives, out-of-home locations, simulations and attention heatmaps.
#[derive(Debug, Parser)]
#[command(name = "regard", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the web server: auth, API, the built web app and job workers (configuration: REGARD_* variables).
    Serve(Box<serve::ServeArgs>),
    /// Run job workers only (heatmaps, renders), sharing the database and storage of `serve` nodes.
    Worker(Box<worker::WorkerArgs>),
    /// Attention engine commands (heatmap, eval-saliency, ...).
    #[command(flatten)]
    Attention(attention::Command),
    /// Place a creative on a panel of a site photo in perspective (rendering.md) and write the composite.
    Render(Box<render::RenderArgs>),
    /// Score the assistant's offline engine on its question set; prints the score per category.
    AssistantEval(assistant::EvalArgs),
    /// Time the assistant's offline answers on an account with 1,000 creatives and 1,000 locations.
    AssistantBench(assistant::BenchArgs),
    /// User accounts for operators: create, reset a password, list, delete, an admin token.
    Admin(Box<admin::AdminArgs>),
    /// Signing keys for REGARD_JWT_KEYS.
    Keys(admin::KeysArgs),
    /// Copy the embedded database, media and secret to a folder, while the server runs.
    Backup(Box<backup::BackupArgs>),
    /// Put a `regard backup` folder back in place (stop the server first).
    Restore(Box<backup::RestoreArgs>),
    /// Print the OpenAPI 3.1 document of /api/v1 (what GET /api/v1/openapi.json serves).
    Openapi,
}

/// Parses the command line and runs the chosen command.
pub fn main() -> anyhow::Result<()> {
    crate::tls::install_provider();
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(args) => serve::run(*args),
        Command::Worker(args) => worker::run(*args),
        Command::Attention(cmd) => attention::run(cmd),
        Command::Render(args) => render::run(*args),
        Command::AssistantEval(args) => assistant::run_eval(args),
        Command::AssistantBench(args) => assistant::run_bench(args),
        Command::Admin(args) => admin::run(*args),
        Command::Keys(args) => admin::run_keys(args),
        Command::Backup(args) => backup::run_backup(*args),
        Command::Restore(args) => backup::run_restore(*args),
        Command::Openapi => {
            print!(
                "{}",
                crate::http::api::openapi::to_json(&crate::http::api::openapi())
            );
            Ok(())
        }
    }
}
