//! Every server the hosts' files name, gathered in one list, and a name
//! on the command line looked up in it.
//!
//! Within one host, an entry that a higher scope of the same name hides
//! is kept but marked shadowed, so that `presa servers` still shows it; a
//! name never means it. Across hosts nothing is hidden: `github` in both
//! Claude Code and Cursor is two entries. A bare name that several hosts
//! hold with different launches is ambiguous, and `HOST:NAME` picks one;
//! when they launch the same way, the first host in presa's order is used.

use super::file;
use super::formats::{aliases, claude_code, claude_desktop, cursor, gemini, vscode};
use super::places::{ALIASES, Places};
use super::server::{Configured, Host};

/// The servers of every host, and what went wrong reading their files.
#[derive(Debug, Default)]
pub struct Catalog {
    /// The servers, by host in presa's order, then by name, then by scope
    /// (the one that wins first).
    pub servers: Vec<Configured>,
    /// One line per file that could not be read, naming it.
    pub warnings: Vec<String>,
    /// presa's own aliases file, to name in an error.
    pub aliases: std::path::PathBuf,
}

impl Catalog {
    /// The servers in the files at `places`.
    pub fn gather(places: &Places) -> Catalog {
        let mut servers = Vec::new();
        let mut warnings = Vec::new();
        for source in places.sources() {
            let value = match file::read(&source.path) {
                Ok(Some(value)) => value,
                Ok(None) => continue,
                Err(warning) => {
                    warnings.push(warning);
                    continue;
                }
            };
            let (found, warned) = (&mut servers, &mut warnings);
            match source.host {
                Host::Presa => aliases::read(&value, &source, found, warned),
                Host::ClaudeCode => {
                    claude_code::read(&value, &source, places.projects(), found, warned)
                }
                Host::ClaudeDesktop => claude_desktop::read(&value, &source, found, warned),
                Host::VsCode => vscode::read(&value, &source, found, warned),
                Host::Cursor => cursor::read(&value, &source, found, warned),
                Host::Gemini => gemini::read(&value, &source, found, warned),
            }
        }
        // Stable: entries of one host, name and scope keep their files' order.
        servers.sort_by(|a, b| (a.host, &a.name, a.scope).cmp(&(b.host, &b.name, b.scope)));
        for i in 1..servers.len() {
            let (before, this) = (&servers[i - 1], &servers[i]);
            if before.host == this.host && before.name == this.name {
                servers[i].shadowed = true;
            }
        }
        Catalog {
            servers,
            warnings,
            aliases: places.presa.join(ALIASES),
        }
    }

    /// The server `wanted` names: `NAME`, or `HOST:NAME`.
    pub fn find(&self, wanted: &str) -> Result<&Configured, String> {
        let (host, name) = match wanted.split_once(':') {
            Some((host, name)) if Host::from_id(host).is_some() => (Host::from_id(host), name),
            _ => (None, wanted),
        };
        let candidates: Vec<&Configured> = self
            .servers
            .iter()
            .filter(|s| !s.shadowed && s.name == name && host.is_none_or(|h| s.host == h))
            .collect();
        match candidates.as_slice() {
            [] => Err(self.unknown(wanted, host)),
            [first, rest @ ..] if rest.iter().all(|s| s.launch == first.launch) => Ok(first),
            several => {
                let forms: Vec<String> = several.iter().map(|s| s.qualified()).collect();
                Err(format!(
                    "several hosts name a server `{name}`, each launching it differently: \
                     say which with {}",
                    forms.join(", ")
                ))
            }
        }
    }

