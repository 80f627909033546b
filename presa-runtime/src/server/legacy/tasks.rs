//! Legacy tasks: 2025-11-25's core-protocol tasks on the same engine and
//! store as the modern extension, with the same ownership rules.
//!
//! The policies map one to one onto `execution.taskSupport`: `sync` is
//! `forbidden`, `optional` and `required` are themselves, and a per-call
//! policy reads `optional` (it decides at the call). A call becomes a task
//! by these rules, in order:
//!
//! 1. a `tools/call` with a `task` param, of a tool that may run as one,
//!    is served as a modern call of a client that declared the Tasks
//!    extension, so the policy decides as it always does; the answer is
//!    the legacy `CreateTaskResult`. The requested `ttl` is not taken: the
//!    server's [`TaskSettings`](crate::server::TaskSettings) decide;
//! 2. a `task` param on a `forbidden` tool, and a `required` tool called
//!    without one, are `-32601`, as 2025-11-25 asks;
//! 3. input the handler asks for goes to the client as requests of the
//!    server's own, with the task in `related-task`, on the session's
//!    queue; meanwhile the task shows `input_required`;
//! 4. `tasks/get` shows the task in legacy fields, `failed` when its tool
//!    returned an `isError` result (as 2025-11-25 asks; the modern record
//!    says `completed`); `tasks/cancel` refuses a finished task with
//!    `-32602`; `tasks/result` waits for the end and answers what the call
//!    would have, with `related-task` in `_meta` and structured output
//!    wrapped as the task's tool wraps it (rule 5 of
//!    [`render`](crate::wire::legacy::render)); `tasks/list` pages the
//!    caller's tasks, [`LIST_PAGE`] at a time, when
//!    the store lists ([`ListTasks`](crate::server::tasks::store::ListTasks)):
//!    otherwise it is `-32601`, and the server declares no `tasks.list`;
//! 5. an anonymous caller's tasks belong to its session, so two anonymous
//!    sessions never see each other's tasks; a subject's belong to the
//!    subject, in every session and era.

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use futures::StreamExt;
use serde_json::{Map, Value};

use super::session::LegacySession;
use super::status::legacy_view;
use crate::server::caller::Caller;
use crate::server::request::reply::{
    internal_error, invalid_params, method_not_found, parse_params, respond, task_not_found,
    to_value,
};
use crate::server::request::stream::ResponseStream;
use crate::server::router::Server;
use crate::server::task_engine::store::TaskRecord;
use crate::server::task_engine::{TaskEngine, store_failed};
use crate::wire::legacy::TASKS_LIST;
use crate::wire::legacy::render::{wrap_structured_content, wraps_output};
use crate::wire::legacy::tasks::{
    LegacyGetTaskResult, ListTasksParams, ListTasksResult, RELATED_TASK, RelatedTask,
};
use crate::wire::{ErrorObject, RequestId, TaskIdParams, TaskStatus};

/// How many tasks one page of legacy `tasks/list` holds.
pub(super) const LIST_PAGE: usize = 100;

impl TaskEngine {
    /// Whether the store lists tasks ([`TaskStore::lister`]), and so
    /// whether legacy `tasks/list` is offered.
    ///
    /// [`TaskStore::lister`]: crate::server::tasks::store::TaskStore::lister
    pub fn lists(&self) -> bool {
        self.store.lister().is_some()
    }

    /// One page of `caller`'s tasks, in order of id, after the task
    /// `cursor` names, and the cursor of the next page (legacy
    /// `tasks/list`); `-32601` when the store does not list, `-32602` for
    /// a cursor the server never issued.
    pub async fn list(
        &self,
        caller: &Caller,
        cursor: Option<&str>,
    ) -> Result<(Vec<Arc<TaskRecord>>, Option<String>), ErrorObject> {
        self.start_sweeper();
        let Some(lister) = self.store.lister() else {
            return Err(method_not_found(TASKS_LIST));
        };
        let after = cursor.map(decode_cursor).transpose()?;
        let owner = caller.task_owner();
        let page = lister
            .list(owner.as_deref(), after.as_deref(), LIST_PAGE)
            .await
            .map_err(|e| store_failed("list", e))?;
        let next = (page.len() == LIST_PAGE)
            .then(|| page.last().map(|record| encode_cursor(&record.id)))
            .flatten();
        Ok((page, next))
    }

    /// The task once it has ended (legacy `tasks/result`), followed as a
    /// listener would; `-32602` if it is unknown, someone else's, or
    /// expires first.
    pub async fn ended(&self, id: &str, caller: &Caller) -> Result<Arc<TaskRecord>, ErrorObject> {
        let mut watches = self.watch_owned(&[id.to_owned()], caller).await?;
        let Some((_, mut watch)) = watches.pop() else {
            return Err(task_not_found("retrieve"));
        };
        while let Some(record) = watch.next().await {
            if record.status.is_terminal() {
                return Ok(record);
            }
        }
        Err(task_not_found("retrieve"))
    }
}

/// The legacy task methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TaskOp {
    /// `tasks/list`: the caller's tasks.
    List,
    /// A method on the one task its params name.
    OnTask(OneTaskOp),
}

/// The legacy task methods whose params name one task (`taskId`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OneTaskOp {
    Get,
    Cancel,
    Result,
}

