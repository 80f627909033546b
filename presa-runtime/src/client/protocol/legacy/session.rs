//! The legacy session a client keeps with its server: opening it, and
//! sending a request within it. What the client keeps of it is the
//! connection's (`connection::LegacyServer`); this is what the protocol
//! does with it.
//!
//! A legacy request carries its params alone: `initialize` fixed the rest
//! for the session. The rules, in order:
//!
//! 1. the session is opened once, when the era is settled (see
//!    `settlement`), and lasts as long as the client; the connection
//!    holds the legacy server from the moment the server accepts
//!    `initialize`, so that its requests are answered through the
//!    handlers from `notifications/initialized` on;
//! 2. when the server has forgotten the session (HTTP `404`), the client
//!    opens a new one, once for all the requests that learnt it together,
//!    and sends the request once more;
//! 3. what the client learnt of the server's tools outlives any one
//!    session (see `connection::legacy::tool_tasks`).
//!
//! [`fall_back`] is where the settlement hands over when the server is not
//! modern: it opens the first session.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use super::handshake::{Handshake, open_legacy_session};
use crate::client::connection::{Connection, LegacyServer, ServerEra, Waiting};
use crate::client::error::ClientError;
use crate::client::input::Handlers;
use crate::client::link::LinkFailure;
use crate::client::protocol::versions::Versions;
use crate::wire::{ErrorObject, RequestMeta};

/// What opening a session takes: what `initialize` declares, the versions
/// it may agree on, and how the handshake's requests wait.
#[derive(Clone, Copy)]
pub(crate) struct Opening<'a> {
    /// What `initialize` declares.
    pub meta: &'a RequestMeta,
    pub versions: &'a Versions,
    /// How the handshake's requests wait.
    pub waiting: Waiting,
}

/// Sends a request in the session of `server`, opening a new session once
/// if the server forgot the one it was sent in (rule 2).
pub(crate) async fn request<P: Serialize + ?Sized>(
    connection: &Connection,
    server: &LegacyServer,
    opening: Opening<'_>,
    method: &str,
    params: &P,
    waiting: Waiting,
) -> Result<Value, ClientError> {
    let sent_in = server.current().generation;
    let send = || connection.request(method, params, None, waiting);
    match send().await {
        Err(ClientError::Rpc(e)) if is_session_expired(&e) => {
            renew(connection, server, opening, sent_in).await?;
            send().await
        }
        other => other,
    }
}

/// Opens a session to replace session `expired`, unless another request
/// already did. Dropping the request that renews abandons the handshake;
/// the next request to find the session gone starts over.
async fn renew(
    connection: &Connection,
    server: &LegacyServer,
    opening: Opening<'_>,
    expired: u64,
) -> Result<(), ClientError> {
    let _renewing = server.renewal.lock().await;
    if server.current().generation != expired {
        return Ok(());
    }
    let why = "the server ended the previous session";
    let Opening {
        meta,
        versions,
        waiting,
    } = opening;
    let result = open_legacy_session(connection, meta, versions, waiting, why).await?;
    server.reopened(result);
    Ok(())
}

fn is_session_expired(error: &ErrorObject) -> bool {
    LinkFailure::read(error).is_some_and(|f| f.session_expired)
}

/// What falling back came to: a legacy server with its session open, or a
/// modern server after all.
pub(crate) enum Fallback {
    /// The session opened; the connection holds the server.
    Session(Arc<LegacyServer>),
    /// `initialize` was refused naming this modern version of ours.
    Modern(String),
}

/// Falls back to the legacy era, the server being legacy because of
/// `why`: without a legacy version to speak, that is
/// [`ClientError::LegacyServer`]; else the client opens a session, and
/// answers the server's own requests through `handlers` once the server
/// accepts `initialize` (rule 1).
pub(crate) async fn fall_back(
    connection: Arc<Connection>,
    meta: Arc<RequestMeta>,
    versions: Versions,
    waiting: Waiting,
    why: String,
    handlers: Arc<Handlers>,
) -> Result<Fallback, ClientError> {
    if versions.legacy.is_empty() {
        return Err(ClientError::LegacyServer {
            reason: why,
            ours: versions.all(),
        });
    }
    let handshake = Handshake::new(&connection, &meta, &versions, waiting, &why);
    let result = match handshake.initialize().await {
        Ok(result) => result,
        Err(ClientError::UnsupportedVersion { supported, .. })
            if let Some(version) = versions.shared_modern(&supported) =>
        {
            tracing::debug!(
                version,
                "initialize was refused by a modern server; modern it is"
            );
            return Ok(Fallback::Modern(version.clone()));
        }
        Err(error) => return Err(error),
    };
    let legacy = ServerEra::Legacy(Arc::new(LegacyServer::new(result, handlers)));
    let server = match connection.settle(legacy) {
        ServerEra::Legacy(server) => Arc::clone(server),
        // Settled before this handshake ended; what settled holds.
        ServerEra::Modern { version, .. } => return Ok(Fallback::Modern(version.clone())),
    };
    handshake.finish(&server.current().server).await?;
    tracing::debug!(
        why,
        version = server.current().server.protocol_version,
        "the server speaks legacy MCP; a session is open"
    );
    Ok(Fallback::Session(server))
}
