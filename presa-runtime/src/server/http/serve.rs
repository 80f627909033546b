//! The standalone server of
//! [`StreamableHttp::serve`](super::StreamableHttp::serve): an accept
//! loop of its own on hyper, because `axum::serve` sets no timeout and no
//! bound, so a client that opens connections and never finishes their
//! headers holds them, and their file descriptors, for ever.
//!
//! A connection goes through these rules, in order:
//!
//! 1. at most
//!    [`max_connections`](super::StreamableHttp::max_connections)
//!    connections are open at once (default [`MAX_CONNECTIONS`]); at the
//!    bound the server accepts no more until one closes, and new
//!    connections wait in the system's accept queue, so a client cannot
//!    take more than the bound, and the others are served as connections
//!    free up (which rule 2 makes soon);
//! 2. a connection has
//!    [`header_read_timeout`](super::StreamableHttp::header_read_timeout)
//!    (default [`HEADER_READ_TIMEOUT`]), from when it is accepted or its
//!    last response is written, to send a request's complete headers;
//!    past it, it is closed. The one timer bounds slow headers and idle
//!    keep-alive connections alike;
//! 3. on SIGTERM or Ctrl-C (or the future given to
//!    [`Serve::with_graceful_shutdown`]), serving ends as `shutdown` says:
//!    no connection is accepted any more, idle ones are closed, the
//!    requests running get the server's
//!    [drain period](crate::server::ServerBuilder::drain_period), then
//!    `-31003`, and `subscriptions/listen` streams close gracefully at
//!    once, as does a legacy session's GET stream; [`FINAL_WRITE`] after
//!    the drain period, the connections still open are dropped and the
//!    server returns. A second signal returns at once;
//! 4. Nagle's algorithm is off on every connection (`TCP_NODELAY`): an
//!    event stream writes small events one at a time, and with it on,
//!    each would wait for the client's delayed acknowledgement, some 40
//!    ms on Linux, before it leaves.
//!
//! Each request carries its peer's address as axum's `ConnectInfo`, by
//! which the endpoint tells anonymous callers apart (see `admission`).
//!
//! At start, a server that listens on an address other machines can reach
//! (`0.0.0.0`, a public address) while it allows loopback host names only
//! logs a warning that names the setting to change
//! ([`AllowedHosts`](super::AllowedHosts)): every request that names it by
//! a domain would get `403`. It stays a warning, since a container binds
//! `0.0.0.0` and is reached as `localhost` through a forwarded port, which
//! is a correct setup.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::{Extension, Router};
use futures::future::BoxFuture;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::task::JoinSet;

use crate::server::serving::shutdown::{FINAL_WRITE, Shutdown, ShutdownSwitch};
use crate::server::serving::signals::{signalled, termination_signals};

/// How long a connection of the standalone server has to send a request's
/// complete headers, from when it is accepted or its last response is
/// written, by default.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How many connections the standalone server keeps open at once, by
/// default.
pub const MAX_CONNECTIONS: usize = 1024;

/// The standalone server's own settings (rules 1 and 2).
#[derive(Debug, Clone, Copy)]
pub(super) struct Settings {
    pub header_read_timeout: Duration,
    pub max_connections: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            header_read_timeout: HEADER_READ_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
        }
    }
}

/// Where the server listens.
pub(super) enum Listen {
    /// An address to bind.
    Address(SocketAddr),
    /// A listener bound already.
    Listener(TcpListener),
}

