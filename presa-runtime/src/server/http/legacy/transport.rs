//! [`LegacyTransport`]: what the endpoint keeps for legacy clients, its
//! [`LegacySessions`] settings, and how it answers each legacy `POST`,
//! `GET` and `DELETE`.

use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use tokio::sync::mpsc;

use super::events::{Hold, Reading, StreamLog, StreamName, parse_event_id, sse_body};
use super::relay::{Relayed, relay};
use super::replica::Replica;
use super::session::{
    HttpSession, HttpSessions, MAX_SESSIONS, MAX_SESSIONS_PER_SUBJECT, SESSION_IDLE,
    TooManyRequests, TooManySessions,
};
use crate::server::caller::Caller;
use crate::server::http::admission::{Account, Admission, Slot};
use crate::server::http::respond::{json_response, method_not_allowed};
use crate::server::input::legacy::peer::asking_replica;
use crate::server::legacy::SESSION_QUEUE;
use crate::server::legacy::shared::note::{
    ReplicaNote, SessionNote, replica_channel, session_channel,
};
use crate::server::legacy::shared::{LegacySessionStore, SessionStoreError, SharedSessions};
use crate::server::request::reply::{counted, invalid_request, memory_busy};
use crate::server::router::Server;
use crate::server::serving::connection::request_footprint;
use crate::server::serving::shutdown::Shutdown;
use crate::util::lock;
use crate::wire::legacy::{SESSION_ID_HEADER, opens_session};
use crate::wire::notifications::{self, CancelledParams};
use crate::wire::{ErrorObject, Message, Request, Response as JsonRpcResponse, headers, strict};

/// How the legacy transport keeps its clients' sessions and event
/// streams, given to
/// [`StreamableHttp::legacy_sessions`](crate::server::http::StreamableHttp::legacy_sessions)
/// as one value. Every setting has a default; change only what you need:
///
/// ```
/// use std::time::Duration;
/// use presa_runtime::server::http::LegacySessions;
///
/// let sessions = LegacySessions::new()
///     .max_sessions(128)
///     .close_streams_after(Duration::from_secs(30));
/// # let _ = sessions;
/// ```
#[derive(Clone)]
pub struct LegacySessions {
    idle: Duration,
    max: usize,
    max_per_subject: usize,
    close_streams_after: Option<Duration>,
    retry: Duration,
    store: Option<Arc<dyn LegacySessionStore>>,
}

impl std::fmt::Debug for LegacySessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LegacySessions")
            .field("idle", &self.idle)
            .field("max", &self.max)
            .field("max_per_subject", &self.max_per_subject)
            .field("close_streams_after", &self.close_streams_after)
            .field("retry", &self.retry)
            .field("shared", &self.store.is_some())
            .finish()
    }
}

impl Default for LegacySessions {
    fn default() -> Self {
        LegacySessions {
            idle: SESSION_IDLE,
            max: MAX_SESSIONS,
            max_per_subject: MAX_SESSIONS_PER_SUBJECT,
            close_streams_after: None,
            retry: LEGACY_RETRY,
            store: None,
        }
    }
}

impl LegacySessions {
    /// The defaults.
    pub fn new() -> Self {
        LegacySessions::default()
    }

    /// How long a legacy session lives without a request (default
    /// [`SESSION_IDLE`], 30 minutes); then its id answers `404`.
    pub fn idle_timeout(mut self, idle: Duration) -> Self {
        self.idle = idle;
        self
    }

