//! The specification as a witness: every message a test receives from the
//! server, and every message the presa client sends to a scripted server,
//! is checked against the official `schema.json` of MCP 2026-07-28 and of
//! the Tasks extension, first as a JSON-RPC message, then as the request,
//! result or notification its method calls for. A message of a legacy
//! session is checked against the 2025-11-25 `schema.json` instead, in
//! both directions (so that a scripted legacy peer is held to the legacy
//! shapes as much as presa is), and for the modern-only fields that schema
//! would let through ([`check_legacy_from_server`],
//! [`check_legacy_from_client`]).
//!
//! The schemas are read from the shared spec folder beside the repository
//! (`../shared/spec`), never copied into it. Where that folder is missing
//! (a clone on its own) the check is skipped with a note, except in CI
//! (`CI` set), where a missing schema fails the test.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use serde_json::{Value, json};

/// Which schema a definition lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Spec {
    /// MCP 2026-07-28.
    Mcp,
    /// The Tasks extension.
    Tasks,
    /// MCP 2025-11-25, the newest legacy revision.
    Legacy,
}

impl Spec {
    fn file(self) -> &'static str {
        match self {
            Spec::Mcp => "mcp-2026-07-28/schema.json",
            Spec::Tasks => "tasks-extension/schema.json",
            Spec::Legacy => "mcp-2025-11-25/schema.json",
        }
    }
}

/// Checks a message a client sent in a legacy session; `answering` is the
/// method of the server's request it responds to, if it is a response.
/// Panics, naming the definition and the violations, when the message
/// breaks the 2025-11-25 schema.
pub fn check_legacy_from_client(message: &Value, answering: Option<&str>) {
    assert_no_modern_fields(message);
    let specific = match (message.get("method").and_then(Value::as_str), answering) {
        (Some(method), _) => legacy_request(method).or(match method {
            "notifications/initialized" => Some("InitializedNotification"),
            "notifications/cancelled" => Some("CancelledNotification"),
            "notifications/roots/list_changed" => Some("RootsListChangedNotification"),
            _ => None,
        }),
        (None, Some(method)) => legacy_answer(method, message.get("result")),
        (None, None) => None,
    };
    check_legacy(message, specific, "client");
}

/// The legacy definition of a client request.
fn legacy_request(method: &str) -> Option<&'static str> {
    Some(match method {
        "initialize" => "InitializeRequest",
        "ping" => "PingRequest",
        "logging/setLevel" => "SetLevelRequest",
        "tools/list" => "ListToolsRequest",
        "tools/call" => "CallToolRequest",
        "prompts/list" => "ListPromptsRequest",
        "prompts/get" => "GetPromptRequest",
        "resources/list" => "ListResourcesRequest",
        "resources/templates/list" => "ListResourceTemplatesRequest",
        "resources/read" => "ReadResourceRequest",
        "resources/subscribe" => "SubscribeRequest",
        "completion/complete" => "CompleteRequest",
        "tasks/get" => "GetTaskRequest",
        "tasks/result" => "GetTaskPayloadRequest",
        "tasks/cancel" => "CancelTaskRequest",
        "tasks/list" => "ListTasksRequest",
        _ => return None,
    })
}

/// The legacy definition of the client's answer to the server's request
/// `method`, when the answer is a result.
fn legacy_answer(method: &str, result: Option<&Value>) -> Option<&'static str> {
    result?;
    Some(match method {
        "elicitation/create" => "ElicitResult",
        "sampling/createMessage" => "CreateMessageResult",
        "roots/list" => "ListRootsResult",
        "ping" => "EmptyResult",
        _ => return None,
    })
}

/// Checks `message` as a legacy JSON-RPC message, then its `result` (for
/// a response) or itself against `specific`.
fn check_legacy(message: &Value, specific: Option<&'static str>, sender: &str) {
    let mut checks = vec![("JSONRPCMessage", message)];
    if let Some(definition) = specific {
        let value = message.get("result").unwrap_or(message);
        checks.push((definition, value));
    }
    for (definition, value) in checks {
        let Some(errors) = violations(Spec::Legacy, definition, value) else {
            return;
        };
        assert!(
            errors.is_empty(),
            "the {sender} sent a message that breaks 2025-11-25 `{definition}`:\n{errors:#?}\nmessage: {message}"
        );
    }
}

