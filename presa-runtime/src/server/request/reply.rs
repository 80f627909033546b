//! Building what the server sends back: error objects and responses.
//!
//! Every error the server emits is made here, so that its code, message
//! and `data` follow one convention:
//!
//! - a message says what was wrong in terms of the request, never how the
//!   server is built;
//! - an internal failure (`-32603`) says only "Internal error"; its cause
//!   goes to [`report_internal`], that is to `tracing` (or stderr when no
//!   subscriber is installed), and never to the peer;
//! - so does the cause of a task store failure (`-31002`): the peer learns
//!   only that the store is unavailable and when to retry;
//! - `data` is one of the typed shapes of [`wire`](crate::wire), never
//!   hand-written JSON.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::error::Origin;
use crate::wire::{
    ClientCapabilities, ErrorObject, InsufficientScopeData, MissingCapabilityData,
    RESOURCE_NOT_FOUND_MESSAGE, RequestId, ResourceNotFoundData, Response, ShuttingDownData,
    TASKS_EXTENSION, TaskLimitScope, TaskStoreUnavailableData, TooManyTasksData,
    UnsupportedVersionData, codes, strict,
};

/// How long a client is asked to wait before retrying a request the
/// server could not serve for now (`Retry-After` over HTTP).
pub(crate) const RETRY_AFTER_SECONDS: u64 = 1;

/// The response to request `id`: its result or its error.
pub(crate) fn respond(id: RequestId, outcome: Result<Value, ErrorObject>) -> Response {
    match outcome {
        Ok(result) => Response::result(id, result),
        Err(error) => Response::error(Some(id), error),
    }
}

/// Serializes a typed result. Every result type serializes, so failing
/// here is a bug in presa itself.
pub(crate) fn to_value(result: impl Serialize) -> Value {
    serde_json::to_value(result).expect("results always serialize")
}

/// Parses a method's params, strictly (see [`strict`]); absent params
/// read as `{}`.
pub(crate) fn parse_params<T: DeserializeOwned>(params: Option<Value>) -> Result<T, ErrorObject> {
    strict::from_value(params.unwrap_or_else(|| Value::Object(Map::new())))
        .map_err(|e| invalid_params(format!("Invalid params: {e}")))
}

/// `-32602`.
pub(crate) fn invalid_params(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(codes::INVALID_PARAMS, message)
}

/// `-32600`.
pub(crate) fn invalid_request(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(
        codes::INVALID_REQUEST,
        format!("Invalid request: {}", message.into()),
    )
}

/// `-32020`: an HTTP header disagrees with the body, or is missing or
/// malformed.
#[cfg(feature = "http-server")]
pub(crate) fn header_mismatch(message: impl std::fmt::Display) -> ErrorObject {
    ErrorObject::new(
        codes::HEADER_MISMATCH,
        format!("Header mismatch: {message}"),
    )
}

/// `n` of `thing`, its plural agreeing: "1 task", "2 tasks".
pub(crate) fn counted(n: usize, thing: &str) -> String {
    match n {
        1 => format!("1 {thing}"),
        n => format!("{n} {thing}s"),
    }
}

/// `-32602` for a request naming a prompt the server does not have.
pub(crate) fn unknown_prompt(name: &str) -> ErrorObject {
    invalid_params(format!("Unknown prompt: `{name}`"))
}

/// `-32602` for a `resources/read` of a URI that names no resource, with
/// the URI as `data`, as the spec asks.
pub(crate) fn resource_not_found(uri: &str) -> ErrorObject {
    resource_refused(uri, format!("{RESOURCE_NOT_FOUND_MESSAGE}: `{uri}`"))
}

/// `-32602` refusing the read of `uri` with `message`; `data` names the
/// URI, as for a resource that does not exist.
fn resource_refused(uri: &str, message: String) -> ErrorObject {
    invalid_params(message).with_data(to_value(ResourceNotFoundData {
        uri: uri.to_owned(),
    }))
}

/// The `-32602` of a handler that refused its request with `message`: a
/// refused resource read names its URI in `data`, as a missing resource
/// does.
pub(crate) fn rejected(origin: Origin<'_>, message: String) -> ErrorObject {
    match origin {
        Origin::Resource(uri) => resource_refused(uri, message),
        Origin::Tool(_) | Origin::Prompt(_) => invalid_params(message),
    }
}

