//! [`StreamableHttp`]: a [`Server`] as the MCP endpoint of an HTTP
//! server, and the path every POST takes through it.
//!
//! A request is checked in this order, each step answering on its own
//! when it fails:
//!
//! 1. `Host` and `Origin` against the [`AllowedHosts`] (`403`);
//! 2. the caller, by the [`Authenticator`] (`401` with a
//!    `WWW-Authenticate` challenge, or `503` when credentials cannot be
//!    checked now: see `auth`);
//! 3. the body: its size (`413`), room for it in the server's memory
//!    budget (`503` with `Retry-After`), then JSON-RPC framing (`400` with
//!    `-32700` or `-32600`); a notification is accepted with `202`. Then
//!    the scopes of the tool, prompt or resource the request names,
//!    against the caller's (`403` with the step-up challenge, in either
//!    era: see `server::authorize`);
//! 4. a slot of the caller's own: one of its listen streams for
//!    `subscriptions/listen`, one of its requests in progress for anything
//!    else (`503` with `Retry-After` and `-31001` past its limit, so that
//!    one caller cannot starve the others: see `admission`). The answer
//!    holds the slot until it is out;
//! 5. room in the budget for the request as parsed (`503` again: see
//!    [`ServerBuilder::memory_limit`](crate::server::ServerBuilder::memory_limit));
//! 6. the mirrored headers against the body (`400` with `-32020`);
//! 7. the server core, whose answer becomes JSON or an event stream. The
//!    request holds its charge until its handler ends; the answer is
//!    produced as the client reads it, so a slow reader holds nothing more
//!    than its slot.
//!
//! Between steps 3 and 4, the endpoint's era may take the POST instead
//! (see `era`), and it answers every `GET` and `DELETE` once steps 1 and
//! 2 pass. The modern era takes no POST and answers `GET` and `DELETE`
//! with `405`, as the modern revision asks; the legacy transport, served
//! by default ([`StreamableHttp::legacy_sessions`]), takes a POST that
//! opens a session (`initialize`) or names one (`Mcp-Session-Id`, without
//! `Mcp-Method`), and `GET` and `DELETE` naming a session (see `legacy`,
//! whose requests and streams take the same slots).
//!
//! Served on its own ([`StreamableHttp::serve`], see `serve`), the endpoint
//! ends with the server: each request in step 7 is bounded by its shutdown
//! (see `server::shutdown`), and one that arrives once the drain period is
//! over gets `-31003` without being run.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use tracing::Instrument;

use super::admission::{Admission, Slot};
use super::auth::{Anonymous, Authenticator, ProtectedResourceMetadata, Refusal, challenge};
use super::era::{Endpoint, Modern};
use super::guard::AllowedHosts;
use super::headers;
use super::respond::{json_response, method_not_allowed, respond};
use super::serve::{Listen, Serve, Settings, Standalone};
use crate::server::caller::{Caller, without_credentials};
use crate::server::core::reply::{invalid_request, memory_busy};
use crate::server::router::Server;
use crate::server::transports::connection::request_footprint;
use crate::server::transports::shutdown::{Shutdown, ShutdownSwitch, not_run};
use crate::wire::{
    ErrorObject, FrameError, Message, Method, RequestId, Response as JsonRpcResponse, codes,
};

/// A [`Server`] served over Streamable HTTP. Mount it in an axum
/// application ([`StreamableHttp::router`], [`StreamableHttp::service`])
/// or run it on its own ([`StreamableHttp::serve`]).
///
/// ```no_run
/// # async fn run(server: presa_runtime::server::Server) -> std::io::Result<()> {
/// use presa_runtime::server::http::StreamableHttp;
///
/// let app = axum::Router::new()
///     .route("/health", axum::routing::get(|| async { "ok" }))
///     .merge(StreamableHttp::new(server).router("/mcp"));
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
/// axum::serve(listener, app).await
/// # }
/// ```
///
/// `axum::serve` sets no header timeout and no bound on connections, so
/// a client can hold as many connections as it opens; see
/// [`StreamableHttp::router`] for a server of your own that has both.
/// [`StreamableHttp::serve`] has them.
pub struct StreamableHttp {
    endpoint: Endpoint,
    /// What [`StreamableHttp::serve`] needs beyond the endpoint.
    standalone: Settings,
}

