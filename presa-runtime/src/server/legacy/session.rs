//! [`LegacySession`]: what a legacy client declared in `initialize`, and
//! how `initialize` opens a session.
//!
//! On a stdio or in-process connection, a session is the era of the
//! requests read after its `initialize` (`RequestEra::Legacy`), by these
//! rules, in order:
//!
//! 1. a connection is modern until the client sends `initialize` (without
//!    the modern `_meta`, which would make it a modern request for a
//!    method that does not exist): that request is answered at once,
//!    before the next frame is read, and opens the session
//!    ([`Server::open_session`]), which serves every request read after
//!    it (`Server::handle_legacy`). A request's era is decided when it
//!    is read: one read before the `initialize` is served modern even when
//!    it waits for a slot until after it;
//! 2. the session's own messages (list changes, the requests of its
//!    tasks, cancellations of requests it no longer needs) go through a
//!    queue of their own ([`SESSION_QUEUE`]), written like any other
//!    message, for as long as the connection lives;
//! 3. a response from the client goes to the request of the server's own
//!    that waits for it ([`PeerLink::resolve`]); one to no such request is
//!    logged and dropped;
//! 4. a request of the server's own counts as sent once the transport has
//!    taken it, and one withdrawn before that is not written at all
//!    ([`PeerLink::track_delivery`]);
//! 5. while a request of the server's waits for the client's answer, a
//!    full connection reads on (the exception to the connection's rule
//!    3): that answer comes on this stream, behind whatever the client
//!    sent first, and what it would free may be the very room the
//!    connection waits for. So the connection acts on responses and
//!    notifications as ever, and answers each request it has no room for
//!    with `-31001` at once (it holds nothing, and a peer that does not
//!    read those answers stops the reading by the connection's rule 5);
//! 6. at the end of the input no answer can come any more: every question
//!    fails at once ([`PeerLink::close`]), and the handlers end instead of
//!    waiting out the drain period.
//!
//! On HTTP, the endpoint keeps each session under its `Mcp-Session-Id`
//! (`http::legacy`).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use tokio::sync::mpsc;

use super::feed;
use super::shared::{
    ChangeFailed, SessionChange, SessionChangeRefused, SessionRecord, SharedSessions,
};
use super::status;
use crate::server::caller::Caller;
use crate::server::input::legacy::peer::{MAX_OUTBOUND, PeerLink};
use crate::server::request::reply::{
    invalid_params, invalid_request, parse_params, respond, to_value,
};
use crate::server::router::Server;
use crate::util::lock;
use crate::wire::legacy::lifecycle::{
    InitializeParams, InitializeResult, LegacyServerCapabilities, ServerTasksCapability,
};
use crate::wire::legacy::{LEGACY_VERSIONS, negotiate_version};
use crate::wire::{
    ClientCapabilities, ErrorObject, Implementation, LoggingLevel, Message, Request, RequestMeta,
    Response, strict,
};

/// How many messages the session's own queue holds (list changes,
/// cancellations, requests of tasks) while the transport writes.
pub(crate) const SESSION_QUEUE: usize = 64;

/// What a legacy client declared in `initialize`, and what its session
/// has set since.
pub(crate) struct LegacySession {
    /// Unguessable: on HTTP it is the `Mcp-Session-Id`.
    id: String,
    /// Who speaks in the session; an anonymous caller's tasks belong to it.
    caller: Caller,
    version: &'static str,
    capabilities: ClientCapabilities,
    client_info: Implementation,
    pub(super) log_level: Mutex<Option<LoggingLevel>>,
    pub(super) subscriptions: Arc<Mutex<BTreeSet<String>>>,
    /// The version of the shared record the log level and subscriptions
    /// were last taken from: a record of an older version, read before
    /// and taken after, changes nothing.
    synced: Mutex<u64>,
    peer: PeerLink,
    /// Tells the status of the session's tasks as it changes.
    pub(super) followers: status::TaskFollowers,
    /// Forwards the server's changes while the session lives; `None`
    /// when replicas share the session, whose changes the replica holding
    /// its standalone stream forwards ([`LegacySession::follow_offers`]).
    _feed: Option<feed::FeedGuard>,
    /// The store replicas share the session through, if they do.
    shared: Option<SharedSessions>,
}