impl TaskOp {
    fn method(self) -> &'static str {
        match self {
            TaskOp::OnTask(OneTaskOp::Get) => "tasks/get",
            TaskOp::OnTask(OneTaskOp::Cancel) => "tasks/cancel",
            TaskOp::OnTask(OneTaskOp::Result) => "tasks/result",
            TaskOp::List => "tasks/list",
        }
    }
}

impl Server {
    /// Answers task method `op` of `session` (rule 4); `-32601` on a
    /// server without tasks.
    pub(super) fn legacy_task(
        &self,
        op: TaskOp,
        id: RequestId,
        params: Option<Value>,
        session: &Arc<LegacySession>,
    ) -> ResponseStream {
        let Some(engine) = self.shared().engine.clone() else {
            let error = method_not_found(op.method());
            return ResponseStream::ready(respond(id, Err(error)));
        };
        let (server, session) = (self.clone(), Arc::clone(session));
        ResponseStream::deferred(async move {
            let outcome = run(op, &server, &engine, params, &session).await;
            respond(id, outcome)
        })
    }

    /// Whether the result of task `record` is wrapped for a legacy client:
    /// as its tool's are. A record that does not name a tool the server
    /// has (an older presa's, or one whose tool was removed since) is
    /// wrapped when its structured content is not an object, the one case
    /// where 2025-11-25 could not read it.
    fn wraps_task_output(&self, record: &TaskRecord, result: &Map<String, Value>) -> bool {
        let tool = record
            .tool
            .as_deref()
            .and_then(|name| self.shared().registry.tool(name));
        match tool {
            Some(tool) => wraps_output(tool.definition.output_schema.as_ref()),
            None => result
                .get("structuredContent")
                .is_some_and(|v| !v.is_object()),
        }
    }
}

async fn run(
    op: TaskOp,
    server: &Server,
    engine: &TaskEngine,
    params: Option<Value>,
    session: &LegacySession,
) -> Result<Value, ErrorObject> {
    let caller = session.caller();
    let op = match op {
        TaskOp::List => {
            let ListTasksParams { cursor } = parse_params(params)?;
            let (page, next_cursor) = engine.list(caller, cursor.as_deref()).await?;
            let listed = ListTasksResult {
                tasks: page.iter().map(|record| legacy_view(record)).collect(),
                next_cursor,
                meta: None,
            };
            return Ok(to_value(listed));
        }
        TaskOp::OnTask(op) => op,
    };
    let TaskIdParams { task_id } = parse_params(params)?;
    match op {
        OneTaskOp::Get => {
            let record = engine.owned(&task_id, caller, "retrieve").await?;
            Ok(shown(&record))
        }
        OneTaskOp::Cancel => {
            let record = engine.owned(&task_id, caller, "cancel").await?;
            if record.status.is_terminal() {
                return Err(invalid_params(format!(
                    "Cannot cancel task: already in terminal status '{}'",
                    legacy_view(&record).0.status
                )));
            }
            engine.cancel(&task_id, caller).await?;
            Ok(shown(&*engine.owned(&task_id, caller, "cancel").await?))
        }
        OneTaskOp::Result => outcome(server, &*engine.ended(&task_id, caller).await?),
    }
}

/// `tasks/get` and `tasks/cancel`'s answer: the task, flat.
fn shown(record: &TaskRecord) -> Value {
    to_value(LegacyGetTaskResult {
        task: legacy_view(record),
        meta: None,
    })
}

/// What `tasks/result` answers for a finished task: what the call would
/// have answered, tied to the task.
fn outcome(server: &Server, record: &TaskRecord) -> Result<Value, ErrorObject> {
    match record.status {
        TaskStatus::Completed => {
            let mut result = record.result().unwrap_or_default();
            if server.wraps_task_output(record, &result) {
                wrap_structured_content(&mut result);
            }
            let meta = result
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                meta.extend(RelatedTask::meta(&record.id));
            }
            debug_assert!(result["_meta"].get(RELATED_TASK).is_some());
            Ok(Value::Object(result))
        }
        TaskStatus::Failed => Err(record
            .error()
            .cloned()
            .unwrap_or_else(|| internal_error("(task)", "a failed task without its error"))),
        _ => Err(invalid_params(format!(
            "Task `{}` was cancelled: it has no result",
            record.id
        ))),
    }
}

/// What every cursor of `tasks/list` says before the task id it follows.
const CURSOR_PREFIX: &str = "presa-task:";

/// The cursor of the page after task `id`.
fn encode_cursor(id: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{CURSOR_PREFIX}{id}"))
}

/// The task id `cursor` names; `-32602` for one the server never issued.
fn decode_cursor(cursor: &str) -> Result<String, ErrorObject> {
    URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| text.strip_prefix(CURSOR_PREFIX).map(str::to_owned))
        .ok_or_else(|| invalid_params(format!("Invalid cursor {cursor:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_names_the_task_it_follows_and_others_are_invalid() {
        let cursor = encode_cursor("t1");
        assert_eq!(decode_cursor(&cursor).unwrap(), "t1");
        for forged in ["bogus", "t1", "", &URL_SAFE_NO_PAD.encode("t1")] {
            assert_eq!(decode_cursor(forged).unwrap_err().code, -32602, "{forged}");
        }
    }
}
