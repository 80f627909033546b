//! The command line, which outside tests drive, so its shape is fixed:
//!
//! ```text
//! presa tools     SERVER [--json]
//! presa call      SERVER TOOL [KEY=VALUE ...] [--args JSON] [--answer KEY.FIELD=VALUE ...] [--task] [--json]
//! presa prompts   SERVER [--json]
//! presa prompt    SERVER NAME [KEY=VALUE ...] [--json]
//! presa resources SERVER [--json]
//! presa read      SERVER URI [--json]
//! presa skills    SERVER [--json]
//! presa skill     SERVER NAME [--save DIR [--force]] [--allow-dynamic] [--json]
//! presa task      SERVER get|cancel|watch TASK_ID [--json]
//! presa discover  SERVER [--json]
//! presa logout    SERVER
//! presa servers   [--json]
//! presa completions bash|zsh|fish|powershell|elvish
//! presa shell     SERVER
//! ```
//!
//! SERVER is a URL, `stdio:COMMAND ARGS`, or the name of a server in a
//! host's config (`NAME` or `HOST:NAME`), as `presa servers` lists them.
//!
//! `--json`, `--token`, `--token-file` and `--answer` are accepted by
//! every command that talks to a server, anywhere on the line.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::exit::{Exit, statuses};
use crate::target::Target;

const SERVER_HELP: &str = "An http:// or https:// URL; or stdio:COMMAND ARGS..., such as \
                           \"stdio:my-server --flag\", which presa splits as a shell would; or \
                           the name of a server in your tools' configs, as `presa servers` \
                           lists them (HOST:NAME when two tools use the same name)";

/// The command line of `presa`.
#[derive(Debug, Parser)]
#[command(
    name = "presa",
    version,
    about = "Call any MCP server's tools from the terminal. presa asks you the server's \
             questions and follows its tasks.",
    after_help = format!("{}\n\n{ENVIRONMENT}", statuses(&Exit::ALL))
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Options every command that talks to a server takes.
    #[command(flatten)]
    pub common: Common,
}

/// The environment variables `presa` reads, as `presa --help` shows them.
const ENVIRONMENT: &str = "\
Environment:
  PRESA_TOKEN       the bearer token for an HTTP server, when neither --token
                    nor --token-file gives one
  PRESA_CONFIG_DIR  the folder where presa keeps OAuth sign-ins, in tokens/
                    inside it, its aliases for servers, in servers.json,
                    and the shell's history. By default, presa/ in your
                    config directory";