impl StreamableHttp {
    /// Serves `server` anonymously to loopback hosts, with bodies up to the
    /// server's message limit.
    pub fn new(server: Server) -> Self {
        let body_limit = server.max_message_size();
        StreamableHttp {
            endpoint: Endpoint {
                server,
                hosts: AllowedHosts::loopback(),
                authenticator: Arc::new(Anonymous),
                body_limit,
                metadata: None,
                era: Box::new(Modern),
                admission: Admission::new(),
                shutdown: Shutdown::never(),
            },
            standalone: Settings::default(),
        }
        .legacy_sessions(super::LegacySessions::default())
    }

    fn configure(mut self, change: impl FnOnce(&mut Endpoint)) -> Self {
        change(&mut self.endpoint);
        self
    }

    /// The hosts requests may address and come from (default: loopback).
    pub fn allowed_hosts(self, hosts: AllowedHosts) -> Self {
        self.configure(|e| e.hosts = hosts)
    }

    /// Who the caller of each request is (default: anonymous).
    pub fn authenticator(self, authenticator: impl Authenticator) -> Self {
        self.configure(|e| e.authenticator = Arc::new(authenticator))
    }

    /// The largest request body accepted, in bytes (default: the server's
    /// message limit); larger ones get `413`.
    pub fn body_limit(self, bytes: usize) -> Self {
        self.configure(|e| e.body_limit = bytes)
    }

    /// Publishes `metadata` at its well-known path and names it in every
    /// `WWW-Authenticate` challenge.
    pub fn protected_resource(self, metadata: ProtectedResourceMetadata) -> Self {
        self.configure(|e| e.metadata = Some(metadata))
    }

    /// How the legacy transport keeps its sessions and streams (see
    /// [`LegacySessions`](super::LegacySessions) for each setting and its
    /// default).
    pub fn legacy_sessions(self, settings: super::LegacySessions) -> Self {
        let legacy = super::legacy::LegacyTransport::new(settings);
        self.configure(|e| e.era = Box::new(legacy))
    }

    /// How many `subscriptions/listen` streams (and legacy `GET` streams)
    /// one subject may hold open at once (default
    /// [`MAX_LISTEN_STREAMS_PER_SUBJECT`](super::MAX_LISTEN_STREAMS_PER_SUBJECT),
    /// 64, what a stdio connection may hold; at least 1). Past it, a new
    /// stream gets `-31001` with `503` and `Retry-After` until one closes.
    /// Anonymous callers count by network, as for
    /// [`max_requests_per_subject`](Self::max_requests_per_subject).
    pub fn max_listen_streams_per_subject(self, streams: usize) -> Self {
        self.configure(|e| e.admission.max_streams = streams.max(1))
    }

    /// How many requests one subject may have in progress at once, listen
    /// streams aside (default
    /// [`MAX_REQUESTS_PER_SUBJECT`](super::MAX_REQUESTS_PER_SUBJECT), 256;
    /// at least 1). Past it, a request gets `-31001` with `503` and
    /// `Retry-After` until one finishes; a call that became a task no
    /// longer counts once it has answered.
    ///
    /// An anonymous caller is counted by the network it connects from (an
    /// IPv4 address, an IPv6 `/64`), so that one anonymous client cannot
    /// shut out the others: that needs the peer's address, which
    /// [`serve`](Self::serve) provides, and an application mounting
    /// [`router`](Self::router) provides by serving it with
    /// `into_make_service_with_connect_info::<SocketAddr>()`. Without it,
    /// anonymous callers share one quota.
    pub fn max_requests_per_subject(self, requests: usize) -> Self {
        self.configure(|e| e.admission.max_requests = requests.max(1))
    }

