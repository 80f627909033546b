//! How the client speaks to its server: the era, settled once; the version
//! agreed on; and the shape each request takes in that era.
//!
//! Every request of the client passes through [`Protocol`]. The rules, in
//! order:
//!
//! 1. the first request settles the era (see `probe` for how) on a tokio
//!    task of its own, which every request arriving meanwhile waits for.
//!    Dropping a request therefore never abandons a probe or a handshake
//!    half-way, and only one of each is ever under way. A settlement that
//!    fails settles nothing, and the next request tries again;
//! 2. in the modern era a request carries the client's `_meta`; on
//!    `-32022` the client adopts a version both sides speak and sends the
//!    request once more;
//! 3. a server that refuses `initialize` naming a modern version the
//!    client speaks is modern after all (it was slower to answer the probe
//!    than the probe timeout): the client adopts that version rather than
//!    fail;
//! 4. in the legacy era a request carries its params alone: `initialize`
//!    fixed the rest for the session. When the server has forgotten the
//!    session (HTTP `404`), the client opens a new one, once for all the
//!    requests that learnt it together, and sends the request once more.

use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use serde::Serialize;
use serde_json::{Map, Value};

use super::connection::{Connection, Shape, Waiting};
use super::era::{DEFAULT_PROBE_TIMEOUT, Era, Versions};
use super::error::ClientError;
use super::handshake::{Opening, open_session};
use super::link_error::LinkFailure;
use super::probe::{ProbeAnswer, read_probe, supported_versions};
use crate::util::lock;
use crate::wire::legacy::lifecycle::InitializeResult;
use crate::wire::{DiscoverResult, ErrorObject, Method, RequestMeta, codes};

/// How the era is settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Detection {
    /// Without asking the server.
    Forced(Era),
    /// By probing, waiting this long for an answer.
    Probe(Duration),
}

impl Default for Detection {
    fn default() -> Self {
        Detection::Probe(DEFAULT_PROBE_TIMEOUT)
    }
}

/// How a [`Protocol`] is set up; the builder's choices.
pub(super) struct ProtocolSettings {
    /// The `_meta` of every modern request, with the preferred modern
    /// version; in a legacy session, what `initialize` declares.
    pub meta: RequestMeta,
    /// The versions the client speaks.
    pub versions: Versions,
    /// How long a request may wait for its response.
    pub request_timeout: Option<Duration>,
    /// How the era is settled.
    pub detection: Detection,
}

/// The server as the client speaks to it; shared by every clone of a
/// client.
pub(super) struct Protocol {
    connection: Arc<Connection>,
    /// The `_meta` of every modern request; replaced when the version
    /// changes.
    meta: Mutex<Arc<RequestMeta>>,
    versions: Versions,
    request_timeout: Option<Duration>,
    detection: Detection,
    settled: OnceLock<Settled>,
    /// The settlement under way, if any (rule 1).
    settling: Mutex<Option<Settling>>,
}

/// A settlement under way, which any number of requests may wait for.
type Settling = Shared<BoxFuture<'static, Result<(), ClientError>>>;

/// The era the client settled on, with what it keeps of it.
enum Settled {
    Modern,
    Legacy(Legacy),
}

/// A legacy server: why the client thinks so, and the session it has.
pub(super) struct Legacy {
    /// What made the client fall back, for the errors that need it.
    why: String,
    session: Mutex<Arc<Session>>,
    /// Held while a forgotten session is opened anew (rule 4).
    renewal: tokio::sync::Mutex<()>,
}

/// One legacy session: what the server said when it opened.
#[derive(Debug)]
pub(super) struct Session {
    /// Counts the sessions of this client, to open each anew only once.
    generation: u64,
    /// The server's `InitializeResult`.
    pub server: InitializeResult,
}

impl Protocol {
    /// The protocol over `connection`; a forced modern era is settled at
    /// once.
    pub(super) fn new(connection: Connection, settings: ProtocolSettings) -> Protocol {
        let protocol = Protocol {
            connection: Arc::new(connection),
            meta: Mutex::new(Arc::new(settings.meta)),
            versions: settings.versions,
            request_timeout: settings.request_timeout,
            detection: settings.detection,
            settled: OnceLock::new(),
            settling: Mutex::new(None),
        };
        if protocol.detection == Detection::Forced(Era::Modern)
            && !protocol.versions.modern.is_empty()
        {
            let _ = protocol.settled.set(Settled::Modern);
        }
        protocol
    }

    /// The connection, for what streams and waits on its own.
    pub(super) fn connection(&self) -> &Arc<Connection> {
        &self.connection
    }

    /// The `_meta` a modern request carries now.
    pub(super) fn meta(&self) -> Arc<RequestMeta> {
        Arc::clone(&lock(&self.meta))
    }

    /// Whether the client declares `extension` (in a legacy session: would
    /// declare it, were the server modern).
    pub(super) fn declares(&self, extension: &str) -> bool {
        lock(&self.meta)
            .client_capabilities
            .has_extension(extension)
    }

