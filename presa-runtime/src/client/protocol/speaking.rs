//! How the client speaks to its server: the era, settled once; the version
//! agreed on; and the shape each request takes in that era.
//!
//! Every request of the client passes through [`Protocol`]. The rules, in
//! order:
//!
//! 1. the first request settles the era (see `probe` and `settlement`) on
//!    a tokio task of its own, which every request arriving meanwhile waits
//!    for. Dropping a request therefore never abandons a probe or a
//!    handshake half-way, and only one of each is ever under way; dropping
//!    the last clone of the client drops the settlement too. A settlement
//!    that fails settles nothing, and the next request tries again;
//! 2. in the modern era a request carries the client's `_meta`; on
//!    `-32022` the client adopts a version both sides speak and sends the
//!    request once more;
//! 3. in the legacy era a request goes within the session the settlement
//!    opened (see `legacy::session`).
//!
//! What the era settled is the connection's to hold (`connection::era`):
//! the settlement hands it over, and a request reads it there once no
//! settlement is under way.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use serde::Serialize;
use serde_json::Value;
use tokio::task::AbortHandle;

use super::legacy::{self, Opening};
use super::settlement::{Attempt, Detection, adopt_listed};
use super::versions::Versions;
use crate::client::connection::{Connection, ServerEra, Waiting};
use crate::client::era::Era;
use crate::client::error::ClientError;
use crate::client::input::Handlers;
use crate::util::lock;
use crate::wire::{ErrorObject, RequestMeta, codes};

/// How a [`Protocol`] is set up; the builder's choices.
pub(crate) struct ProtocolSettings {
    /// The `_meta` of every modern request, with the preferred modern
    /// version; in a legacy session, what `initialize` declares.
    pub meta: RequestMeta,
    /// The versions the client speaks.
    pub versions: Versions,
    /// How long a request may wait for its response.
    pub request_timeout: Option<Duration>,
    /// How the era is settled.
    pub detection: Detection,
    /// What answers a legacy server's own requests.
    pub handlers: Arc<Handlers>,
}

/// The server as the client speaks to it; shared by every clone of a
/// client.
pub(crate) struct Protocol {
    connection: Arc<Connection>,
    /// The `_meta` of every modern request; replaced when the version
    /// changes, by a settlement's task too.
    meta: Arc<Mutex<Arc<RequestMeta>>>,
    versions: Versions,
    request_timeout: Option<Duration>,
    detection: Detection,
    handlers: Arc<Handlers>,
    /// The settlement under way or done, if any (rule 1).
    settling: Mutex<Option<Settling>>,
}

/// What a settlement comes to, which any number of requests may wait for.
type Outcome = Shared<BoxFuture<'static, Result<ServerEra, ClientError>>>;

/// A settlement under way, or done, and the task that runs it.
struct Settling {
    outcome: Outcome,
    task: AbortHandle,
}

/// Where the era stands, for a request about to wait for it.
enum Progress {
    /// Settled, with no settlement under way.
    Settled(ServerEra),
    /// A settlement is under way, or done.
    Settling(Outcome),
}

impl Protocol {
    /// The protocol over `connection`; a forced modern era is settled at
    /// once.
    pub(crate) fn new(connection: Connection, settings: ProtocolSettings) -> Protocol {
        let protocol = Protocol {
            connection: Arc::new(connection),
            meta: Arc::new(Mutex::new(Arc::new(settings.meta))),
            versions: settings.versions,
            request_timeout: settings.request_timeout,
            detection: settings.detection,
            handlers: settings.handlers,
            settling: Mutex::new(None),
        };
        if protocol.detection == Detection::Forced(Era::Modern)
            && let Some(version) = protocol.versions.modern.first()
        {
            let version = version.clone();
            protocol.connection.settle(ServerEra::Modern {
                version,
                discovered: None,
            });
        }
        protocol
    }

    /// The connection, for what streams and waits on its own.
    pub(crate) fn connection(&self) -> &Arc<Connection> {
        &self.connection
    }

    /// Asks for log messages at `level` and above on every request from
    /// now on, and in any legacy session opened again.
    pub(crate) fn set_log_level(&self, level: crate::wire::LoggingLevel) {
        Arc::make_mut(&mut lock(&self.meta)).log_level = Some(level);
    }

    /// The `_meta` a modern request carries now.
    pub(crate) fn meta(&self) -> Arc<RequestMeta> {
        Arc::clone(&lock(&self.meta))
    }

    /// Whether the client declares `extension` (in a legacy session: would
    /// declare it, were the server modern).
    pub(crate) fn declares(&self, extension: &str) -> bool {
        lock(&self.meta)
            .client_capabilities
            .has_extension(extension)
    }

    /// How a request waits by default: the request timeout, cancelling
    /// when given up.
    pub(crate) fn waiting(&self) -> Waiting {
        Waiting {
            limit: self.request_timeout,
            cancels: true,
        }
    }