/// presa's `SERVER_BUSY`: the connection holds `limit` subscriptions.
pub(crate) fn server_busy(limit: usize) -> ErrorObject {
    ErrorObject::new(
        codes::SERVER_BUSY,
        format!(
            "Server busy: this connection already holds {}; cancel one first",
            counted(limit, "open subscription")
        ),
    )
}

/// presa's `SERVER_BUSY`: a legacy connection with no room for another
/// request, read only because an answer of the client's may be behind it.
pub(crate) fn busy_awaiting_answers() -> ErrorObject {
    ErrorObject::new(
        codes::SERVER_BUSY,
        "Server busy: the requests of this connection wait for answers to the server's own \
         requests; answer those, then retry",
    )
}

/// `-32601` for a method this server does not serve.
pub(crate) fn method_not_found(method: &str) -> ErrorObject {
    ErrorObject::new(
        codes::METHOD_NOT_FOUND,
        format!("Method not found: `{method}`"),
    )
}

/// `-32022`, naming what the server supports.
pub(crate) fn unsupported_version(supported: &[String], requested: &str) -> ErrorObject {
    ErrorObject::new(
        codes::UNSUPPORTED_PROTOCOL_VERSION,
        format!(
            "Unsupported protocol version {requested:?}; this server supports {}",
            supported.join(", ")
        ),
    )
    .with_data(to_value(UnsupportedVersionData {
        supported: supported.to_vec(),
        requested: requested.to_owned(),
    }))
}

/// `-32021`: the request needs capabilities the client did not declare.
pub(crate) fn missing_capability(
    message: impl Into<String>,
    required: ClientCapabilities,
) -> ErrorObject {
    ErrorObject::new(codes::MISSING_REQUIRED_CLIENT_CAPABILITY, message).with_data(to_value(
        MissingCapabilityData {
            required_capabilities: required,
        },
    ))
}

/// The declaration of extension `id`, as `requiredCapabilities`: `{}`,
/// since a request declares an extension by naming it.
pub(crate) fn extension_capability(id: &str) -> ClientCapabilities {
    ClientCapabilities {
        extensions: Some([(id.to_owned(), Map::new())].into()),
        ..Default::default()
    }
}

/// `-32021` for a request that did not declare extension `id`, which
/// `what` needs.
pub(crate) fn extension_not_declared(id: &str, what: &str) -> ErrorObject {
    missing_capability(
        format!("`{what}` needs the client to declare the {id} extension"),
        extension_capability(id),
    )
}

/// The declaration of the Tasks extension, as `requiredCapabilities`.
pub(crate) fn tasks_capability() -> ClientCapabilities {
    extension_capability(TASKS_EXTENSION)
}

/// `-32021` for a client that did not declare the Tasks extension.
pub(crate) fn tasks_not_declared(what: &str) -> ErrorObject {
    extension_not_declared(TASKS_EXTENSION, what)
}

/// `-31000`: no room for another task, and the tool runs only as one.
/// `per_subject` when the limit is the caller's own quota.
pub(crate) fn too_many_tasks(limit: usize, per_subject: bool) -> ErrorObject {
    let (message, scope) = if per_subject {
        (
            format!(
                "You already run {}, the most one caller may run at once, and this tool runs \
                 only as a task; wait for one to finish or cancel one, then retry",
                counted(limit, "task")
            ),
            TaskLimitScope::Subject,
        )
    } else {
        (
            format!(
                "The server runs {}, as many as it keeps, and this tool runs only as a task; \
                 retry later",
                counted(limit, "task")
            ),
            TaskLimitScope::Server,
        )
    };
    ErrorObject::new(codes::TOO_MANY_TASKS, message).with_data(to_value(TooManyTasksData {
        max_tasks: limit,
        scope,
    }))
}

/// `-31000`: running tasks fill the task store's bytes.
pub(crate) fn task_store_full(bytes: usize) -> ErrorObject {
    ErrorObject::new(
        codes::TOO_MANY_TASKS,
        format!(
            "Running tasks fill the server's task store ({bytes} bytes), and this tool runs \
             only as a task; retry later"
        ),
    )
}

