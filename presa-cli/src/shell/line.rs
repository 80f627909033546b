//! One line typed into `presa shell`, read as the command it names.
//!
//! A line is a command of `presa`'s own command line without its SERVER:
//! the shell puts its server back in before clap reads the line, so the
//! shell and the one-shot commands share one definition, checks and
//! help. The rules, in order:
//!
//! 1. an empty line does nothing; `exit` and `quit` end the shell;
//! 2. `help` lists the commands; `help COMMAND` shows one command's help,
//!    as `COMMAND --help` does;
//! 3. the words are split as a shell splits them (quotes, backslashes);
//!    the first is the command, and the server goes in after it;
//! 4. options of the connection (`--token`, `--token-file`, `--answer`,
//!    `--allow-private-networks`, the OAuth client's `--client-id`,
//!    `--client-secret-file`, `--issuer`, `--client-metadata-url` and
//!    `--client-credentials`, `--dpop`, `--header`, `-e`, `--timeout`,
//!    `--server-log`, `--log-level`, `--protocol-version`) belong to the
//!    shell's own command line, and a line that gives one is refused; so
//!    are `logout`, `shell`, `servers` and `completions`, which talk to no
//!    session.
//!
//! The help shows neither SERVER nor those options.

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches};

use super::completion::COMMANDS;
use crate::command_line::{Cli, Command};

/// What a line asks for.
#[derive(Debug)]
pub enum Line {
    /// Nothing: the line was empty.
    Nothing,
    /// End the shell.
    Exit,
    /// Print this text: help, or why the line is refused.
    Say(String),
    /// Refuse the line with this message.
    Refused(String),
    /// Run this command, printing one JSON document when `json`.
    Run {
        /// The command, with the shell's server in it.
        command: Command,
        /// Whether the line asked for `--json`.
        json: bool,
    },
}

/// The connection options a line may not give (rule 4), by clap's ids.
const CONNECTION_OPTIONS: [&str; 16] = [
    "token",
    "token_file",
    "answers",
    "allow_private_networks",
    "client_id",
    "client_secret_file",
    "issuer",
    "client_metadata_url",
    "client_credentials",
    "dpop",
    "headers",
    "env",
    "timeout",
    "server_log",
    "log_level",
    "protocol_version",
];

/// The commands the shell does not run (rule 4).
const NOT_IN_THE_SHELL: [&str; 4] = ["logout", "shell", "servers", "completions"];

/// `presa`'s command line as the shell reads it: no SERVER, no
/// connection options, no version.
fn parser() -> clap::Command {
    let mut parser = Cli::command()
        .name("presa shell")
        .bin_name("")
        .disable_version_flag(true)
        .disable_help_subcommand(true)
        .no_binary_name(true)
        .after_help("");
    for option in CONNECTION_OPTIONS {
        parser = parser.mut_arg(option, |arg| arg.hide(true));
    }
    let names: Vec<String> = parser
        .get_subcommands()
        .map(|s| s.get_name().to_owned())
        .collect();
    for name in names {
        let hidden = NOT_IN_THE_SHELL.contains(&name.as_str());
        parser = parser.mut_subcommand(&name, |sub| {
            // `mut_args` keeps the positionals in their order.
            // The exit statuses are the process's, not the shell's.
            sub.hide(hidden).after_help("").mut_args(|arg| {
                let server = arg.get_id() == "server";
                arg.hide(server)
            })
        });
    }
    parser
}

/// The first connection option (rule 4) that `matches` were given, by
/// its long name (`--token`, `--env`).
fn connection_option(matches: &ArgMatches) -> Option<String> {
    let id = CONNECTION_OPTIONS
        .into_iter()
        .find(|id| matches.value_source(id) == Some(ValueSource::CommandLine))?;
    let parser = parser();
    let long = parser
        .get_arguments()
        .find(|arg| arg.get_id() == id)
        .and_then(|arg| arg.get_long());
    Some(long.map_or_else(|| id.to_owned(), |long| format!("--{long}")))
}

/// Reads `text`, a line typed for the shell whose server is `server`.
pub fn read(text: &str, server: &str) -> Line {
    let words = match shell_words::split(text) {
        Ok(words) => words,
        Err(e) => return Line::Refused(format!("cannot split the line: {e}")),
    };
    let Some(first) = words.first() else {
        return Line::Nothing;
    };
    match first.as_str() {
        "exit" | "quit" if words.len() == 1 => return Line::Exit,
        "help" => return help(words.get(1).map(String::as_str), server),
        name if NOT_IN_THE_SHELL.contains(&name) => {
            return Line::Refused(format!("`{name}` is not a command of the shell"));
        }
        name if !name.starts_with('-') && !COMMANDS.contains(&name) => {
            return Line::Refused(format!("no command `{name}`; `help` lists them"));
        }
        _ => {}
    }
    let mut args = words.clone();
    if COMMANDS.contains(&first.as_str()) {
        args.insert(1, server.to_owned());
    }
    let matches = match parser().try_get_matches_from(args) {
        Ok(matches) => matches,
        Err(error) if error.use_stderr() => return Line::Refused(trimmed(&error)),
        Err(shown) => return Line::Say(trimmed(&shown)),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => return Line::Refused(trimmed(&error)),
    };
    if let Some(option) = connection_option(&matches) {
        return Line::Refused(format!(
            "{option} sets up the connection, so it goes on the command line that starts the \
             shell (`log-level LEVEL` sets the level within the shell)"
        ));
    }
    Line::Run {
        json: cli.common.json,
        command: cli.command,
    }
}

