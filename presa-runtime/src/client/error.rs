//! What can go wrong on the client side.

use super::link::LinkFailure;
use crate::wire::{ErrorObject, codes};

/// A failed client call. A new way to fail is a new variant, so a `match`
/// on one needs a `_` arm (see [the crate's policy](crate#semver)).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error, or the transport could
    /// not carry the request (its error names the transport in
    /// `data.transport`, and its message says what went wrong here).
    #[error("{}", rpc_text(.0))]
    Rpc(ErrorObject),
    /// The connection closed before the answer arrived.
    #[error("the connection to the server is closed")]
    Closed,
    /// The server kept asking for input past the client's limit.
    #[error(
        "the server asked for input more than {max_rounds} times; giving up (raise it with ClientBuilder::max_rounds)"
    )]
    TooManyRounds {
        /// The configured limit.
        max_rounds: usize,
    },
    /// The server asked for input the client has no handler for.
    #[error("the server asked for `{method}` input, but this client registered no handler for it")]
    NoHandler {
        /// The input request's method.
        method: String,
    },
    /// Client and server share no protocol version.
    #[error(
        "no protocol version in common: the server supports {supported:?}, this client {ours:?}"
    )]
    UnsupportedVersion {
        /// What the server supports.
        supported: Vec<String>,
        /// What this client supports.
        ours: Vec<String>,
    },
    /// The server speaks only the legacy, initialize-based era, and this
    /// client was given no legacy version to speak
    /// ([`ClientBuilder::protocol_versions`](super::ClientBuilder::protocol_versions)).
    #[error(
        "the server does not speak MCP 2026-07-28 or later ({reason}), and this client speaks only {ours:?}; \
         add a legacy version such as 2025-11-25 to its protocol versions to talk to it"
    )]
    LegacyServer {
        /// What the server answered that a modern server would not.
        reason: String,
        /// What this client supports.
        ours: Vec<String>,
    },
    /// The server is legacy, and no session could be opened with it.
    #[error(
        "the server does not speak MCP 2026-07-28 or later ({reason}), and no legacy session \
         could be opened: {cause}"
    )]
    SessionFailed {
        /// Why the client took the server for a legacy one.
        reason: String,
        /// What went wrong with `initialize`.
        cause: Box<ClientError>,
    },
    /// The method does not exist in the era the server speaks.
    #[error("`{method}` does not exist in the {era} era of MCP, which this server speaks{hint}")]
    NotInEra {
        /// The method you called, such as `tasks/update`.
        method: String,
        /// The server's era.
        era: super::era::Era,
        /// What to do instead, when there is something.
        hint: &'static str,
    },
    /// The server's answer does not have the expected shape.
    #[error("invalid response from the server: {0}")]
    InvalidResponse(String),
    /// No answer arrived within the configured request timeout; the request
    /// was cancelled on the server.
    #[error("no answer within {0:?}; the request was cancelled")]
    Timeout(std::time::Duration),
    /// A message from the server exceeded the transport's size limit and was
    /// discarded; every request waiting at that moment fails with this.
    #[error("a message from the server exceeded the {limit}-byte limit and was discarded")]
    ResponseTooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The server made the call a task where the caller expected a result
    /// ([`CallOutcome::into_complete`](super::CallOutcome::into_complete)).
    #[error(
        "the server runs this call as task `{task_id}` instead of answering with a result; follow it with Client::await_task"
    )]
    UnexpectedTask {
        /// The task the server created.
        task_id: String,
    },
    /// The task ended `failed`, with this JSON-RPC error.
    #[error("the task failed: {0}")]
    TaskFailed(ErrorObject),
    /// The task ended `cancelled`.
    #[error("task `{task_id}` was cancelled")]
    TaskCancelled {
        /// The id of the task that was cancelled.
        task_id: String,
    },
    /// [`Client::await_task`](super::Client::await_task) gave up waiting;
    /// the task was not cancelled.
    #[error(
        "task `{task_id}` did not finish within {limit:?}; it may still be running on the server (await it again or cancel it)"
    )]
    TaskTimeout {
        /// The id of the task, to await or cancel it again.
        task_id: String,
        /// The configured limit.
        limit: std::time::Duration,
    },
    /// The sampling handler declined the server's request `key`
    /// ([`SamplingDeclined`](super::SamplingDeclined)). A 2026-07-28
    /// server cannot be told: a plain call ends here, not retried, and a
    /// task (`task_id`) still waits for the answer, so cancel it or answer
    /// it after all. A legacy server is told instead, and answers for
    /// itself: its caller sees that answer, not this.
    #[error("{}", declined(key, task_id.as_deref(), reason.as_deref()))]
    SamplingDeclined {
        /// The key the server filed the request under.
        key: String,
        /// The task that asked, if a task did.
        task_id: Option<String>,
        /// Why, if the handler said.
        reason: Option<String>,
    },
    /// The arguments cannot be sent: not a JSON object (or, for a prompt,
    /// not an object of strings), or not serializable.
    #[error("invalid arguments: {0}")]
    InvalidArguments(String),
}