    /// How a request waits by default: the request timeout, cancelling
    /// when given up.
    pub(super) fn waiting(&self) -> Waiting {
        Waiting {
            limit: self.request_timeout,
            cancels: true,
        }
    }

    /// The era of the server, settling it first if need be (rule 1).
    pub(super) async fn era(self: &Arc<Self>) -> Result<Era, ClientError> {
        Ok(match self.settled().await? {
            Settled::Modern => Era::Modern,
            Settled::Legacy(_) => Era::Legacy,
        })
    }

    /// The legacy session, once the era is settled legacy.
    pub(super) async fn legacy_session(
        self: &Arc<Self>,
    ) -> Result<Option<Arc<Session>>, ClientError> {
        Ok(match self.settled().await? {
            Settled::Modern => None,
            Settled::Legacy(legacy) => Some(legacy.current()),
        })
    }

    /// Sends a request in the server's era and returns its `result`,
    /// uninterpreted.
    pub(super) async fn request<P: Serialize + ?Sized>(
        self: &Arc<Self>,
        method: &str,
        params: &P,
    ) -> Result<Value, ClientError> {
        self.request_waiting(method, params, self.waiting()).await
    }

    /// [`request`](Self::request), waiting as `waiting` says.
    pub(super) async fn request_waiting<P: Serialize + ?Sized>(
        self: &Arc<Self>,
        method: &str,
        params: &P,
        waiting: Waiting,
    ) -> Result<Value, ClientError> {
        match self.settled().await? {
            Settled::Modern => {
                let connection = &self.connection;
                self.agreeing_on_version(|meta| async move {
                    connection
                        .request(method, params, Shape::Modern(&meta), waiting)
                        .await
                })
                .await
            }
            Settled::Legacy(legacy) => self.in_session(legacy, method, params, waiting).await,
        }
    }

    /// Runs `attempt` with the current `_meta`; when the server refuses the
    /// protocol version, adopts one both sides support and runs it once
    /// more (rule 2).
    pub(super) async fn agreeing_on_version<T, F, Fut>(&self, attempt: F) -> Result<T, ClientError>
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
    pub(super) async fn close(&self) -> std::io::Result<()> {
        self.connection.shut_down().await
    }

    async fn settled(self: &Arc<Self>) -> Result<&Settled, ClientError> {
        if let Some(settled) = self.settled.get() {
            return Ok(settled);
        }
        let attempt = self.settling();
        let outcome = attempt.clone().await;
        if outcome.is_err() {
            let mut slot = lock(&self.settling);
            if slot.as_ref().is_some_and(|a| a.ptr_eq(&attempt)) {
                *slot = None;
            }
        }
        outcome?;
        self.settled.get().ok_or(ClientError::Closed)
    }

    /// The settlement under way, started if none is.
    fn settling(self: &Arc<Self>) -> Settling {
        let mut slot = lock(&self.settling);
        if let Some(attempt) = slot.as_ref() {
            return attempt.clone();
        }
        let protocol = Arc::clone(self);
        let task = tokio::spawn(async move { protocol.settle().await });
        let attempt = async move { task.await.unwrap_or(Err(ClientError::Closed)) }
            .boxed()
            .shared();
        *slot = Some(attempt.clone());
        attempt
    }

    async fn settle(&self) -> Result<(), ClientError> {
        let detection = match (self.detection, self.versions.only_era()) {
            (Detection::Probe(_), Some(Era::Legacy)) => Detection::Forced(Era::Legacy),
            (detection, _) => detection,
        };
        let settled = match detection {
            Detection::Forced(Era::Modern) if self.versions.modern.is_empty() => {
                return Err(ClientError::InvalidArguments(
                    "the client is set to speak the modern era, but its protocol versions \
                     list no modern version"
                        .into(),
                ));
            }
            Detection::Forced(Era::Modern) => Settled::Modern,
            Detection::Forced(Era::Legacy) => {
                self.fall_back("the client is set to speak only the legacy era".into())
                    .await?
            }
            Detection::Probe(limit) => self.probe(limit).await?,
        };
        if let Settled::Legacy(legacy) = &settled {
            tracing::debug!(
                why = legacy.why,
                version = legacy.current().server.protocol_version,
                "the server speaks legacy MCP; a session is open"
            );
        }
        let _ = self.settled.set(settled);
        Ok(())
    }

    /// Probes with `server/discover`, waiting `limit` for the answer.
    async fn probe(&self, limit: Duration) -> Result<Settled, ClientError> {
        let waiting = Waiting {
            limit: Some(limit),
            cancels: false,
        };
        let meta = self.meta();
        let method = Method::ServerDiscover.as_str();
        let outcome = self
            .connection
            .request(method, &Map::new(), Shape::Modern(&meta), waiting)
            .await;
        match read_probe(outcome)? {
            ProbeAnswer::Discovered(discovered) => self.adopt_discovered(&discovered).await,
            ProbeAnswer::Refused(error) => {
                if error.code == codes::UNSUPPORTED_PROTOCOL_VERSION {
                    self.adopt_version(&error)?;
                }
                Ok(Settled::Modern)
            }
            ProbeAnswer::Legacy(why) => self.fall_back(why).await,
        }
    }

