//! `SERVER` on the command line: an `http://` or `https://` URL, or
//! `stdio:COMMAND ARGS...`, the command split as a shell would split it
//! (quotes and backslashes), so that one argument names the whole server;
//! or else the name of a server in a host's config (`NAME`, or
//! `HOST:NAME`), looked up in the hosts' files once the command line is
//! read ([`Target::resolved`]).
//!
//! A stdio server runs in a process group of its own, so that the
//! terminal's Ctrl-C reaches `presa` alone: `presa` decides what it means
//! (see `follow`), and ends the server itself when it ends. In the
//! terminal's group the server would be interrupted too, and a task could
//! no longer be cancelled, nor left running, through it.

use std::fmt;
use std::str::FromStr;

use presa::client::{ClientTransport, HttpOptions};

use crate::exit::Failure;
use crate::hosts::{Catalog, Places, Reach, reach};
use crate::output::shown::{self, line, note};

/// The server a command talks to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A Streamable HTTP endpoint.
    Http(String),
    /// A program to start, speaking MCP over its stdin and stdout: the
    /// program, then its arguments.
    Stdio(Vec<String>),
    /// The name of a configured server, not yet looked up.
    Named(String),
    /// A configured server, looked up: the name it was given by, and how
    /// to reach it.
    Configured(String, Reach),
}

const STDIO: &str = "stdio:";

impl FromStr for Target {
    type Err = String;

    fn from_str(server: &str) -> Result<Self, String> {
        if server.starts_with("http://") || server.starts_with("https://") {
            return Ok(Target::Http(server.to_owned()));
        }
        let Some(command) = server.strip_prefix(STDIO) else {
            if server.trim().is_empty() {
                return Err("give an http:// or https:// URL, stdio:COMMAND to start a \
                            server, or the name of a configured server"
                    .into());
            }
            return Ok(Target::Named(server.to_owned()));
        };
        let words = shell_words::split(command)
            .map_err(|e| format!("cannot split the command `{command}`: {e}"))?;
        if words.is_empty() {
            return Err("stdio: needs a command to start, such as \"stdio:my-server\"".into());
        }
        Ok(Target::Stdio(words))
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Http(url) => f.write_str(url),
            Target::Stdio(words) => write!(f, "{STDIO}{}", shell_words::join(words)),
            Target::Named(name) | Target::Configured(name, _) => f.write_str(name),
        }
    }
}

impl Target {
    /// `presa task SERVER ACTION TASK_ID` for this server, to paste into a
    /// shell: each word quoted for one (the server chose the task's id),
    /// and the whole shown escaped.
    pub fn task_command(&self, action: &str, task_id: &str) -> String {
        let server = self.to_string();
        let words = ["presa", "task", &server, action, task_id];
        shown::line(&shell_words::join(words)).to_string()
    }

    /// This server, a name looked up in the hosts' configs; a URL or
    /// command as it is. Tells of each config file that could not be read.
    pub fn resolved(self) -> Result<Target, Failure> {
        let Target::Named(name) = self else {
            return Ok(self);
        };
        let places = Places::of_user().map_err(Failure::usage)?;
        let catalog = Catalog::gather(&places);
        for warning in &catalog.warnings {
            note!("presa: {}", line(warning));
        }
        let server = catalog.find(&name).map_err(Failure::usage)?;
        let env = |variable: &str| std::env::var(variable).ok();
        let reached = reach(server, &places.home, &env).map_err(Failure::usage)?;
        Ok(Target::Configured(name, reached))
    }

    /// The URL of an HTTP server; `None` for a stdio one.
    pub fn url(&self) -> Option<&str> {
        match self {
            Target::Http(url) | Target::Configured(_, Reach::Http { url, .. }) => Some(url),
            _ => None,
        }
    }

    /// The headers a configured HTTP server's entry gives.
    pub fn headers(&self) -> &[(String, String)] {
        match self {
            Target::Configured(_, Reach::Http { headers, .. }) => headers,
            _ => &[],
        }
    }