impl LegacySession {
    /// The session's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Who speaks in the session.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// The negotiated protocol version.
    pub fn version(&self) -> &'static str {
        self.version
    }

    /// The route to the client, where its responses go.
    pub fn peer(&self) -> &PeerLink {
        &self.peer
    }

    #[cfg(feature = "http-server")]
    /// What replicas sharing the session keep of it.
    pub fn record(&self) -> SessionRecord {
        SessionRecord {
            id: self.id.clone(),
            principal: self.caller.principal(),
            protocol_version: self.version.to_owned(),
            client_capabilities: self.capabilities.clone(),
            client_info: self.client_info.clone(),
            log_level: *lock(&self.log_level),
            subscriptions: lock(&self.subscriptions).clone(),
            version: 0,
        }
    }

    /// Takes the log level and subscriptions of `record`, as another
    /// replica may have changed them, unless a newer record was taken.
    pub fn sync(&self, record: &SessionRecord) {
        let mut synced = lock(&self.synced);
        if record.version < *synced {
            return;
        }
        *synced = record.version;
        *lock(&self.log_level) = record.log_level;
        let mut subscriptions = lock(&self.subscriptions);
        if *subscriptions != record.subscriptions {
            *subscriptions = record.subscriptions.clone();
        }
    }

    /// Makes `change`: here, or in the shared store and then here.
    pub(super) async fn change(&self, change: SessionChange) -> Result<(), ErrorObject> {
        if let Some(shared) = &self.shared {
            let record = shared
                .change(&self.id, &change)
                .await
                .map_err(change_failed)?;
            self.sync(&record);
            return Ok(());
        }
        match change {
            SessionChange::SetLogLevel(level) => *lock(&self.log_level) = Some(level),
            SessionChange::Subscribe { uri, limit } => {
                let mut subscriptions = lock(&self.subscriptions);
                if subscriptions.len() >= limit && !subscriptions.contains(&uri) {
                    return Err(invalid_params(
                        SessionChangeRefused::TooManySubscriptions { limit }.to_string(),
                    ));
                }
                subscriptions.insert(uri);
            }
            SessionChange::Unsubscribe(uri) => {
                lock(&self.subscriptions).remove(&uri);
            }
        }
        Ok(())
    }

    #[cfg(feature = "http-server")]
    /// Forwards `changes` of what the server offers that concern the
    /// session to `queue`, until the guard is dropped: what the replica
    /// holding a shared session's standalone stream does.
    pub fn follow_offers(
        &self,
        changes: tokio::sync::broadcast::Receiver<crate::server::catalog::changes::Change>,
        queue: mpsc::Sender<Message>,
    ) -> feed::FeedGuard {
        feed::start(changes, queue, Arc::clone(&self.subscriptions))
    }

    /// The `_meta` a request of this session is served with: the session's
    /// declarations, and the request's own progress token and other keys.
    /// `params` loses its `_meta`.
    pub(super) fn request_meta(
        &self,
        params: &mut Option<Value>,
    ) -> Result<RequestMeta, ErrorObject> {
        let own = match params.as_mut().and_then(Value::as_object_mut) {
            Some(object) => match object.remove("_meta") {
                None => Map::new(),
                Some(Value::Object(own)) => own,
                Some(_) => return Err(invalid_params("Invalid params: `_meta` must be an object")),
            },
            None => Map::new(),
        };
        let mut meta = RequestMeta {
            protocol_version: self.version.to_owned(),
            client_capabilities: self.capabilities.clone(),
            client_info: Some(self.client_info.clone()),
            log_level: *lock(&self.log_level),
            progress_token: None,
            other: own,
        };
        if let Some(token) = meta.other.remove("progressToken") {
            let token = strict::from_value(token).map_err(|e| {
                invalid_params(format!(
                    "Invalid params: {}",
                    e.under("_meta.progressToken")
                ))
            })?;
            meta.progress_token = Some(token);
        }
        Ok(meta)
    }
}

