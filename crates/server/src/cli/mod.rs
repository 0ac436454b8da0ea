//! Command-line entry: `regard serve`, `regard heatmap`, `regard eval-saliency`, ...

pub mod attention;

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
    /// Attention engine commands (heatmap, eval-saliency, ...).
    #[command(flatten)]
    Attention(attention::Command),
}

/// Parses the command line and runs the chosen command.
pub fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Attention(cmd) => attention::run(cmd),
    }
}
