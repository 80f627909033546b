//! What each era allows the server to write, as checks on one message.
//!
//! A modern (2026-07-28) message is checked for what the issue of
//! dual-era fuzzing found missing: every result names its kind in
//! `resultType`. A legacy (2025-11-25) message is checked against the
//! 2025-11-25 shapes, by these rules, in order:
//!
//! 1. no modern-only member reaches it: none of the result members
//!    `wire::legacy::render` takes away ([`MODERN_ONLY_FIELDS`]) in a
//!    result or in params, and no `io.modelcontextprotocol/` key in their
//!    `_meta` but `related-task`, the one 2025-11-25 defines. The
//!    2025-11-25 shapes allow extra members, so the schema alone would let
//!    a leak through; this is the check `tests/common/spec.rs` adds to it;
//! 2. the message reads, [strictly](presa::wire::strict), as the presa
//!    type of its 2025-11-25 definition: the legacy types where the eras
//!    differ (`InitializeResult`, tasks nested under `task` with `ttl`,
//!    server requests), the shared ones elsewhere (their `resultType`
//!    reads as absent). Where a shared type takes a default for a member
//!    2025-11-25 requires (`CallToolResult.content`, a task's `ttl`), or
//!    allows a shape 2025-11-25 does not (a tool's schemas, which must be
//!    objects of `"type": "object"`, and a non-object `structuredContent`),
//!    the check says so itself;
//! 3. what only a session declares is held to the declaration: the
//!    server asks only what the client said it answers (elicitation in
//!    the mode declared, sampling, roots), and the version it agrees to is
//!    the one [`negotiate_version`] gives;
//! 4. errors take the legacy codes: none of the three MCP codes of
//!    2026-07-28 (`-32020..=-32022`). A modern error, in turn, never has
//!    the legacy "resource not found", `-32002`.
//!
//! Why not the 2025-11-25 `schema.json` itself, as the tests do: it lives
//! outside the repository, beside it, and a fuzz target that reads it at
//! run time would crash, or check less, wherever it is missing, and a
//! crash found in one place would not reproduce in another; copying it in
//! would make two sources of truth. The presa types are those the unit
//! tests of `wire::legacy` hold to that schema, so the harness checks that
//! every message the server writes is the right one of them, for its
//! method and era, with nothing of the other era in it. It costs no file
//! and no dependency, and runs at a fraction of a schema validator's cost
//! per message.
//!
//! Each check returns why a message breaks its era, so that a message the
//! harness cannot place in one era (see `conversation`) is held to the
//! rules of each era it could belong to, and fails only when it breaks
//! them all.

use presa::wire::legacy::lifecycle::InitializeResult;
use presa::wire::legacy::render::MODERN_ONLY_FIELDS;
use presa::wire::legacy::requests::IncomingRequest;
use presa::wire::legacy::tasks::{
    LegacyCreateTaskResult, LegacyGetTaskResult, ListTasksResult, RELATED_TASK, TaskStatusParams,
    ToolExecution,
};
use presa::wire::legacy::{TASKS_STATUS, negotiate_version};
use presa::wire::notifications::{self, CancelledParams, LoggingMessageParams, ProgressParams};
use presa::wire::{
    CallToolResult, ClientCapabilities, CompleteResult, ElicitRequestParams, ErrorObject,
    GetPromptResult, InputRequest, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, Notification, ReadResourceResult, Request,
    ResourceUpdatedParams, codes, strict,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// Why a message breaks its era's rules.
pub(super) type Broken = Result<(), String>;

/// The era a request is served in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Era {
    /// 2026-07-28: `_meta` per request, no session.
    Modern,
    /// A session opened by `initialize`, held to 2025-11-25's shapes.
    Legacy,
}

/// A modern result: it names its kind.
pub(super) fn modern_result(result: &Value) -> Broken {
    match result.get("resultType") {
        Some(Value::String(_)) => Ok(()),
        _ => Err("a modern result without a `resultType`".into()),
    }
}

/// A modern error: never the legacy "resource not found" (rule 4).
pub(super) fn modern_error(error: &ErrorObject) -> Broken {
    if error.code == codes::LEGACY_RESOURCE_NOT_FOUND {
        return Err(format!(
            "a modern error with the legacy code {}",
            error.code
        ));
    }
    Ok(())
}

/// A modern notification: not one only sessions have.
pub(super) fn modern_notification(notification: &Notification) -> Broken {
    if notification.method == TASKS_STATUS {
        return Err(format!(
            "a modern `{TASKS_STATUS}`, which only 2025-11-25 has"
        ));
    }
    Ok(())
}