    /// Picks a version among those a `DiscoverResult` lists.
    async fn adopt_discovered(&self, discovered: &DiscoverResult) -> Result<Settled, ClientError> {
        let theirs = &discovered.supported_versions;
        if let Some(version) = self.versions.shared_modern(theirs) {
            Arc::make_mut(&mut lock(&self.meta)).protocol_version = version.clone();
            return Ok(Settled::Modern);
        }
        if self.versions.shares_legacy(theirs) {
            let why = format!("it speaks no modern version this client speaks ({theirs:?})");
            return self.fall_back(why).await;
        }
        Err(ClientError::UnsupportedVersion {
            supported: theirs.clone(),
            ours: self.versions.all(),
        })
    }

    /// Switches to the preferred version among those the server's `-32022`
    /// error lists. That may be the version just refused: a server (or a
    /// gateway in front of it) may refuse a first request and list the
    /// very version it carried, and one retry with it is what the spec
    /// asks. The callers retry only once, so this cannot loop.
    fn adopt_version(&self, error: &ErrorObject) -> Result<(), ClientError> {
        let supported = supported_versions(error);
        match self.versions.shared_modern(&supported) {
            Some(version) => {
                Arc::make_mut(&mut lock(&self.meta)).protocol_version = version.clone();
                Ok(())
            }
            None => Err(ClientError::UnsupportedVersion {
                supported,
                ours: self.versions.all(),
            }),
        }
    }

    /// Opens a legacy session, the server being legacy because of `why`.
    async fn fall_back(&self, why: String) -> Result<Settled, ClientError> {
        if self.versions.legacy.is_empty() {
            return Err(ClientError::LegacyServer {
                reason: why,
                ours: self.versions.all(),
            });
        }
        self.connection.answer_server_requests();
        let server = match self.open_session(&why).await {
            Ok(server) => server,
            Err(ClientError::UnsupportedVersion { supported, .. })
                if let Some(version) = self.versions.shared_modern(&supported) =>
            {
                tracing::debug!(
                    version,
                    "initialize was refused by a modern server; modern it is"
                );
                Arc::make_mut(&mut lock(&self.meta)).protocol_version = version.clone();
                return Ok(Settled::Modern);
            }
            Err(error) => return Err(error),
        };
        Ok(Settled::Legacy(Legacy {
            why,
            session: Mutex::new(Arc::new(Session {
                generation: 0,
                server,
            })),
            renewal: tokio::sync::Mutex::new(()),
        }))
    }

    async fn open_session(&self, why: &str) -> Result<InitializeResult, ClientError> {
        let meta = self.meta();
        let opening = Opening {
            declared: &meta,
            versions: &self.versions.legacy,
            waiting: self.waiting(),
        };
        open_session(&self.connection, &opening)
            .await
            .map_err(|cause| match cause {
                ClientError::Closed | ClientError::UnsupportedVersion { .. } => cause,
                cause => ClientError::SessionFailed {
                    reason: why.to_owned(),
                    cause: Box::new(cause),
                },
            })
    }

    /// Sends a request in the legacy session, opening a new session once
    /// if the server forgot the one it was sent in (rule 4).
    async fn in_session<P: Serialize + ?Sized>(
        &self,
        legacy: &Legacy,
        method: &str,
        params: &P,
        waiting: Waiting,
    ) -> Result<Value, ClientError> {
        let sent_in = legacy.current().generation;
        let send = || {
            self.connection
                .request(method, params, Shape::Legacy, waiting)
        };
        match send().await {
            Err(ClientError::Rpc(e)) if is_session_expired(&e) => {
                self.renew(legacy, sent_in).await?;
                send().await
            }
            other => other,
        }
    }

    /// Opens a session to replace session `expired`, unless another
    /// request already did. Dropping the request that renews abandons the
    /// handshake; the next request to find the session gone starts over.
    async fn renew(&self, legacy: &Legacy, expired: u64) -> Result<(), ClientError> {
        let _renewing = legacy.renewal.lock().await;
        if legacy.current().generation != expired {
            return Ok(());
        }
        let server = self
            .open_session("the server ended the previous session")
            .await?;
        *lock(&legacy.session) = Arc::new(Session {
            generation: expired + 1,
            server,
        });
        Ok(())
    }
}

impl Legacy {
    fn current(&self) -> Arc<Session> {
        Arc::clone(&lock(&self.session))
    }
}

fn is_session_expired(error: &ErrorObject) -> bool {
    LinkFailure::read(error).is_some_and(|f| f.session_expired)
}
