//! `presa`, the command line for any MCP server, built on presa's own
//! client: it speaks both eras (2026-07-28 and 2025-11-25) with no flag,
//! answers the server's questions in the terminal, and follows tasks.
//! See the crate README for the commands and examples.
//!
//! Each module knows only those listed before it, so the crate has no
//! import cycles:
//!
//! | module | what it holds |
//! |---|---|
//! | `shown` | server text made safe to show on a terminal, and the macros that print |
//! | `exit` | the exit statuses, and the failure that sets one |
//! | `target` | `SERVER`: a URL, or `stdio:COMMAND ...` split as a shell would |
//! | `typing` | text typed into JSON by a schema property, and checked |
//! | `arguments` | `KEY=VALUE` and `--args` into a tool's or prompt's arguments |
//! | `args` | the command line (clap) |
//! | `token` | the bearer token: `--token`, `--token-file` or `PRESA_TOKEN` |
//! | `token_folder` | where OAuth sign-ins are kept: a private folder, a file per server |
//! | `auth` | the bearer token and the OAuth sign-in, `logout` |
//! | `status_line` | the progress line while a task runs |
//! | `answer/` | the server's questions: `--answer`, the terminal form, the rest, and what went unanswered |
//! | `interrupt` | what Ctrl-C means while a task is followed: cancel or detach |
//! | `session` | one command's client, answerer and progress line |
//! | `render` | what goes to stdout: JSON, or text for a person |
//! | `follow` | following a task: listening, progress, Ctrl-C |
//! | `commands/` | each command |

mod answer;
mod args;
mod arguments;
mod auth;
mod commands;
mod exit;
mod follow;
mod interrupt;
mod render;
mod session;
mod shown;
mod status_line;
mod target;
mod token;
mod token_folder;
mod typing;

use clap::Parser;

use exit::Exit;
use shown::{line, note};

#[tokio::main]
async fn main() {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let usage = e.use_stderr();
            let _ = e.print();
            std::process::exit(if usage { Exit::Usage.code() } else { 0 });
        }
    };
    let exit = commands::run(cli).await.unwrap_or_else(|failure| {
        note!("presa: {}", line(&failure.message));
        failure.exit
    });
    std::process::exit(exit.code());
}
