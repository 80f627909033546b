//! [`StreamableHttp`]: a [`Server`] as the MCP endpoint of an HTTP
//! server, and the path every POST takes through it.
//!
//! A request is checked in this order, each step answering on its own
//! when it fails:
//!
//! 1. `Host` and `Origin` against the [`AllowedHosts`] (`403`): the
//!    request names its host (`Host`, or HTTP/2's `:authority`), and every
//!    host and origin it carries can be read and is allowed (see `guard`);
//! 2. the caller, by the [`Authenticator`] (`401` with a
//!    `WWW-Authenticate` challenge, or `503` when credentials cannot be
//!    checked now: see `auth`);
//! 3. one of the caller's body slots (`503` with `Retry-After` and
//!    `-31001` past its limit: see `admission`). It comes before a byte of
//!    the body is read or charged to the memory budget, so that one
//!    caller's bodies cannot fill the budget that every caller shares;
//! 4. the body, as it arrives (see `body`): its size (`413`), its time
//!    and its pace (`408`, and the connection is closed), room for each
//!    piece in the server's memory budget (`503` with `Retry-After`). Then
//!    the body slot is given back, and the JSON-RPC framing checked (`400`
//!    with `-32700` or `-32600`); a notification is accepted with `202`.
//!    Then the scopes of the tool, prompt or resource the request names,
//!    against the caller's (`403` with the step-up challenge, in either
//!    era: see `server::authorize`);
//! 5. a slot of the caller's own for the request: one of its listen
//!    streams for `subscriptions/listen`, one of its requests in progress
//!    for anything else (`503` with `Retry-After` and `-31001` past its
//!    limit, so that one caller cannot starve the others: see
//!    `admission`). The answer holds the slot until it is out;
//! 6. room in the budget for the request as parsed (`503` again: see
//!    [`ServerBuilder::memory_limit`](crate::server::ServerBuilder::memory_limit)),
//!    which takes the place of the body's charge;
//! 7. the mirrored headers against the body (`400` with `-32020`);
//! 8. the server core, whose answer becomes JSON or an event stream. The
//!    request holds its charge until its handler ends; the answer is
//!    produced as the client reads it, so a slow reader holds nothing more
//!    than its slot.
//!
//! A request never holds two slots: its body slot goes (step 4) before
//! its request takes the slot its method needs (step 5), which is written
//! in the body, so it cannot be known sooner.
//!
//! Between steps 4 and 5, the legacy transport, served by default
//! ([`StreamableHttp::legacy_sessions`]), may take the POST instead: one
//! that opens a session (`initialize`) or names one (`Mcp-Session-Id`,
//! without `Mcp-Method`). It answers every `GET` and `DELETE` once steps 1
//! and 2 pass: those naming a session are its own, the others get `405`,
//! as the modern revision asks (see `legacy`, whose requests and streams
//! take the same slots). A legacy POST's body is read by steps 1 to 4, as
//! a modern one's is. Without the legacy transport, every POST is modern,
//! and every `GET` and `DELETE` gets `405`.
//!
//! Served on its own ([`StreamableHttp::serve`], see `serve`), the endpoint
//! ends with the server: each request in step 8 is bounded by its shutdown
//! (see `server::shutdown`), and one that arrives once the drain period is
//! over gets `-31003` without being run.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use tracing::Instrument;

use super::admission::{Account, Admission, Slot};
use super::auth::{Anonymous, Authenticator, ProtectedResourceMetadata, Refusal, challenge};
use super::body::{BodyLimits, read_body};
use super::forwarded::{ClientAddress, TrustedProxies};
use super::guard::{AllowedHosts, url_host};
use super::headers;
use super::respond::{json_response, method_not_allowed, respond, with_status};
use super::serve::{Listen, Serve, Settings, Standalone};
use super::served::EndpointState;
use crate::server::caller::{Caller, without_credentials};
use crate::server::request::reply::{invalid_request, memory_busy};
use crate::server::router::Server;
use crate::server::serving::connection::request_footprint;
use crate::server::serving::shutdown::{Shutdown, ShutdownSwitch, not_run};
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
    endpoint: EndpointState,
    /// What [`StreamableHttp::serve`] needs beyond the endpoint.
    standalone: Settings,
}

impl StreamableHttp {
    /// Serves `server` anonymously to loopback hosts, with bodies up to the
    /// server's message limit.
    pub fn new(server: Server) -> Self {
        let body = BodyLimits::new(server.max_message_size());
        StreamableHttp {
            endpoint: EndpointState {
                server,
                hosts: AllowedHosts::loopback(),
                published_host: None,
                proxies: TrustedProxies::none(),
                authenticator: Arc::new(Anonymous),
                body,
                metadata: None,
                legacy: None,
                admission: Admission::new(),
                shutdown: Shutdown::never(),
            },
            standalone: Settings::default(),
        }
        .legacy_sessions(super::legacy::LegacySessions::default())
    }