impl ClientError {
    /// The JSON-RPC error code, when the server sent an error or a task
    /// failed with one.
    pub fn code(&self) -> Option<i64> {
        match self {
            ClientError::Rpc(e) | ClientError::TaskFailed(e) => Some(e.code),
            _ => None,
        }
    }

    /// Whether the server says a `resources/read` names no resource (or
    /// none it will read): `-32602` with `data.uri`, or `-32002`, the code
    /// of earlier revisions, which a client still accepts.
    pub fn is_resource_not_found(&self) -> bool {
        let ClientError::Rpc(error) = self else {
            return false;
        };
        let names_a_uri = error.data.as_ref().is_some_and(|d| d.get("uri").is_some());
        error.code == codes::LEGACY_RESOURCE_NOT_FOUND
            || (error.code == codes::INVALID_PARAMS && names_a_uri)
    }
}

/// The message of [`ClientError::SamplingDeclined`].
fn declined(key: &str, task_id: Option<&str>, reason: Option<&str>) -> String {
    let why = reason.map_or_else(String::new, |r| format!(" ({r})"));
    match task_id {
        None => format!("the sampling request `{key}` was declined{why}; the call ends unanswered"),
        Some(task) => format!(
            "the sampling request `{key}` of task `{task}` was declined{why}; the task still \
             waits for it: cancel it, or answer it after all"
        ),
    }
}

/// How an error response reads. A transport's own failure (a server that
/// cannot be reached, a sign-in refused) happened on this side, so it is
/// not told as the server's answer.
fn rpc_text(error: &ErrorObject) -> String {
    match LinkFailure::read(error) {
        Some(_) => error.message.clone(),
        None => format!("the server answered with an error: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_transport_failure_is_not_told_as_the_servers_answer() {
        let failed = LinkFailure::default().to_error("http", "could not sign in");
        assert_eq!(
            ClientError::Rpc(failed).to_string(),
            "HTTP transport: could not sign in"
        );
        let answered = ErrorObject::new(-32602, "unknown tool");
        assert_eq!(
            ClientError::Rpc(answered).to_string(),
            "the server answered with an error: unknown tool (code -32602)"
        );
    }

    #[test]
    fn both_codes_of_a_missing_resource_are_read_as_one() {
        let error = |code, data| {
            let error = ErrorObject::new(code, "Resource not found");
            ClientError::Rpc(match data {
                Some(data) => error.with_data(data),
                None => error,
            })
        };
        assert!(error(-32602, Some(json!({"uri": "a:b"}))).is_resource_not_found());
        assert!(error(-32002, None).is_resource_not_found());
        assert!(!error(-32602, None).is_resource_not_found());
        assert!(!ClientError::Closed.is_resource_not_found());
    }
}