/// Checks a message the server sent in answer to a request of method
/// `request` (`None` for a notification or an unknown id). Panics, naming
/// the definition and the violations, when the message breaks the spec.
pub fn check_from_server(message: &Value, request: Option<&str>) {
    let Some(checks) = checks_for(message, request) else {
        return;
    };
    for (spec, definition, value) in checks {
        let Some(errors) = violations(spec, definition, value) else {
            return;
        };
        assert!(
            errors.is_empty(),
            "the server sent a message that breaks {spec:?} `{definition}`:\n{errors:#?}\nmessage: {message}"
        );
    }
}

/// Checks a message a legacy session sent, in answer to a request of
/// method `request` (`None` for a notification or a request of the
/// server's). Panics, naming the definition and the violations, when the
/// message breaks the 2025-11-25 schema or carries a modern-only field.
pub fn check_legacy_from_server(message: &Value, request: Option<&str>) {
    assert_no_modern_fields(message);
    let mut checks = vec![("JSONRPCMessage", message)];
    if let Some(result) = message.get("result") {
        let definition = match request {
            Some("initialize") => "InitializeResult",
            Some("ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe") => {
                "EmptyResult"
            }
            Some("tools/list") => "ListToolsResult",
            Some("tools/call") if result.get("task").is_some() => "CreateTaskResult",
            Some("tools/call" | "tasks/result") => "CallToolResult",
            Some("prompts/list") => "ListPromptsResult",
            Some("prompts/get") => "GetPromptResult",
            Some("resources/list") => "ListResourcesResult",
            Some("resources/templates/list") => "ListResourceTemplatesResult",
            Some("resources/read") => "ReadResourceResult",
            Some("completion/complete") => "CompleteResult",
            Some("tasks/get") => "GetTaskResult",
            Some("tasks/cancel") => "CancelTaskResult",
            Some("tasks/list") => "ListTasksResult",
            _ => "Result",
        };
        checks.push((definition, result));
    } else if message.get("error").is_some() {
        checks.push(("JSONRPCErrorResponse", message));
    } else if let Some(method) = message.get("method").and_then(Value::as_str) {
        let definition = match method {
            "notifications/progress" => "ProgressNotification",
            "notifications/message" => "LoggingMessageNotification",
            "notifications/cancelled" => "CancelledNotification",
            "notifications/tools/list_changed" => "ToolListChangedNotification",
            "notifications/prompts/list_changed" => "PromptListChangedNotification",
            "notifications/resources/list_changed" => "ResourceListChangedNotification",
            "notifications/resources/updated" => "ResourceUpdatedNotification",
            "notifications/tasks/status" => "TaskStatusNotification",
            "elicitation/create" => "ElicitRequest",
            "sampling/createMessage" => "CreateMessageRequest",
            "roots/list" => "ListRootsRequest",
            "ping" => "PingRequest",
            other => panic!("a legacy session sent `{other}`, which 2025-11-25 does not define"),
        };
        checks.push((definition, message));
    }
    for (definition, value) in checks {
        let Some(errors) = violations(Spec::Legacy, definition, value) else {
            return;
        };
        assert!(
            errors.is_empty(),
            "a legacy session sent a message that breaks 2025-11-25 `{definition}`:\n{errors:#?}\nmessage: {message}"
        );
    }
}

/// Panics when a legacy message carries what only the modern era has:
/// result members the legacy schema would let through as extras, and the
/// modern `_meta` keys.
fn assert_no_modern_fields(message: &Value) {
    const MODERN: [&str; 5] = [
        "resultType",
        "ttlMs",
        "cacheScope",
        "inputRequests",
        "requestState",
    ];
    let body = message.get("result").or_else(|| message.get("params"));
    let Some(body) = body.and_then(Value::as_object) else {
        return;
    };
    for field in MODERN {
        assert!(
            !body.contains_key(field),
            "a legacy session sent modern-only `{field}`: {message}"
        );
    }
    if let Some(meta) = body.get("_meta").and_then(Value::as_object) {
        for key in meta.keys() {
            assert!(
                !key.starts_with("io.modelcontextprotocol/")
                    || key == "io.modelcontextprotocol/related-task",
                "a legacy session sent modern `_meta` key `{key}`: {message}"
            );
        }
    }
}

