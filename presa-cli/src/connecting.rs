//! What the connecting options (`--header`, `-e`, `--server-log`) make of
//! the connection: the headers an HTTP server is sent, the environment a
//! stdio server starts with, and where its stderr goes.
//!
//! The rules, in order:
//!
//! 1. `--header NAME: VALUE` is for an HTTP server and `-e KEY=VALUE` for
//!    a stdio one; either given for the other kind is a usage error, so
//!    that a mistyped server is not silently sent nothing;
//! 2. an HTTP server is sent its configured entry's headers, then those
//!    of the command line: a name given in both is sent with both values,
//!    as HTTP allows. `Authorization: Bearer TOKEN`, from either, is the
//!    bearer token (`--token` and `PRESA_TOKEN` win over a configured
//!    one); any other `Authorization`, and the headers the transport sets
//!    itself, are refused by name;
//! 3. a stdio server gets its entry's environment, then `-e`'s, a later
//!    KEY overriding an earlier one;
//! 4. a stdio server's stderr is dropped, so that it does not write over
//!    presa's own output; with `--server-log`, each line shows on
//!    presa's stderr after `[server] `, escaped as any server text is.
//!
//! No header's value is ever printed: a refusal names the header.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use presa::client::HttpOptions;

use crate::command_line::Common;
use crate::exit::Failure;
use crate::output::shown::{line, note};
use crate::target::Target;

/// The connecting options of one command, read and checked.
#[derive(Debug, Default)]
pub struct Connecting {
    /// The headers for an HTTP server, configured first (rule 2).
    pub headers: Vec<(String, String)>,
    /// The environment over a stdio server's entry's (rule 3).
    pub env: Vec<(String, String)>,
    /// Whether a stdio server's stderr shows (rule 4).
    pub server_log: bool,
}

impl Connecting {
    /// The options `common` gives for `target` (rule 1).
    pub fn read(common: &Common, target: &Target) -> Result<Self, Failure> {
        let http = target.url().is_some();
        if !http && !common.headers.is_empty() {
            return Err(Failure::usage(
                "--header is for an HTTP server; a stdio server takes -e KEY=VALUE",
            ));
        }
        if http && !common.env.is_empty() {
            return Err(Failure::usage(
                "-e is for a stdio server's environment; an HTTP server takes --header",
            ));
        }
        let mut headers = target.headers().to_vec();
        for given in &common.headers {
            headers.push(header(given)?);
        }
        let env = common
            .env
            .iter()
            .map(|given| variable(given))
            .collect::<Result<_, _>>()?;
        Ok(Connecting {
            headers,
            env,
            server_log: common.server_log,
        })
    }

    /// The bearer token an `Authorization: Bearer` header gives, the last
    /// one given (rule 2).
    pub fn bearer(&self) -> Option<String> {
        self.headers.iter().rev().find_map(|(name, value)| {
            let token = value.strip_prefix("Bearer ")?;
            name.eq_ignore_ascii_case("authorization")
                .then(|| token.trim().to_owned())
        })
    }

    /// `options` with the headers but `Authorization: Bearer` added
    /// (rule 2).
    pub fn add_headers(&self, mut options: HttpOptions) -> Result<HttpOptions, Failure> {
        for (name, value) in &self.headers {
            let bearer = name.eq_ignore_ascii_case("authorization") && value.starts_with("Bearer ");
            if bearer {
                continue;
            }
            options = options
                .header(name, value)
                .map_err(|refused| Failure::usage(line(&refused.to_string()).to_string()))?;
        }
        Ok(options)
    }

    /// Where a stdio server's stderr goes (rule 4), and, when presa
    /// shows it, the [`ServerLog`] that shows it.
    pub fn server_stderr(&self) -> (Stdio, Option<ServerLog>) {
        if !self.server_log {
            return (Stdio::null(), None);
        }
        match std::io::pipe() {
            Ok((reader, writer)) => {
                let (done, shown) = std::sync::mpsc::channel::<()>();
                std::thread::spawn(move || {
                    // Dropped at the end, which tells `ServerLog::finish`.
                    let _done = done;
                    for text in BufReader::new(reader).split(b'\n') {
                        let Ok(text) = text else { break };
                        let text = String::from_utf8_lossy(&text);
                        note!("[server] {}", line(text.trim_end_matches('\r')));
                    }
                });
                (Stdio::from(writer), Some(ServerLog(shown)))
            }
            Err(e) => {
                note!("presa: cannot read the server's stderr ({e}); it goes to the terminal");
                (Stdio::inherit(), None)
            }
        }
    }
}