    /// A router with the MCP endpoint at `path` and, when configured, the
    /// Protected Resource Metadata at its well-known path. Merge it into an
    /// application with [`Router::merge`].
    ///
    /// Mounted in your own server, the endpoint has the limits that server
    /// sets, and `axum::serve` sets none: a client that opens connections
    /// and never finishes its headers holds them for ever. Set what
    /// [`serve`](Self::serve) sets: a timer and a header read timeout on
    /// hyper's connection builder (which also closes idle keep-alive
    /// connections), and a bound on open connections, as below (with
    /// `hyper` and `hyper-util` in your `Cargo.toml`); or put a proxy that
    /// has them in front. The endpoint does not hear of your server's
    /// shutdown, so a `subscriptions/listen` stream stays open until its
    /// client ends it: bound your graceful shutdown's wait, or use
    /// [`serve`](Self::serve), which ends them.
    ///
    /// ```no_run
    /// # async fn run(server: presa_runtime::server::Server) -> std::io::Result<()> {
    /// use std::sync::Arc;
    /// use std::time::Duration;
    ///
    /// use hyper_util::rt::{TokioIo, TokioTimer};
    /// use hyper_util::service::TowerToHyperService;
    /// use presa_runtime::server::http::StreamableHttp;
    ///
    /// let app = axum::Router::new()
    ///     .route("/health", axum::routing::get(|| async { "ok" }))
    ///     .merge(StreamableHttp::new(server).router("/mcp"));
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
    /// let slots = Arc::new(tokio::sync::Semaphore::new(1024));
    /// loop {
    ///     // At the bound, accept no more until a connection closes.
    ///     let slot = Arc::clone(&slots).acquire_owned().await.unwrap();
    ///     let (stream, _) = listener.accept().await?;
    ///     let service = TowerToHyperService::new(app.clone());
    ///     tokio::spawn(async move {
    ///         let _slot = slot;
    ///         let _ = hyper::server::conn::http1::Builder::new()
    ///             .timer(TokioTimer::new())
    ///             .header_read_timeout(Duration::from_secs(10))
    ///             .serve_connection(TokioIo::new(stream), service)
    ///             .await;
    ///     });
    /// }
    /// # }
    /// ```
    pub fn router(self, path: &str) -> Router {
        let metadata = self.endpoint.metadata.clone();
        let server = self.endpoint.server.clone();
        let mut router = Router::new().route(path, self.service());
        if let Some(metadata) = metadata {
            let published = metadata.well_known_path();
            // The scopes the handlers declare, as they are now: tools come
            // and go while the server runs.
            let document = move || {
                let declared = server.declared_scopes();
                let document = metadata.with_scopes(declared);
                async move { axum::Json(document) }
            };
            router = router.route(&published, get(document));
        }
        router
    }

    /// The MCP endpoint alone, for [`Router::route_service`] or any tower
    /// stack: POST is served, and GET and DELETE naming a legacy session;
    /// everything else gets `405`. The server around it must set what
    /// [`router`](Self::router) says.
    pub fn service(self) -> MethodRouter {
        post(handle)
            .get(handle_get)
            .delete(handle_delete)
            .fallback(|| async { method_not_allowed() })
            .with_state(Arc::new(self.endpoint))
    }

    /// How long a connection of the standalone server
    /// ([`serve`](Self::serve)) has, from when it is accepted or its last
    /// response is written, to send a request's complete headers (default
    /// [`HEADER_READ_TIMEOUT`](super::HEADER_READ_TIMEOUT), 10 s); past it,
    /// the connection is closed. The one timer bounds slow headers and idle
    /// keep-alive connections alike. A [`router`](Self::router) mounted in
    /// your own server has what that server sets.
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.standalone.header_read_timeout = timeout;
        self
    }

    /// How many connections the standalone server ([`serve`](Self::serve))
    /// keeps open at once (default
    /// [`MAX_CONNECTIONS`](super::MAX_CONNECTIONS), 1024; at least 1). At
    /// the bound it accepts no more until one closes: new connections wait
    /// in the system's accept queue. Keep it below the process's limit of
    /// open files (`ulimit -n`).
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.standalone.max_connections = connections.max(1);
        self
    }

    /// Serves the endpoint at `/mcp` on `address`, until SIGTERM or Ctrl-C
    /// (or [`Serve::with_graceful_shutdown`]'s signal), with the limits of
    /// [`header_read_timeout`](Self::header_read_timeout) and
    /// [`max_connections`](Self::max_connections); then answers the
    /// requests it accepted, as [`Serve`] says, and returns.
    pub fn serve(self, address: SocketAddr) -> Serve {
        Serve::new(self.into_standalone(), Listen::Address(address))
    }

    /// [`serve`](Self::serve) on a listener already bound (to port 0, say,
    /// to let the system pick one).
    pub fn serve_on(self, listener: tokio::net::TcpListener) -> Serve {
        Serve::new(self.into_standalone(), Listen::Listener(listener))
    }

    /// Accepts the access tokens of `oauth`'s authorization server, and
    /// publishes the Protected Resource Metadata that names it: the
    /// [`authenticator`](Self::authenticator) and
    /// [`protected_resource`](Self::protected_resource) in one.
    #[cfg(feature = "oauth")]
    pub fn oauth(self, oauth: super::auth::OAuth) -> Self {
        let metadata = oauth.protected_resource();
        self.authenticator(oauth).protected_resource(metadata)
    }

    /// What the standalone server runs: the router at `/mcp`, its
    /// requests bounded by the switch's shutdown, and its settings.
    fn into_standalone(mut self) -> Standalone {
        let switch = ShutdownSwitch::new(self.endpoint.server.drain_period());
        self.endpoint.shutdown = switch.watch();
        let settings = self.standalone;
        Standalone {
            app: self.router("/mcp"),
            settings,
            switch,
        }
    }
}