/// Checks a message the client sent. Panics, naming the definition and
/// the violations, when the message breaks the spec.
pub fn check_from_client(message: &Value) {
    let mut checks = vec![(Spec::Mcp, "JSONRPCMessage")];
    let specific = match message.get("method").and_then(Value::as_str) {
        Some("server/discover") => Some((Spec::Mcp, "DiscoverRequest")),
        Some("tools/list") => Some((Spec::Mcp, "ListToolsRequest")),
        Some("tools/call") => Some((Spec::Mcp, "CallToolRequest")),
        Some("prompts/list") => Some((Spec::Mcp, "ListPromptsRequest")),
        Some("prompts/get") => Some((Spec::Mcp, "GetPromptRequest")),
        Some("resources/list") => Some((Spec::Mcp, "ListResourcesRequest")),
        Some("resources/templates/list") => Some((Spec::Mcp, "ListResourceTemplatesRequest")),
        Some("resources/read") => Some((Spec::Mcp, "ReadResourceRequest")),
        Some("completion/complete") => Some((Spec::Mcp, "CompleteRequest")),
        Some("subscriptions/listen") => Some((Spec::Mcp, "SubscriptionsListenRequest")),
        Some("tasks/get") => Some((Spec::Tasks, "GetTaskRequest")),
        Some("tasks/update") => Some((Spec::Tasks, "UpdateTaskRequest")),
        Some("tasks/cancel") => Some((Spec::Tasks, "CancelTaskRequest")),
        Some("notifications/cancelled") => Some((Spec::Mcp, "CancelledNotification")),
        _ => None,
    };
    checks.extend(specific);
    for (spec, definition) in checks {
        let Some(errors) = violations(spec, definition, message) else {
            return;
        };
        assert!(
            errors.is_empty(),
            "the client sent a message that breaks {spec:?} `{definition}`:\n{errors:#?}\nmessage: {message}"
        );
    }
}

