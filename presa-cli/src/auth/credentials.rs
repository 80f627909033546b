//! The credentials given to `presa` itself: the static bearer token
//! (`Authorization: Bearer TOKEN`) and the secret of a pre-registered
//! OAuth client, and where each comes from.
//!
//! A token given as `--token TOKEN` is in `presa`'s command line, which
//! other users of the computer can read (`ps`), and which the shell may
//! keep in its history. So `presa` also reads it from a file or from the
//! environment, and a client secret only from there. The rules for the
//! token, in order:
//!
//! 1. a stdio server takes no token: `--token` or `--token-file` with
//!    one is a usage error, and `PRESA_TOKEN` is left unread, since it
//!    is the environment's, set for every command;
//! 2. `--token` and `--token-file` together are a usage error: the token
//!    is given once (clap refuses the pair first);
//! 3. `--token-file PATH` reads the file at `PATH`; `--token-file -`
//!    reads the first line of stdin. At most [`MAX_TOKEN`] bytes are
//!    read: a larger file is refused;
//! 4. `--token TOKEN` is taken as it is;
//! 5. with neither, `PRESA_TOKEN` is read, when it is set;
//! 6. a token is one line of visible ASCII. One trailing line break
//!    (`\n` or `\r\n`) is dropped. An empty token, or one with spaces,
//!    control characters or another line inside, is a usage error that
//!    names where the token came from, never the token itself.
//!
//! A client secret comes from `--client-secret-file PATH`, or else from
//! [`SECRET_VARIABLE`], under rules 3 (without stdin) and 6.

use std::ffi::OsString;
use std::fmt;
use std::io::{BufRead, Read};
use std::path::Path;

use crate::command_line::Common;
use crate::exit::Failure;
use crate::output::shown;
use crate::target::Target;

/// The environment variable that holds the token (rule 5).
pub const TOKEN_VARIABLE: &str = "PRESA_TOKEN";

/// The environment variable that holds the OAuth client's secret.
pub const SECRET_VARIABLE: &str = "PRESA_CLIENT_SECRET";

/// The most bytes read for a token (rule 3): far more than any token.
pub const MAX_TOKEN: u64 = 64 * 1024;

/// Where a token or a secret came from, to name it in an error.
#[derive(Clone, Copy)]
enum Source<'a> {
    Line,
    File(&'a Path),
    Stdin,
    Environment,
    SecretFile(&'a Path),
    SecretEnvironment,
}

impl Source<'_> {
    /// What the source holds, for the messages.
    fn holds(self) -> &'static str {
        match self {
            Source::SecretFile(_) | Source::SecretEnvironment => "client secret",
            _ => "token",
        }
    }
}

impl fmt::Display for Source<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Line => f.write_str("the token given with --token"),
            Source::File(path) => {
                let path = path.display().to_string();
                write!(f, "the token file {}", shown::line(&path))
            }
            Source::Stdin => f.write_str("the token read from stdin (--token-file -)"),
            Source::Environment => write!(f, "{TOKEN_VARIABLE}"),
            Source::SecretFile(path) => {
                let path = path.display().to_string();
                write!(f, "the client secret file {}", shown::line(&path))
            }
            Source::SecretEnvironment => write!(f, "{SECRET_VARIABLE}"),
        }
    }
}

/// The bearer token to send to `target`, if any (the rules above).
pub fn bearer_token(common: &Common, target: &Target) -> Result<Option<String>, Failure> {
    choose(
        common.token.as_deref(),
        common.token_file.as_deref(),
        std::env::var_os(TOKEN_VARIABLE),
        target,
        || std::io::stdin().lock(),
    )
}

/// The secret of the OAuth client: read from `file`, or else from
/// [`SECRET_VARIABLE`] when it is set.
pub fn client_secret(file: Option<&Path>) -> Result<Option<String>, Failure> {
    let (text, source) = match file {
        Some(path) => (
            read_file(path, Source::SecretFile(path))?,
            Source::SecretFile(path),
        ),
        None => match std::env::var_os(SECRET_VARIABLE) {
            None => return Ok(None),
            Some(value) => {
                let text = value.into_string().map_err(|_| {
                    Failure::usage(format!(
                        "{SECRET_VARIABLE} is not text: set it to the client secret"
                    ))
                })?;
                (text, Source::SecretEnvironment)
            }
        },
    };
    checked(text, source).map(Some)
}

