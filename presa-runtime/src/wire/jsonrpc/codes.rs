//! Error codes used on the wire.
//!
//! The JSON-RPC codes and the three MCP codes (`-32020..=-32022`) are
//! fixed by the specification. presa emits no other code in the reserved
//! range `-32768..=-32000`; its own codes ([`TOO_MANY_TASKS`],
//! [`SERVER_BUSY`], [`TASK_STORE_UNAVAILABLE`], [`SHUTTING_DOWN`]) lie
//! outside it.

/// The frame is not valid JSON.
pub const PARSE_ERROR: i64 = -32700;
/// The frame is JSON but not a valid request.
pub const INVALID_REQUEST: i64 = -32600;
/// Unknown or removed method (`initialize`, `ping`, ...).
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Missing or malformed params, unknown tool, bad cursor, bad `requestState`.
pub const INVALID_PARAMS: i64 = -32602;
/// An internal failure; its message never carries the cause.
pub const INTERNAL_ERROR: i64 = -32603;
/// An HTTP header disagrees with the body (Streamable HTTP only).
pub const HEADER_MISMATCH: i64 = -32020;
/// The request needs a client capability the client did not declare.
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
/// The requested protocol version is not supported.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// "Resource not found" in revisions before 2026-07-28, which answer it with
/// `-32602` and `data.uri`. A client still accepts it; presa never sends it.
pub const LEGACY_RESOURCE_NOT_FOUND: i64 = -32002;
/// A sampling request the user rejected: how a client refuses a legacy
/// (2025-11-25) server's `sampling/createMessage`, as that revision's spec
/// gives it ("User rejected sampling request"). presa's client sends it
/// for a sampling handler's `SamplingDeclined`. Outside the JSON-RPC
/// reserved range.
pub const USER_REJECTED_SAMPLING: i64 = -1;
/// presa's own: the server holds its maximum number of live tasks, and the
/// tool runs only as a task. Retry later. Outside the JSON-RPC reserved range.
pub const TOO_MANY_TASKS: i64 = -31000;
/// presa's own: the server, or this connection, holds as much of
/// something as it allows (open subscriptions, sessions, requests, or, in
/// a stdio legacy session, requests that wait for the client's answers);
/// the message says what to end or answer before retrying. Outside the
/// JSON-RPC reserved range.
pub const SERVER_BUSY: i64 = -31001;
/// presa's own: the server cannot reach the store that keeps its tasks
/// (a shared database that is down or unreachable). Nothing was done;
/// retry after `data.retryAfterMs`. Outside the JSON-RPC reserved range.
pub const TASK_STORE_UNAVAILABLE: i64 = -31002;
/// presa's own: the server is shutting down, and answers a request it
/// took but will not finish. `data.started`
/// ([`ShuttingDownData`](crate::wire::ShuttingDownData)) says whether it ran:
/// `false`, it never started, and may be sent again as it is (to another
/// server, or once this one is back); `true`, it was cut short at the end
/// of the drain period, and may have done part of its work. Outside the
/// JSON-RPC reserved range.
pub const SHUTTING_DOWN: i64 = -31003;
/// presa: the caller lacks an OAuth scope the tool, prompt or resource
/// requires ([`InsufficientScopeData`](crate::wire::InsufficientScopeData) lists
/// them). Over Streamable HTTP the same refusal is `403` with the
/// `insufficient_scope` challenge instead. Outside the JSON-RPC reserved
/// range.
pub const INSUFFICIENT_SCOPE: i64 = -31004;