/// The definitions `message` must satisfy, each with the value to check.
fn checks_for<'a>(
    message: &'a Value,
    request: Option<&str>,
) -> Option<Vec<(Spec, &'static str, &'a Value)>> {
    let mut checks = vec![(Spec::Mcp, "JSONRPCMessage", message)];
    if let Some(result) = message.get("result") {
        let result_type = result.get("resultType").and_then(Value::as_str);
        let definition = match (request?, result_type) {
            ("server/discover", _) => (Spec::Mcp, "DiscoverResult"),
            ("tools/list", _) => (Spec::Mcp, "ListToolsResult"),
            ("tools/call", Some("input_required")) => (Spec::Mcp, "InputRequiredResult"),
            ("tools/call", Some("task")) => (Spec::Tasks, "CreateTaskResult"),
            ("tools/call", _) => (Spec::Mcp, "CallToolResult"),
            ("prompts/list", _) => (Spec::Mcp, "ListPromptsResult"),
            ("prompts/get", Some("input_required")) => (Spec::Mcp, "InputRequiredResult"),
            ("prompts/get", _) => (Spec::Mcp, "GetPromptResult"),
            ("resources/list", _) => (Spec::Mcp, "ListResourcesResult"),
            ("resources/templates/list", _) => (Spec::Mcp, "ListResourceTemplatesResult"),
            ("resources/read", Some("input_required")) => (Spec::Mcp, "InputRequiredResult"),
            ("resources/read", _) => (Spec::Mcp, "ReadResourceResult"),
            ("completion/complete", _) => (Spec::Mcp, "CompleteResult"),
            ("tasks/get", _) => (Spec::Tasks, "GetTaskResult"),
            ("tasks/update", _) => (Spec::Tasks, "UpdateTaskResult"),
            ("tasks/cancel", _) => (Spec::Tasks, "CancelTaskResult"),
            ("subscriptions/listen", _) => (Spec::Mcp, "SubscriptionsListenResult"),
            _ => return Some(checks),
        };
        checks.push((definition.0, definition.1, result));
    } else if let Some(code) = message.pointer("/error/code").and_then(Value::as_i64) {
        match code {
            -32022 => checks.push((Spec::Mcp, "UnsupportedProtocolVersionError", message)),
            -32021 => checks.push((Spec::Mcp, "MissingRequiredClientCapabilityError", message)),
            _ => checks.push((Spec::Mcp, "JSONRPCErrorResponse", message)),
        }
    } else if let Some(method) = message.get("method").and_then(Value::as_str) {
        let definition = match method {
            "notifications/progress" => (Spec::Mcp, "ProgressNotification"),
            "notifications/message" => (Spec::Mcp, "LoggingMessageNotification"),
            "notifications/cancelled" => (Spec::Mcp, "CancelledNotification"),
            "notifications/subscriptions/acknowledged" => {
                (Spec::Mcp, "SubscriptionsAcknowledgedNotification")
            }
            "notifications/tasks" => (Spec::Tasks, "TaskStatusNotification"),
            "notifications/tools/list_changed" => (Spec::Mcp, "ToolListChangedNotification"),
            "notifications/prompts/list_changed" => (Spec::Mcp, "PromptListChangedNotification"),
            "notifications/resources/list_changed" => {
                (Spec::Mcp, "ResourceListChangedNotification")
            }
            "notifications/resources/updated" => (Spec::Mcp, "ResourceUpdatedNotification"),
            _ => return Some(checks),
        };
        checks.push((definition.0, definition.1, message));
    }
    Some(checks)
}

/// The violations of `value` against `definition`; `None` when the schema
/// cannot be read here (and that is allowed).
fn violations(spec: Spec, definition: &'static str, value: &Value) -> Option<Vec<String>> {
    type Cache =
        Mutex<HashMap<(Spec, &'static str), Option<std::sync::Arc<jsonschema::Validator>>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let validator = cache
        .lock()
        .unwrap()
        .entry((spec, definition))
        .or_insert_with(|| compile(spec, definition).map(std::sync::Arc::new))
        .clone()?;
    Some(
        validator
            .iter_errors(value)
            .map(|e| {
                format!(
                    "{} at `{}` (schema `{}`)",
                    e,
                    e.instance_path(),
                    e.schema_path()
                )
            })
            .collect(),
    )
}

/// `definition` of `spec`, compiled; `None` when the schema file is absent
/// outside CI.
fn compile(spec: Spec, definition: &str) -> Option<jsonschema::Validator> {
    let root = schema(spec)?;
    let defs = root.get("$defs").expect("the schema has $defs");
    assert!(
        defs.get(definition).is_some(),
        "{spec:?} defines no `{definition}`"
    );
    let document = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": defs,
        "$ref": format!("#/$defs/{definition}"),
    });
    Some(jsonschema::validator_for(&document).expect("the spec's schema compiles"))
}

/// The parsed schema file of `spec`.
fn schema(spec: Spec) -> Option<Value> {
    let path = spec_folder().join(spec.file());
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(serde_json::from_str(&text).expect("the spec's schema is JSON")),
        Err(e) if std::env::var_os("CI").is_some() => {
            panic!("cannot read the spec's schema {}: {e}", path.display())
        }
        Err(_) => {
            static NOTED: OnceLock<()> = OnceLock::new();
            NOTED.get_or_init(|| {
                eprintln!(
                    "note: the shared spec folder is not beside the repository; messages are not \
                     checked against schema.json"
                )
            });
            None
        }
    }
}

/// `shared/spec` beside the repository: the first `shared/spec` found in a
/// folder that holds the crate being tested.
fn spec_folder() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .map(|folder| folder.join("shared/spec"))
        .find(|candidate| candidate.is_dir())
        .unwrap_or_else(|| manifest.join("../shared/spec"))
}
