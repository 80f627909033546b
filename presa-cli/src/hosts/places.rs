//! Where each host keeps its config files, on Linux, macOS and Windows.
//! The places are worked out from a home folder, a config folder, presa's
//! own folder and the current folder given in, so that tests can point
//! them at fixtures; [`Places::of_user`] takes them from the system.
//!
//! A project's files (`.mcp.json`, `.vscode/mcp.json`,
//! `.cursor/mcp.json`, `.gemini/settings.json`) are looked for in the
//! current folder, then in each folder above it, the nearest one winning.
//! The home folder itself is skipped: `~/.cursor/mcp.json` and
//! `~/.gemini/settings.json` are user files, not a project's.
//!
//! Sources, cited in the notes each host module gives:
//! Claude Code <https://code.claude.com/docs/en/mcp>; Claude Desktop
//! <https://modelcontextprotocol.io/docs/develop/connect-local-servers>
//! (no Linux path there: `~/.config/Claude/` is what its Linux build is
//! reported to use); VS Code <https://code.visualstudio.com/docs/configure/settings>
//! (the user folder) and
//! <https://code.visualstudio.com/docs/agents/reference/mcp-configuration>;
//! Cursor <https://cursor.com/docs/mcp>; Gemini CLI
//! <https://geminicli.com/docs/reference/configuration/>.

use std::path::{Path, PathBuf};

use super::server::{Host, Scope};

/// The environment variable that moves presa's own config folder.
pub const PRESA_CONFIG_DIR: &str = "PRESA_CONFIG_DIR";

/// presa's own config folder, which holds its sign-ins, its aliases and
/// the shell's history: `PRESA_CONFIG_DIR` when it is set and not empty,
/// or else `presa/` in the user's config directory. `None` where the
/// system has no config directory.
pub fn presa_config_folder() -> Option<PathBuf> {
    std::env::var_os(PRESA_CONFIG_DIR)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .or_else(|| dirs::config_dir().map(|dir| dir.join("presa")))
}

/// The file of presa's own aliases, in its config folder.
pub const ALIASES: &str = "servers.json";

/// The operating system whose places are meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    /// Linux and the other Unix systems but macOS.
    Linux,
    /// macOS.
    Mac,
    /// Windows, where the configs live under `%APPDATA%` and
    /// `%USERPROFILE%`.
    Windows,
}

impl Os {
    /// The system `presa` runs on.
    pub fn current() -> Os {
        if cfg!(windows) {
            Os::Windows
        } else if cfg!(target_os = "macos") {
            Os::Mac
        } else {
            Os::Linux
        }
    }
}

/// The folders the places are found from.
#[derive(Debug, Clone)]
pub struct Places {
    /// The user's home folder.
    pub home: PathBuf,
    /// The user's application config folder: `$XDG_CONFIG_HOME` or
    /// `~/.config` on Linux, `~/Library/Application Support` on macOS,
    /// `%APPDATA%` on Windows.
    pub config: PathBuf,
    /// presa's own config folder.
    pub presa: PathBuf,
    /// The current folder, where project files are looked for.
    pub cwd: PathBuf,
}

/// One file a host may keep servers in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The host that reads the file.
    pub host: Host,
    /// The file's scope (Claude Code's `~/.claude.json` holds local
    /// entries too, under `projects`).
    pub scope: Scope,
    /// The file.
    pub path: PathBuf,
    /// The project's folder, for a project's file.
    pub project: Option<PathBuf>,
}