    /// How many legacy sessions may live at once (default
    /// [`MAX_SESSIONS`], 1024); past it `initialize` gets `503`.
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max = sessions;
        self
    }

    /// How many legacy sessions one subject may hold at once (default
    /// [`MAX_SESSIONS_PER_SUBJECT`], 32; at least 1); anonymous callers
    /// hold them by network, as for
    /// [`max_requests_per_subject`](crate::server::http::StreamableHttp::max_requests_per_subject).
    /// Past it, the caller's next session evicts its least recently used
    /// one that runs no request (whose id then answers `404`, on which a
    /// client opens a new session); if every one of them runs a request,
    /// `initialize` gets `503`. Either way, no other caller is touched.
    pub fn max_sessions_per_subject(mut self, sessions: usize) -> Self {
        self.max_per_subject = sessions.max(1);
        self
    }

    /// Closes a legacy request's event stream this long after it opened,
    /// while the request goes on: the client reconnects with
    /// `Last-Event-ID` and polls (SEP-1699), so no connection stays open
    /// for a long call. Off by default.
    pub fn close_streams_after(mut self, after: Duration) -> Self {
        self.close_streams_after = Some(after);
        self
    }

    /// The `retry` hint, in the priming event of legacy event streams, of
    /// how long a client waits before it reconnects (default
    /// [`LEGACY_RETRY`], 1 s).
    pub fn retry(mut self, retry: Duration) -> Self {
        self.retry = retry;
        self
    }

    /// Keeps the sessions in `store`, which every replica of the server
    /// shares, so that any replica serves any request of a session
    /// (the `shared` module of `server::legacy` says how). Without it, a
    /// session lives in the replica that opened it, and a request that
    /// reaches another gets `404`.
    pub fn shared(mut self, store: impl LegacySessionStore) -> Self {
        self.store = Some(Arc::new(store));
        self
    }
}

/// What the endpoint keeps for legacy clients: their sessions, and how
/// their event streams are written.
pub(crate) struct LegacyTransport {
    /// The open sessions, by `Mcp-Session-Id`: with a shared store, the
    /// ones this replica holds.
    sessions: Arc<HttpSessions>,
    /// This replica's share of the store, when replicas share sessions.
    replica: Option<Replica>,
    /// The `retry` hint of an event stream.
    pub retry: std::time::Duration,
    /// When a request's event stream is closed for the client to poll;
    /// `None` to keep it open until the response.
    pub close_streams_after: Option<std::time::Duration>,
}

/// The `retry` hint of legacy event streams, by default.
pub const LEGACY_RETRY: std::time::Duration = std::time::Duration::from_secs(1);

impl LegacyTransport {
    /// No sessions yet of `server`, kept as `settings` say.
    pub fn new(settings: LegacySessions, server: &Server) -> Self {
        let mut sessions = HttpSessions::new();
        sessions.idle = settings.idle;
        sessions.max = settings.max;
        sessions.max_per_account = settings.max_per_subject;
        let replica = settings
            .store
            .map(|store| Replica::new(SharedSessions::new(store, settings.idle), server));
        LegacyTransport {
            sessions: Arc::new(sessions),
            replica,
            retry: settings.retry,
            close_streams_after: settings.close_streams_after,
        }
    }

    /// Whether a POST of `message` with `headers` is legacy traffic, for
    /// this transport to answer: it opens a session (`initialize` without
    /// the modern `_meta`), or names one (`Mcp-Session-Id`) without the
    /// modern `Mcp-Method` header.
    pub fn takes(&self, headers: &HeaderMap, message: &Message) -> bool {
        let opens = matches!(message, Message::Request(r) if opens_session(r));
        let names =
            headers.contains_key(SESSION_ID_HEADER) && !headers.contains_key(headers::METHOD);
        opens || names
    }

    /// Answers a POST of `message` with `headers`, by `caller` and counted
    /// against `account`, which [`takes`](Self::takes) said is legacy.
    pub async fn post(
        &self,
        parts: EndpointParts<'_>,
        headers: &HeaderMap,
        caller: &Caller,
        account: &Account,
        message: Message,
    ) -> Response {
        post(&self.endpoint(parts), headers, caller, account, message).await
    }

    /// Answers a `GET` with `headers` by `caller`, counted against
    /// `account`: `405` without a session id, as for a modern client.
    pub async fn get(
        &self,
        parts: EndpointParts<'_>,
        headers: &HeaderMap,
        caller: &Caller,
        account: &Account,
    ) -> Response {
        get(&self.endpoint(parts), headers, caller, account).await
    }