/// `help` and `help COMMAND` (rule 2).
fn help(command: Option<&str>, server: &str) -> Line {
    let Some(command) = command else {
        let parser = parser();
        let mut text = String::from("Commands:\n");
        for sub in parser.get_subcommands().filter(|s| !s.is_hide_set()) {
            let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
            // The first sentence: `help COMMAND` shows the rest.
            let about = about
                .split(". ")
                .next()
                .unwrap_or_default()
                .trim_end_matches('.');
            text.push_str(&format!("  {:<10} {about}\n", sub.get_name()));
        }
        text.push_str(&format!(
            "  {:<10} Show this list, or one command's help\n",
            "help"
        ));
        text.push_str(&format!(
            "  {:<10} End the shell, as Ctrl-D does\n",
            "exit, quit"
        ));
        text.push_str(
            "\nTab completes commands, tool names and argument names. \
             `help COMMAND` shows a command's options.",
        );
        return Line::Say(text);
    };
    match command {
        "help" => Line::Say("help [COMMAND]: the list of commands, or one command's help.".into()),
        "exit" | "quit" => Line::Say(format!("{command}: ends the shell, as Ctrl-D does.")),
        name if COMMANDS.contains(&name) => {
            match parser().try_get_matches_from([name, server, "--help"]) {
                Err(shown) => Line::Say(trimmed(&shown)),
                Ok(_) => Line::Nothing,
            }
        }
        other => Line::Refused(format!("no command `{other}`; `help` lists them")),
    }
}

/// A clap message, as text with no trailing blank lines, and its usage
/// line without the SERVER that the shell fills in.
fn trimmed(error: &clap::Error) -> String {
    let text = error.render().to_string();
    let text = text.replace(" <SERVER>", "").replace("Usage:  ", "Usage: ");
    text.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SERVER: &str = "stdio:jobs stdio";

    #[test]
    fn the_shell_s_command_line_is_consistent() {
        parser().debug_assert();
    }

    #[test]
    fn a_call_gets_the_shell_s_server() {
        let Line::Run { command, json } = read("call build target=all --json", SERVER) else {
            panic!("a command");
        };
        assert!(json);
        let Command::Call {
            server,
            tool,
            pairs,
            ..
        } = command
        else {
            panic!("a call");
        };
        assert_eq!(server.to_string(), SERVER);
        assert_eq!(tool, "build");
        assert_eq!(pairs, ["target=all"]);
    }

    #[test]
    fn empty_exit_and_quit() {
        assert!(matches!(read("   ", SERVER), Line::Nothing));
        assert!(matches!(read("exit", SERVER), Line::Exit));
        assert!(matches!(read("quit", SERVER), Line::Exit));
    }

    #[test]
    fn help_names_no_server() {
        let Line::Say(list) = read("help", SERVER) else {
            panic!("the list");
        };
        assert!(list.contains("call") && list.contains("exit"), "{list}");
        for command in ["templates", "complete", "ping", "log-level", "watch"] {
            assert!(list.contains(&format!("  {command} ")), "{command}: {list}");
        }
        assert!(!list.contains("logout"), "{list}");
        let Line::Say(call) = read("help call", SERVER) else {
            panic!("call's help");
        };
        assert!(call.contains("<TOOL>") && call.contains("--task"), "{call}");
        assert!(
            !call.contains("SERVER") && !call.contains("--token"),
            "{call}"
        );
        let Line::Say(same) = read("call --help", SERVER) else {
            panic!("call's help");
        };
        assert_eq!(same, call);
    }

    #[test]
    fn refused_lines_say_why() {
        for text in [
            "call",
            "frobnicate",
            "logout",
            "tools --token x",
            "call build --answer confirm.ok=true",
            "call \"build",
            "tools --header 'X-A: b'",
            "tools -e A=b",
            "ping --timeout 5",
            "tools --server-log",
            "tools --log-level info",
            "tools --protocol-version 2025-11-25",
            "tools --client-id app",
            "tools --client-secret-file s",
            "tools --issuer https://as.example",
            "tools --client-metadata-url https://app.example/c.json",
            "tools --client-credentials",
            "tools --dpop",
        ] {
            assert!(matches!(read(text, SERVER), Line::Refused(_)), "{text}");
        }
        // A connection option is named as the line gave it.
        for (text, named) in [("tools --dpop", "--dpop"), ("tools -e A=b", "--env")] {
            let Line::Refused(said) = read(text, SERVER) else {
                panic!("{text} is refused");
            };
            assert!(said.starts_with(&format!("{named} sets up")), "{said}");
        }
    }
}
