//! Tab completion in `presa shell`: the word under the cursor completed
//! from what the shell knows.
//!
//! The rules, by the word's place on the line:
//!
//! 1. the first word is a command's name;
//! 2. after `help`, a command's name; after `task`, `get`, `cancel` or
//!    `watch`;
//! 3. after `call`, a tool's name, from the tools the server listed;
//! 4. after `call TOOL`, one of the tool's argument names, as `KEY=`,
//!    from its input schema, leaving out keys the line gives already. A
//!    word that holds `=` is a value, and values are not completed.
//!
//! Words are split at spaces; completion ignores quotes. The tools come
//! from `tools/list`, asked once and again when the server says they
//! changed: completion itself never waits for the server.

use std::sync::{Arc, Mutex};

use rustyline::completion::Completer;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};
use serde_json::Value;

/// The shell's commands, in the order `help` lists them.
pub const COMMANDS: [&str; 18] = [
    "tools",
    "call",
    "prompts",
    "prompt",
    "resources",
    "read",
    "templates",
    "complete",
    "skills",
    "skill",
    "task",
    "discover",
    "ping",
    "log-level",
    "watch",
    "help",
    "exit",
    "quit",
];

const TASK_ACTIONS: [&str; 3] = ["get", "cancel", "watch"];

/// A tool as completion knows it: its name and its argument names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownTool {
    /// The tool's name.
    pub name: String,
    /// The names of the properties of its input schema, in its order.
    pub arguments: Vec<String>,
}

impl KnownTool {
    /// The tool `name` whose input schema is `schema`.
    pub fn new(name: &str, schema: &Value) -> Self {
        let properties = schema.get("properties").and_then(Value::as_object);
        KnownTool {
            name: name.to_owned(),
            arguments: properties
                .into_iter()
                .flatten()
                .map(|(k, _)| k.clone())
                .collect(),
        }
    }
}

/// Where the word under the cursor starts, and what may replace it.
pub fn complete(line: &str, pos: usize, tools: &[KnownTool]) -> (usize, Vec<String>) {
    let before = &line[..pos];
    let start = before.rfind(' ').map_or(0, |i| i + 1);
    let word = &before[start..];
    let words: Vec<&str> = before[..start].split_whitespace().collect();
    let starting = |candidates: &mut dyn Iterator<Item = String>| -> Vec<String> {
        candidates.filter(|c| c.starts_with(word)).collect()
    };
    let found = match words.as_slice() {
        [] => starting(&mut COMMANDS.iter().map(|c| (*c).to_owned())),
        ["help"] => starting(&mut COMMANDS.iter().map(|c| (*c).to_owned())),
        ["task"] => starting(&mut TASK_ACTIONS.iter().map(|c| (*c).to_owned())),
        ["call"] => starting(&mut tools.iter().map(|t| t.name.clone())),
        ["call", tool, given @ ..] if !word.contains('=') => {
            let given: Vec<&str> = given.iter().filter_map(|w| w.split('=').next()).collect();
            let tool = tools.iter().find(|t| t.name == *tool);
            let keys = tool.map_or(&[][..], |t| &t.arguments);
            let mut missing = keys
                .iter()
                .filter(|k| !given.contains(&k.as_str()))
                .map(|k| format!("{k}="));
            starting(&mut missing)
        }
        _ => Vec::new(),
    };
    (start, found)
}

/// The line editor's helper: completion over the tools the shell holds.
pub struct ShellHelper {
    /// The server's tools, as last listed.
    pub tools: Arc<Mutex<Vec<KnownTool>>>,
}

impl Completer for ShellHelper {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let tools = self
            .tools
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(complete(line, pos, &tools))
    }
}

impl Hinter for ShellHelper {
    type Hint = String;
}

impl Highlighter for ShellHelper {}

impl Validator for ShellHelper {}

impl Helper for ShellHelper {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Vec<KnownTool> {
        let schema = json!({"properties": {"target": {}, "seconds": {}}});
        vec![
            KnownTool::new("build", &schema),
            KnownTool::new("bump", &json!({})),
            KnownTool::new("deploy", &json!({"properties": {"to": {}}})),
        ]
    }

    fn completed(line: &str) -> (usize, Vec<String>) {
        complete(line, line.len(), &tools())
    }

    #[test]
    fn the_first_word_is_a_command() {
        assert_eq!(
            completed("pro"),
            (0, vec!["prompts".into(), "prompt".into()])
        );
        assert_eq!(completed("").1.len(), COMMANDS.len());
        assert_eq!(
            completed("help sk"),
            (5, vec!["skills".into(), "skill".into()])
        );
        assert_eq!(completed("task w"), (5, vec!["watch".into()]));
    }

    #[test]
    fn after_call_comes_a_tool() {
        assert_eq!(
            completed("call b"),
            (5, vec!["build".into(), "bump".into()])
        );
        assert_eq!(completed("call  de"), (6, vec!["deploy".into()]));
        assert_eq!(completed("call x").1, Vec::<String>::new());
    }

    #[test]
    fn after_the_tool_come_its_arguments_not_yet_given() {
        let (start, mut keys) = completed("call build ");
        keys.sort();
        assert_eq!(
            (start, keys),
            (11, vec!["seconds=".into(), "target=".into()])
        );
        assert_eq!(
            completed("call build target=all s"),
            (22, vec!["seconds=".into()])
        );
        assert_eq!(completed("call build target=all ").1, ["seconds="]);
        assert!(completed("call build target=a").1.is_empty());
        assert!(completed("call nothing ").1.is_empty());
    }

    #[test]
    fn the_cursor_may_be_inside_the_line() {
        let line = "call bu target=x";
        assert_eq!(
            complete(line, 7, &tools()),
            (5, vec!["build".into(), "bump".into()])
        );
    }

    #[test]
    fn other_commands_complete_nothing_after_their_name() {
        assert!(completed("read x").1.is_empty());
        assert!(completed("tools ").1.is_empty());
    }
}