/// The rules, with the environment's value and stdin given.
fn choose<R: BufRead>(
    line: Option<&str>,
    file: Option<&Path>,
    environment: Option<OsString>,
    target: &Target,
    stdin: impl FnOnce() -> R,
) -> Result<Option<String>, Failure> {
    if target.url().is_none() {
        return match (line, file) {
            (None, None) => Ok(None),
            (Some(_), _) => Err(Failure::usage(
                "--token goes with an http:// or https:// server",
            )),
            (None, Some(_)) => Err(Failure::usage(
                "--token-file goes with an http:// or https:// server",
            )),
        };
    }
    let (text, source) = match (line, file) {
        (Some(_), Some(_)) => {
            return Err(Failure::usage(
                "give the token once: --token or --token-file, not both",
            ));
        }
        (None, Some(path)) if path == Path::new("-") => {
            (read_line(stdin(), Source::Stdin)?, Source::Stdin)
        }
        (None, Some(path)) => (read_file(path, Source::File(path))?, Source::File(path)),
        (Some(token), None) => (token.to_owned(), Source::Line),
        (None, None) => match environment {
            None => return Ok(None),
            Some(value) => {
                let text = value.into_string().map_err(|_| {
                    Failure::usage(format!("{TOKEN_VARIABLE} is not text: set it to the token"))
                })?;
                (text, Source::Environment)
            }
        },
    };
    checked(text, source).map(Some)
}

/// The first line of stdin, its line break kept for [`checked`].
fn read_line(stdin: impl BufRead, source: Source) -> Result<String, Failure> {
    let mut line = Vec::new();
    stdin
        .take(MAX_TOKEN + 1)
        .read_until(b'\n', &mut line)
        .map_err(|e| Failure::usage(format!("cannot read {source}: {e}")))?;
    text(line, source)
}

