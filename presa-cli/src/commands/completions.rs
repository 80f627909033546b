//! `presa completions SHELL`: the script that teaches a shell to complete
//! `presa`'s commands and options, written by `clap_complete` from the
//! same definition clap parses, so it never lags behind the command line.

use std::io::Write;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::command_line::Cli;
use crate::exit::{Exit, Failure};

/// Prints the completion script for `shell` on stdout.
pub fn completions(shell: Shell) -> Result<Exit, Failure> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "presa", &mut script);
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(&script)
        .and_then(|()| stdout.flush())
        .map_err(|e| Failure::protocol(format!("cannot write the completion script: {e}")))?;
    Ok(Exit::Success)
}
