//! The legacy session a client keeps with its server: what the server
//! said when it opened, and sending a request within it.
//!
//! A legacy request carries its params alone: `initialize` fixed the rest
//! for the session. The rules, in order:
//!
//! 1. the session is opened once, when the era is settled (see
//!    `settlement`), and lasts as long as the client;
//! 2. when the server has forgotten the session (HTTP `404`), the client
//!    opens a new one, once for all the requests that learnt it together,
//!    and sends the request once more;
//! 3. what the client learnt of the server's tools outlives any one
//!    session (see `tools`).
//!
//! [`fall_back`] is where the settlement hands over when the server is not
//! modern: it opens the first session.

use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::Value;

use super::handshake::open_legacy_session;
use super::tool_tasks::ToolTasks;
use crate::client::connection::{Connection, Waiting, peer};
use crate::client::error::ClientError;
use crate::client::link::LinkFailure;
use crate::client::protocol::versions::Versions;
use crate::util::lock;
use crate::wire::legacy::lifecycle::InitializeResult;
use crate::wire::{ErrorObject, RequestMeta};

/// A legacy server, as the client speaks to it: the session, and what
/// opening it anew takes.
pub(crate) struct LegacySession {
    session: Mutex<Arc<Session>>,
    /// Held while a forgotten session is opened anew (rule 2).
    renewal: tokio::sync::Mutex<()>,
    /// Which tools the server runs as tasks (rule 3).
    pub tool_tasks: ToolTasks,
    connection: Arc<Connection>,
    /// What `initialize` declares.
    meta: Arc<RequestMeta>,
    versions: Versions,
    /// How the handshake's requests wait.
    waiting: Waiting,
}

/// One legacy session: what the server said when it opened.
#[derive(Debug)]
pub(crate) struct Session {
    /// Counts the sessions of this client, to open each anew only once.
    generation: u64,
    /// The server's `InitializeResult`.
    pub server: InitializeResult,
}

/// What a [`LegacySession`] is made of: the session the settlement opened,
/// and what opening it anew takes.
pub(crate) struct Opened {
    /// The server's answer to `initialize`.
    pub server: InitializeResult,
    pub connection: Arc<Connection>,
    /// What `initialize` declares.
    pub meta: Arc<RequestMeta>,
    pub versions: Versions,
    /// How the handshake's requests wait.
    pub waiting: Waiting,
}

impl LegacySession {
    /// The session the settlement opened (rule 1).
    pub fn new(opened: Opened) -> Self {
        LegacySession {
            session: Mutex::new(Arc::new(Session {
                generation: 0,
                server: opened.server,
            })),
            renewal: tokio::sync::Mutex::new(()),
            tool_tasks: ToolTasks::default(),
            connection: opened.connection,
            meta: opened.meta,
            versions: opened.versions,
            waiting: opened.waiting,
        }
    }

    /// The session open now.
    pub fn current(&self) -> Arc<Session> {
        Arc::clone(&lock(&self.session))
    }

    /// Sends a request in the session, opening a new session once if the
    /// server forgot the one it was sent in (rule 2).
    pub async fn request<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
        waiting: Waiting,
    ) -> Result<Value, ClientError> {
        let sent_in = self.current().generation;
        let send = || self.connection.request(method, params, None, waiting);
        match send().await {
            Err(ClientError::Rpc(e)) if is_session_expired(&e) => {
                self.renew(sent_in).await?;
                send().await
            }
            other => other,
        }
    }

    /// Opens a session to replace session `expired`, unless another
    /// request already did. Dropping the request that renews abandons the
    /// handshake; the next request to find the session gone starts over.
    async fn renew(&self, expired: u64) -> Result<(), ClientError> {
        let _renewing = self.renewal.lock().await;
        if self.current().generation != expired {
            return Ok(());
        }
        let why = "the server ended the previous session";
        let server = open_legacy_session(
            &self.connection,
            &self.meta,
            &self.versions,
            self.waiting,
            why,
        )
        .await?;
        *lock(&self.session) = Arc::new(Session {
            generation: expired + 1,
            server,
        });
        Ok(())
    }
}

fn is_session_expired(error: &ErrorObject) -> bool {
    LinkFailure::read(error).is_some_and(|f| f.session_expired)
}

/// What falling back came to: a session, or a modern server after all.
pub(crate) enum Fallback {
    /// The session opened.
    Session(LegacySession),
    /// `initialize` was refused naming this modern version of ours.
    Modern(String),
}

/// Falls back to the legacy era, the server being legacy because of
/// `why`: without a legacy version to speak, that is
/// [`ClientError::LegacyServer`]; else the client answers the server's own
/// requests from now on, and opens a session.
pub(crate) async fn fall_back(
    connection: Arc<Connection>,
    meta: Arc<RequestMeta>,
    versions: Versions,
    waiting: Waiting,
    why: String,
) -> Result<Fallback, ClientError> {
    if versions.legacy.is_empty() {
        return Err(ClientError::LegacyServer {
            reason: why,
            ours: versions.all(),
        });
    }
    if let Some(peer) = peer::of(&connection) {
        peer.answerer.open();
    }
    let opened = open_legacy_session(&connection, &meta, &versions, waiting, &why).await;
    match opened {
        Ok(server) => {
            tracing::debug!(
                why,
                version = server.protocol_version,
                "the server speaks legacy MCP; a session is open"
            );
            Ok(Fallback::Session(LegacySession::new(Opened {
                server,
                connection,
                meta,
                versions,
                waiting,
            })))
        }
        Err(ClientError::UnsupportedVersion { supported, .. })
            if let Some(version) = versions.shared_modern(&supported) =>
        {
            tracing::debug!(
                version,
                "initialize was refused by a modern server; modern it is"
            );
            Ok(Fallback::Modern(version.clone()))
        }
        Err(error) => Err(error),
    }
}