/// The answer to the `initialize` that opened the session, which asked
/// for `requested`.
pub(super) fn initialize_result(requested: &str, result: &Value) -> Broken {
    no_modern_members(result)?;
    let result: InitializeResult = read("InitializeResult", result)?;
    let agreed = negotiate_version(requested);
    if result.protocol_version != agreed {
        return Err(format!(
            "asked for {requested}, the session speaks {} instead of {agreed}",
            result.protocol_version
        ));
    }
    Ok(())
}

/// A legacy result, the answer to `method`; `asked_task` when it is a
/// `tools/call` with a `task` param.
pub(super) fn legacy_result(method: &str, asked_task: bool, result: &Value) -> Broken {
    no_modern_members(result)?;
    match method {
        "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe" => {
            empty_result(result)
        }
        "tools/list" => tool_list(result),
        "tools/call" if result.get("task").is_some() => {
            if !asked_task {
                return Err("a task for a call that did not ask for one".into());
            }
            read::<LegacyCreateTaskResult>("CreateTaskResult", result)?;
            has_ttl(&result["task"])
        }
        "tools/call" | "tasks/result" => call_result(result),
        "tasks/get" | "tasks/cancel" => {
            read::<LegacyGetTaskResult>("GetTaskResult", result)?;
            has_ttl(result)
        }
        "tasks/list" => {
            read::<ListTasksResult>("ListTasksResult", result)?;
            result["tasks"]
                .as_array()
                .into_iter()
                .flatten()
                .try_for_each(has_ttl)
        }
        "prompts/list" => read::<ListPromptsResult>("ListPromptsResult", result).map(drop),
        "prompts/get" => read::<GetPromptResult>("GetPromptResult", result).map(drop),
        "resources/list" => read::<ListResourcesResult>("ListResourcesResult", result).map(drop),
        "resources/templates/list" => {
            read::<ListResourceTemplatesResult>("ListResourceTemplatesResult", result).map(drop)
        }
        "resources/read" => read::<ReadResourceResult>("ReadResourceResult", result).map(drop),
        "completion/complete" => read::<CompleteResult>("CompleteResult", result).map(drop),
        other => Err(format!(
            "a result for `{other}`, which a session answers only with an error"
        )),
    }
}

/// A legacy error: no code of 2026-07-28's own (rule 4).
pub(super) fn legacy_error(error: &ErrorObject) -> Broken {
    let modern = [
        codes::HEADER_MISMATCH,
        codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
        codes::UNSUPPORTED_PROTOCOL_VERSION,
    ];
    if modern.contains(&error.code) {
        return Err(format!(
            "a legacy error with the modern code {}",
            error.code
        ));
    }
    Ok(())
}

/// A notification of a session's: one 2025-11-25 defines, in its shape.
/// `asked` tells whether the server sent a request of this id, which is
/// all a session's `notifications/cancelled` may cancel.
pub(super) fn legacy_notification(
    notification: &Notification,
    asked: impl Fn(&presa::wire::RequestId) -> bool,
) -> Broken {
    let params = notification.params.clone().unwrap_or(Value::Null);
    no_modern_members(&params)?;
    match notification.method.as_str() {
        notifications::PROGRESS => {
            read::<ProgressParams>("ProgressNotification", &params).map(drop)
        }
        notifications::MESSAGE => {
            read::<LoggingMessageParams>("LoggingMessageNotification", &params).map(drop)
        }
        notifications::CANCELLED => {
            let cancelled: CancelledParams = read("CancelledNotification", &params)?;
            if !asked(&cancelled.request_id) {
                return Err(format!(
                    "cancels request {}, which the server never sent",
                    cancelled.request_id
                ));
            }
            Ok(())
        }
        notifications::RESOURCES_UPDATED => {
            read::<ResourceUpdatedParams>("ResourceUpdatedNotification", &params).map(drop)
        }
        TASKS_STATUS => {
            read::<TaskStatusParams>("TaskStatusNotification", &params)?;
            has_ttl(&params)
        }
        notifications::TOOLS_LIST_CHANGED
        | notifications::PROMPTS_LIST_CHANGED
        | notifications::RESOURCES_LIST_CHANGED => Ok(()),
        other => Err(format!("`{other}`, which 2025-11-25 does not define")),
    }
}

