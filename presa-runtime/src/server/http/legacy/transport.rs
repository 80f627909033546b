//! [`LegacyTransport`]: what the endpoint keeps for legacy clients, its
//! [`LegacySessions`] settings, and how it answers each legacy `POST`,
//! `GET` and `DELETE`.

use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use tokio::sync::mpsc;

use super::events::{Hold, Reading, StreamLog, parse_event_id, sse_body};
use super::session::{
    HttpSession, HttpSessions, MAX_SESSIONS, MAX_SESSIONS_PER_SUBJECT, SESSION_IDLE,
    TooManyRequests, TooManySessions,
};
use crate::server::caller::Caller;
use crate::server::http::admission::{Account, Admission, Slot};
use crate::server::http::respond::{json_response, method_not_allowed};
use crate::server::legacy::SESSION_QUEUE;
use crate::server::legacy::shared::LegacySessionStore;
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
    /// The open sessions, by `Mcp-Session-Id`.
    sessions: HttpSessions,
    /// The `retry` hint of an event stream.
    pub retry: std::time::Duration,
    /// When a request's event stream is closed for the client to poll;
    /// `None` to keep it open until the response.
    pub close_streams_after: Option<std::time::Duration>,
}

/// The `retry` hint of legacy event streams, by default.
pub const LEGACY_RETRY: std::time::Duration = std::time::Duration::from_secs(1);