/// One POST to the MCP endpoint.
async fn handle(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let (mut parts, body) = request.into_parts();
    let caller = match checked_caller(&endpoint, &parts).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    // Authenticated, the request needs its credentials no more: one copy
    // of the rest serves the checks below and the handlers' `Headers`.
    let request_headers = Arc::new(without_credentials(std::mem::take(&mut parts.headers)));
    let caller = caller.with_shared_headers(Arc::clone(&request_headers));
    let account = endpoint.admission.account(&caller, &parts);
    let budget = endpoint.server.budget();
    let announced = request_headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok())
        .unwrap_or(endpoint.body_limit)
        .min(endpoint.body_limit);
    let Ok(body_charge) = budget.try_charge(announced) else {
        return busy(None);
    };
    let message = match read_message(body, endpoint.body_limit).await {
        Ok(message) => message,
        Err(reply) => return reply,
    };
    // The text is gone once parsed: the parsed form takes its place.
    drop(body_charge);
    if let Message::Request(request) = &message
        && let Some(scopes) = endpoint.server.lacking_scopes(request, &caller)
    {
        let step_up = Refusal::InsufficientScope {
            scope: scopes.join(" "),
        };
        return refuse(&step_up, endpoint.metadata.as_ref());
    }
    let message = match endpoint
        .era
        .post(&endpoint, &request_headers, &caller, &account, message)
    {
        Ok(answered) => return answered,
        Err(message) => message,
    };
    let request = match message {
        Message::Request(request) => request,
        // No client notification means anything over HTTP (cancelling is
        // closing the stream); accepting them is all the spec asks.
        Message::Notification(_) => return StatusCode::ACCEPTED.into_response(),
        Message::Response(_) => return response_refused(),
    };
    let slot = match Method::parse(&request.method) {
        Some(Method::SubscriptionsListen) => Slot::Stream,
        _ => Slot::Request,
    };
    let admitted = match endpoint.admission.admit(&account, slot) {
        Ok(admitted) => admitted,
        Err(error) => return json_response(&JsonRpcResponse::error(Some(request.id), error)),
    };
    let Ok(charge) = budget.try_charge(request_footprint(&request)) else {
        return busy(Some(request.id));
    };
    if let Err(error) = headers::check(&request_headers, &request, &endpoint.server) {
        return json_response(&JsonRpcResponse::error(Some(request.id), error));
    }
    if endpoint.shutdown.is_over() {
        return json_response(&not_run(request.id));
    }
    let span = tracing::info_span!(
        "mcp.http",
        method = request.method,
        id = %request.id,
        subject = caller.subject.as_deref(),
    );
    let id = request.id.clone();
    let stream = endpoint.server.handle_charged(request, &caller, charge);
    respond(stream.bounded_by(&endpoint.shutdown, id), admitted)
        .instrument(span)
        .await
}

/// Steps 1 and 2: the host guard and the caller.
async fn checked_caller(
    endpoint: &Endpoint,
    parts: &axum::http::request::Parts,
) -> Result<Caller, Response> {
    if let Some(refused) = guard(&endpoint.hosts, &parts.headers) {
        return Err(refused);
    }
    endpoint
        .authenticator
        .authenticate(parts)
        .await
        .map_err(|refusal| refuse(&refusal, endpoint.metadata.as_ref()))
}

/// A GET, answered by the era.
async fn handle_get(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let (parts, _) = request.into_parts();
    match checked_caller(&endpoint, &parts).await {
        Ok(caller) => {
            let account = endpoint.admission.account(&caller, &parts);
            endpoint.era.get(&endpoint, &parts.headers, caller, account)
        }
        Err(refused) => refused,
    }
}

/// A DELETE, answered by the era.
async fn handle_delete(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let (parts, _) = request.into_parts();
    match checked_caller(&endpoint, &parts).await {
        Ok(caller) => endpoint.era.delete(&endpoint, &parts.headers, caller),
        Err(refused) => refused,
    }
}

/// `403` for a request whose `Host` or `Origin` is not allowed.
fn guard(hosts: &AllowedHosts, headers: &axum::http::HeaderMap) -> Option<Response> {
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    let host_ok = text(header::HOST).is_none_or(|host| hosts.allows_host(host));
    let origin_ok = text(header::ORIGIN).is_none_or(|origin| hosts.allows_origin(origin));
    if host_ok && origin_ok {
        return None;
    }
    tracing::warn!(
        host = text(header::HOST),
        origin = text(header::ORIGIN),
        "refused a request for a host or from an origin that is not allowed"
    );
    let error = ErrorObject::new(
        codes::INVALID_REQUEST,
        "Forbidden: the request's Host or Origin is not allowed",
    );
    Some(with_status(StatusCode::FORBIDDEN, error))
}