/// The standalone server
/// ([`StreamableHttp::serve`](super::StreamableHttp::serve),
/// [`serve_on`](super::StreamableHttp::serve_on)): a future that serves
/// the endpoint at `/mcp` until SIGTERM or Ctrl-C, or the future given to
/// [`with_graceful_shutdown`](Serve::with_graceful_shutdown). Then it
/// accepts no more connections and closes the idle ones;
/// `subscriptions/listen` streams (and legacy GET streams) end at once,
/// the former with their graceful closure; the requests it accepted get
/// the server's [drain period](crate::server::ServerBuilder::drain_period)
/// to finish, and the rest are answered `503` with `-31003`; at the latest
/// [`FINAL_WRITE`] after the drain period it drops what is still open and
/// resolves. A second signal resolves at once. It fails only if the address
/// cannot be bound.
///
/// A future rather than `IntoFuture`, as `axum::serve`'s is, so that it
/// can be handed to `tokio::spawn` as it is.
#[must_use = "a server serves nothing until it is awaited or spawned"]
pub struct Serve {
    state: State,
}

enum State {
    /// Not polled yet: the shutdown signal may still change.
    Ready(Box<Unstarted>),
    /// Polled: serving.
    Running(BoxFuture<'static, std::io::Result<()>>),
}

/// What a server not yet polled holds.
struct Unstarted {
    endpoint: Standalone,
    listen: Listen,
    stop: Option<BoxFuture<'static, ()>>,
}

/// What the standalone server serves: the endpoint's router, whose
/// requests the switch's shutdown bounds, and its settings.
pub(super) struct Standalone {
    pub app: Router,
    pub settings: Settings,
    pub switch: ShutdownSwitch,
    /// Whether the endpoint allows loopback host names only.
    pub loopback_only: bool,
}

impl Serve {
    pub(super) fn new(endpoint: Standalone, listen: Listen) -> Self {
        let unstarted = Unstarted {
            endpoint,
            listen,
            stop: None,
        };
        Serve {
            state: State::Ready(Box::new(unstarted)),
        }
    }

    /// Ends serving when `signal` resolves, instead of on SIGTERM or
    /// Ctrl-C, as `axum::serve(…).with_graceful_shutdown(signal)` does.
    /// Call it before the server is first polled; afterwards it changes
    /// nothing.
    pub fn with_graceful_shutdown(
        mut self,
        signal: impl Future<Output = ()> + Send + 'static,
    ) -> Self {
        if let State::Ready(unstarted) = &mut self.state {
            unstarted.stop = Some(Box::pin(signal));
        }
        self
    }
}

impl Future for Serve {
    type Output = std::io::Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // Each poll takes the serving future out and puts it back; the
        // first one builds it. Meanwhile a future that never ends holds
        // the place: boxing it allocates nothing.
        let idle = State::Running(Box::pin(std::future::pending()));
        let mut running = match std::mem::replace(&mut self.state, idle) {
            State::Running(running) => running,
            State::Ready(unstarted) => {
                let Unstarted {
                    endpoint,
                    listen,
                    stop,
                } = *unstarted;
                Box::pin(run(endpoint, listen, stop))
            }
        };
        let poll = running.as_mut().poll(cx);
        self.state = State::Running(running);
        poll
    }
}

/// What ends serving: the process's signals, or the application's future.
enum Stop {
    Signals(watch::Receiver<u32>),
    Signal(BoxFuture<'static, ()>),
}

impl Stop {
    /// Resolves when serving should end.
    async fn first(&mut self) {
        match self {
            Stop::Signals(count) => signalled(count.clone(), 1).await,
            Stop::Signal(signal) => signal.await,
        }
    }

    /// Resolves when serving should end at once: at a second signal.
    fn second(&self) -> BoxFuture<'static, ()> {
        match self {
            Stop::Signals(count) => Box::pin(signalled(count.clone(), 2)),
            Stop::Signal(_) => Box::pin(std::future::pending()),
        }
    }
}