    /// Answers a `DELETE` with `headers` by `caller`: `405` without a
    /// session id, as for a modern client.
    pub async fn delete(
        &self,
        parts: EndpointParts<'_>,
        headers: &HeaderMap,
        caller: &Caller,
    ) -> Response {
        delete(&self.endpoint(parts), headers, caller).await
    }

    /// What a legacy request needs: what the endpoint holds, and this.
    fn endpoint<'a>(&'a self, parts: EndpointParts<'a>) -> Endpoint<'a> {
        Endpoint {
            server: parts.server,
            legacy: self,
            admission: parts.admission,
            shutdown: parts.shutdown,
        }
    }
}

/// What the legacy transport serves its requests with, of what the
/// endpoint holds: lent by the endpoint for one request.
#[derive(Clone, Copy)]
pub(crate) struct EndpointParts<'a> {
    pub server: &'a Server,
    pub admission: &'a Admission,
    /// When serving ends: requests are cut short by it, and the
    /// standalone stream ends with it.
    pub shutdown: &'a Shutdown,
}

/// A server, its legacy transport and its per-subject limits: what each
/// legacy request needs.
struct Endpoint<'a> {
    pub server: &'a Server,
    pub legacy: &'a LegacyTransport,
    pub admission: &'a Admission,
    /// When serving ends: requests are cut short by it, and the
    /// standalone stream ends with it.
    pub shutdown: &'a Shutdown,
}

/// The `Last-Event-ID` header.
const LAST_EVENT_ID: &str = "last-event-id";

/// A legacy POST of `message` by `caller`, counted against `account`.
async fn post(
    endpoint: &Endpoint<'_>,
    headers: &HeaderMap,
    caller: &Caller,
    account: &Account,
    message: Message,
) -> Response {
    let session_id = text(headers, SESSION_ID_HEADER);
    let message = match (message, session_id) {
        (Message::Request(request), None) if opens_session(&request) => {
            return open(endpoint, caller, account.clone(), request).await;
        }
        (message, Some(id)) => (message, id),
        (_, None) => {
            let error =
                invalid_request(format!("this request needs the {SESSION_ID_HEADER} header"));
            return status(StatusCode::BAD_REQUEST, error);
        }
    };
    let (message, id) = message;
    let session = match find(endpoint, &id, caller, account).await {
        Ok(session) => session,
        Err(refused) => return refused,
    };
    if let Some(version) = text(headers, headers::PROTOCOL_VERSION)
        && version != session.legacy.version()
    {
        let error = invalid_request(format!(
            "MCP-Protocol-Version {version} is not this session's version, {}",
            session.legacy.version()
        ));
        return status(StatusCode::BAD_REQUEST, error);
    }
    match message {
        Message::Request(request) => serve(endpoint, &session, caller, account, request),
        Message::Response(response) => {
            answered(endpoint, &session, response).await;
            StatusCode::ACCEPTED.into_response()
        }
        Message::Notification(notification) => {
            if notification.method == notifications::CANCELLED
                && let Some(params) = notification.params
                && let Ok(cancel) = strict::from_value::<CancelledParams>(params)
            {
                session.cancel(&cancel.request_id);
                if let Some(replica) = &endpoint.legacy.replica {
                    let note = SessionNote::Cancelled {
                        id: cancel.request_id,
                    };
                    let channel = session_channel(session.legacy.id());
                    replica.shared.tell(&channel, &note).await;
                }
            }
            StatusCode::ACCEPTED.into_response()
        }
    }
}

/// Rule 4: a client's `response` to a request of the server's goes to the
/// request that waits for it: here, or on the replica that asked it.
async fn answered(endpoint: &Endpoint<'_>, session: &HttpSession, response: JsonRpcResponse) {
    // A request another replica asked names it (rule 1 of `peer`), and
    // is not in this one's table: it goes there without a look here.
    let elsewhere = endpoint.legacy.replica.as_ref().and_then(|replica| {
        let asker = response.id.as_ref().and_then(asking_replica)?;
        (asker != &*replica.shared.replica).then(|| (replica, asker.to_owned()))
    });
    let Some((replica, asker)) = elsewhere else {
        if !session.legacy.peer().resolve(response) {
            tracing::warn!("ignoring a response to no request of the server's");
        }
        return;
    };

    let note = ReplicaNote::Answer {
        session: session.legacy.id().to_owned(),
        response,
    };
    if replica.shared.tell(&replica_channel(&asker), &note).await == 0 {
        tracing::warn!(
            replica = asker,
            "ignoring a response to a request of a replica that is gone"
        );
    }
}