    /// The transport to this server: over HTTP with `options`; or a
    /// process started with `env` set over its entry's, its stderr going
    /// to `stderr`.
    pub fn transport(
        &self,
        options: HttpOptions,
        env_over: &[(String, String)],
        stderr: std::process::Stdio,
    ) -> Result<ClientTransport, Failure> {
        let (words, env, cwd) = match self {
            Target::Http(url) | Target::Configured(_, Reach::Http { url, .. }) => {
                return ClientTransport::http_with(url, options)
                    .map_err(|e| Failure::protocol(format!("{url}: {e}")));
            }
            Target::Stdio(words) => (words, &[][..], None),
            Target::Configured(_, Reach::Stdio { words, env, cwd }) => {
                (words, env.as_slice(), cwd.as_deref())
            }
            Target::Named(name) => {
                return Err(Failure::usage(format!("`{name}` was not looked up")));
            }
        };
        let mut command = tokio::process::Command::new(&words[0]);
        command.args(&words[1..]);
        command.envs(env.iter().map(|(name, value)| (name, value)));
        command.envs(env_over.iter().map(|(name, value)| (name, value)));
        command.stderr(stderr);
        if let Some(cwd) = cwd {
            command.current_dir(cwd);
        }
        out_of_the_terminal_s_group(&mut command);
        ClientTransport::spawn(command)
            .map_err(|e| Failure::protocol(format!("cannot start `{}`: {e}", words[0])))
    }
}

/// Starts the server in a process group of its own (see the module docs).
#[cfg(unix)]
fn out_of_the_terminal_s_group(command: &mut tokio::process::Command) {
    command.process_group(0);
}

/// Starts the server in a process group of its own (see the module docs):
/// a console's Ctrl+C does not reach such a group.
#[cfg(windows)]
fn out_of_the_terminal_s_group(command: &mut tokio::process::Command) {
    const CREATE_NEW_PROCESS_GROUP: u32 = 0x0000_0200;
    command.creation_flags(CREATE_NEW_PROCESS_GROUP);
}

#[cfg(not(any(unix, windows)))]
fn out_of_the_terminal_s_group(_: &mut tokio::process::Command) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_http() {
        let target: Target = "https://mcp.example.com/mcp".parse().unwrap();
        assert_eq!(target, Target::Http("https://mcp.example.com/mcp".into()));
    }

    #[test]
    fn a_stdio_command_is_split_as_a_shell_would() {
        let target: Target = r#"stdio:cargo run -q --example "my jobs" -- stdio"#
            .parse()
            .unwrap();
        let words = ["cargo", "run", "-q", "--example", "my jobs", "--", "stdio"];
        assert_eq!(target, Target::Stdio(words.map(String::from).to_vec()));
        assert_eq!(
            target.to_string(),
            "stdio:cargo run -q --example 'my jobs' -- stdio"
        );
    }

    #[test]
    fn a_task_command_quotes_the_server_s_id_for_a_shell() {
        let target = Target::Http("http://h/mcp".into());
        assert_eq!(
            target.task_command("watch", "t-1"),
            "presa task http://h/mcp watch t-1"
        );
        assert_eq!(
            target.task_command("cancel", "x; rm -rf ~\x1b[2J"),
            r"presa task http://h/mcp cancel 'x; rm -rf ~\x1b[2J'"
        );
    }

    #[test]
    fn anything_else_is_a_name_to_look_up() {
        let target: Target = "claude-code:github".parse().unwrap();
        assert_eq!(target, Target::Named("claude-code:github".into()));
        assert_eq!(target.to_string(), "claude-code:github");
        let error = " ".parse::<Target>().unwrap_err();
        assert!(error.contains("stdio:COMMAND"), "{error}");
        assert!("stdio:".parse::<Target>().is_err());
        assert!("stdio:'unclosed".parse::<Target>().is_err());
    }
}