async fn run(
    endpoint: Standalone,
    listen: Listen,
    stop: Option<BoxFuture<'static, ()>>,
) -> std::io::Result<()> {
    let mut stop = match stop {
        Some(signal) => Stop::Signal(signal),
        None => Stop::Signals(termination_signals()),
    };
    let mut listener = match listen {
        Listen::Address(address) => TcpListener::bind(address).await?,
        Listen::Listener(listener) => listener,
    };
    let Standalone {
        app,
        settings,
        switch,
        loopback_only,
    } = endpoint;
    let address = listener.local_addr()?;
    tracing::info!(%address, "serving MCP at /mcp");
    if loopback_only && !address.ip().to_canonical().is_loopback() {
        warn_loopback_only(address);
    }
    let slots = Arc::new(Semaphore::new(settings.max_connections));
    let mut connections = JoinSet::new();
    loop {
        let (slot, stream, peer) = tokio::select! {
            () = stop.first() => break,
            accepted = accept(&mut listener, &slots) => accepted,
        };
        // Each request carries its peer's address, by which anonymous
        // callers are told apart (see `admission`).
        let app = app.clone().layer(Extension(ConnectInfo(peer)));
        let served = serve_connection(stream, app, settings, switch.watch(), slot);
        connections.spawn(served);
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    let deadline = switch.start();
    tracing::info!(
        open = connections.len(),
        "stopping: accepting no more connections, answering the requests accepted"
    );
    let closed = async { while connections.join_next().await.is_some() {} };
    tokio::select! {
        closed = tokio::time::timeout_at(deadline + FINAL_WRITE, closed) => if closed.is_err() {
            tracing::warn!("dropping the connections still open after the drain period");
        },
        () = stop.second() => {
            tracing::warn!("a second signal: stopping without waiting for requests to finish");
        }
    }
    Ok(())
}

/// The warning of a server that other machines can reach but that allows
/// loopback host names only.
fn warn_loopback_only(address: SocketAddr) {
    tracing::warn!(
        %address,
        "serving on {address}, which other machines can reach, but only the host names \
         localhost, 127.0.0.1 and [::1] are allowed: a request that names this server by any \
         other name gets 403. If clients reach it by a domain, allow that name with \
         StreamableHttp::allowed_hosts(AllowedHosts::loopback().with(\"mcp.example.com\")). If \
         they reach it as localhost (a container's forwarded port), nothing needs to change"
    );
}

/// The next connection and its peer's address, once there is room for it
/// (rule 1).
async fn accept(
    listener: &mut TcpListener,
    slots: &Arc<Semaphore>,
) -> (OwnedSemaphorePermit, TcpStream, SocketAddr) {
    let slot = Arc::clone(slots)
        .acquire_owned()
        .await
        .expect("the semaphore is never closed");
    // Logs and rides out accept errors (too many open files, say).
    let (stream, peer) = axum::serve::Listener::accept(listener).await;
    // Rule 4.
    if let Err(error) = stream.set_nodelay(true) {
        tracing::debug!(%error, "could not turn Nagle's algorithm off on a connection");
    }
    (slot, stream, peer)
}

/// Serves one connection (rule 2) until it ends, or gracefully once the
/// shutdown starts; its slot is free again after.
async fn serve_connection(
    stream: TcpStream,
    app: Router,
    settings: Settings,
    shutdown: Shutdown,
    _slot: OwnedSemaphorePermit,
) {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(settings.header_read_timeout);
    let connection = builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app));
    tokio::pin!(connection);
    let served = tokio::select! {
        served = connection.as_mut() => served,
        _ = shutdown.started() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(error) = served {
        tracing::debug!(%error, "a connection ended with an error");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rule 4: without it, each small event of a kept-alive connection's
    /// stream waits for the client's delayed acknowledgement.
    #[tokio::test]
    async fn accepted_connections_send_small_writes_at_once() {
        let mut listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let client = tokio::spawn(TcpStream::connect(address));
        let slots = Arc::new(Semaphore::new(1));
        let (_slot, stream, _) = accept(&mut listener, &slots).await;
        assert!(stream.nodelay().unwrap(), "TCP_NODELAY is set");
        drop(client.await.unwrap().unwrap());
    }
}