/// Options every command that talks to a server takes.
#[derive(Debug, Args)]
pub struct Common {
    /// Print one JSON document on stdout, and nothing else.
    #[arg(long, global = true)]
    pub json: bool,
    /// Send `Authorization: Bearer TOKEN` to an HTTP server. Other users
    /// of this computer can see it (in `ps`), and your shell may keep it
    /// in its history. Prefer --token-file or PRESA_TOKEN.
    #[arg(long, global = true, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Read the bearer token from the file at PATH, with the token on one
    /// line. `-` reads the first line of stdin.
    #[arg(long, global = true, value_name = "PATH", conflicts_with = "token")]
    pub token_file: Option<PathBuf>,
    /// Answer the server's question KEY in advance: its field FIELD is
    /// VALUE. presa then does not ask you.
    #[arg(long = "answer", global = true, value_name = "KEY.FIELD=VALUE")]
    pub answers: Vec<String>,
    /// Let an OAuth sign-in reach addresses on private networks (10.0.0.0/8,
    /// 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7). Use it for
    /// a server on your intranet. Without it, presa refuses any such URL
    /// that the server names. So a hostile server cannot point the sign-in
    /// at machines on your network.
    #[arg(long, global = true)]
    pub allow_private_networks: bool,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the server's tools.
    #[command(after_help = statuses(&Exit::OF_A_REQUEST))]
    Tools {
        #[arg(help = SERVER_HELP)]
        server: Target,
    },
    /// Call a tool. presa asks you the tool's questions and follows its task.
    #[command(after_help = statuses(&Exit::OF_A_CALL))]
    Call {
        #[arg(help = SERVER_HELP)]
        server: Target,
        /// The tool's name.
        tool: String,
        /// The tool's arguments. presa types them by the tool's input schema:
        /// seconds=5 is a number if the schema says integer.
        #[arg(value_name = "KEY=VALUE")]
        pairs: Vec<String>,
        /// All the arguments as one JSON object. KEY=VALUE pairs override its keys.
        #[arg(long = "args", value_name = "JSON")]
        json_args: Option<String>,
        /// Ask the server to run the call as a task, if the tool allows
        /// one, and follow the task.
        #[arg(long)]
        task: bool,
    },
    /// List the server's prompts.
    #[command(after_help = statuses(&Exit::OF_A_REQUEST))]
    Prompts {
        #[arg(help = SERVER_HELP)]
        server: Target,
    },
    /// Get a prompt's messages.
    #[command(after_help = statuses(&Exit::OF_A_REQUEST))]
    Prompt {
        #[arg(help = SERVER_HELP)]
        server: Target,
        /// The prompt's name.
        name: String,
        /// The prompt's arguments, as strings.
        #[arg(value_name = "KEY=VALUE")]
        pairs: Vec<String>,
    },
    /// List the server's resources.
    #[command(after_help = statuses(&Exit::OF_A_REQUEST))]
    Resources {
        #[arg(help = SERVER_HELP)]
        server: Target,
    },
    /// Read a resource.
    #[command(after_help = statuses(&Exit::OF_A_REQUEST))]
    Read {
        #[arg(help = SERVER_HELP)]
        server: Target,
        /// The resource's URI.
        uri: String,
    },
    /// List the skills the server publishes: name, file count, total size,
    /// URI and description. Reads no skill file.
    #[command(after_help = statuses(&Exit::OF_A_REQUEST))]
    Skills {
        #[arg(help = SERVER_HELP)]
        server: Target,
    },
    /// Show one skill: its entry, then its SKILL.md, checked against the
    /// entry's size, digest and frontmatter. A skill's content comes from
    /// the server: read it before you let a model act on it.
    #[command(after_help = statuses(&Exit::OF_A_REQUEST))]
    Skill {
        #[arg(help = SERVER_HELP)]
        server: Target,
        /// The skill's name, or the URI of its SKILL.md (such as
        /// skill://acme/refunds/SKILL.md) when two skills share a name.
        name: String,
        /// Also save every file of the skill under DIR/NAME/, each checked
        /// against the entry before any is written.
        #[arg(long, value_name = "DIR")]
        save: Option<PathBuf>,
        /// With --save, replace DIR/NAME if it exists.
        #[arg(long, requires = "save")]
        force: bool,
        /// Show a skill whose entry says "dynamic": its files have no
        /// digests, so presa cannot check them.
        #[arg(long)]
        allow_dynamic: bool,
    },
    /// Look at a task, cancel it, or follow it to its end.
    #[command(after_help = statuses(&Exit::OF_A_CALL))]
    Task {
        #[arg(help = SERVER_HELP)]
        server: Target,
        /// What to do with the task.
        action: TaskAction,
        /// The task's id. It may start with `-`, as a random id can.
        #[arg(allow_hyphen_values = true)]
        task_id: String,
    },
    /// Show what the server is and what it can do.
    #[command(after_help = statuses(&Exit::OF_A_REQUEST))]
    Discover {
        #[arg(help = SERVER_HELP)]
        server: Target,
    },
    /// Forget the OAuth tokens kept for a server.
    #[command(after_help = statuses(&[Exit::Success, Exit::Usage, Exit::Protocol]))]
    Logout {
        #[arg(help = SERVER_HELP)]
        server: Target,
    },
    /// List the servers that Claude Code, Claude Desktop, VS Code, Cursor
    /// and Gemini CLI have in their config files, and presa's own aliases.
    /// Any command takes one of these names in place of a URL. Shows the
    /// names of environment variables and headers, never their values.
    #[command(
        long_about = "List the servers that Claude Code, Claude Desktop, VS Code, Cursor \
                      and Gemini CLI have in their config files, and presa's own aliases \
                      (servers.json in presa's config folder, in the shape of Claude Code's \
                      .mcp.json). Any command takes one of these names in place of a URL: \
                      NAME, or HOST:NAME when two tools give the same name to different \
                      servers.\n\nShows the names of environment variables and headers, \
                      never their values. A file presa cannot read is named on stderr, and \
                      the other files still count.",
        after_help = statuses(&[Exit::Success, Exit::Usage])
    )]
    Servers,
    /// Type commands to one server, on one connection kept open.
    ///
    /// The commands are presa's own, without SERVER: `call build
    /// target=all`, `tools`, `task watch ID`. Tab completes commands, tool
    /// names and argument names. A call asks for the tool's required
    /// arguments that you left out. `help` lists the commands; exit, quit
    /// or Ctrl-D ends the shell. The history is kept in shell_history, in
    /// presa's config folder.
    #[command(after_help = statuses(&[Exit::Success, Exit::Usage, Exit::Protocol]))]
    Shell {
        #[arg(help = SERVER_HELP)]
        server: Target,
    },
    /// Print a script that completes presa's commands and options in your
    /// shell.
    #[command(
        long_about = "Print a script that completes presa's commands and options in your \
                      shell. Load it from your shell's startup file:\n\n  \
                      bash:  eval \"$(presa completions bash)\"   (in ~/.bashrc)\n  \
                      zsh:   presa completions zsh > ~/.zfunc/_presa, with ~/.zfunc in \
                      your fpath before compinit\n  \
                      fish:  presa completions fish > ~/.config/fish/completions/presa.fish\n  \
                      PowerShell:  presa completions powershell | Out-String | \
                      Invoke-Expression   (in your $PROFILE)",
        after_help = statuses(&[Exit::Success, Exit::Usage])
    )]
    Completions {
        /// The shell to write the script for.
        shell: clap_complete::Shell,
    },
}

