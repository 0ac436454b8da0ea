//! The `regard` binary: parses the command line and hands over to the library.

fn main() -> anyhow::Result<()> {
    regard::cli::main()
}