/// The live session `id` of `caller`, or the response that refuses the
/// request: `404` for a session that ended, expired, never was, or is
/// another caller's. With a shared store, the store says whether the
/// session lives (and starts its idle time again), and a session this
/// replica does not hold yet is built from its record: one more look at
/// the store once its copy listens, so that it misses no change.
async fn find(
    endpoint: &Endpoint<'_>,
    id: &str,
    caller: &Caller,
    account: &Account,
) -> Result<Arc<HttpSession>, Response> {
    let principal = caller.principal();
    let sessions = &endpoint.legacy.sessions;
    let Some(replica) = &endpoint.legacy.replica else {
        return sessions
            .get(id, principal.as_deref())
            .ok_or_else(|| unknown_session(id));
    };
    replica.start(sessions).await.map_err(store_unavailable)?;
    let shared = &replica.shared;
    let record = match shared.store().touch(id, shared.idle).await {
        Ok(Some(record)) => record,
        Ok(None) => {
            sessions.forget(id);
            return Err(unknown_session(id));
        }
        Err(error) => return Err(store_unavailable(error)),
    };
    if record.principal != principal {
        return Err(unknown_session(id));
    }
    if let Some(session) = sessions.get(id, principal.as_deref()) {
        session.legacy.sync(&record);
        return Ok(session);
    }
    let (queue, queued) = mpsc::channel(SESSION_QUEUE);
    let legacy = endpoint
        .server
        .resume_session(record, caller, queue, shared);
    let budget = endpoint.server.budget().clone();
    let session = Arc::new(HttpSession::new(
        legacy,
        account.clone(),
        queued,
        budget,
        Some(shared),
    ));
    session.listen(shared).await.map_err(store_unavailable)?;
    // The session may have ended, or changed, between the look above and
    // the listen, which heard nothing of it: look again, now that news of
    // it reaches this copy. (A copy dropped here closes.)
    match shared.store().touch(id, shared.idle).await {
        Ok(Some(record)) => session.legacy.sync(&record),
        Ok(None) => return Err(unknown_session(id)),
        Err(error) => return Err(store_unavailable(error)),
    }
    // Another request of the session may have built it here meanwhile.
    sessions
        .adopt(session)
        .map_err(|refused| session_refused(refused, account.who(), None))
}

/// Rule 1: a new session of `caller`, counted against `account`, and its
/// `InitializeResult`.
async fn open(
    endpoint: &Endpoint<'_>,
    caller: &Caller,
    account: Account,
    request: Request,
) -> Response {
    let shared = endpoint.legacy.replica.as_ref().map(|r| &r.shared);
    if let Some(replica) = &endpoint.legacy.replica
        && let Err(error) = replica.start(&endpoint.legacy.sessions).await
    {
        return store_unavailable(error);
    }
    let (queue, queued) = mpsc::channel(SESSION_QUEUE);
    let (legacy, answer) = match endpoint.server.open_session(request, caller, queue, shared) {
        Ok(opened) => opened,
        Err(refusal) => return json_response(&refusal),
    };
    let budget = endpoint.server.budget().clone();
    let who = account.who();
    let session = Arc::new(HttpSession::new(
        Arc::clone(&legacy),
        account,
        queued,
        budget,
        shared,
    ));
    if let Some(shared) = shared {
        let stored = match shared.store().create(&legacy.record(), shared.idle).await {
            Ok(()) => session.listen(shared).await,
            Err(error) => Err(error),
        };
        if let Err(error) = stored {
            session.close();
            return store_unavailable(error);
        }
    }
    if let Err(refused) = endpoint.legacy.sessions.open(session) {
        if let Some(shared) = shared {
            let _ = shared.store().remove(legacy.id()).await;
        }
        return session_refused(refused, who, answer.id);
    }
    let mut reply = json_response(&answer);
    if let Ok(value) = HeaderValue::from_str(legacy.id()) {
        let name = axum::http::HeaderName::from_static("mcp-session-id");
        reply.headers_mut().insert(name, value);
    }
    reply
}