/// The error of a shared session's change that was not made.
fn change_failed(failed: ChangeFailed) -> ErrorObject {
    match failed {
        ChangeFailed::Gone => {
            invalid_request("the session ended or expired; send initialize for a new one")
        }
        ChangeFailed::Refused(refused) => invalid_params(refused.to_string()),
        ChangeFailed::Store(error) => {
            tracing::warn!(%error, "a legacy session's change was not stored");
            ErrorObject::new(
                crate::wire::codes::SERVER_BUSY,
                "Server busy: the session store is unavailable; retry later",
            )
        }
        ChangeFailed::Contended => ErrorObject::new(
            crate::wire::codes::SERVER_BUSY,
            "Server busy: other requests of this session changed it at the same time; retry",
        ),
    }
}

/// What a new [`LegacySession`] starts with.
struct SessionParts {
    id: String,
    caller: Caller,
    version: &'static str,
    capabilities: ClientCapabilities,
    client_info: Implementation,
    log_level: Option<LoggingLevel>,
    subscriptions: BTreeSet<String>,
    /// The version of the shared record the rest was read from; `0` for
    /// a new session.
    synced: u64,
}

/// Who owns the tasks of an anonymous caller in session `id`, as a task
/// record keeps it. The id is random, so no subject takes it by chance.
fn task_owner(id: &str) -> Arc<str> {
    Arc::from(format!("legacy session {id}"))
}

/// Request caller `caller` (its scopes, claims and headers, fresh) in
/// `session`, whose principal it shares: it owns the tasks the session's
/// caller owns.
pub(crate) fn session_caller(caller: &Caller, session: &LegacySession) -> Caller {
    caller.with_task_owner(session.caller.task_owner.clone())
}

impl Server {
    /// Answers `initialize` request `request` of `caller`: a new session
    /// whose own messages go to `queue`, and the response; or the error
    /// response, for params that are not an `initialize`'s.
    pub(crate) fn open_session(
        &self,
        request: Request,
        caller: &Caller,
        queue: mpsc::Sender<Message>,
        shared: Option<&SharedSessions>,
    ) -> Result<(Arc<LegacySession>, Response), Response> {
        let id = request.id;
        let params: InitializeParams = parse_params(request.params)
            .map_err(|e| respond(id.clone(), Err(self.unreadable_initialize(e))))?;
        let version = negotiate_version(&params.protocol_version);
        let session_id = crate::util::random_id::<18>();
        let session = self.session(
            SessionParts {
                caller: caller.with_task_owner(Some(task_owner(&session_id))),
                id: session_id,
                version,
                capabilities: params.capabilities.to_modern(),
                client_info: params.client_info,
                log_level: None,
                subscriptions: BTreeSet::new(),
                synced: 0,
            },
            queue,
            shared,
        );
        let shared = self.shared();
        tracing::info!(
            version,
            session = session.id(),
            client = session.client_info.name,
            "a legacy session opened"
        );
        let result = InitializeResult {
            protocol_version: version.to_owned(),
            capabilities: self.legacy_capabilities(),
            server_info: shared.info.clone(),
            instructions: shared.instructions.clone(),
            meta: None,
        };
        Ok((Arc::new(session), respond(id, Ok(to_value(result)))))
    }

