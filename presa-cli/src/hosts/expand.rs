//! Each host's way of writing variables in its config, expanded as that
//! host would, so that a server started by `presa` gets what the host
//! would give it. The same text means different things in different
//! files: `$HOME` is a variable to Gemini CLI and plain text to Claude
//! Code. So each file is expanded by its own host's rules only.
//!
//! A variable that is unset, or that only the host can fill (VS Code's
//! `${input:ID}`, which VS Code asks for and keeps in its own secret
//! store), is an error naming the variable: `presa` never passes the
//! literal text on, nor an empty string, where a secret was meant.

use std::fmt;
use std::path::Path;

/// How a host writes variables in its config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// No variables (Claude Desktop): the text is taken as it is.
    Literal,
    /// `${VAR}` and `${VAR:-default}` (Claude Code, and presa's aliases).
    /// <https://code.claude.com/docs/en/mcp>
    Braces,
    /// `${env:NAME}`, `${userHome}`, `${workspaceFolder}`,
    /// `${workspaceFolderBasename}`, `${pathSeparator}` and `${/}` (VS Code
    /// and Cursor). <https://code.visualstudio.com/docs/reference/variables-reference>
    Editor,
    /// `$VAR`, `${VAR}` and `${VAR:-default}` (Gemini CLI).
    /// <https://geminicli.com/docs/reference/configuration/>
    Dollar,
}

/// What the variables of one file stand for.
pub struct Values<'a> {
    /// The environment: a variable's value, if it is set.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// The user's home folder (`${userHome}`).
    pub home: &'a Path,
    /// The project's folder (`${workspaceFolder}`), if the file is a
    /// project's.
    pub workspace: Option<&'a Path>,
}

/// A variable that could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unexpanded {
    /// An environment variable that is not set, and has no default.
    Unset(String),
    /// VS Code's `${input:ID}`: a value VS Code asks for and keeps.
    Input(String),
    /// `${workspaceFolder}` in a file that belongs to no project.
    NoWorkspace(String),
    /// A variable this host's syntax has, that presa does not know.
    Unknown(String),
}

impl fmt::Display for Unexpanded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unexpanded::Unset(name) => {
                write!(f, "the environment variable {name} is not set")
            }
            Unexpanded::Input(id) => write!(
                f,
                "${{input:{id}}} is a value VS Code asks for and keeps, which presa cannot \
                 read; give the server a presa alias with the value instead"
            ),
            Unexpanded::NoWorkspace(variable) => {
                write!(f, "${{{variable}}} means a project, and this file has none")
            }
            Unexpanded::Unknown(variable) => {
                write!(f, "presa does not know the variable ${{{variable}}}")
            }
        }
    }
}

/// `text` with its variables expanded by `syntax`'s rules.
pub fn expand(syntax: Syntax, text: &str, values: &Values<'_>) -> Result<String, Unexpanded> {
    if syntax == Syntax::Literal {
        return Ok(text.to_owned());
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(inner) = after.strip_prefix('{')
            && let Some(end) = inner.find('}')
        {
            let variable = &inner[..end];
            match braced(syntax, variable, values)? {
                Some(value) => out.push_str(&value),
                None => out.push_str(&rest[at..at + end + 3]),
            }
            rest = &inner[end + 1..];
            continue;
        }
        let name_length = name_length(after);
        if syntax == Syntax::Dollar && name_length > 0 {
            let name = &after[..name_length];
            out.push_str(&(values.env)(name).ok_or_else(|| Unexpanded::Unset(name.into()))?);
            rest = &after[name_length..];
            continue;
        }
        out.push('$');
        rest = after;
    }
    out.push_str(rest);
    Ok(out)
}

/// The value of `${variable}`, or `None` when it is no variable of
/// `syntax` and stays as written.
fn braced(
    syntax: Syntax,
    variable: &str,
    values: &Values<'_>,
) -> Result<Option<String>, Unexpanded> {
    if syntax == Syntax::Editor {
        return editor(variable, values).map(Some);
    }
    let (name, default) = match variable.split_once(":-") {
        Some((name, default)) => (name, Some(default)),
        None => (variable, None),
    };
    if name.is_empty() || name_length(name) != name.len() {
        return Ok(None);
    }
    match ((values.env)(name), default) {
        (Some(value), Some(default)) if value.is_empty() => Ok(Some(default.to_owned())),
        (Some(value), _) => Ok(Some(value)),
        (None, Some(default)) => Ok(Some(default.to_owned())),
        (None, None) => Err(Unexpanded::Unset(name.to_owned())),
    }
}

