//! Each tool's task support in a legacy session, as `tools/list` shows
//! it, and whether a call of the tool asks for a task.
//!
//! The rules, in order:
//!
//! 1. a client that declared tasks asks for one (the `task` param) when
//!    the server offers task-augmented `tools/call` and the tool allows it
//!    (`execution.taskSupport` `optional` or `required`), just as a modern
//!    server makes such a call a task for a client that declares the
//!    extension;
//! 2. a tool's support is learnt from `tools/list`: every listing teaches
//!    it, for at most [`MAX_KNOWN_TOOLS`] tools, and a call of a tool not
//!    yet seen lists the tools first. A tool still unknown is called
//!    without a task.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::Value;

use crate::util::lock;
use crate::wire::legacy::tasks::TaskSupport;

/// How many tools' task support a client remembers (rule 2).
pub(crate) const MAX_KNOWN_TOOLS: usize = 10_000;

/// What the client learnt of each tool's task support (rule 2).
#[derive(Default)]
pub(crate) struct ToolTasks {
    known: Mutex<HashMap<String, TaskSupport>>,
}

impl ToolTasks {
    /// Learns the task support of the tools a `tools/list` page lists.
    pub fn learn(&self, page: &Value) {
        let Some(tools) = page.get("tools").and_then(Value::as_array) else {
            return;
        };
        let mut known = lock(&self.known);
        for tool in tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            if known.len() >= MAX_KNOWN_TOOLS && !known.contains_key(name) {
                tracing::debug!(tool = name, "too many tools to remember their task support");
                continue;
            }
            let support = tool
                .pointer("/execution/taskSupport")
                .and_then(|s| serde_json::from_value(s.clone()).ok())
                .unwrap_or(TaskSupport::Forbidden);
            known.insert(name.to_owned(), support);
        }
    }

    /// The task support of tool `name`, if a listing showed it.
    pub fn support(&self, name: &str) -> Option<TaskSupport> {
        lock(&self.known).get(name).copied()
    }
}

/// Whether a call of a tool with `support` asks for a task, when the
/// client declared tasks and the server offers them (rule 1).
pub(crate) fn asks_for_task(support: Option<TaskSupport>) -> bool {
    matches!(support, Some(TaskSupport::Optional | TaskSupport::Required))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn listings_teach_each_tools_task_support() {
        let tasks = ToolTasks::default();
        tasks.learn(&json!({"tools": [
            {"name": "a", "execution": {"taskSupport": "optional"}},
            {"name": "b", "execution": {"taskSupport": "required"}},
            {"name": "c"},
            {"name": "d", "execution": {"taskSupport": "sometimes"}},
            {"nameless": true}
        ]}));
        assert_eq!(tasks.support("a"), Some(TaskSupport::Optional));
        assert_eq!(tasks.support("b"), Some(TaskSupport::Required));
        assert_eq!(tasks.support("c"), Some(TaskSupport::Forbidden));
        assert_eq!(tasks.support("d"), Some(TaskSupport::Forbidden));
        assert_eq!(tasks.support("e"), None);
        assert!(asks_for_task(tasks.support("a")) && asks_for_task(tasks.support("b")));
        assert!(!asks_for_task(tasks.support("c")) && !asks_for_task(None));
    }
}
