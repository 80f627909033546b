//! `SERVER` on the command line: an `http://` or `https://` URL, or
//! `stdio:COMMAND ARGS...`, the command split as a shell would split it
//! (quotes and backslashes), so that one argument names the whole server.
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
use crate::output::shown;

/// The server a command talks to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A Streamable HTTP endpoint.
    Http(String),
    /// A program to start, speaking MCP over its stdin and stdout: the
    /// program, then its arguments.
    Stdio(Vec<String>),
}

const STDIO: &str = "stdio:";

impl FromStr for Target {
    type Err = String;

    fn from_str(server: &str) -> Result<Self, String> {
        if server.starts_with("http://") || server.starts_with("https://") {
            return Ok(Target::Http(server.to_owned()));
        }
        let Some(command) = server.strip_prefix(STDIO) else {
            return Err(format!(
                "`{server}` is no server: give an http:// or https:// URL, \
                 or stdio:COMMAND to start one, such as \"stdio:my-server --flag\""
            ));
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

    /// The transport to this server, over HTTP with `options`.
    pub fn transport(&self, options: HttpOptions) -> Result<ClientTransport, Failure> {
        match self {
            Target::Http(url) => ClientTransport::http_with(url, options)
                .map_err(|e| Failure::protocol(format!("{url}: {e}"))),
            Target::Stdio(words) => {
                let mut command = tokio::process::Command::new(&words[0]);
                command.args(&words[1..]);
                out_of_the_terminal_s_group(&mut command);
                ClientTransport::spawn(command)
                    .map_err(|e| Failure::protocol(format!("cannot start `{}`: {e}", words[0])))
            }
        }
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
    fn anything_else_is_refused_with_the_forms_it_may_take() {
        let error = "localhost:3000".parse::<Target>().unwrap_err();
        assert!(error.contains("stdio:COMMAND"), "{error}");
        assert!("stdio:".parse::<Target>().is_err());
        assert!("stdio:'unclosed".parse::<Target>().is_err());
    }
}
