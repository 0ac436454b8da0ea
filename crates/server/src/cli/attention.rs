//! Attention engine on the command line: `regard heatmap`, `regard eval-saliency`.

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Predict attention maps for images (not built yet).
    Heatmap,
}

pub fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {
        Command::Heatmap => anyhow::bail!("not built yet"),
    }
}
