//! How Redis failures reach the engine: as [`StoreError::Backend`], with a
//! message that names the server (its address, never its credentials) and
//! says whether it could be reached, or whether its TLS certificate was
//! refused.

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
        if certificate_refused(&error) {
            StoreError::Backend(format!(
                "the TLS certificate of Redis at {server} was refused ({doing}): {error}"
            ))
        } else if unreachable(&error) {
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

/// Whether rustls refused the server's certificate (or the server ours).
fn certificate_refused(error: &RedisError) -> bool {
    let text = error.to_string();
    text.contains("certificate") || text.contains("CertificateRequired")
}

/// Whether `error` says the server could not be reached, or a connection
/// to it broke.
pub(crate) fn unreachable(error: &RedisError) -> bool {
    error.is_io_error()
        || error.is_connection_refusal()
        || error.is_connection_dropped()
        || error.is_timeout()
}