/// The value of VS Code's and Cursor's `${variable}`.
fn editor(variable: &str, values: &Values<'_>) -> Result<String, Unexpanded> {
    if let Some(name) = variable.strip_prefix("env:") {
        return (values.env)(name).ok_or_else(|| Unexpanded::Unset(name.to_owned()));
    }
    if let Some(id) = variable.strip_prefix("input:") {
        return Err(Unexpanded::Input(id.to_owned()));
    }
    let workspace = || {
        values
            .workspace
            .ok_or_else(|| Unexpanded::NoWorkspace(variable.to_owned()))
    };
    match variable {
        "userHome" => Ok(values.home.display().to_string()),
        "workspaceFolder" => Ok(workspace()?.display().to_string()),
        "workspaceFolderBasename" => Ok(workspace()?
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default()),
        "pathSeparator" | "/" => Ok(std::path::MAIN_SEPARATOR.to_string()),
        _ => Err(Unexpanded::Unknown(variable.to_owned())),
    }
}

/// How many bytes at the start of `text` make a variable's name:
/// a letter or `_`, then letters, digits and `_`.
fn name_length(text: &str) -> usize {
    let mut length = 0;
    for (i, c) in text.char_indices() {
        let allowed = c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit());
        if !allowed {
            break;
        }
        length = i + 1;
    }
    length
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(syntax: Syntax, text: &str) -> Result<String, Unexpanded> {
        let env = |name: &str| match name {
            "TOKEN" => Some("t0k".to_owned()),
            "EMPTY" => Some(String::new()),
            _ => None,
        };
        let values = Values {
            env: &env,
            home: Path::new("/home/ada"),
            workspace: Some(Path::new("/src/shop")),
        };
        expand(syntax, text, &values)
    }

    /// <https://code.claude.com/docs/en/mcp>, "Environment variable
    /// expansion in `.mcp.json`": `${VAR}` and `${VAR:-default}`.
    #[test]
    fn claude_code_expands_braces_and_defaults_and_leaves_a_bare_dollar() {
        let braces = Syntax::Braces;
        assert_eq!(with(braces, "Bearer ${TOKEN}").unwrap(), "Bearer t0k");
        assert_eq!(
            with(braces, "${API:-https://api.example.com}/mcp").unwrap(),
            "https://api.example.com/mcp"
        );
        assert_eq!(with(braces, "${EMPTY:-d}").unwrap(), "d");
        assert_eq!(with(braces, "$TOKEN and $").unwrap(), "$TOKEN and $");
        assert_eq!(
            with(braces, "${API_KEY}"),
            Err(Unexpanded::Unset("API_KEY".into()))
        );
        assert_eq!(with(braces, "${not a name}").unwrap(), "${not a name}");
    }

    /// <https://code.visualstudio.com/docs/reference/variables-reference>
    #[test]
    fn vs_code_and_cursor_expand_their_own_variables() {
        let editor = Syntax::Editor;
        assert_eq!(
            with(editor, "${userHome}/x ${workspaceFolder} ${env:TOKEN}").unwrap(),
            "/home/ada/x /src/shop t0k"
        );
        assert_eq!(with(editor, "${workspaceFolderBasename}").unwrap(), "shop");
        assert_eq!(with(editor, "$TOKEN").unwrap(), "$TOKEN");
        assert_eq!(
            with(editor, "${env:NOPE}"),
            Err(Unexpanded::Unset("NOPE".into()))
        );
        let input = with(editor, "${input:perplexity-key}").unwrap_err();
        assert_eq!(input, Unexpanded::Input("perplexity-key".into()));
        assert!(input.to_string().contains("presa alias"), "{input}");
        assert_eq!(
            with(editor, "${config:x}"),
            Err(Unexpanded::Unknown("config:x".into()))
        );
    }

    #[test]
    fn a_user_file_has_no_workspace_folder() {
        let env = |_: &str| None;
        let values = Values {
            env: &env,
            home: Path::new("/home/ada"),
            workspace: None,
        };
        let error = expand(Syntax::Editor, "${workspaceFolder}", &values).unwrap_err();
        assert_eq!(
            error.to_string(),
            "${workspaceFolder} means a project, and this file has none"
        );
    }

    /// <https://geminicli.com/docs/reference/configuration/>: `$VAR_NAME`,
    /// `${VAR_NAME}` and `${VAR_NAME:-DEFAULT_VALUE}`.
    #[test]
    fn gemini_expands_bare_and_braced_names() {
        let dollar = Syntax::Dollar;
        assert_eq!(with(dollar, "$TOKEN-${TOKEN}").unwrap(), "t0k-t0k");
        assert_eq!(with(dollar, "${X:-y} costs $5 $").unwrap(), "y costs $5 $");
        assert_eq!(
            with(dollar, "$DB_CONNECTION_STRING"),
            Err(Unexpanded::Unset("DB_CONNECTION_STRING".into()))
        );
    }

    #[test]
    fn claude_desktop_expands_nothing() {
        assert_eq!(
            with(Syntax::Literal, "${APPDATA}\\x").unwrap(),
            "${APPDATA}\\x"
        );
    }
}