/// The thread that shows a stdio server's stderr, until the server's end
/// of it closes.
#[derive(Debug)]
pub struct ServerLog(std::sync::mpsc::Receiver<()>);

impl ServerLog {
    /// Waits, a second at most, for the last lines the server wrote to
    /// show: the server has ended, but its lines may still be on their
    /// way. A process the server left behind may hold its stderr open;
    /// presa does not wait for that one.
    pub async fn finish(self) {
        let waiting = move || {
            let _ = self.0.recv_timeout(std::time::Duration::from_secs(1));
        };
        let _ = tokio::task::spawn_blocking(waiting).await;
    }
}

/// `NAME: VALUE`, as `--header` takes it. A refusal shows none of what
/// was given: without a colon, all of it may be the value.
fn header(given: &str) -> Result<(String, String), Failure> {
    let refused = || {
        Failure::usage(
            "--header takes NAME: VALUE, such as 'X-Api-Key: …', with a name of no spaces \
             before the colon",
        )
    };
    let (name, value) = given.split_once(':').ok_or_else(refused)?;
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(refused());
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

/// `KEY=VALUE`, as `-e` takes it. A refusal shows none of what was
/// given, which may hold a secret.
fn variable(given: &str) -> Result<(String, String), Failure> {
    match given.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(Failure::usage(
            "-e takes KEY=VALUE, such as -e LOG_LEVEL=debug, with a KEY before the `=`",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hosts::Reach;
    use clap::Parser;

    fn common(args: &[&str]) -> Common {
        let mut line = vec!["presa", "tools", "http://h/mcp"];
        line.extend_from_slice(args);
        crate::command_line::Cli::try_parse_from(line)
            .unwrap()
            .common
    }

    #[test]
    fn headers_follow_the_configured_ones_and_the_bearer_is_the_token() {
        let configured = vec![
            ("Authorization".to_owned(), "Bearer t0k".to_owned()),
            ("X-Region".to_owned(), "eu".to_owned()),
        ];
        let url = "https://h/mcp".to_owned();
        let target = Target::Configured(
            "work".into(),
            Reach::Http {
                url,
                headers: configured,
            },
        );
        let given = common(&["-H", "X-Region: us", "--header", "X-Key:  k3y "]);
        let connecting = Connecting::read(&given, &target).unwrap();
        assert_eq!(connecting.bearer().as_deref(), Some("t0k"));
        let names: Vec<_> = connecting
            .headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("Authorization", "Bearer t0k"),
                ("X-Region", "eu"),
                ("X-Region", "us"),
                ("X-Key", "k3y")
            ]
        );
        assert!(connecting.add_headers(HttpOptions::default()).is_ok());
    }

    #[test]
    fn a_refused_header_is_named_and_its_value_never_shown() {
        let target = Target::Http("http://h/mcp".into());
        let given = common(&["-H", "Mcp-Session-Id: s3cret-id"]);
        let connecting = Connecting::read(&given, &target).unwrap();
        let failure = connecting.add_headers(HttpOptions::default()).unwrap_err();
        assert!(
            failure.message.contains("Mcp-Session-Id"),
            "{}",
            failure.message
        );
        assert!(!failure.message.contains("s3cret"), "{}", failure.message);
        for given in ["s3cret", "my s3cret: x"] {
            let failure = Connecting::read(&common(&["-H", given]), &target).unwrap_err();
            assert!(
                failure.message.contains("NAME: VALUE"),
                "{}",
                failure.message
            );
            assert!(!failure.message.contains("s3cret"), "{}", failure.message);
        }
    }

    #[test]
    fn each_option_is_for_its_kind_of_server() {
        let stdio = Target::Stdio(vec!["jobs".into()]);
        let http = Target::Http("http://h/mcp".into());
        assert!(Connecting::read(&common(&["-H", "X-A: b"]), &stdio).is_err());
        assert!(Connecting::read(&common(&["-e", "A=b"]), &http).is_err());
        let connecting = Connecting::read(&common(&["-e", "A=b=c", "-e", "B="]), &stdio).unwrap();
        assert_eq!(
            connecting.env,
            [
                ("A".to_owned(), "b=c".to_owned()),
                ("B".to_owned(), String::new())
            ]
        );
        assert!(Connecting::read(&common(&["-e", "=b"]), &stdio).is_err());
    }
}
