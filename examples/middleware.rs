//! tower middleware around tools: an audit log, a rate limit per
//! subject, a timeout, and a tool only admins may see and call.
//!
//! ```text
//! cargo run --example middleware -- 127.0.0.1:3000
//! ```
//!
//! It serves Streamable HTTP, prints the endpoint's URL on stderr, then
//! one `audit:` line per tool call. Two tokens are accepted:
//!
//! - `alice-token`, for `alice`, who holds the scope `admin`;
//! - `bob-token`, for `bob`, who holds none.
//!
//! What each piece does:
//!
//! - every call goes through [`audit`], which writes who called what and
//!   how it ended (`ServerBuilder::layer`, with `middleware::from_fn`);
//! - each subject may make [`CALLS_PER_MINUTE`] calls a minute; past
//!   that, a call is refused at once with a tool error, and other
//!   subjects are not slowed. tower's `RateLimit` makes calls wait rather
//!   than fail, so `load_shed` in front of it turns a wait into a refusal,
//!   and [`PerSubject`] gives each subject a limit of its own;
//! - `report` may take [`REPORT_TIMEOUT`] at most (`#[tool(layer = …)]`);
//! - `purge` is refused to anyone but an admin (a layer of its own, added
//!   with `Layered`), and hidden from them too (`ServerBuilder::visibility`),
//!   so `bob` neither sees it nor learns that it exists.

use std::collections::HashMap;
use std::error::Error;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};
use std::time::{Duration, Instant};

use presa::prelude::*;
use presa::server::http::{BearerTokens, StreamableHttp};
use presa::server::middleware::{
    Handled, HandlerMiddleware, HandlerService, Invocation, Next, from_fn,
};
use presa::server::{BoxFuture, CatalogItem, Layered};
use tower::{BoxError, Layer, Service, ServiceBuilder, ServiceExt};

/// How many calls a minute each subject may make.
const CALLS_PER_MINUTE: u64 = 10;

/// The longest `report` may take.
const REPORT_TIMEOUT: Duration = Duration::from_secs(2);

/// Says what it was given.
#[tool(read_only)]
async fn echo(text: String) -> String {
    text
}

/// Builds a report; given more than a few seconds, it would take forever.
#[tool(read_only, layer = tower::timeout::TimeoutLayer::new(REPORT_TIMEOUT))]
async fn report(seconds: u64) -> String {
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    format!("report ready after {seconds} s")
}

/// Deletes every build. Admins only.
#[tool(destructive)]
async fn purge() -> &'static str {
    "purged"
}

/// Writes one line per call to stderr: who called what, and how it ended.
async fn audit(invocation: Invocation, next: Next) -> Result<Handled, BoxError> {
    let who = invocation.caller().subject.clone();
    let what = format!("{} {}", invocation.method().as_str(), invocation.name());
    let started = Instant::now();
    let outcome = next.run(invocation).await;
    let ended = match &outcome {
        Ok(handled) if handled.is_success() => "ok".to_owned(),
        Ok(handled) => match handled.error() {
            Some(error) if error.is_input_required() => "asked for input".to_owned(),
            Some(error) => format!("failed: {error}"),
            None => "tool error".to_owned(),
        },
        Err(error) => format!("stopped by a layer: {error}"),
    };
    eprintln!(
        "audit: {} {what} {ended} in {} ms",
        who.as_deref().unwrap_or("anonymous"),
        started.elapsed().as_millis()
    );
    outcome
}

/// Answers in the handler's place for anyone without the `admin` scope.
async fn admins_only(invocation: Invocation, next: Next) -> Result<Handled, BoxError> {
    if invocation.caller().scopes.contains("admin") {
        return next.run(invocation).await;
    }
    Ok(invocation.fail(ToolError::new("Only admins may do this.")))
}

/// Gives each subject a service of its own, made by `layer`: a rate limit
/// per subject instead of one for everybody. It keeps at most
/// `max_subjects`; past that it forgets them all and starts again, so a
/// flood of new subjects cannot grow its memory.
#[derive(Clone)]
struct PerSubject<L> {
    layer: L,
    max_subjects: usize,
}

impl<L: Clone> Layer<HandlerService> for PerSubject<L> {
    type Service = PerSubjectService<L>;

    fn layer(&self, inner: HandlerService) -> Self::Service {
        PerSubjectService {
            layer: self.layer.clone(),
            max_subjects: self.max_subjects,
            inner,
            services: Arc::default(),
        }
    }
}

/// [`PerSubject`]'s service.
#[derive(Clone)]
struct PerSubjectService<L> {
    layer: L,
    max_subjects: usize,
    inner: HandlerService,
    services: Arc<Mutex<HashMap<String, HandlerService>>>,
}

impl<L: HandlerMiddleware + Clone> Service<Invocation> for PerSubjectService<L> {
    type Response = Handled;
    type Error = BoxError;
    type Future = BoxFuture<Result<Handled, BoxError>>;

    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        // Each subject's service is made ready in `call`.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, invocation: Invocation) -> Self::Future {
        let subject = invocation.caller().subject.clone().unwrap_or_default();
        let service = {
            let mut services = self.services.lock().unwrap_or_else(|e| e.into_inner());
            if !services.contains_key(&subject) && services.len() >= self.max_subjects {
                services.clear();
            }
            services
                .entry(subject)
                .or_insert_with(|| self.layer.wrap(self.inner.clone()))
                .clone()
        };
        Box::pin(service.oneshot(invocation))
    }
}

/// Who may call the endpoint, by the token each request carries.
fn tokens() -> BearerTokens {
    BearerTokens::new()
        .caller("alice-token", Caller::subject("alice").scopes(["admin"]))
        .token("bob-token", "bob")
}

/// Whether `caller` may know of `item`: `purge` exists for admins only.
fn visible(caller: &Caller, item: &CatalogItem<'_>) -> bool {
    item.name() != "purge" || caller.scopes.contains("admin")
}

fn server() -> Server {
    // A rate limit that refuses rather than waits: `load_shed` fails a
    // call at once when the limit is not ready. `buffer` shares one
    // limit among the clones of the service that calls make.
    let limit = ServiceBuilder::new()
        .buffer(64)
        .load_shed()
        .rate_limit(CALLS_PER_MINUTE, Duration::from_secs(60));
    Server::builder("middleware", env!("CARGO_PKG_VERSION"))
        .layer(from_fn(audit))
        .layer(PerSubject {
            layer: limit,
            max_subjects: 10_000,
        })
        .tool(EchoTool)
        .tool(ReportTool)
        .tool(Layered::new(PurgeTool, from_fn(admins_only)))
        .visibility(visible)
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let address = std::env::args()
        .nth(1)
        .ok_or("usage: middleware ADDRESS (such as 127.0.0.1:3000)")?;
    let listener = tokio::net::TcpListener::bind(&address).await?;
    eprintln!("serving at http://{}/mcp", listener.local_addr()?);
    // Serves until SIGTERM or Ctrl-C.
    StreamableHttp::new(server())
        .authenticator(tokens())
        .serve_on(listener)
        .await?;
    Ok(())
}