/// The answer to a request for a session that `refused`, by `who`: a
/// JSON-RPC error to request `id`.
fn session_refused(
    refused: TooManySessions,
    who: &str,
    id: Option<crate::wire::RequestId>,
) -> Response {
    let error = match refused {
        TooManySessions::Server => ErrorObject::new(
            crate::wire::codes::SERVER_BUSY,
            "Server busy: it holds as many sessions as it may; retry later",
        ),
        TooManySessions::Caller { limit } => too_many_sessions(who, limit),
    };
    json_response(&JsonRpcResponse::error(id, error))
}

/// Rule 3: a request of `session`, counted against `account`, answered
/// with its event stream.
fn serve(
    endpoint: &Endpoint<'_>,
    session: &HttpSession,
    caller: &Caller,
    account: &Account,
    request: Request,
) -> Response {
    let admitted = match endpoint.admission.admit(account, Slot::Request) {
        Ok(admitted) => admitted,
        Err(error) => return json_response(&JsonRpcResponse::error(Some(request.id), error)),
    };
    let budget = endpoint.server.budget();
    let Ok(charge) = budget.try_charge(request_footprint(&request)) else {
        return status(StatusCode::SERVICE_UNAVAILABLE, memory_busy());
    };
    let id = request.id.clone();
    let stream = endpoint
        .server
        .handle_legacy(request, &session.legacy, Some(caller), charge)
        .bounded_by(endpoint.shutdown, id.clone());
    match session.run(id, stream, budget.clone(), admitted) {
        Ok(log) => events(log, endpoint, 0, endpoint.legacy.close_streams_after, None),
        Err(TooManyRequests) => {
            let error = ErrorObject::new(
                crate::wire::codes::SERVER_BUSY,
                "Server busy: this session runs as many requests as it may; wait for one",
            );
            status(StatusCode::SERVICE_UNAVAILABLE, error)
        }
    }
}

/// Rule 5: `GET` with a session id, by `caller`, counted against
/// `account`.
async fn get(
    endpoint: &Endpoint<'_>,
    headers: &HeaderMap,
    caller: &Caller,
    account: &Account,
) -> Response {
    let Some(id) = text(headers, SESSION_ID_HEADER) else {
        return method_not_allowed();
    };
    let session = match find(endpoint, &id, caller, account).await {
        Ok(session) => session,
        Err(refused) => return refused,
    };
    let Some(last) = text(headers, LAST_EVENT_ID) else {
        return standalone(endpoint, session, account).await;
    };
    let names_none = || {
        let error = invalid_request(format!(
            "Last-Event-ID {last:?} names no event of this session's streams"
        ));
        status(StatusCode::BAD_REQUEST, error)
    };
    let Some((name, seq)) = parse_event_id(&last) else {
        return names_none();
    };
    if let Some(replica) = &endpoint.legacy.replica
        && let Some(stream) = &name.shared
        && stream.replica != replica.shared.replica
    {
        // Another replica's stream (see `relay`); for the standalone
        // stream, this replica's starts afresh.
        return match &stream.request {
            None => standalone(endpoint, session, account).await,
            Some(request) => {
                let holder = Arc::clone(&stream.replica);
                let relaying = Relaying {
                    session: &session,
                    holder: &holder,
                    name: &name,
                    request: request.clone(),
                };
                relayed(endpoint, replica, account, relaying, seq).await
            }
        };
    }
    match session.log(name.number) {
        Some(log) if *log.name() == name && log.knows(seq) => resume(endpoint, account, log, seq),
        _ => names_none(),
    }
}

/// What a replica needs to pass on another's stream.
struct Relaying<'a> {
    session: &'a HttpSession,
    holder: &'a str,
    name: &'a StreamName,
    request: crate::wire::RequestId,
}