    fn configure(mut self, change: impl FnOnce(&mut EndpointState)) -> Self {
        change(&mut self.endpoint);
        self
    }

    /// The hosts requests may address and come from (default: loopback).
    /// The host of the resource URL the endpoint publishes
    /// ([`oauth`](Self::oauth), [`protected_resource`](Self::protected_resource))
    /// is allowed too. A request for any other host gets `403`, whose body
    /// names the host and this setting.
    pub fn allowed_hosts(self, hosts: AllowedHosts) -> Self {
        self.configure(|e| e.hosts = hosts)
    }

    /// The reverse proxies whose forwarded header names the client
    /// (default [`TrustedProxies::none`]: the client is the socket peer,
    /// and no header is read). The client's address is what the limits
    /// per address count by, and what an [`Authenticator`] reads with
    /// [`ClientAddress::of`]. Name only the proxies in front of this
    /// server: any peer you name here can claim to be any client.
    ///
    /// ```
    /// # fn build(server: presa_runtime::server::Server) -> presa_runtime::server::http::StreamableHttp {
    /// use presa_runtime::server::http::{StreamableHttp, TrustedProxies};
    ///
    /// // nginx on the same machine, passing X-Forwarded-For.
    /// StreamableHttp::new(server).trusted_proxies(TrustedProxies::loopback())
    /// # }
    /// ```
    pub fn trusted_proxies(self, proxies: TrustedProxies) -> Self {
        self.configure(|e| e.proxies = proxies)
    }

    /// Who the caller of each request is (default: anonymous).
    pub fn authenticator(self, authenticator: impl Authenticator) -> Self {
        self.configure(|e| e.authenticator = Arc::new(authenticator))
    }

    /// The largest request body accepted, in bytes (default: the server's
    /// message limit); larger ones get `413`, as soon as they announce it
    /// or grow past it.
    pub fn body_limit(self, bytes: usize) -> Self {
        self.configure(|e| e.body.max_bytes = bytes)
    }

    /// How long a request body has to arrive whole, from when the endpoint
    /// starts to read it (default [`BODY_TIMEOUT`](super::BODY_TIMEOUT),
    /// 30 s). Past it, the request gets `408` and its connection is
    /// closed. This bounds bodies that keep up
    /// [`min_body_rate`](Self::min_body_rate) but never end.
    pub fn body_timeout(self, timeout: Duration) -> Self {
        self.configure(|e| e.body.timeout = timeout)
    }

    /// The least average pace, in bytes per second, a request body must
    /// keep up once `grace` has passed since its reading started (default
    /// [`MIN_BODY_RATE`](super::MIN_BODY_RATE), 1 KiB per second, after
    /// [`BODY_RATE_GRACE`](super::BODY_RATE_GRACE), 10 s): `t` seconds in,
    /// a body must have sent `(t - grace) * bytes_per_second` bytes. A body
    /// that falls behind gets `408` and its connection is closed, so that a
    /// client that trickles its bodies holds nothing for long. A small body
    /// sent whole within `grace` never falls behind. `0` checks no pace;
    /// [`body_timeout`](Self::body_timeout) still holds.
    pub fn min_body_rate(self, bytes_per_second: u32, grace: Duration) -> Self {
        self.configure(|e| {
            e.body.min_rate = bytes_per_second;
            e.body.grace = grace;
        })
    }

    /// Publishes `metadata` at its well-known path and names it in every
    /// `WWW-Authenticate` challenge. Requests may name the host of its
    /// `resource` URL, at any port, beside the
    /// [`allowed_hosts`](Self::allowed_hosts): that is the name clients
    /// are told to use.
    pub fn protected_resource(self, metadata: ProtectedResourceMetadata) -> Self {
        self.configure(|e| {
            e.published_host = url_host(&metadata.resource);
            e.metadata = Some(metadata);
        })
    }