    #[cfg(feature = "http-server")]
    /// Session `record`, which another replica opened, as `caller` (of the
    /// record's principal) finds it here: its own messages go to `queue`.
    pub(crate) fn resume_session(
        &self,
        record: SessionRecord,
        caller: &Caller,
        queue: mpsc::Sender<Message>,
        shared: &SharedSessions,
    ) -> Arc<LegacySession> {
        let session = self.session(
            SessionParts {
                caller: caller.with_task_owner(Some(task_owner(&record.id))),
                version: negotiate_version(&record.protocol_version),
                id: record.id,
                capabilities: record.client_capabilities,
                client_info: record.client_info,
                log_level: record.log_level,
                subscriptions: record.subscriptions,
                synced: record.version,
            },
            queue,
            Some(shared),
        );
        Arc::new(session)
    }

    /// A session of `parts`, whose own messages go to `queue`: it follows
    /// the server's changes itself unless it is `shared`.
    fn session(
        &self,
        parts: SessionParts,
        queue: mpsc::Sender<Message>,
        shared: Option<&SharedSessions>,
    ) -> LegacySession {
        let subscriptions = Arc::new(Mutex::new(parts.subscriptions));
        let feed = shared.is_none().then(|| {
            feed::start(
                self.shared().registry.subscribe(),
                queue.clone(),
                Arc::clone(&subscriptions),
            )
        });
        let replica = shared.map(|shared| &*shared.replica);
        LegacySession {
            id: parts.id,
            caller: parts.caller,
            version: parts.version,
            capabilities: parts.capabilities,
            client_info: parts.client_info,
            log_level: Mutex::new(parts.log_level),
            subscriptions,
            synced: Mutex::new(parts.synced),
            followers: status::TaskFollowers::new(queue.clone()),
            peer: PeerLink::new(MAX_OUTBOUND, queue, replica),
            _feed: feed,
            shared: shared.cloned(),
        }
    }

    /// The error of an `initialize` whose params cannot be read: what is
    /// wrong, and the versions the server speaks, which a legacy client
    /// may show its user.
    fn unreadable_initialize(&self, error: ErrorObject) -> ErrorObject {
        let modern = self.shared().supported_versions.join(", ");
        invalid_params(format!(
            "{}; this server speaks MCP {modern}, and {} after `initialize`",
            error.message,
            LEGACY_VERSIONS.join(", ")
        ))
    }

    /// What the server offers, as a legacy client reads it.
    fn legacy_capabilities(&self) -> LegacyServerCapabilities {
        let shared = self.shared();
        let modern = crate::wire::ServerCapabilities {
            logging: Some(Map::new()),
            ..shared.registry.offers().capabilities()
        };
        let tasks = shared
            .engine
            .as_ref()
            .map(|engine| ServerTasksCapability::tool_calls(engine.lists()));
        LegacyServerCapabilities::from_modern(modern, tasks)
    }
}

#[cfg(all(test, feature = "http-server"))]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::server::legacy::shared::MemorySessionStore;

    #[tokio::test]
    async fn a_record_read_before_a_newer_one_does_not_undo_it() {
        let server = Server::builder("s", "1").build();
        let store = Arc::new(MemorySessionStore::new());
        let shared = SharedSessions::new(store, Duration::from_secs(60));
        let read = SessionRecord {
            id: "s".into(),
            principal: None,
            protocol_version: "2025-11-25".into(),
            client_capabilities: ClientCapabilities::default(),
            client_info: Implementation::new("client", "1.0"),
            log_level: None,
            subscriptions: BTreeSet::new(),
            version: 1,
        };
        let (queue, _queued) = mpsc::channel(SESSION_QUEUE);
        let caller = Caller::anonymous();
        let session = server.resume_session(read.clone(), &caller, queue, &shared);
        let mut newer = read.clone();
        newer.subscriptions.insert("file:///a".into());
        newer.log_level = Some(LoggingLevel::Debug);
        newer.version = 2;
        // Another replica's change is heard, then a request that read the
        // record before that change syncs what it read.
        session.sync(&newer);
        session.sync(&read);
        assert_eq!(*lock(&session.subscriptions), newer.subscriptions);
        assert_eq!(*lock(&session.log_level), Some(LoggingLevel::Debug));
    }
}
