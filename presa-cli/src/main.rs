//! `presa`, the command line for any MCP server, built on presa's own
//! client: it speaks both eras (2026-07-28 and 2025-11-25) with no flag,
//! answers the server's questions in the terminal, and follows tasks.
//! See the crate README for the commands and examples.
//!
//! Each file's first doc line says what it holds. No module imports one
//! that comes after it in the line below, so the crate has no import
//! cycles:
//!
//! Layers, bottom up: exit, typing, output, hosts, target, tool_arguments, command_line, connecting, auth, answer, interrupt, session, follow, commands, shell.

mod answer;
mod auth;
mod command_line;
mod commands;
mod connecting;
mod exit;
mod follow;
mod hosts;
mod interrupt;
mod output;
mod session;
mod shell;
mod target;
mod tool_arguments;
mod typing;

use clap::Parser;

use exit::Exit;
use output::shown::{line, note};

#[tokio::main]
async fn main() {
    let cli = match command_line::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let usage = e.use_stderr();
            let _ = e.print();
            std::process::exit(if usage { Exit::Usage.code() } else { 0 });
        }
    };
    let ran = match cli.command {
        command_line::Command::Shell { server } => match server.resolved() {
            Ok(server) => shell::shell(&server, &cli.common).await,
            Err(failure) => Err(failure),
        },
        _ => commands::run(cli).await,
    };
    let exit = ran.unwrap_or_else(|failure| {
        note!("presa: {}", line(&failure.message));
        failure.exit
    });
    std::process::exit(exit.code());
}