    /// How the legacy transport keeps its sessions and streams (see
    /// [`LegacySessions`](super::legacy::LegacySessions) for each setting and its
    /// default).
    pub fn legacy_sessions(self, settings: super::legacy::LegacySessions) -> Self {
        self.configure(|e| {
            e.legacy = Some(super::legacy::LegacyTransport::new(settings, &e.server))
        })
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

    /// How many request bodies one subject may be sending at once (default
    /// [`MAX_BODY_READS_PER_SUBJECT`](super::MAX_BODY_READS_PER_SUBJECT),
    /// 16; at least 1). A body takes its slot before a byte of it is
    /// charged to the memory budget, and gives it back once it has
    /// arrived, so one subject's bodies hold at most this many times
    /// [`body_limit`](Self::body_limit) of the budget that every caller
    /// shares. Past it, a request gets `-31001` with `503` and
    /// `Retry-After` without being read. Anonymous callers count by
    /// network, as for
    /// [`max_requests_per_subject`](Self::max_requests_per_subject).
    pub fn max_body_reads_per_subject(self, bodies: usize) -> Self {
        self.configure(|e| e.admission.max_bodies = bodies.max(1))
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
    /// anonymous callers share one quota. Behind a reverse proxy, name it
    /// with [`trusted_proxies`](Self::trusted_proxies), so that each
    /// client behind it is counted by its own address.
    pub fn max_requests_per_subject(self, requests: usize) -> Self {
        self.configure(|e| e.admission.max_requests = requests.max(1))
    }

    /// A router with the MCP endpoint at `path` and, when configured, the
    /// Protected Resource Metadata at its well-known path. Merge it into an
    /// application with [`Router::merge`].
    ///
    /// The endpoint's own limits hold wherever it is mounted: a request
    /// body's size, time and pace, and what each caller may hold at once.
    /// Mounted in your own server, the endpoint has the connection limits
    /// that server sets, and `axum::serve` sets none: a client that opens
    /// connections and never finishes its headers holds them for ever. Set
    /// what [`serve`](Self::serve) sets: a timer and a header read timeout
    /// on hyper's connection builder (which also closes idle keep-alive
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
    /// [`protected_resource`](Self::protected_resource) in one. So requests
    /// may name the host of the resource URL (`mcp.example.com` for
    /// `https://mcp.example.com/mcp`), beside the
    /// [`allowed_hosts`](Self::allowed_hosts).
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
        let published = self.endpoint.published_host.as_deref();
        let loopback_only = self.endpoint.hosts.loopback_only(published);
        Standalone {
            app: self.router("/mcp"),
            settings,
            switch,
            loopback_only,
        }
    }
}

/// One POST to the MCP endpoint.
async fn handle(State(endpoint): State<Arc<EndpointState>>, request: Request) -> Response {
    let (mut parts, body) = request.into_parts();
    let caller = match checked_caller(&endpoint, &mut parts).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    // Authenticated, the request needs its credentials no more: one copy
    // of the rest serves the checks below and the handlers' `Headers`.
    let request_headers = Arc::new(without_credentials(std::mem::take(&mut parts.headers)));
    let caller = caller.with_shared_headers(Arc::clone(&request_headers));
    let account = endpoint.admission.account(&caller, &parts);
    let message = match read_message(&endpoint, &account, body).await {
        Ok(message) => message,
        Err(reply) => return reply,
    };
    if let Message::Request(request) = &message
        && let Some(scopes) = endpoint.server.lacking_scopes(request, &caller)
    {
        let step_up = Refusal::InsufficientScope {
            scope: scopes.join(" "),
        };
        return refuse(&step_up, endpoint.metadata.as_ref());
    }
    if let Some(legacy) = &endpoint.legacy
        && legacy.takes(&request_headers, &message)
    {
        let parts = endpoint.parts();
        return legacy
            .post(parts, &request_headers, &caller, &account, message)
            .await;
    }
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
    let Ok(charge) = endpoint
        .server
        .budget()
        .try_charge(request_footprint(&request))
    else {
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

/// Steps 1 and 2: the host guard and the caller, once the client's
/// address is recorded for every reader (see `forwarded`).
async fn checked_caller(
    endpoint: &EndpointState,
    parts: &mut axum::http::request::Parts,
) -> Result<Caller, Response> {
    if let Some(refused) = guard(endpoint, parts) {
        return Err(refused);
    }
    ClientAddress::record(&endpoint.proxies, parts);
    let parts = &*parts;
    endpoint
        .authenticator
        .authenticate(parts)
        .await
        .map_err(|refusal| refuse(&refusal, endpoint.metadata.as_ref()))
}

/// A GET: the legacy transport's to answer, `405` without it.
async fn handle_get(State(endpoint): State<Arc<EndpointState>>, request: Request) -> Response {
    let (mut parts, _) = request.into_parts();
    let caller = match checked_caller(&endpoint, &mut parts).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    let Some(legacy) = &endpoint.legacy else {
        return method_not_allowed();
    };
    let account = endpoint.admission.account(&caller, &parts);
    legacy
        .get(endpoint.parts(), &parts.headers, &caller, &account)
        .await
}

/// A DELETE: the legacy transport's to answer, `405` without it.
async fn handle_delete(State(endpoint): State<Arc<EndpointState>>, request: Request) -> Response {
    let (mut parts, _) = request.into_parts();
    let caller = match checked_caller(&endpoint, &mut parts).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    match &endpoint.legacy {
        Some(legacy) => {
            legacy
                .delete(endpoint.parts(), &parts.headers, &caller)
                .await
        }
        None => method_not_allowed(),
    }
}

/// `403` for a request whose `Host` or `Origin` the guard refuses.
fn guard(endpoint: &EndpointState, parts: &axum::http::request::Parts) -> Option<Response> {
    let published = endpoint.published_host.as_deref();
    let forbidden = endpoint.hosts.check(parts, published).err()?;
    tracing::warn!(
        reason = ?forbidden,
        host = ?parts.headers.get(header::HOST),
        authority = ?parts.uri.authority(),
        origin = ?parts.headers.get(header::ORIGIN),
        "refused a request for a host or from an origin that is not allowed"
    );
    let error = ErrorObject::new(codes::INVALID_REQUEST, forbidden.message());
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

/// Steps 3 and 4: reads the one JSON-RPC message of `body`, sent by `account`,
/// with one of its body slots (see `admission`) and within the body's
/// limits (see `body`); otherwise the response that says why not.
async fn read_message(
    endpoint: &EndpointState,
    account: &Account,
    body: Body,
) -> Result<Message, Response> {
    let reading = endpoint
        .admission
        .admit(account, Slot::Body)
        .map_err(|error| json_response(&JsonRpcResponse::error(None, error)))?;
    let read = read_body(body, &endpoint.body, endpoint.server.budget())
        .await
        .map_err(|refused| {
            tracing::warn!(?account, reason = ?refused, "refused a request body");
            refused.response()
        })?;
    drop(reading);
    let frame = std::str::from_utf8(&read.bytes)
        .map_err(|_| refuse_frame(FrameError::Parse("the body is not UTF-8".into())))?;
    let message = frame.parse::<Message>().map_err(refuse_frame);
    // The text is gone once parsed: the parsed form is charged in its
    // place (step 6).
    drop(read.charge);
    message
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
    crate::telemetry::metrics::refused("memory");
    let mut reply = json_response(&JsonRpcResponse::error(id, memory_busy()));
    *reply.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    reply
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    reply
}

#[cfg(test)]
mod tests {
    use super::super::admission::MAX_BODY_READS_PER_SUBJECT;
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
            .header(header::HOST, "localhost:3000")
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

    /// A `server/discover` with the headers a modern client sends.
    fn discover() -> axum::http::request::Builder {
        axum::http::Request::post("/mcp")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "server/discover")
    }

    fn discover_body() -> Body {
        let meta = serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
            "params": {"_meta": meta}});
        Body::from(body.to_string())
    }

    /// A body that sends one byte now and one every 2 s after, for ever;
    /// it says `index` on `settled` when it is first read.
    fn slow_body(index: usize, settled: tokio::sync::mpsc::UnboundedSender<usize>) -> Body {
        let pieces = futures::stream::unfold(Some(settled), move |settled| async move {
            match settled {
                Some(settled) => {
                    let _ = settled.send(index);
                }
                None => tokio::time::sleep(Duration::from_secs(2)).await,
            }
            Some((
                Ok::<_, std::io::Error>(axum::body::Bytes::from_static(b" ")),
                None,
            ))
        });
        Body::from_stream(pieces)
    }

    /// The attack of a slow-body flood: `attacker` opens 300 POSTs that each
    /// announce 4 MiB and send a byte every 2 s. `victim`'s request is then
    /// answered at once, and every slow request is over (its connection
    /// closed) within 60 s. Time is paused, so the test waits for nothing.
    async fn slow_bodies_leave_the_others_served(
        endpoint: Arc<EndpointState>,
        attacker: impl Fn(axum::http::request::Builder) -> axum::http::request::Builder,
        victim: Request,
    ) {
        const SLOW: usize = 300;
        let begun = tokio::time::Instant::now();
        let (settled, mut settling) = tokio::sync::mpsc::unbounded_channel();
        let mut slow = tokio::task::JoinSet::new();
        for index in 0..SLOW {
            let request = attacker(axum::http::Request::post("/mcp"))
                .header(header::HOST, "localhost:3000")
                .header(header::CONTENT_TYPE, "application/json")
                .header(header::CONTENT_LENGTH, "4194304")
                .body(slow_body(index, settled.clone()))
                .unwrap();
            let (endpoint, settled) = (Arc::clone(&endpoint), settled.clone());
            slow.spawn(async move {
                let reply = handle(State(endpoint), request).await;
                let _ = settled.send(index);
                (begun.elapsed(), reply.status())
            });
        }
        // Every slow request is reading its body, or was refused.
        let mut seen = std::collections::HashSet::new();
        while seen.len() < SLOW {
            seen.insert(settling.recv().await.unwrap());
        }

        let asked = tokio::time::Instant::now();
        let reply = handle(State(Arc::clone(&endpoint)), victim).await;
        let status = reply.status();
        let body = axum::body::to_bytes(reply.into_body(), usize::MAX)
            .await
            .unwrap();
        assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
        assert!(asked.elapsed() < Duration::from_secs(2));

        let ended = tokio::time::timeout(Duration::from_secs(60), slow.join_all())
            .await
            .expect("every slow request is over within 60 s");
        let timed_out = ended
            .iter()
            .filter(|(_, status)| *status == StatusCode::REQUEST_TIMEOUT)
            .count();
        let refused = ended
            .iter()
            .filter(|(_, status)| *status == StatusCode::SERVICE_UNAVAILABLE)
            .count();
        assert_eq!(
            (timed_out, refused),
            (
                MAX_BODY_READS_PER_SUBJECT,
                SLOW - MAX_BODY_READS_PER_SUBJECT
            ),
            "the caller's body slots read slowly, then time out; the rest are refused"
        );
        let last = ended.iter().map(|(at, _)| *at).max().unwrap();
        assert!(last <= Duration::from_secs(60), "{last:?}");
        assert_eq!(endpoint.server.budget().used(), 0, "no charge is left");
        assert_eq!(endpoint.admission.accounts(), 0, "no slot is left");
    }

    fn with_tokens() -> Arc<EndpointState> {
        let tokens = super::super::BearerTokens::new()
            .token("t-alice", "alice")
            .token("t-bob", "bob");
        let server = Server::builder("slow", "1").build();
        Arc::new(StreamableHttp::new(server).authenticator(tokens).endpoint)
    }

    fn bob() -> Request {
        discover()
            .header(header::HOST, "localhost:3000")
            .header(header::AUTHORIZATION, "Bearer t-bob")
            .body(discover_body())
            .unwrap()
    }

    #[tokio::test(start_paused = true)]
    async fn one_subjects_slow_bodies_leave_another_served() {
        let alice = |request: axum::http::request::Builder| {
            request.header(header::AUTHORIZATION, "Bearer t-alice")
        };
        slow_bodies_leave_the_others_served(with_tokens(), alice, bob()).await;
    }

    #[tokio::test(start_paused = true)]
    async fn slow_legacy_bodies_leave_another_served() {
        let alice = |request: axum::http::request::Builder| {
            request
                .header(header::AUTHORIZATION, "Bearer t-alice")
                .header("mcp-session-id", "a-session")
        };
        slow_bodies_leave_the_others_served(with_tokens(), alice, bob()).await;
    }

    #[tokio::test(start_paused = true)]
    async fn one_addresss_slow_bodies_leave_another_address_served() {
        let server = Server::builder("slow", "1").build();
        let endpoint = Arc::new(StreamableHttp::new(server).endpoint);
        let from = |peer: &str| axum::extract::ConnectInfo(peer.parse::<SocketAddr>().unwrap());
        let attacker =
            move |request: axum::http::request::Builder| request.extension(from("192.0.2.7:4000"));
        let victim = discover()
            .header(header::HOST, "localhost:3000")
            .extension(from("192.0.2.8:4000"))
            .body(discover_body())
            .unwrap();
        slow_bodies_leave_the_others_served(endpoint, attacker, victim).await;
    }

    /// A body that sends `bytes` at once, then stalls; it says `index` on
    /// `settled` once the first piece has been taken.
    fn stalled_body(
        index: usize,
        bytes: usize,
        settled: tokio::sync::mpsc::UnboundedSender<usize>,
    ) -> Body {
        use futures::StreamExt as _;
        let first = futures::stream::once(async move {
            Ok::<_, std::io::Error>(axum::body::Bytes::from(vec![b' '; bytes]))
        });
        let then = futures::stream::once(async move {
            let _ = settled.send(index);
            futures::future::pending::<Result<axum::body::Bytes, std::io::Error>>().await
        });
        Body::from_stream(first.chain(then))
    }

    /// Bodies sent fast and then stalled hold what they sent. One subject
    /// may send only so many at once, so its share of the memory budget is
    /// bounded, and another subject's large request still fits.
    #[tokio::test(start_paused = true)]
    async fn one_subjects_stalled_bodies_hold_no_more_than_its_share() {
        let tokens = super::super::BearerTokens::new()
            .token("t-alice", "alice")
            .token("t-bob", "bob");
        let server = Server::builder("stalled", "1")
            .memory_limit(1 << 20)
            .build();
        let http = StreamableHttp::new(server)
            .authenticator(tokens)
            .body_limit(64 << 10)
            .max_body_reads_per_subject(4);
        let endpoint = Arc::new(http.endpoint);
        let (settled, mut settling) = tokio::sync::mpsc::unbounded_channel();
        let mut stalled = tokio::task::JoinSet::new();
        for index in 0..20 {
            let request = axum::http::Request::post("/mcp")
                .header(header::HOST, "localhost")
                .header(header::AUTHORIZATION, "Bearer t-alice")
                .body(stalled_body(index, 60_000, settled.clone()))
                .unwrap();
            let (endpoint, settled) = (Arc::clone(&endpoint), settled.clone());
            stalled.spawn(async move {
                let reply = handle(State(endpoint), request).await;
                let _ = settled.send(index);
                reply.status()
            });
        }
        let mut seen = std::collections::HashSet::new();
        while seen.len() < 20 {
            seen.insert(settling.recv().await.unwrap());
        }
        assert_eq!(endpoint.server.budget().used(), 4 * 60_000);

        let meta = serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "com.example/pad": "p".repeat(50_000),
        });
        let large = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
            "params": {"_meta": meta}});
        let bob = discover()
            .header(header::HOST, "localhost")
            .header(header::AUTHORIZATION, "Bearer t-bob")
            .body(Body::from(large.to_string()))
            .unwrap();
        let reply = handle(State(Arc::clone(&endpoint)), bob).await;
        assert_eq!(reply.status(), StatusCode::OK);

        let statuses = stalled.join_all().await;
        let count = |status| statuses.iter().filter(|s| **s == status).count();
        assert_eq!(count(StatusCode::REQUEST_TIMEOUT), 4);
        assert_eq!(count(StatusCode::SERVICE_UNAVAILABLE), 16);
        assert_eq!(endpoint.server.budget().used(), 0);
    }

    /// The status of a `server/discover` over `version` to `uri`, with
    /// each `Host` and `Origin` given (raw bytes, as a client may send).
    async fn guarded(
        endpoint: &Arc<EndpointState>,
        version: axum::http::Version,
        uri: &str,
        hosts: &[&[u8]],
        origins: &[&[u8]],
    ) -> StatusCode {
        let mut request = discover().version(version).uri(uri);
        for host in hosts {
            request = request.header(header::HOST, HeaderValue::from_bytes(host).unwrap());
        }
        for origin in origins {
            request = request.header(header::ORIGIN, HeaderValue::from_bytes(origin).unwrap());
        }
        let request = request.body(discover_body()).unwrap();
        handle(State(Arc::clone(endpoint)), request).await.status()
    }

    /// The `Host` and `Origin` values of a request.
    type Headers<'a> = (&'a [&'a [u8]], &'a [&'a [u8]]);

    /// [`guarded`] over HTTP/1.1 to `/mcp`.
    async fn h1(endpoint: &Arc<EndpointState>, hosts: &[&[u8]], origins: &[&[u8]]) -> StatusCode {
        let version = axum::http::Version::HTTP_11;
        guarded(endpoint, version, "/mcp", hosts, origins).await
    }

    fn loopback() -> Arc<EndpointState> {
        Arc::new(StreamableHttp::new(Server::builder("guard", "1").build()).endpoint)
    }

    #[tokio::test]
    async fn an_http2_request_names_its_host_by_its_authority() {
        use axum::http::Version;
        let endpoint = loopback();
        let h2 = |uri| guarded(&endpoint, Version::HTTP_2, uri, &[], &[]);
        assert_eq!(h2("http://localhost:3000/mcp").await, StatusCode::OK);
        assert_eq!(h2("https://[::1]/mcp").await, StatusCode::OK);
        assert_eq!(h2("http://evil.example/mcp").await, StatusCode::FORBIDDEN);
        assert_eq!(h2("/mcp").await, StatusCode::FORBIDDEN, "no host at all");

        // HTTP/1.1 in absolute form: the target's authority is checked too.
        let absolute = guarded(
            &endpoint,
            Version::HTTP_11,
            "http://evil.example/mcp",
            &[b"localhost"],
            &[],
        );
        assert_eq!(absolute.await, StatusCode::FORBIDDEN);
    }

    #[tokio::test]
    async fn the_guard_refuses_a_host_or_origin_it_cannot_read() {
        let endpoint = loopback();
        assert_eq!(
            h1(&endpoint, &[b"localhost:3000"], &[]).await,
            StatusCode::OK
        );
        let local: &[u8] = b"http://localhost:5173";
        assert_eq!(
            h1(&endpoint, &[b"localhost"], &[local]).await,
            StatusCode::OK
        );

        let refused: [Headers; 10] = [
            (&[], &[]),
            (&[b"l\xc3\xb6calhost"], &[]),
            (&[b"localhost\xff"], &[]),
            (&[b"localhost", b"evil.example"], &[]),
            (&[b"localhost"], &[b"null"]),
            (&[b"localhost"], &[b"http://localhost\xff"]),
            (&[b"localhost"], &[b"http://l\xc3\xb6calhost"]),
            (&[b"localhost"], &[local, b"http://evil.example"]),
            (&[b"localhost"], &[b"http://localhost/path"]),
            (&[b"localhost"], &[b"http://evil@localhost"]),
        ];
        for (hosts, origins) in refused {
            let status = h1(&endpoint, hosts, origins).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{hosts:?} {origins:?}");
        }
        let get = axum::http::Request::get("/mcp")
            .body(Body::empty())
            .unwrap();
        let status = handle_get(State(Arc::clone(&endpoint)), get).await.status();
        assert_eq!(status, StatusCode::FORBIDDEN, "a GET without a host");
    }

    /// The guide's server publishes `https://mcp.example.com/mcp`, and its
    /// proxy passes `Host: mcp.example.com`: the resource's host is allowed
    /// beside the loopback names. Another host gets `403`, whose body names
    /// it and the setting that allows it.
    #[tokio::test]
    async fn the_published_resource_host_is_allowed() {
        let server = Server::builder("guard", "1").build();
        let metadata =
            ProtectedResourceMetadata::new("https://mcp.example.com/mcp", "https://as.example");
        let http = StreamableHttp::new(server).protected_resource(metadata);
        let endpoint = Arc::new(http.endpoint);
        for host in [
            &b"mcp.example.com"[..],
            b"mcp.example.com:443",
            b"localhost:3000",
        ] {
            let status = h1(&endpoint, &[host], &[]).await;
            assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(host));
        }
        let origin: &[u8] = b"https://mcp.example.com";
        let status = h1(&endpoint, &[b"mcp.example.com"], &[origin]).await;
        assert_eq!(status, StatusCode::OK);

        let request = discover()
            .header(header::HOST, "api.example.com")
            .body(discover_body())
            .unwrap();
        let refused = handle(State(Arc::clone(&endpoint)), request).await;
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
        let body = axum::body::to_bytes(refused.into_body(), usize::MAX)
            .await
            .unwrap();
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("the host \"api.example.com\""),
            "{message}"
        );
        assert!(
            message.contains("AllowedHosts::loopback().with(\"api.example.com\")"),
            "{message}"
        );
    }

    /// A `subscriptions/listen` from `peer` whose `X-Forwarded-For` is
    /// `forwarded`, as a proxy or a client sends it.
    fn listen_via(id: i64, peer: &str, forwarded: &str) -> Request {
        let mut request = listen(id);
        let peer: SocketAddr = peer.parse().unwrap();
        request
            .extensions_mut()
            .insert(axum::extract::ConnectInfo(peer));
        let forwarded = HeaderValue::from_str(forwarded).unwrap();
        request.headers_mut().insert("x-forwarded-for", forwarded);
        request
    }

    /// An anonymous caller that sends its own `X-Forwarded-For` stays at
    /// its own address, whatever the header says: it cannot dodge its
    /// per-address limit with made-up addresses.
    #[tokio::test]
    async fn a_spoofed_forwarded_header_does_not_move_the_address() {
        for proxies in [TrustedProxies::none(), TrustedProxies::loopback()] {
            let server = Server::builder("limits", "1").build();
            let http = StreamableHttp::new(server)
                .trusted_proxies(proxies)
                .max_listen_streams_per_subject(1);
            let endpoint = Arc::new(http.endpoint);
            let first = listen_via(1, "198.51.100.7:40000", "192.0.2.1");
            let open = handle(State(Arc::clone(&endpoint)), first).await;
            assert_eq!(open.status(), StatusCode::OK);
            let second = listen_via(2, "198.51.100.7:40001", "192.0.2.2");
            let refused = handle(State(Arc::clone(&endpoint)), second).await;
            assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
            let other = listen_via(3, "198.51.100.8:40000", "192.0.2.1");
            let served = handle(State(Arc::clone(&endpoint)), other).await;
            assert_eq!(served.status(), StatusCode::OK, "another address");
        }
    }

    /// Behind a trusted proxy, each client the proxy names has its own
    /// per-address limit: one user's flood behind nginx does not lock out
    /// every other user behind the same nginx.
    #[tokio::test]
    async fn behind_a_trusted_proxy_each_client_has_its_own_limit() {
        let server = Server::builder("limits", "1").build();
        let http = StreamableHttp::new(server)
            .trusted_proxies(TrustedProxies::loopback())
            .max_listen_streams_per_subject(1);
        let endpoint = Arc::new(http.endpoint);
        let flooder = listen_via(1, "127.0.0.1:40000", "198.51.100.7");
        let open = handle(State(Arc::clone(&endpoint)), flooder).await;
        assert_eq!(open.status(), StatusCode::OK);
        let again = listen_via(2, "127.0.0.1:40001", "198.51.100.7");
        let refused = handle(State(Arc::clone(&endpoint)), again).await;
        assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
        let spoofing = listen_via(3, "127.0.0.1:40002", "192.0.2.9, 198.51.100.7");
        let refused = handle(State(Arc::clone(&endpoint)), spoofing).await;
        assert_eq!(
            refused.status(),
            StatusCode::SERVICE_UNAVAILABLE,
            "what the client wrote left of the proxy's entry is not read"
        );
        let neighbour = listen_via(4, "127.0.0.1:40003", "192.0.2.9");
        let served = handle(State(Arc::clone(&endpoint)), neighbour).await;
        assert_eq!(served.status(), StatusCode::OK, "another client");
        assert_eq!(endpoint.admission.accounts(), 2);
    }

    /// The client's address is recorded before the authenticator runs, so
    /// an authenticator of your own reads the same address the limits do.
    #[tokio::test]
    async fn an_authenticator_reads_the_client_address() {
        struct ByAddress;
        #[async_trait::async_trait]
        impl Authenticator for ByAddress {
            async fn authenticate(
                &self,
                request: &axum::http::request::Parts,
            ) -> Result<Caller, Refusal> {
                let address =
                    ClientAddress::of(request).ok_or(Refusal::Unauthorized { scope: None })?;
                Ok(Caller::subject(address.to_string()))
            }
        }
        let server = Server::builder("limits", "1").build();
        let http = StreamableHttp::new(server)
            .trusted_proxies(TrustedProxies::loopback())
            .authenticator(ByAddress)
            .max_listen_streams_per_subject(1);
        let endpoint = Arc::new(http.endpoint);
        let first = listen_via(1, "127.0.0.1:40000", "192.0.2.1");
        let open = handle(State(Arc::clone(&endpoint)), first).await;
        assert_eq!(open.status(), StatusCode::OK);
        let same = listen_via(2, "[::1]:40000", "192.0.2.1");
        let refused = handle(State(Arc::clone(&endpoint)), same).await;
        assert_eq!(
            refused.status(),
            StatusCode::SERVICE_UNAVAILABLE,
            "subject 192.0.2.1"
        );
        let no_peer = handle(State(Arc::clone(&endpoint)), listen(3)).await;
        assert_eq!(
            no_peer.status(),
            StatusCode::UNAUTHORIZED,
            "no address at all"
        );
    }

    #[tokio::test]
    async fn any_host_still_needs_a_host_and_a_real_origin() {
        let server = Server::builder("guard", "1").build();
        let http = StreamableHttp::new(server).allowed_hosts(AllowedHosts::any());
        let endpoint = Arc::new(http.endpoint);
        let evil: &[u8] = b"https://evil.example";
        assert_eq!(
            h1(&endpoint, &[b"evil.example"], &[evil]).await,
            StatusCode::OK
        );
        assert_eq!(h1(&endpoint, &[], &[]).await, StatusCode::FORBIDDEN);
        assert_eq!(
            h1(&endpoint, &[b"\xffevil"], &[]).await,
            StatusCode::FORBIDDEN
        );
        assert_eq!(
            h1(&endpoint, &[b"evil"], &[b"null"]).await,
            StatusCode::FORBIDDEN
        );
    }

    /// Without the legacy transport the endpoint is modern alone: a
    /// legacy `initialize` opens no session, and `GET` and `DELETE` get
    /// `405` even when they name one. With it (the default), those names
    /// are the transport's to answer.
    #[tokio::test]
    async fn without_the_legacy_transport_every_request_is_modern() {
        let server = Server::builder("modern", "1").build();
        let mut modern = StreamableHttp::new(server.clone()).endpoint;
        modern.legacy = None;
        let modern = Arc::new(modern);
        let legacy = Arc::new(StreamableHttp::new(server).endpoint);

        let initialize = || {
            let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "old", "version": "1"}}});
            axum::http::Request::post("/mcp")
                .header(header::HOST, "localhost")
                .header(header::CONTENT_TYPE, "application/json")
                .header(header::ACCEPT, "application/json, text/event-stream")
                .body(Body::from(body.to_string()))
                .unwrap()
        };
        let opened = handle(State(Arc::clone(&legacy)), initialize()).await;
        assert!(opened.headers().contains_key("mcp-session-id"));
        let refused = handle(State(Arc::clone(&modern)), initialize()).await;
        assert!(!refused.headers().contains_key("mcp-session-id"));

        let named = |method: &str| {
            axum::http::Request::builder()
                .method(method)
                .uri("/mcp")
                .header(header::HOST, "localhost")
                .header("mcp-session-id", "no-such-session")
                .body(Body::empty())
                .unwrap()
        };
        let get = handle_get(State(Arc::clone(&modern)), named("GET")).await;
        assert_eq!(get.status(), StatusCode::METHOD_NOT_ALLOWED);
        let delete = handle_delete(State(Arc::clone(&modern)), named("DELETE")).await;
        assert_eq!(delete.status(), StatusCode::METHOD_NOT_ALLOWED);
        let get = handle_get(State(Arc::clone(&legacy)), named("GET")).await;
        assert_eq!(get.status(), StatusCode::NOT_FOUND);
        let delete = handle_delete(State(legacy), named("DELETE")).await;
        assert_eq!(delete.status(), StatusCode::NOT_FOUND);
    }
}
