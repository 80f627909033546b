//! A server as a host's config file names it: which host, which file,
//! which scope, and how to reach it as written there, its variables not
//! yet expanded. Kept unexpanded so that `presa servers` can show it
//! without the secrets its variables hold.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use super::expand::Syntax;

/// A program that keeps MCP servers in a config file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Host {
    /// presa's own aliases: listed first, so that a user can name any server.
    Presa,
    /// Claude Code, Anthropic's command line.
    ClaudeCode,
    /// Claude Desktop, Anthropic's desktop app.
    ClaudeDesktop,
    /// VS Code (GitHub Copilot).
    VsCode,
    /// Cursor, the editor built on VS Code.
    Cursor,
    /// Gemini CLI.
    Gemini,
}

impl Host {
    /// Every host, in the order `presa` lists them.
    pub const ALL: [Host; 6] = [
        Host::Presa,
        Host::ClaudeCode,
        Host::ClaudeDesktop,
        Host::VsCode,
        Host::Cursor,
        Host::Gemini,
    ];

    /// The host's name on the command line, as in `claude-code:github`.
    pub fn id(self) -> &'static str {
        match self {
            Host::Presa => "presa",
            Host::ClaudeCode => "claude-code",
            Host::ClaudeDesktop => "claude-desktop",
            Host::VsCode => "vscode",
            Host::Cursor => "cursor",
            Host::Gemini => "gemini",
        }
    }

    /// The host named `id`, if any.
    pub fn from_id(id: &str) -> Option<Host> {
        Host::ALL.into_iter().find(|host| host.id() == id)
    }
}

impl Serialize for Host {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.id())
    }
}

/// Where in a host's configuration a server is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// Claude Code's "local" scope: the user's, for one project only.
    Local,
    /// A project's file, such as `.mcp.json` or `.vscode/mcp.json`.
    Project,
    /// The user's file, for every project.
    User,
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Scope::Local => "local",
            Scope::Project => "project",
            Scope::User => "user",
        })
    }
}

/// How to reach a server, as its file writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// A program speaking MCP on its stdin and stdout.
    Stdio {
        /// The program.
        command: String,
        /// The arguments after the program, variables unexpanded.
        args: Vec<String>,
        /// Its environment, besides presa's own.
        env: BTreeMap<String, String>,
        /// The folder it runs in, if the file names one.
        cwd: Option<String>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// The endpoint's URL, variables unexpanded.
        url: String,
        /// The headers sent with each request.
        headers: BTreeMap<String, String>,
    },
    /// An entry `presa` cannot use, and why.
    Unusable(String),
}

/// A server some host's config file names.
#[derive(Debug, Clone)]
pub struct Configured {
    /// The name it is given in the file.
    pub name: String,
    /// The host whose file it is.
    pub host: Host,
    /// Where in the host's configuration.
    pub scope: Scope,
    /// The config file that names it.
    pub file: PathBuf,
    /// How to reach it, variables unexpanded.
    pub launch: Launch,
    /// How its variables are written, and what they stand for.
    pub syntax: Syntax,
    /// The project's folder, for a project's entry: what
    /// `${workspaceFolder}` and a relative `cwd` mean. A user's entry's
    /// relative `cwd` is taken from its file's folder.
    pub project: Option<PathBuf>,
    /// Whether an entry of the same host and name with a higher
    /// precedence hides this one.
    pub shadowed: bool,
}

impl Configured {
    /// `HOST:NAME`, which names this server whatever other hosts hold.
    pub fn qualified(&self) -> String {
        format!("{}:{}", self.host, self.name)
    }
}
