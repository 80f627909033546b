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
//! presa templates SERVER [--json]
//! presa complete  SERVER prompt:NAME|template:URI ARG=PREFIX [--context ARG=VALUE ...] [--json]
//! presa ping      SERVER [--json]
//! presa log-level SERVER LEVEL [--json]
//! presa watch     SERVER [--resource URI ...] [--json]
//! presa servers   [--json]
//! presa completions bash|zsh|fish|powershell|elvish
//! presa shell     SERVER
//! ```
//!
//! SERVER is a URL, `stdio:COMMAND ARGS`, or the name of a server in a
//! host's config (`NAME` or `HOST:NAME`), as `presa servers` lists them.
//!
//! `--json`, `--token`, `--token-file`, `--answer`, `--header`, `-e`,
//! `--timeout`, `--server-log` and `--log-level` are accepted by every command that
//! talks to a server, anywhere on the line.

use std::path::PathBuf;
use std::time::Duration;

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
  PRESA_CLIENT_SECRET
                    the secret of the --client-id client, when
                    --client-secret-file gives none
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
    /// Sign in to an OAuth server as the client ID, which you registered
    /// at its authorization server beforehand. Without it presa registers
    /// itself, which many authorization servers do not allow. presa keeps
    /// one sign-in per server: run `presa logout SERVER` before you sign
    /// in as another client.
    #[arg(long, global = true, value_name = "ID")]
    pub client_id: Option<String>,
    /// Read the secret of the --client-id client from the file at PATH,
    /// on one line. Without it presa reads PRESA_CLIENT_SECRET, if set.
    /// A secret needs --issuer.
    #[arg(long, global = true, value_name = "PATH", requires = "client_id")]
    pub client_secret_file: Option<PathBuf>,
    /// Sign in only at the authorization server whose issuer is URL,
    /// exactly as its metadata names it. presa sends a client secret to
    /// no other server, so a secret needs it.
    #[arg(long, global = true, value_name = "URL")]
    pub issuer: Option<String>,
    /// Sign in with the Client ID Metadata Document at URL (https://) as
    /// the client id, where the authorization server supports them.
    /// presa registers itself where it does not.
    #[arg(long, global = true, value_name = "URL", conflicts_with = "client_id")]
    pub client_metadata_url: Option<String>,
    /// Sign in as the --client-id client itself, with its secret and no
    /// browser (the OAuth client credentials grant), for scripts and
    /// services. It needs --client-id, the secret and --issuer.
    #[arg(long, global = true)]
    pub client_credentials: bool,
    /// Bind the OAuth tokens to a key of presa's (DPoP), so that a stolen
    /// token is of no use without the key. The authorization server must
    /// support DPoP: presa refuses the plain tokens of one that does not.
    /// presa keeps the key with the tokens.
    #[arg(long, global = true)]
    pub dpop: bool,
    /// Send the header NAME: VALUE to an HTTP server with every request,
    /// after a configured server's own headers. Repeat it for more.
    /// presa never prints a header's value.
    #[arg(
        long = "header",
        short = 'H',
        global = true,
        value_name = "NAME: VALUE"
    )]
    pub headers: Vec<String>,
    /// Set the environment variable KEY to VALUE for a stdio server, over
    /// what a configured server's entry sets. Repeat it for more.
    #[arg(long = "env", short = 'e', global = true, value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// Give up on a request that gets no answer within SECONDS (such as 30
    /// or 2.5), cancel it on the server, and exit with status 6. No limit
    /// by default. A task followed is polled with requests of its own,
    /// each within the limit. presa also waits no longer than SECONDS to
    /// learn which protocol revision the server speaks.
    #[arg(long, global = true, value_name = "SECONDS", value_parser = seconds)]
    pub timeout: Option<Duration>,
    /// Show what a stdio server writes on stderr, each line after
    /// `[server]`. Without it, presa drops it.
    #[arg(long, global = true, visible_alias = "server-logs")]
    pub server_log: bool,
    /// Ask the server for log messages at LEVEL and above, and show them
    /// on stderr, each after `[server log]`. A task has no log channel, so
    /// a call that runs as one logs nothing.
    #[arg(long, global = true, value_name = "LEVEL")]
    pub log_level: Option<LogLevel>,
    /// Speak only this MCP protocol version: 2026-07-28, or a session of
    /// 2025-11-25, 2025-06-18 or 2025-03-26. By default presa asks the
    /// server which it speaks and prefers 2026-07-28. Use it to try a
    /// server's older protocol.
    #[arg(long, global = true, value_name = "VERSION", value_parser = protocol_version)]
    pub protocol_version: Option<String>,
}

/// A `--timeout`: a positive number of seconds.
fn seconds(text: &str) -> Result<Duration, String> {
    let wrong = || format!("`{text}` is not a number of seconds, such as 30 or 2.5");
    let seconds: f64 = text.trim().parse().map_err(|_| wrong())?;
    // NaN is no number of seconds either.
    if seconds.is_nan() || seconds <= 0.0 {
        return Err(format!(
            "the timeout must be more than 0 seconds, not {text}"
        ));
    }
    Duration::try_from_secs_f64(seconds).map_err(|_| wrong())
}