    /// The error for a name no host holds: the names there are, closest
    /// first.
    fn unknown(&self, wanted: &str, host: Option<Host>) -> String {
        let mut names: Vec<String> = self
            .servers
            .iter()
            .filter(|s| !s.shadowed && host.is_none_or(|h| s.host == h))
            .map(|s| match host {
                Some(_) => s.qualified(),
                None => s.name.clone(),
            })
            .collect();
        names.sort();
        names.dedup();
        let aliases = self.aliases.display();
        let start = format!(
            "`{wanted}` is no http:// or https:// URL, no stdio:COMMAND, and no server named in \
             the hosts' configs"
        );
        if names.is_empty() {
            return format!(
                "{start}: presa found none. Name a server in presa's aliases file, {aliases}"
            );
        }
        names.sort_by(|a, b| {
            let closeness = |n: &str| strsim::jaro_winkler(wanted, n);
            closeness(b).total_cmp(&closeness(a))
        });
        const SHOWN: usize = 8;
        let more = names.len().saturating_sub(SHOWN);
        names.truncate(SHOWN);
        let more = match more {
            0 => String::new(),
            more => format!(" and {more} more"),
        };
        format!(
            "{start}. Closest: {}{more}. `presa servers` lists them all",
            names.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    //! Against the fixtures in tests/hosts/, each in its host's documented
    //! format (tests/hosts/README.md names the page of each).

    use std::path::{Path, PathBuf};

    use super::*;
    use crate::hosts::reach::{Reach, reach};
    use crate::hosts::server::Scope;

    /// A copy of tests/hosts/home in a folder of `test`'s own, with the
    /// project's path written where Claude Code keys it; and the places
    /// that point at it, from the project's `web` folder.
    fn fixtures(test: &str) -> Places {
        let root = std::env::temp_dir().join(format!("presa-hosts-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let home = root.join("home");
        let project = home.join("src").join("shop");
        let escaped = serde_json::to_string(&project.display().to_string()).unwrap();
        let escaped = &escaped[1..escaped.len() - 1];
        copy(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hosts/home"),
            &home,
            escaped,
        );
        Places {
            config: home.join(".config"),
            presa: home.join(".config").join("presa"),
            cwd: project.join("web"),
            home,
        }
    }

    fn copy(from: &Path, to: &Path, project: &str) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &target, project);
            } else {
                let text = std::fs::read_to_string(entry.path()).unwrap();
                std::fs::write(target, text.replace("__PROJECT__", project)).unwrap();
            }
        }
    }

    fn listed(catalog: &Catalog) -> Vec<String> {
        catalog
            .servers
            .iter()
            .map(|s| {
                let hidden = if s.shadowed { " hidden" } else { "" };
                format!("{} {}{hidden}", s.qualified(), s.scope)
            })
            .collect()
    }

    #[test]
    fn every_host_s_files_are_read_in_presa_s_order() {
        let places = fixtures("order");
        let catalog = Catalog::gather(&places);
        assert_eq!(
            listed(&catalog),
            [
                "presa:work user",
                "claude-code:api-server project",
                "claude-code:github project",
                "claude-code:github user hidden",
                "claude-code:legacy user",
                "claude-code:shared-server local",
                "claude-code:shared-server project hidden",
                "claude-desktop:filesystem user",
                "vscode:context7 project",
                "vscode:notes user",
                "vscode:perplexity project",
                "cursor:github project",
                "cursor:remote-server user",
                "cursor:server-name user",
                "gemini:httpServerWithAuth user",
                "gemini:pythonTools project",
                "gemini:pythonTools user hidden",
                "gemini:sseServer user",
            ]
        );
        let local = &catalog.servers[5];
        assert_eq!(local.project.as_deref(), Some(places.cwd.parent().unwrap()));
        assert_eq!(local.scope, Scope::Local);
    }

    #[test]
    fn a_malformed_file_is_named_with_its_line_and_the_others_still_count() {
        let catalog = Catalog::gather(&fixtures("malformed"));
        let [warning] = catalog.warnings.as_slice() else {
            panic!("one warning: {:?}", catalog.warnings);
        };
        let file = Path::new(".claude").join(".claude.json");
        assert!(warning.contains(&file.display().to_string()), "{warning}");
        assert!(warning.contains("on line 5"), "{warning}");
        assert!(!catalog.servers.is_empty());
    }

    #[test]
    fn a_name_in_two_hosts_launched_differently_is_ambiguous() {
        let catalog = Catalog::gather(&fixtures("ambiguous"));
        assert_eq!(
            catalog.find("github").unwrap_err(),
            "several hosts name a server `github`, each launching it differently: say which \
             with claude-code:github, cursor:github"
        );
        let chosen = catalog.find("claude-code:github").unwrap();
        assert_eq!(chosen.scope, Scope::Project);
        assert_eq!(catalog.find("cursor:github").unwrap().host, Host::Cursor);
    }

    #[test]
    fn a_name_two_hosts_launch_the_same_way_is_the_first_host_s() {
        let mut catalog = Catalog::gather(&fixtures("same"));
        let mut copy = catalog.find("filesystem").unwrap().clone();
        copy.host = Host::Presa;
        catalog.servers.insert(0, copy);
        assert_eq!(catalog.find("filesystem").unwrap().host, Host::Presa);
        let desktop = catalog.find("claude-desktop:filesystem").unwrap();
        assert_eq!(desktop.host, Host::ClaudeDesktop);
    }