/// `-31001`: the server's memory budget has no room for the request.
#[cfg(feature = "http-server")]
pub(crate) fn memory_busy() -> ErrorObject {
    ErrorObject::new(
        codes::SERVER_BUSY,
        "Server busy: requests in progress fill the server's memory budget; retry later",
    )
}

/// `-31001` over HTTP: `who` (the caller, or the callers it is counted
/// with) already holds `limit` open streams.
#[cfg(feature = "http-server")]
pub(crate) fn too_many_streams(who: &str, limit: usize) -> ErrorObject {
    ErrorObject::new(
        codes::SERVER_BUSY,
        format!(
            "Server busy: {who} already hold {} (subscriptions/listen, or a legacy session's \
             GET), the most one caller may hold; close one first",
            counted(limit, "open stream")
        ),
    )
}

/// `-31001` over HTTP: `who` already has `limit` requests in progress.
#[cfg(feature = "http-server")]
pub(crate) fn too_many_requests(who: &str, limit: usize) -> ErrorObject {
    ErrorObject::new(
        codes::SERVER_BUSY,
        format!(
            "Server busy: {who} already have {} in progress, the most one caller may have at \
             once; wait for one to finish, then retry",
            counted(limit, "request")
        ),
    )
}

/// `-31001` over HTTP: `who` already sends `limit` request bodies at once.
#[cfg(feature = "http-server")]
pub(crate) fn too_many_bodies(who: &str, limit: usize) -> ErrorObject {
    ErrorObject::new(
        codes::SERVER_BUSY,
        format!(
            "Server busy: {who} are already sending {limit} request {}, the most one caller \
             may send at once; finish sending one, then retry",
            if limit == 1 { "body" } else { "bodies" }
        ),
    )
}

/// `-31001`: a task followed by as many listeners as it may have.
pub(crate) fn too_many_listeners(limit: usize) -> ErrorObject {
    ErrorObject::new(
        codes::SERVER_BUSY,
        format!(
            "Server busy: a task named here already has {}; end a subscription that follows \
             it first",
            counted(limit, "listener")
        ),
    )
}

/// `-31002`: the task store failed (a shared database is unreachable), so
/// nothing was done. `doing` and `cause` go to the logs only: the peer
/// learns that the store is unavailable and when to retry.
pub(crate) fn task_store_unavailable(doing: &str, cause: &str) -> ErrorObject {
    if tracing::dispatcher::has_been_set() {
        tracing::warn!(doing, cause, "task store unavailable");
    } else {
        eprintln!("presa: the task store failed ({doing}): {cause}");
    }
    ErrorObject::new(
        codes::TASK_STORE_UNAVAILABLE,
        "Task store unavailable: the server cannot reach the store that keeps its tasks; \
         retry shortly",
    )
    .with_data(to_value(TaskStoreUnavailableData {
        retry_after_ms: RETRY_AFTER_SECONDS * 1000,
    }))
}

/// `-31003`: the server is shutting down; the request never ran, or was
/// cut short while it did (`started`).
pub(crate) fn shutting_down(started: bool) -> ErrorObject {
    let message = if started {
        "Server shutting down: the request was cancelled before it finished; it may have \
         done part of its work"
    } else {
        "Server shutting down: the request was not run; send it again"
    };
    ErrorObject::new(codes::SHUTTING_DOWN, message)
        .with_data(to_value(ShuttingDownData { started }))
}

/// `-31004`: `item` needs scopes the caller does not all hold.
pub(crate) fn insufficient_scope(item: &str, required: &[&str]) -> ErrorObject {
    ErrorObject::new(
        codes::INSUFFICIENT_SCOPE,
        format!(
            "Insufficient scope: {item} requires the scopes `{}`",
            required.join(" ")
        ),
    )
    .with_data(to_value(InsufficientScopeData {
        required_scopes: required.iter().map(|s| (*s).to_owned()).collect(),
    }))
}

