//! How Redis failures reach the engine: as [`StoreError::Backend`] from
//! the task store and [`SessionStoreError`] from the session store, with a
//! message that names the server (its address, never its credentials) and
//! says whether it could be reached, or whether its TLS certificate was
//! refused.

#[cfg(feature = "legacy-sessions")]
use presa_runtime::server::http::SessionStoreError;
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

    /// What went wrong `doing` something, for the task store.
    pub(crate) fn redis(&self, doing: &str, error: RedisError) -> StoreError {
        StoreError::Backend(self.describe(doing, &error))
    }

    /// What went wrong `doing` something, for the session store.
    #[cfg(feature = "legacy-sessions")]
    pub(crate) fn session(&self, doing: &str, error: RedisError) -> SessionStoreError {
        SessionStoreError::new(self.describe(doing, &error))
    }

    fn describe(&self, doing: &str, error: &RedisError) -> String {
        let server = &self.server;
        if certificate_refused(error) {
            format!("the TLS certificate of Redis at {server} was refused ({doing}): {error}")
        } else if unreachable(error) {
            format!("Redis at {server} is unreachable ({doing}): {error}")
        } else {
            format!("Redis at {server} failed ({doing}): {error}")
        }
    }

    /// A stored session record that no longer reads as one. The message
    /// leaves the session's id out: it is what lets a client in.
    #[cfg(feature = "legacy-sessions")]
    pub(crate) fn corrupt_session(&self, error: serde_json::Error) -> SessionStoreError {
        let server = &self.server;
        SessionStoreError::new(format!(
            "a legacy session's record in Redis at {server} does not parse: {error}"
        ))
    }

    /// A session record that does not encode as JSON.
    #[cfg(feature = "legacy-sessions")]
    pub(crate) fn unencodable_session(&self, error: serde_json::Error) -> SessionStoreError {
        SessionStoreError::new(format!(
            "a legacy session's record could not be written as JSON: {error}"
        ))
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