impl Places {
    /// The places of the user running `presa`, from the environment.
    pub fn of_user() -> Result<Places, String> {
        let os = Os::current();
        let variable = |name: &str| {
            std::env::var_os(name)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        };
        // The XDG spec has a relative XDG_CONFIG_HOME ignored.
        let absolute = |name: &str| variable(name).filter(|path| path.is_absolute());
        let home = match os {
            Os::Windows => variable("USERPROFILE").or_else(dirs::home_dir),
            _ => dirs::home_dir(),
        }
        .ok_or("presa cannot tell your home folder, where the hosts keep their configs")?;
        let config = match os {
            Os::Linux => absolute("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config")),
            Os::Mac => home.join("Library").join("Application Support"),
            Os::Windows => {
                absolute("APPDATA").unwrap_or_else(|| home.join("AppData").join("Roaming"))
            }
        };
        let presa = presa_config_folder().unwrap_or_else(|| config.join("presa"));
        let cwd = std::env::current_dir()
            .map_err(|e| format!("presa cannot tell the current folder: {e}"))?;
        Ok(Places {
            home,
            config,
            presa,
            cwd,
        })
    }

    /// Every file that may hold servers, in the order of precedence
    /// within each host, highest first.
    pub fn sources(&self) -> Vec<Source> {
        let user = |host, path: PathBuf| Source {
            host,
            scope: Scope::User,
            path,
            project: None,
        };
        let mut sources = vec![user(Host::Presa, self.presa.join(ALIASES))];
        sources.extend(self.project(Host::ClaudeCode, &[".mcp.json"]));
        sources.push(user(Host::ClaudeCode, self.home.join(".claude.json")));
        // One report has a Claude Code build writing here instead:
        // https://github.com/anthropics/claude-code/issues/16728
        sources.push(user(
            Host::ClaudeCode,
            self.home.join(".claude").join(".claude.json"),
        ));
        sources.push(user(
            Host::ClaudeDesktop,
            self.config
                .join("Claude")
                .join("claude_desktop_config.json"),
        ));
        sources.extend(self.project(Host::VsCode, &[".vscode", "mcp.json"]));
        sources.push(user(
            Host::VsCode,
            self.config.join("Code").join("User").join("mcp.json"),
        ));
        sources.extend(self.project(Host::Cursor, &[".cursor", "mcp.json"]));
        sources.push(user(
            Host::Cursor,
            self.home.join(".cursor").join("mcp.json"),
        ));
        sources.extend(self.project(Host::Gemini, &[".gemini", "settings.json"]));
        sources.push(user(
            Host::Gemini,
            self.home.join(".gemini").join("settings.json"),
        ));
        sources
    }

    /// The nearest project file `parts` at or above the current folder.
    fn project(&self, host: Host, parts: &[&str]) -> Option<Source> {
        self.cwd
            .ancestors()
            .filter(|folder| *folder != self.home)
            .find_map(|folder| {
                let path = parts
                    .iter()
                    .fold(folder.to_path_buf(), |p, part| p.join(part));
                path.is_file().then(|| Source {
                    host,
                    scope: Scope::Project,
                    path,
                    project: Some(folder.to_path_buf()),
                })
            })
    }

    /// The current folder and those above it, nearest first: the projects
    /// Claude Code's local scope may name.
    pub fn projects(&self) -> impl Iterator<Item = &Path> {
        self.cwd.ancestors()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(os: Os) -> Places {
        let home = PathBuf::from("/nowhere/home/ada");
        let config = match os {
            Os::Linux => home.join(".config"),
            Os::Mac => home.join("Library/Application Support"),
            Os::Windows => home.join("AppData/Roaming"),
        };
        Places {
            presa: config.join("presa"),
            cwd: home.join("src/shop"),
            home,
            config,
        }
    }

    #[test]
    fn user_files_are_where_each_host_keeps_them() {
        for (os, desktop, code) in [
            (
                Os::Linux,
                ".config/Claude/claude_desktop_config.json",
                ".config/Code/User/mcp.json",
            ),
            (
                Os::Mac,
                "Library/Application Support/Claude/claude_desktop_config.json",
                "Library/Application Support/Code/User/mcp.json",
            ),
            (
                Os::Windows,
                "AppData/Roaming/Claude/claude_desktop_config.json",
                "AppData/Roaming/Code/User/mcp.json",
            ),
        ] {
            let places = places(os);
            let paths: Vec<PathBuf> = places.sources().into_iter().map(|s| s.path).collect();
            for expected in [
                desktop,
                code,
                ".claude.json",
                ".cursor/mcp.json",
                ".gemini/settings.json",
            ] {
                let expected = places.home.join(expected);
                assert!(paths.contains(&expected), "{expected:?} in {paths:?}");
            }
            assert_eq!(paths[0], places.presa.join(ALIASES));
        }
    }

    #[test]
    fn no_project_file_is_found_where_there_is_none() {
        let sources = places(Os::Linux).sources();
        assert!(
            sources.iter().all(|s| s.scope == Scope::User),
            "{sources:?}"
        );
    }
}