/// `-32602`: one answer over the size limit.
pub(crate) fn answer_too_large(key: &str, bytes: usize, limit: usize) -> ErrorObject {
    invalid_params(format!(
        "The answer to `{key}` is {bytes} bytes; answers may be at most {limit} bytes"
    ))
}

/// `-32602`: answers that would take a task's record past its room.
pub(crate) fn answers_too_large(room: usize) -> ErrorObject {
    invalid_params(format!(
        "These answers would take the task past the {room} bytes it may hold; send smaller ones"
    ))
}

/// The error a task fails with after `answers` answers to `key` that did
/// not fit its request (`-32602`: the client's answers were the problem).
pub(crate) fn answers_unusable(key: &str, answers: u32) -> ErrorObject {
    invalid_params(format!(
        "Gave up on input `{key}`: {answers} answers in a row did not fit its request"
    ))
}

/// The error a task fails with when what its tool made does not fit its
/// record: the limit, not a fault, so the message says so.
pub(crate) fn task_record_full(what: &str, room: usize) -> ErrorObject {
    ErrorObject::new(
        codes::INTERNAL_ERROR,
        format!("Task record full: {what} would take the task past the {room} bytes it may hold"),
    )
}

/// `-32602` for a task that is unknown, expired, or someone else's: all
/// three read the same, so that ids cannot be probed.
pub(crate) fn task_not_found(verb: &str) -> ErrorObject {
    invalid_params(format!("Failed to {verb} task: Task not found"))
}

/// The generic `-32603`; `cause` goes to the logs only. `origin` names
/// what failed: a tool, or a part of the server in parentheses.
pub(crate) fn internal_error(origin: &str, cause: &str) -> ErrorObject {
    report_internal(origin, cause);
    ErrorObject::new(codes::INTERNAL_ERROR, "Internal error")
}

/// Logs an internal failure. The cause never goes to the peer; it goes to
/// `tracing`, or to stderr when no subscriber is installed.
pub(crate) fn report_internal(origin: &str, cause: &str) {
    if tracing::dispatcher::has_been_set() {
        tracing::error!(origin, cause, "internal error");
    } else {
        eprintln!("presa: `{origin}` failed with an internal error: {cause}");
    }
}

/// The text of a caught panic, for the logs.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let detail = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".into());
    format!("panic: {detail}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn limits_of_one_are_counted_in_the_singular() {
        let message = |error: ErrorObject| error.message;
        assert!(message(too_many_tasks(1, true)).starts_with("You already run 1 task, "));
        assert!(message(too_many_tasks(1, false)).starts_with("The server runs 1 task, "));
        assert!(message(too_many_tasks(2, true)).starts_with("You already run 2 tasks, "));
        assert!(message(server_busy(1)).contains("holds 1 open subscription;"));
        assert!(message(too_many_listeners(1)).contains("has 1 listener;"));
        assert!(message(too_many_listeners(3)).contains("has 3 listeners;"));
    }

    #[test]
    fn typed_error_data_has_the_spec_shape() {
        let error = unsupported_version(&["2026-07-28".into()], "1999-01-01");
        assert_eq!(error.code, -32022);
        assert_eq!(
            error.data,
            Some(json!({"supported": ["2026-07-28"], "requested": "1999-01-01"}))
        );
        let error = tasks_not_declared("tasks/get");
        assert_eq!(
            error.data,
            Some(json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}))
        );
        assert_eq!(
            too_many_tasks(3, true).data,
            Some(json!({"maxTasks": 3, "scope": "subject"}))
        );
    }

    #[test]
    fn store_failures_say_to_retry_and_never_carry_their_cause() {
        let error = task_store_unavailable("get", "Redis at 10.0.0.7:6379 is unreachable");
        assert_eq!(error.code, -31002);
        assert!(error.message.starts_with("Task store unavailable"));
        assert!(error.message.contains("retry"), "{}", error.message);
        assert!(!error.message.contains("10.0.0.7"), "{}", error.message);
        assert_eq!(error.data, Some(json!({"retryAfterMs": 1000})));
    }

    #[test]
    fn internal_errors_never_carry_their_cause() {
        let error = internal_error("t", "the password is hunter2");
        assert_eq!(error.message, "Internal error");
        assert_eq!(error.data, None);
    }
}