/// Rule 5 with the `Last-Event-ID` of another replica's request stream:
/// that stream, passed on from the replica that holds it, or the
/// request's error if that replica is gone (see `relay`).
async fn relayed(
    endpoint: &Endpoint<'_>,
    replica: &Replica,
    account: &Account,
    relaying: Relaying<'_>,
    seq: u64,
) -> Response {
    let admitted = match endpoint.admission.admit(account, Slot::Stream) {
        Ok(admitted) => admitted,
        Err(error) => return status(StatusCode::SERVICE_UNAVAILABLE, error),
    };
    let budget = endpoint.server.budget().clone();
    let relayed = relay(
        &replica.shared,
        relaying.session.legacy.id(),
        relaying.name,
        relaying.holder,
        seq,
        budget.clone(),
    )
    .await;
    match relayed {
        Relayed::Passing(log, guard) => {
            let hold: Hold = Box::new((admitted, guard));
            events(log, endpoint, seq, None, Some(hold))
        }
        Relayed::HolderGone => {
            tracing::warn!(
                replica = relaying.holder,
                "a legacy request failed: the replica that ran it is gone"
            );
            let error = ErrorObject::new(
                crate::wire::codes::INTERNAL_ERROR,
                "The server replica that ran this request stopped before it answered; send \
                 the request again",
            );
            let line = JsonRpcResponse::error(Some(relaying.request), error).to_line();
            let log = StreamLog::mirror(relaying.name.clone(), seq);
            let charge = budget.force(line.len());
            log.push(line, charge);
            log.finish();
            events(log, endpoint, seq, None, Some(Box::new(admitted)))
        }
        Relayed::Unknown => {
            let error = invalid_request(
                "Last-Event-ID names a stream the replica that ran it no longer keeps",
            );
            status(StatusCode::BAD_REQUEST, error)
        }
        Relayed::NoAnswer => {
            let error = ErrorObject::new(
                crate::wire::codes::SERVER_BUSY,
                "Server busy: the replica that runs this request did not answer; retry",
            );
            let mut reply = status(StatusCode::SERVICE_UNAVAILABLE, error);
            reply
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            reply
        }
        Relayed::Unavailable(error) => store_unavailable(error),
    }
}

/// Rule 5 with `Last-Event-ID`: `log`, after event `seq`.
fn resume(endpoint: &Endpoint<'_>, account: &Account, log: Arc<StreamLog>, seq: u64) -> Response {
    match endpoint.admission.admit(account, Slot::Stream) {
        Ok(admitted) => events(log, endpoint, seq, None, Some(Box::new(admitted))),
        Err(error) => status(StatusCode::SERVICE_UNAVAILABLE, error),
    }
}

/// Rule 5 without `Last-Event-ID`: the standalone stream, from what no
/// reader has had yet. With a shared store, the replica that holds it
/// hears what every replica sends it while it is open.
async fn standalone(
    endpoint: &Endpoint<'_>,
    session: Arc<HttpSession>,
    account: &Account,
) -> Response {
    let admitted = {
        let mut open = lock(&session.standalone_open);
        if *open {
            let error = invalid_request("this session's standalone stream is already open");
            return status(StatusCode::CONFLICT, error);
        }
        let admitted = match endpoint.admission.admit(account, Slot::Stream) {
            Ok(admitted) => admitted,
            Err(error) => return status(StatusCode::SERVICE_UNAVAILABLE, error),
        };
        *open = true;
        admitted
    };
    let reading = StandaloneOpen(Arc::clone(&session));
    let holding = match &endpoint.legacy.replica {
        None => None,
        Some(replica) => match session
            .hold_standalone(&replica.shared, replica.offers())
            .await
        {
            Ok(holding) => Some(holding),
            Err(error) => return store_unavailable(error),
        },
    };
    let log = session.standalone();
    let cursor = log.delivered();
    let guard: Hold = Box::new((reading, admitted, holding));
    let mut reply = events(log, endpoint, cursor, None, Some(guard));
    // It never ends on its own: it ends when serving does.
    let shutdown = endpoint.shutdown.clone();
    let body = std::mem::take(reply.body_mut()).into_data_stream();
    let ended = async move { shutdown.started().await };
    *reply.body_mut() = axum::body::Body::from_stream(body.take_until(ended));
    reply
}