    #[test]
    fn an_unknown_name_lists_the_closest_names_first() {
        let catalog = Catalog::gather(&fixtures("unknown"));
        let error = catalog.find("githb").unwrap_err();
        assert!(
            error.starts_with(
                "`githb` is no http:// or https:// URL, no stdio:COMMAND, and no server named \
                 in the hosts' configs. Closest: github, "
            ),
            "{error}"
        );
        assert!(
            error.ends_with(" more. `presa servers` lists them all"),
            "{error}"
        );
        let error = catalog.find("cursor:gihub").unwrap_err();
        assert!(error.contains("Closest: cursor:github, "), "{error}");
    }

    #[test]
    fn with_no_server_anywhere_the_error_names_presa_s_aliases_file() {
        let places = Places {
            home: PathBuf::from("/nowhere/home"),
            config: PathBuf::from("/nowhere/home/.config"),
            presa: PathBuf::from("/nowhere/presa"),
            cwd: PathBuf::from("/nowhere/src"),
        };
        let catalog = Catalog::gather(&places);
        let error = catalog.find("jobs").unwrap_err();
        let file = Path::new("/nowhere/presa").join(ALIASES);
        assert!(
            error.ends_with(&format!(
                "presa found none. Name a server in presa's aliases file, {}",
                file.display()
            )),
            "{error}"
        );
    }

    fn reached(catalog: &Catalog, places: &Places, name: &str) -> Result<Reach, String> {
        let env = |name: &str| match name {
            "DB_CONNECTION_STRING" => Some("postgres://db".to_owned()),
            "EXTERNAL_API_KEY" => Some("ext".to_owned()),
            "GITHUB_TOKEN" => Some("gh".to_owned()),
            _ => None,
        };
        reach(catalog.find(name)?, &places.home, &env)
    }

    #[test]
    fn each_host_s_variables_and_transports_are_its_own() {
        let places = fixtures("reach");
        let catalog = Catalog::gather(&places);
        let project = places.cwd.parent().unwrap();
        let Ok(Reach::Stdio { words, env, cwd }) = reached(&catalog, &places, "pythonTools") else {
            panic!("gemini's project entry, stdio");
        };
        assert_eq!(words, ["python", "-m", "my_mcp_server", "--port", "8080"]);
        assert_eq!(env[0], ("API_KEY".into(), "ext".into()));
        assert_eq!(env[1], ("DATABASE_URL".into(), "postgres://db".into()));
        assert_eq!(cwd, Some(project.join("./mcp-servers/python")));
        let Ok(Reach::Stdio { words, .. }) = reached(&catalog, &places, "shared-server") else {
            panic!("claude code's local entry");
        };
        assert_eq!(words, ["/path/to/local-server", "--verbose"]);
        let Ok(Reach::Http { url, headers }) = reached(&catalog, &places, "httpServerWithAuth")
        else {
            panic!("gemini's httpUrl");
        };
        assert_eq!(url, "http://localhost:3000/mcp");
        assert_eq!(headers[0].0, "Authorization");
        let Ok(Reach::Http { url, .. }) = reached(&catalog, &places, "context7") else {
            panic!("vs code's http entry");
        };
        assert_eq!(url, "https://mcp.context7.com/mcp");
        let Ok(Reach::Stdio { env, .. }) = reached(&catalog, &places, "cursor:github") else {
            panic!("cursor's project entry");
        };
        assert_eq!(env, [("GITHUB_PERSONAL_ACCESS_TOKEN".into(), "gh".into())]);
    }

    #[test]
    fn each_server_that_cannot_be_used_says_why() {
        let places = fixtures("refused");
        let catalog = Catalog::gather(&places);
        let cases = [
            (
                "legacy",
                "it uses the legacy HTTP+SSE transport, which presa does not speak",
            ),
            (
                "sseServer",
                "it uses the legacy HTTP+SSE transport, which presa does not speak",
            ),
            (
                "perplexity",
                "${input:perplexity-key} is a value VS Code asks for and keeps, which presa \
                 cannot read; give the server a presa alias with the value instead",
            ),
            (
                "notes",
                "${workspaceFolder} means a project, and this file has none",
            ),
            ("api-server", "the environment variable API_KEY is not set"),
            (
                "remote-server",
                "the environment variable MY_SERVICE_TOKEN is not set",
            ),
            ("work", "the environment variable WORK_TOKEN is not set"),
        ];
        for (name, reason) in cases {
            let error = reached(&catalog, &places, name).unwrap_err();
            let server = catalog.find(name).unwrap();
            let file = server.file.display();
            assert_eq!(
                error,
                format!(
                    "{} (in {file}) cannot be used: {reason}",
                    server.qualified()
                ),
            );
        }
    }
}