    /// Sends a request in the server's era and returns its `result`,
    /// uninterpreted.
    pub(crate) async fn request<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<Value, ClientError> {
        self.request_waiting(method, params, self.waiting()).await
    }

    /// [`request`](Self::request), waiting as `waiting` says.
    pub(crate) async fn request_waiting<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
        waiting: Waiting,
    ) -> Result<Value, ClientError> {
        let connection = &self.connection;
        match self.settled().await? {
            ServerEra::Modern { .. } => {
                self.agreeing_on_version(|meta| async move {
                    connection
                        .request(method, params, Some(&meta), waiting)
                        .await
                })
                .await
            }
            ServerEra::Legacy(server) => {
                let meta = self.meta();
                let opening = Opening {
                    meta: &meta,
                    versions: &self.versions,
                    waiting: self.waiting(),
                };
                legacy::request(connection, &server, opening, method, params, waiting).await
            }
        }
    }

    /// Runs `attempt` with the current `_meta`; when the server refuses the
    /// protocol version, adopts one both sides support and runs it once
    /// more (rule 2).
    pub(crate) async fn agreeing_on_version<T, F, Fut>(&self, attempt: F) -> Result<T, ClientError>
    where
        F: Fn(Arc<RequestMeta>) -> Fut,
        Fut: Future<Output = Result<T, ClientError>>,
    {
        match attempt(self.meta()).await {
            Err(ClientError::Rpc(e)) if e.code == codes::UNSUPPORTED_PROTOCOL_VERSION => {
                self.adopt_version(&e)?;
                attempt(self.meta()).await
            }
            other => other,
        }
    }

    /// Ends what the transport holds open (see [`Connection::shut_down`]).
    pub(crate) async fn close(&self) -> std::io::Result<()> {
        self.connection.shut_down().await
    }

    /// The era of the server and what the client keeps of it, settling it
    /// first if need be (rule 1).
    pub(crate) async fn settled(&self) -> Result<ServerEra, ClientError> {
        let outcome = match self.progress() {
            Progress::Settled(era) => return Ok(era),
            Progress::Settling(outcome) => outcome,
        };
        let settled = outcome.clone().await;
        if settled.is_err() {
            let mut slot = lock(&self.settling);
            if slot.as_ref().is_some_and(|s| s.outcome.ptr_eq(&outcome)) {
                *slot = None;
            }
        }
        settled
    }

    /// Where the era stands: the settlement under way or done, else the
    /// era the connection holds, else a settlement started now. A legacy
    /// settlement hands the connection its era before its handshake ends,
    /// so the settlement comes first.
    fn progress(&self) -> Progress {
        let mut slot = lock(&self.settling);
        if let Some(settling) = slot.as_ref() {
            return Progress::Settling(settling.outcome.clone());
        }
        if let Some(era) = self.connection.era() {
            return Progress::Settled(era.clone());
        }
        let attempt = Attempt {
            connection: Arc::clone(&self.connection),
            meta: self.meta(),
            versions: self.versions.clone(),
            detection: self.detection,
            waiting: self.waiting(),
            handlers: Arc::clone(&self.handlers),
        };
        let task = tokio::spawn(settle(attempt, Arc::clone(&self.meta)));
        let abort = task.abort_handle();
        let outcome = async move { task.await.unwrap_or(Err(ClientError::Closed)) }
            .boxed()
            .shared();
        *slot = Some(Settling {
            outcome: outcome.clone(),
            task: abort,
        });
        Progress::Settling(outcome)
    }

    /// Switches to the preferred version among those the server's `-32022`
    /// error lists. The callers retry only once, so this cannot loop.
    fn adopt_version(&self, error: &ErrorObject) -> Result<(), ClientError> {
        let version = adopt_listed(&self.versions, error)?;
        Arc::make_mut(&mut lock(&self.meta)).protocol_version = version;
        Ok(())
    }
}

/// Runs `attempt` and hands the connection the era it settled; a modern
/// era's version is the one requests carry from now on, in `meta`.
async fn settle(
    attempt: Attempt,
    meta: Arc<Mutex<Arc<RequestMeta>>>,
) -> Result<ServerEra, ClientError> {
    let connection = Arc::clone(&attempt.connection);
    let era = attempt.settle().await?;
    if let ServerEra::Modern { version, .. } = &era {
        Arc::make_mut(&mut lock(&meta)).protocol_version = version.clone();
    }
    Ok(connection.settle(era).clone())
}

impl Drop for Protocol {
    /// The last clone of the client is gone: a settlement under way has
    /// nobody left to serve, and its task would otherwise keep the
    /// connection open until the server answers.
    fn drop(&mut self) {
        if let Some(settling) = lock(&self.settling).take() {
            settling.task.abort();
        }
    }
}