/// What `presa task` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TaskAction {
    /// Show the task's state (`tasks/get`).
    Get,
    /// Ask the server to cancel it (`tasks/cancel`).
    Cancel,
    /// Follow it to its end, answering its questions.
    Watch,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn a_call_takes_its_options_anywhere() {
        let cli = Cli::try_parse_from([
            "presa",
            "call",
            "http://h/mcp",
            "build",
            "target=all",
            "--answer",
            "confirm.ok=true",
            "--task",
            "--json",
        ])
        .unwrap();
        assert!(cli.common.json);
        assert_eq!(cli.common.answers, ["confirm.ok=true"]);
        let Command::Call { pairs, task, .. } = cli.command else {
            panic!("a call");
        };
        assert_eq!(pairs, ["target=all"]);
        assert!(task);
    }

    #[test]
    fn the_token_is_given_once_and_the_refusal_does_not_show_it() {
        let error = Cli::try_parse_from([
            "presa",
            "tools",
            "http://h/mcp",
            "--token",
            "s3cret",
            "--token-file",
            "f",
        ])
        .unwrap_err();
        assert_eq!(error.kind(), clap::error::ErrorKind::ArgumentConflict);
        let said = error.to_string();
        assert!(said.contains("--token-file"), "{said}");
        assert!(!said.contains("s3cret"), "{said}");
    }

    #[test]
    fn help_says_where_else_a_token_may_come_from() {
        let help = Cli::command().render_long_help().to_string();
        for said in ["can see it (in `ps`)", "--token-file <PATH>", "PRESA_TOKEN"] {
            assert!(help.contains(said), "{said}: {help}");
        }
    }

    #[test]
    fn a_server_may_be_a_configured_name_and_servers_says_so() {
        let cli = Cli::try_parse_from(["presa", "tools", "cursor:github"]).unwrap();
        let Command::Tools { server } = cli.command else {
            panic!("tools");
        };
        assert_eq!(server, Target::Named("cursor:github".into()));
        let cli = Cli::try_parse_from(["presa", "servers", "--json"]).unwrap();
        assert!(matches!(cli.command, Command::Servers) && cli.common.json);
        let mut command = Cli::command();
        let help = command
            .find_subcommand_mut("servers")
            .unwrap()
            .render_long_help()
            .to_string();
        for said in ["Claude Code", "HOST:NAME", "never their values"] {
            assert!(help.contains(said), "{said}: {help}");
        }
    }

    #[test]
    fn a_task_id_may_start_with_a_hyphen() {
        let cli = Cli::try_parse_from(["presa", "task", "http://h/mcp", "get", "-yQ3", "--json"])
            .unwrap();
        assert!(cli.common.json);
        let Command::Task { task_id, .. } = cli.command else {
            panic!("a task command");
        };
        assert_eq!(task_id, "-yQ3");
    }
}