impl LegacyTransport {
    /// No sessions yet, kept as `settings` say.
    pub fn new(settings: LegacySessions) -> Self {
        let mut sessions = HttpSessions::new();
        sessions.idle = settings.idle;
        sessions.max = settings.max;
        sessions.max_per_account = settings.max_per_subject;
        LegacyTransport {
            sessions,
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
    pub fn post(
        &self,
        parts: EndpointParts<'_>,
        headers: &HeaderMap,
        caller: &Caller,
        account: &Account,
        message: Message,
    ) -> Response {
        post(&self.endpoint(parts), headers, caller, account, message)
    }

    /// Answers a `GET` with `headers` by `caller`, counted against
    /// `account`: `405` without a session id, as for a modern client.
    pub fn get(
        &self,
        parts: EndpointParts<'_>,
        headers: &HeaderMap,
        caller: &Caller,
        account: &Account,
    ) -> Response {
        get(&self.endpoint(parts), headers, caller, account)
    }

    /// Answers a `DELETE` with `headers` by `caller`: `405` without a
    /// session id, as for a modern client.
    pub fn delete(
        &self,
        parts: EndpointParts<'_>,
        headers: &HeaderMap,
        caller: &Caller,
    ) -> Response {
        delete(&self.endpoint(parts), headers, caller)
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
fn post(
    endpoint: &Endpoint<'_>,
    headers: &HeaderMap,
    caller: &Caller,
    account: &Account,
    message: Message,
) -> Response {
    let session_id = text(headers, SESSION_ID_HEADER);
    let message = match (message, session_id) {
        (Message::Request(request), None) if opens_session(&request) => {
            return open(endpoint, caller, account.clone(), request);
        }
        (message, Some(id)) => (message, id),
        (_, None) => {
            let error =
                invalid_request(format!("this request needs the {SESSION_ID_HEADER} header"));
            return status(StatusCode::BAD_REQUEST, error);
        }
    };
    let (message, id) = message;
    let Some(session) = endpoint
        .legacy
        .sessions
        .get(&id, caller.principal().as_deref())
    else {
        return unknown_session(&id);
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
            if !session.legacy.peer().resolve(response) {
                tracing::warn!("ignoring a response to no request of the server's");
            }
            StatusCode::ACCEPTED.into_response()
        }
        Message::Notification(notification) => {
            if notification.method == notifications::CANCELLED
                && let Some(params) = notification.params
                && let Ok(cancel) = strict::from_value::<CancelledParams>(params)
            {
                session.cancel(&cancel.request_id);
            }
            StatusCode::ACCEPTED.into_response()
        }
    }
}

/// Rule 1: a new session of `caller`, counted against `account`, and its
/// `InitializeResult`.
fn open(endpoint: &Endpoint<'_>, caller: &Caller, account: Account, request: Request) -> Response {
    let (queue, queued) = mpsc::channel(SESSION_QUEUE);
    let (legacy, answer) = match endpoint.server.open_session(request, caller, queue) {
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
    ));
    if let Err(refused) = endpoint.legacy.sessions.open(session) {
        let error = match refused {
            TooManySessions::Server => ErrorObject::new(
                crate::wire::codes::SERVER_BUSY,
                "Server busy: it holds as many sessions as it may; retry later",
            ),
            TooManySessions::Caller { limit } => too_many_sessions(who, limit),
        };
        return json_response(&JsonRpcResponse::error(answer.id, error));
    }
    let mut reply = json_response(&answer);
    if let Ok(value) = HeaderValue::from_str(legacy.id()) {
        let name = axum::http::HeaderName::from_static("mcp-session-id");
        reply.headers_mut().insert(name, value);
    }
    reply
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
fn get(
    endpoint: &Endpoint<'_>,
    headers: &HeaderMap,
    caller: &Caller,
    account: &Account,
) -> Response {
    let Some(session) = session_of(endpoint, headers, caller) else {
        return match text(headers, SESSION_ID_HEADER) {
            Some(id) => unknown_session(&id),
            None => method_not_allowed(),
        };
    };
    match text(headers, LAST_EVENT_ID) {
        Some(last) => resume(endpoint, &session, account, &last),
        None => standalone(endpoint, session, account),
    }
}

/// Rule 5 with `Last-Event-ID`: the stream `last` names, after it.
fn resume(
    endpoint: &Endpoint<'_>,
    session: &HttpSession,
    account: &Account,
    last: &str,
) -> Response {
    let resumed = parse_event_id(last)
        .and_then(|(number, seq)| Some((session.log(number)?, seq)))
        .filter(|(log, seq)| log.knows(*seq));
    let Some((log, seq)) = resumed else {
        let error = invalid_request(format!(
            "Last-Event-ID {last:?} names no event of this session's streams"
        ));
        return status(StatusCode::BAD_REQUEST, error);
    };
    match endpoint.admission.admit(account, Slot::Stream) {
        Ok(admitted) => events(log, endpoint, seq, None, Some(Box::new(admitted))),
        Err(error) => status(StatusCode::SERVICE_UNAVAILABLE, error),
    }
}

/// Rule 5 without `Last-Event-ID`: the standalone stream, from what no
/// reader has had yet.
fn standalone(endpoint: &Endpoint<'_>, session: Arc<HttpSession>, account: &Account) -> Response {
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
    drop(open);
    let log = session.standalone();
    let cursor = log.delivered();
    let guard: Hold = Box::new((StandaloneOpen(session), admitted));
    let mut reply = events(log, endpoint, cursor, None, Some(guard));
    // It never ends on its own: it ends when serving does.
    let shutdown = endpoint.shutdown.clone();
    let body = std::mem::take(reply.body_mut()).into_data_stream();
    let ended = async move { shutdown.started().await };
    *reply.body_mut() = axum::body::Body::from_stream(body.take_until(ended));
    reply
}

/// Rule 6: `DELETE` with a session id.
fn delete(endpoint: &Endpoint<'_>, headers: &HeaderMap, caller: &Caller) -> Response {
    let Some(id) = text(headers, SESSION_ID_HEADER) else {
        return method_not_allowed();
    };
    if endpoint
        .legacy
        .sessions
        .end(&id, caller.principal().as_deref())
    {
        tracing::info!(
            session = id,
            "a legacy session ended at the client's request"
        );
        StatusCode::OK.into_response()
    } else {
        unknown_session(&id)
    }
}

fn session_of(
    endpoint: &Endpoint<'_>,
    headers: &HeaderMap,
    caller: &Caller,
) -> Option<Arc<HttpSession>> {
    let id = text(headers, SESSION_ID_HEADER)?;
    endpoint
        .legacy
        .sessions
        .get(&id, caller.principal().as_deref())
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