/// A request of the server's, to a client that declared `capabilities`
/// in `initialize` (rule 3).
pub(super) fn legacy_request(request: &Request, capabilities: &ClientCapabilities) -> Broken {
    if let Some(params) = &request.params {
        no_modern_members(params)?;
    }
    let incoming = IncomingRequest::parse(&request.method, request.params.clone())
        .map_err(|e| format!("not a 2025-11-25 `{}` request: {e}", request.method))?;
    let declared = match &incoming.request {
        InputRequest::Elicit(ElicitRequestParams::Form { .. }) => {
            capabilities.supports_form_elicitation()
        }
        InputRequest::Elicit(ElicitRequestParams::Url { .. }) => {
            capabilities.supports_url_elicitation()
        }
        InputRequest::Sample(_) => capabilities.sampling.is_some(),
        InputRequest::ListRoots => capabilities.roots.is_some(),
        InputRequest::Other { method, .. } if method == "ping" => true,
        InputRequest::Other { method, .. } => {
            return Err(format!("`{method}`, which 2025-11-25 servers do not send"));
        }
        // A kind of input or an elicitation mode of a later revision.
        _ => {
            return Err(format!(
                "`{}`, which 2025-11-25 servers do not send",
                request.method
            ));
        }
    };
    if !declared {
        return Err(format!(
            "`{}`, which the client did not declare in `initialize`",
            request.method
        ));
    }
    Ok(())
}

/// Rule 1, on a result or params.
fn no_modern_members(body: &Value) -> Broken {
    let Some(body) = body.as_object() else {
        return Ok(());
    };
    if let Some(field) = MODERN_ONLY_FIELDS.iter().find(|f| body.contains_key(**f)) {
        return Err(format!("the modern-only member `{field}`"));
    }
    let meta = body.get("_meta").and_then(Value::as_object);
    let modern = meta
        .into_iter()
        .flat_map(Map::keys)
        .find(|key| key.starts_with("io.modelcontextprotocol/") && *key != RELATED_TASK);
    match modern {
        Some(key) => Err(format!("the modern `_meta` key `{key}`")),
        None => Ok(()),
    }
}

/// `value` read strictly as the presa type of 2025-11-25's `definition`.
fn read<T: DeserializeOwned>(definition: &str, value: &Value) -> Result<T, String> {
    strict::from_value(value.clone()).map_err(|e| format!("not a 2025-11-25 `{definition}`: {e}"))
}

/// `ping`'s and the session requests' answer: nothing but `_meta`.
fn empty_result(result: &Value) -> Broken {
    match result.as_object() {
        Some(members) if members.keys().all(|k| k == "_meta") => Ok(()),
        _ => Err("not a 2025-11-25 `EmptyResult`".into()),
    }
}

/// A task's `ttl` is required, `null` for ever; the presa type reads a
/// missing one as `None`.
fn has_ttl(task: &Value) -> Broken {
    match task.get("ttl") {
        Some(Value::Null | Value::Number(_)) => Ok(()),
        _ => Err("a 2025-11-25 `Task` without its `ttl`".into()),
    }
}

/// A `CallToolResult`: `content` is required, structured content an
/// object.
fn call_result(result: &Value) -> Broken {
    read::<CallToolResult>("CallToolResult", result)?;
    if !result.get("content").is_some_and(Value::is_array) {
        return Err("a 2025-11-25 `CallToolResult` without its `content`".into());
    }
    match result.get("structuredContent") {
        None | Some(Value::Object(_)) => Ok(()),
        Some(_) => Err("2025-11-25 `structuredContent` that is not an object".into()),
    }
}

/// A page of tools: each with its `execution.taskSupport`, and schemas
/// that are objects of `"type": "object"` whose root properties are
/// schema objects.
fn tool_list(result: &Value) -> Broken {
    read::<ListToolsResult>("ListToolsResult", result)?;
    for tool in result["tools"].as_array().into_iter().flatten() {
        let name = &tool["name"];
        let execution: ToolExecution = read("ToolExecution", &tool["execution"])?;
        if execution.task_support.is_none() {
            return Err(format!("tool {name} does not say its `taskSupport`"));
        }
        for key in ["inputSchema", "outputSchema"] {
            let Some(schema) = tool.get(key) else {
                continue;
            };
            if schema.get("type") != Some(&Value::from("object")) {
                return Err(format!("tool {name}'s `{key}` is not an object schema"));
            }
            let properties = schema.get("properties").and_then(Value::as_object);
            if properties.is_some_and(|p| p.values().any(|s| !s.is_object())) {
                return Err(format!(
                    "tool {name}'s `{key}` has a property that is no schema object"
                ));
            }
        }
    }
    Ok(())
}