/// The whole file at `path`, named as `source` (rule 3).
fn read_file(path: &Path, source: Source) -> Result<String, Failure> {
    let cannot = |e: std::io::Error| Failure::usage(format!("cannot read {source}: {e}"));
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .map_err(cannot)?
        .take(MAX_TOKEN + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    text(bytes, source)
}

/// `bytes` as text, at most [`MAX_TOKEN`] of them.
fn text(bytes: Vec<u8>, source: Source) -> Result<String, Failure> {
    if bytes.len() as u64 > MAX_TOKEN {
        return Err(Failure::usage(format!(
            "{source} is larger than {} KiB: that is no {}",
            MAX_TOKEN / 1024,
            source.holds()
        )));
    }
    String::from_utf8(bytes).map_err(|_| Failure::usage(format!("{source} is not text")))
}

/// `text` without its one trailing line break, if it is one token or
/// secret (rule 6).
fn checked(mut text: String, source: Source) -> Result<String, Failure> {
    if text.ends_with('\n') {
        text.pop();
        if text.ends_with('\r') {
            text.pop();
        }
    }
    let what = source.holds();
    if text.is_empty() {
        return Err(Failure::usage(match source {
            Source::Environment | Source::SecretEnvironment => {
                format!("{source} is set but empty: unset it, or set it to the {what}")
            }
            _ => format!("{source} is empty: it should hold the {what}, on one line"),
        }));
    }
    if text.contains('\n') {
        return Err(Failure::usage(format!(
            "{source} has more than one line: it should hold only the {what}"
        )));
    }
    if !text.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(Failure::usage(format!(
            "{source} has a space or a control character in it: a {what} has neither"
        )));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO_STDIN: fn() -> &'static [u8] = || panic!("stdin is not read");

    fn http() -> Target {
        Target::Http("https://mcp.example.com/mcp".into())
    }

    fn from_environment(value: &str) -> Result<Option<String>, Failure> {
        choose(None, None, Some(value.into()), &http(), NO_STDIN)
    }

    fn from_stdin(input: &'static [u8]) -> Result<Option<String>, Failure> {
        choose(None, Some(Path::new("-")), None, &http(), || input)
    }

    /// A file of `content` in a folder of its own; removed on drop.
    struct TokenFile(std::path::PathBuf);

    impl TokenFile {
        fn holding(name: &str, content: &[u8]) -> Self {
            let dir =
                std::env::temp_dir().join(format!("presa-cli-token-{}-{name}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join("token");
            std::fs::write(&path, content).unwrap();
            TokenFile(path)
        }

        fn read(&self) -> Result<Option<String>, Failure> {
            choose(None, Some(&self.0), None, &http(), NO_STDIN)
        }
    }

    impl Drop for TokenFile {
        fn drop(&mut self) {
            if let Some(dir) = self.0.parent() {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }

    fn message(result: Result<Option<String>, Failure>) -> String {
        let failure = result.expect_err("a usage error");
        assert_eq!(failure.exit, crate::exit::Exit::Usage);
        failure.message
    }

    #[test]
    fn a_file_gives_its_one_line_without_the_line_break() {
        for content in [&b"tok.en-1~"[..], b"tok.en-1~\n", b"tok.en-1~\r\n"] {
            let file = TokenFile::holding("one-line", content);
            assert_eq!(file.read().unwrap().as_deref(), Some("tok.en-1~"));
        }
    }

    #[test]
    fn a_bad_file_is_an_error_that_names_it_and_not_the_token() {
        let cases: [(&str, &[u8], &str); 6] = [
            ("empty", b"", "is empty"),
            ("break", b"\n", "is empty"),
            ("two-lines", b"secret-1\nsecret-2\n", "more than one line"),
            ("two-breaks", b"secret-1\n\n", "more than one line"),
            ("space", b"secret 1", "a space or a control character"),
            ("binary", b"secret\xff", "is not text"),
        ];
        for (name, content, says) in cases {
            let file = TokenFile::holding(name, content);
            let error = message(file.read());
            assert!(error.contains(says), "{name}: {error}");
            assert!(error.contains("the token file "), "{name}: {error}");
            assert!(!error.contains("secret"), "{name} shows the token: {error}");
        }
    }

    #[test]
    fn a_file_too_large_to_be_a_token_is_refused() {
        let file = TokenFile::holding("large", &vec![b'a'; MAX_TOKEN as usize + 1]);
        assert!(message(file.read()).contains("larger than 64 KiB"));
        let file = TokenFile::holding("largest", &vec![b'a'; MAX_TOKEN as usize]);
        assert_eq!(file.read().unwrap().map(|t| t.len()), Some(64 * 1024));
    }

    #[test]
    fn a_missing_file_is_an_error_that_names_it() {
        let path = std::env::temp_dir().join("presa-cli-no-such-token-file");
        let error = message(choose(None, Some(&path), None, &http(), NO_STDIN));
        assert!(
            error.starts_with("cannot read the token file ") && error.contains("no-such"),
            "{error}"
        );
    }

    #[test]
    fn stdin_gives_its_first_line() {
        assert_eq!(
            from_stdin(b"tok1\nignored\n").unwrap().as_deref(),
            Some("tok1")
        );
        assert_eq!(from_stdin(b"tok1").unwrap().as_deref(), Some("tok1"));
        assert!(message(from_stdin(b"")).contains("stdin"));
        let long: &'static [u8] = Box::leak(vec![b'a'; MAX_TOKEN as usize + 10].into());
        assert!(message(from_stdin(long)).contains("larger than"));
    }

    #[test]
    fn the_environment_is_read_when_no_option_gives_a_token() {
        assert_eq!(from_environment("tok").unwrap().as_deref(), Some("tok"));
        assert!(message(from_environment("")).contains("PRESA_TOKEN is set but empty"));
        assert!(message(from_environment("a b")).starts_with("PRESA_TOKEN has a space"));
        let none = choose(None, None, None, &http(), NO_STDIN).unwrap();
        assert_eq!(none, None);
    }

    #[test]
    fn an_option_wins_over_the_environment() {
        let environment = Some(OsString::from("from-environment"));
        let given = choose(Some("given"), None, environment.clone(), &http(), NO_STDIN);
        assert_eq!(given.unwrap().as_deref(), Some("given"));
        let file = TokenFile::holding("over-environment", b"from-file\n");
        let read = choose(None, Some(&file.0), environment, &http(), NO_STDIN);
        assert_eq!(read.unwrap().as_deref(), Some("from-file"));
    }

    #[test]
    fn the_token_is_given_once() {
        let error = message(choose(
            Some("a"),
            Some(Path::new("f")),
            None,
            &http(),
            NO_STDIN,
        ));
        assert!(error.contains("not both"), "{error}");
    }

    #[test]
    fn a_stdio_server_takes_no_token_but_ignores_the_environment() {
        let stdio = Target::Stdio(vec!["server".into()]);
        let error = message(choose(Some("a"), None, None, &stdio, NO_STDIN));
        assert!(error.starts_with("--token goes with"), "{error}");
        let error = message(choose(None, Some(Path::new("f")), None, &stdio, NO_STDIN));
        assert!(error.starts_with("--token-file goes with"), "{error}");
        let environment = Some(OsString::from(""));
        assert_eq!(
            choose(None, None, environment, &stdio, NO_STDIN).unwrap(),
            None
        );
    }

    #[test]
    fn a_line_given_token_is_checked_too() {
        let error = message(choose(Some("a\u{1b}b"), None, None, &http(), NO_STDIN));
        assert!(
            error.starts_with("the token given with --token has"),
            "{error}"
        );
    }

    #[test]
    fn a_bad_secret_file_is_an_error_that_names_it_and_not_the_secret() {
        let cases: [(&str, &[u8], &str); 3] = [
            (
                "secret-empty",
                b"",
                "is empty: it should hold the client secret",
            ),
            (
                "secret-lines",
                b"s3cr3t-1\ns3cr3t-2\n",
                "only the client secret",
            ),
            ("secret-space", b"s3cr3t 1", "a client secret has neither"),
        ];
        for (name, content, says) in cases {
            let file = TokenFile::holding(name, content);
            let error = match client_secret(Some(&file.0)) {
                Err(failure) => failure.message,
                Ok(_) => panic!("{name}: a usage error"),
            };
            assert!(
                error.starts_with("the client secret file "),
                "{name}: {error}"
            );
            assert!(error.contains(says), "{name}: {error}");
            assert!(
                !error.contains("s3cr3t"),
                "{name} shows the secret: {error}"
            );
        }
        let file = TokenFile::holding("secret-good", b"s3cr3t-ok\r\n");
        assert_eq!(
            client_secret(Some(&file.0)).unwrap().as_deref(),
            Some("s3cr3t-ok")
        );
    }
}