/// A protocol version presa speaks, for `--protocol-version`.
fn protocol_version(text: &str) -> Result<String, String> {
    let known: Vec<&str> = std::iter::once(presa::wire::PROTOCOL_VERSION)
        .chain(presa::wire::legacy::LEGACY_VERSIONS)
        .collect();
    if known.contains(&text) {
        return Ok(text.to_owned());
    }
    Err(format!(
        "presa does not speak MCP `{text}`. It speaks {}",
        known.join(", ")
    ))
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
    /// List the server's resource templates: URIs with {placeholders}, to
    /// fill in and `read`.
    #[command(after_help = statuses(&Exit::OF_A_REQUEST))]
    Templates {
        #[arg(help = SERVER_HELP)]
        server: Target,
    },
    /// Ask the server to complete an argument of a prompt or of a
    /// resource template.
    #[command(
        long_about = "Ask the server to complete an argument of a prompt or of a resource \
                      template (completion/complete), and print its suggestions, one a line.\n\n\
                      presa complete SERVER prompt:review language=py\n\
                      presa complete SERVER 'template:file:///{path}' path=src/",
        after_help = statuses(&Exit::OF_A_REQUEST)
    )]
    Complete {
        #[arg(help = SERVER_HELP)]
        server: Target,
        /// What the argument belongs to: prompt:NAME, or template:URI with
        /// the template's URI as `templates` lists it.
        #[arg(value_name = "prompt:NAME|template:URI")]
        reference: String,
        /// The argument to complete, and what is typed of it so far (may
        /// be empty: `language=`).
        #[arg(value_name = "ARG=PREFIX")]
        argument: String,
        /// An argument already given, which the server may use to narrow
        /// its suggestions. Repeat it for more.
        #[arg(long = "context", value_name = "ARG=VALUE")]
        context: Vec<String>,
    },
    /// Check that the server answers, and say how long it took.
    #[command(
        long_about = "Check that the server answers, and say how long it took. A \
                      2025-11-25 server is sent `ping`; 2026-07-28 has no ping, so a server \
                      of that era is asked `server/discover`, its cheapest request.",
        after_help = statuses(&Exit::OF_A_REQUEST)
    )]
    Ping {
        #[arg(help = SERVER_HELP)]
        server: Target,
    },
    /// Ask the server for log messages at LEVEL and above.
    #[command(
        long_about = "Ask the server for log messages at LEVEL and above. A 2025-11-25 server \
                      is sent logging/setLevel, which holds for its session; a 2026-07-28 \
                      server reads the level from each request. In `presa shell` the level \
                      holds for the rest of the shell, and the server's log messages show on \
                      stderr as they come; on its own, the command only checks that the server \
                      takes the level.",
        after_help = statuses(&Exit::OF_A_REQUEST)
    )]
    LogLevel {
        #[arg(help = SERVER_HELP)]
        server: Target,
        /// The lowest level to send.
        level: LogLevel,
    },
    /// Print the server's notifications as they come: its tools, prompts
    /// or resources changed, a resource was updated.
    #[command(
        long_about = "Print the server's notifications as they come: its tools, prompts or \
                      resources changed, or a resource followed with --resource was updated. \
                      With --json, one JSON document a line. A 2026-07-28 server is asked with \
                      subscriptions/listen; a 2025-11-25 one sends them on its session, after \
                      resources/subscribe for each --resource.\n\n\
                      Once the server agreed, presa says on stderr what it follows. It watches \
                      until Ctrl-C (status 130), or until the server ends the stream (status \
                      0) or the connection (status 3; a stdio server that exits).",
        after_help = statuses(&[Exit::Success, Exit::Usage, Exit::Protocol, Exit::TimedOut, Exit::Cancelled])
    )]
    Watch {
        #[arg(help = SERVER_HELP)]
        server: Target,
        /// Also follow the resource at URI: print each time it is updated.
        /// Repeat it for more.
        #[arg(long = "resource", value_name = "URI")]
        resources: Vec<String>,
    },
    /// List the servers your other tools configure, and presa's own
    /// aliases: names any command takes in place of a URL.
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

/// A log level, as MCP names them (RFC 5424's, lowest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogLevel {
    /// Debugging detail.
    Debug,
    /// Information.
    Info,
    /// Normal but significant.
    Notice,
    /// Something unexpected that did not stop the work.
    Warning,
    /// An operation failed.
    Error,
    /// A component failed and the server cannot work around it.
    Critical,
    /// Action must be taken now.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl From<LogLevel> for presa::wire::LoggingLevel {
    fn from(level: LogLevel) -> Self {
        use presa::wire::LoggingLevel as Wire;
        match level {
            LogLevel::Debug => Wire::Debug,
            LogLevel::Info => Wire::Info,
            LogLevel::Notice => Wire::Notice,
            LogLevel::Warning => Wire::Warning,
            LogLevel::Error => Wire::Error,
            LogLevel::Critical => Wire::Critical,
            LogLevel::Alert => Wire::Alert,
            LogLevel::Emergency => Wire::Emergency,
        }
    }
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