/// Rule 6: `DELETE` with a session id. With a shared store, the session
/// ends in it, and every replica holding it is told.
async fn delete(endpoint: &Endpoint<'_>, headers: &HeaderMap, caller: &Caller) -> Response {
    let Some(id) = text(headers, SESSION_ID_HEADER) else {
        return method_not_allowed();
    };
    let principal = caller.principal();
    let ended = match &endpoint.legacy.replica {
        None => endpoint.legacy.sessions.end(&id, principal.as_deref()),
        Some(replica) => match end_shared(&replica.shared, &id, principal.as_deref()).await {
            Ok(ended) => {
                endpoint.legacy.sessions.forget(&id);
                ended
            }
            Err(error) => return store_unavailable(error),
        },
    };
    if ended {
        tracing::info!(
            session = id,
            "a legacy session ended at the client's request"
        );
        StatusCode::OK.into_response()
    } else {
        unknown_session(&id)
    }
}

/// Ends shared session `id` of `principal`, and tells every replica;
/// whether there was one.
async fn end_shared(
    shared: &SharedSessions,
    id: &str,
    principal: Option<&str>,
) -> Result<bool, SessionStoreError> {
    let Some(record) = shared.store().touch(id, shared.idle).await? else {
        return Ok(false);
    };
    if record.principal.as_deref() != principal || !shared.store().remove(id).await? {
        return Ok(false);
    }
    shared.tell(&session_channel(id), &SessionNote::Ended).await;
    Ok(true)
}

/// `503` with `Retry-After` for a shared store that could not be reached.
fn store_unavailable(error: SessionStoreError) -> Response {
    tracing::warn!(%error, "a legacy request could not reach the session store");
    let error = ErrorObject::new(
        crate::wire::codes::SERVER_BUSY,
        "Server busy: the session store is unavailable; retry later",
    );
    let mut reply = status(StatusCode::SERVICE_UNAVAILABLE, error);
    reply
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    reply
}

/// An event stream reading `log` after `cursor`.
fn events(
    log: Arc<StreamLog>,
    endpoint: &Endpoint<'_>,
    cursor: u64,
    close_after: Option<std::time::Duration>,
    hold: Option<Hold>,
) -> Response {
    let reading = Reading {
        cursor,
        retry: endpoint.legacy.retry,
        close_after,
        hold,
    };
    let mut reply = sse_body(log, reading).into_response();
    let headers = reply.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    reply
}

/// `-31001` for a legacy `initialize` over HTTP: `who` holds `limit`
/// sessions, each running a request, so none can make way.
fn too_many_sessions(who: &str, limit: usize) -> ErrorObject {
    ErrorObject::new(
        crate::wire::codes::SERVER_BUSY,
        format!(
            "Server busy: {who} already hold {}, the most one caller may hold, and each is \
             running a request; end one with DELETE, or wait for its requests to finish, then \
             retry",
            counted(limit, "session")
        ),
    )
}

/// `404` for a session id that names no live session of the caller.
fn unknown_session(id: &str) -> Response {
    let error = invalid_request(format!(
        "no session {id:?}: it ended, expired or never was; send initialize for a new one"
    ));
    status(StatusCode::NOT_FOUND, error)
}

fn status(code: StatusCode, error: ErrorObject) -> Response {
    let mut reply = json_response(&JsonRpcResponse::error(None, error));
    *reply.status_mut() = code;
    reply
}

fn text(headers: &HeaderMap, name: &str) -> Option<String> {
    headers.get(name)?.to_str().ok().map(str::to_owned)
}

/// The drop guard of a standalone stream's reader: the session may open
/// another once this connection is gone.
struct StandaloneOpen(Arc<HttpSession>);

impl Drop for StandaloneOpen {
    fn drop(&mut self) {
        *lock(&self.0.standalone_open) = false;
    }
}
