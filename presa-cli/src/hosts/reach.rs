//! A configured server made ready to start or to reach: its variables
//! expanded by its host's rules, its relative `cwd` made absolute. This
//! is the one place the secrets its variables hold are read, and they go
//! only into the server's process or requests.

use std::path::{Path, PathBuf};

use super::expand::{Values, expand};
use super::server::{Configured, Launch};

/// How to reach a configured server, everything in it expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// A program to start: the program, then its arguments, with its
    /// environment and folder.
    Stdio {
        /// The program, then its arguments.
        words: Vec<String>,
        /// Variables set for it, besides presa's own environment.
        env: Vec<(String, String)>,
        /// The folder it runs in, if its entry names one.
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// The endpoint's URL, variables expanded.
        url: String,
        /// Headers to send with each request.
        headers: Vec<(String, String)>,
    },
}

/// How to reach `server`, with `home` the user's home and `env` the
/// environment; or why it cannot be used, naming the server and its file.
pub fn reach(
    server: &Configured,
    home: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Reach, String> {
    reached(server, home, env).map_err(|reason| {
        format!(
            "{} (in {}) cannot be used: {reason}",
            server.qualified(),
            server.file.display()
        )
    })
}

/// Why `server` cannot be used, if it cannot: [`reach`]'s reason alone.
pub fn why_not(
    server: &Configured,
    home: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    reached(server, home, env).err()
}

fn reached(
    server: &Configured,
    home: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Reach, String> {
    let values = Values {
        env,
        home,
        workspace: server.project.as_deref(),
    };
    let one = |text: &str| expand(server.syntax, text, &values).map_err(|e| e.to_string());
    let pairs = |map: &std::collections::BTreeMap<String, String>| {
        map.iter()
            .map(|(name, value)| Ok((name.clone(), one(value)?)))
            .collect::<Result<Vec<_>, String>>()
    };
    match &server.launch {
        Launch::Unusable(reason) => Err(reason.clone()),
        Launch::Http { url, headers } => Ok(Reach::Http {
            url: one(url)?,
            headers: pairs(headers)?,
        }),
        Launch::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let mut words = vec![one(command)?];
            for arg in args {
                words.push(one(arg)?);
            }
            let cwd = match cwd {
                None => None,
                Some(cwd) => {
                    let base = server
                        .project
                        .clone()
                        .or_else(|| server.file.parent().map(Path::to_path_buf))
                        .unwrap_or_default();
                    Some(base.join(one(cwd)?))
                }
            };
            Ok(Reach::Stdio {
                words,
                env: pairs(env)?,
                cwd,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hosts::expand::Syntax;
    use crate::hosts::server::{Host, Scope};

    fn server(launch: Launch, syntax: Syntax) -> Configured {
        Configured {
            name: "api".into(),
            host: Host::ClaudeCode,
            scope: Scope::Project,
            file: PathBuf::from("/src/shop/.mcp.json"),
            launch,
            syntax,
            project: Some(PathBuf::from("/src/shop")),
            shadowed: false,
        }
    }

    #[test]
    fn a_stdio_server_gets_its_env_expanded_and_its_cwd_from_the_project() {
        let launch = Launch::Stdio {
            command: "${BIN:-srv}".into(),
            args: vec!["--key".into(), "${KEY}".into()],
            env: [("TOKEN".to_owned(), "${KEY}".to_owned())].into(),
            cwd: Some("tools".into()),
        };
        let env = |name: &str| (name == "KEY").then(|| "k1".to_owned());
        let reached = reach(&server(launch, Syntax::Braces), Path::new("/h"), &env).unwrap();
        assert_eq!(
            reached,
            Reach::Stdio {
                words: vec!["srv".into(), "--key".into(), "k1".into()],
                env: vec![("TOKEN".into(), "k1".into())],
                cwd: Some(PathBuf::from("/src/shop/tools")),
            }
        );
    }

    #[test]
    fn an_unset_variable_names_itself_and_the_file() {
        let launch = Launch::Http {
            url: "https://h/mcp".into(),
            headers: [("Authorization".to_owned(), "Bearer ${API_KEY}".to_owned())].into(),
        };
        let env = |_: &str| None;
        let error = reach(&server(launch, Syntax::Braces), Path::new("/h"), &env).unwrap_err();
        assert_eq!(
            error,
            format!(
                "claude-code:api (in {}) cannot be used: the environment variable API_KEY is not set",
                Path::new("/src/shop/.mcp.json").display()
            )
        );
    }

    #[test]
    fn an_unusable_entry_says_why() {
        let launch = Launch::Unusable("it uses the legacy HTTP+SSE transport".into());
        let error = reach(&server(launch, Syntax::Braces), Path::new("/h"), &|_| None).unwrap_err();
        assert!(
            error.ends_with("cannot be used: it uses the legacy HTTP+SSE transport"),
            "{error}"
        );
    }
}
