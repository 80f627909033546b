//! How Redis failures reach the engine: as [`StoreError::Backend`], with a
//! message that names the server and says whether it could be reached.

use presa_runtime::server::tasks::store::StoreError;
use redis::RedisError;

/// Turns Redis errors into store errors that name the server.
#[derive(Debug, Clone)]
pub(crate) struct Failures {
    /// The server's address, without credentials.
    server: String,
}

impl Failures {
    /// Errors about the server at `server`.
    pub(crate) fn new(server: String) -> Self {
        Failures { server }
    }

    /// What went wrong `doing` something.
    pub(crate) fn redis(&self, doing: &str, error: RedisError) -> StoreError {
        let server = &self.server;
        if unreachable(&error) {
            StoreError::Backend(format!(
                "Redis at {server} is unreachable ({doing}): {error}"
            ))
        } else {
            StoreError::Backend(format!("Redis at {server} failed ({doing}): {error}"))
        }
    }

    /// A stored record that no longer reads as one.
    pub(crate) fn corrupt(&self, id: &str, error: serde_json::Error) -> StoreError {
        let server = &self.server;
        StoreError::Backend(format!(
            "the record of task {id} in Redis at {server} does not parse: {error}"
        ))
    }

    /// A script answer this crate never sends.
    pub(crate) fn unexpected(&self, doing: &str, answer: &str) -> StoreError {
        let server = &self.server;
        StoreError::Backend(format!("Redis at {server} answered {answer:?} ({doing})"))
    }
}

fn unreachable(error: &RedisError) -> bool {
    error.is_io_error()
        || error.is_connection_refusal()
        || error.is_connection_dropped()
        || error.is_timeout()
}
