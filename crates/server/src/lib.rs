//! The Regard server library: everything behind the `regard` binary.

pub mod cli;