/// `401` or `403` with the challenge that tells the client how to
/// authenticate, or `503` when the credentials cannot be checked now (the
/// rules are in `auth`).
pub(super) fn refuse(refusal: &Refusal, metadata: Option<&ProtectedResourceMetadata>) -> Response {
    let (status, message) = match refusal {
        Refusal::Unauthorized { .. }
        | Refusal::InvalidToken { .. }
        | Refusal::InvalidDpopProof { .. } => (StatusCode::UNAUTHORIZED, "Unauthorized"),
        Refusal::InsufficientScope { .. } => (StatusCode::FORBIDDEN, "Insufficient scope"),
        Refusal::Unavailable { .. } => (
            StatusCode::SERVICE_UNAVAILABLE,
            "The server cannot check credentials now; try again later",
        ),
    };
    let mut reply = with_status(status, ErrorObject::new(codes::INVALID_REQUEST, message));
    let headers = reply.headers_mut();
    if let Some(value) = challenge(refusal, metadata).and_then(|c| HeaderValue::from_str(&c).ok()) {
        headers.insert(header::WWW_AUTHENTICATE, value);
    }
    if let Refusal::Unavailable { retry_after } = refusal {
        // Whole seconds, rounded up: never sooner than the server said.
        let seconds = retry_after.as_millis().div_ceil(1000).max(1) as u64;
        headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    reply
}

/// Reads one JSON-RPC message of at most `limit` bytes; otherwise the
/// response that says why not.
async fn read_message(body: Body, limit: usize) -> Result<Message, Response> {
    let bytes = to_bytes(body, limit).await.map_err(|_| {
        let error = invalid_request(format!("the body exceeds the {limit}-byte limit"));
        with_status(StatusCode::PAYLOAD_TOO_LARGE, error)
    })?;
    let frame = std::str::from_utf8(&bytes)
        .map_err(|_| refuse_frame(FrameError::Parse("the body is not UTF-8".into())))?;
    frame.parse::<Message>().map_err(refuse_frame)
}

/// The answer to a body that is no JSON-RPC message. A malformed response
/// gets what a well-formed one gets: a POST needs an answer, and this one
/// answers no request, so it carries no id.
fn refuse_frame(error: FrameError) -> Response {
    match error.to_response() {
        Some(reply) => json_response(&reply),
        None => response_refused(),
    }
}

/// The answer to a POST that carries a response, which clients must not
/// send.
fn response_refused() -> Response {
    let error = invalid_request("clients do not send responses");
    json_response(&JsonRpcResponse::error(None, error))
}

/// `503` with `Retry-After`: the server's memory budget has no room.
fn busy(id: Option<RequestId>) -> Response {
    let mut reply = json_response(&JsonRpcResponse::error(id, memory_busy()));
    *reply.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    reply
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    reply
}

/// A JSON-RPC error without an id, with an explicit HTTP status.
fn with_status(status: StatusCode, error: ErrorObject) -> Response {
    let mut reply = json_response(&JsonRpcResponse::error(None, error));
    *reply.status_mut() = status;
    reply
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `subscriptions/listen` for list changes, which stays open.
    fn listen(id: i64) -> Request {
        let meta = serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        let body = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
            "params": {"_meta": meta, "notifications": {"toolsListChanged": true}}});
        axum::http::Request::post("/mcp")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "subscriptions/listen")
            .body(Body::from(body.to_string()))
            .unwrap()
    }

    #[tokio::test]
    async fn a_request_past_its_callers_limit_holds_nothing() {
        let server = Server::builder("limits", "1").build();
        let http = StreamableHttp::new(server.clone()).max_listen_streams_per_subject(1);
        let endpoint = Arc::new(http.endpoint);
        let open = handle(State(Arc::clone(&endpoint)), listen(1)).await;
        assert_eq!(open.status(), StatusCode::OK);
        let used = server.budget().used();

        let refused = handle(State(Arc::clone(&endpoint)), listen(2)).await;
        assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(server.budget().used(), used, "no charge taken");
        assert_eq!(endpoint.admission.accounts(), 1, "no entry added");

        drop(open);
        assert_eq!(endpoint.admission.accounts(), 0, "the slot came back");
        let again = handle(State(Arc::clone(&endpoint)), listen(3)).await;
        assert_eq!(again.status(), StatusCode::OK);
    }
}
