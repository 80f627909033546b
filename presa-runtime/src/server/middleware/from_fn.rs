//! [`from_fn`]: a layer written as an async function of the invocation
//! and the rest of the stack, for middleware of your own without a
//! `tower::Service` implementation.

use std::fmt;
use std::future::Future;
use std::task::{Context as TaskContext, Poll};

use futures::FutureExt;
use tower::{BoxError, Layer, Service, ServiceExt};

use super::invocation::{Handled, HandlerService, Invocation};
use crate::util::BoxFuture;

/// A layer made of `f`, an async function that takes the [`Invocation`]
/// and [`Next`], the layers inside it and the handler. It may look at the
/// invocation, run the rest with [`Next::run`] (or not), and look at or
/// replace what comes back.
///
/// ```
/// use presa_runtime::server::Server;
/// use presa_runtime::server::middleware::{Invocation, Next, from_fn};
///
/// // Writes how each call ended.
/// let audit = from_fn(|invocation: Invocation, next: Next| async move {
///     let name = invocation.name().to_owned();
///     let outcome = next.run(invocation).await;
///     let ok = matches!(&outcome, Ok(handled) if handled.is_success());
///     eprintln!("{name}: {}", if ok { "ok" } else { "failed" });
///     outcome
/// });
/// let server = Server::builder("jobs", "1").layer(audit).build();
/// ```
pub fn from_fn<F, Fut>(f: F) -> FromFn<F>
where
    F: Fn(Invocation, Next) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Handled, BoxError>> + Send + 'static,
{
    FromFn { f }
}

/// The layer [`from_fn`] makes.
#[derive(Clone)]
pub struct FromFn<F> {
    f: F,
}

impl<F> fmt::Debug for FromFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FromFn")
    }
}

impl<F: Clone> Layer<HandlerService> for FromFn<F> {
    type Service = FromFnService<F>;

    fn layer(&self, inner: HandlerService) -> Self::Service {
        FromFnService {
            f: self.f.clone(),
            inner,
        }
    }
}

/// The service of a [`FromFn`] layer around `inner`.
#[derive(Clone)]
pub struct FromFnService<F> {
    f: F,
    inner: HandlerService,
}

impl<F> fmt::Debug for FromFnService<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FromFnService")
    }
}

impl<F, Fut> Service<Invocation> for FromFnService<F>
where
    F: Fn(Invocation, Next) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Handled, BoxError>> + Send + 'static,
{
    type Response = Handled;
    type Error = BoxError;
    type Future = BoxFuture<Result<Handled, BoxError>>;

    /// Always ready: [`Next::run`] waits for the rest of the stack.
    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, invocation: Invocation) -> Self::Future {
        let next = Next {
            inner: self.inner.clone(),
        };
        (self.f)(invocation, next).boxed()
    }
}

/// The layers inside a [`from_fn`] layer, and the handler.
pub struct Next {
    inner: HandlerService,
}

impl Next {
    /// Runs `invocation` through the rest of the stack, once it is ready.
    pub async fn run(self, invocation: Invocation) -> Result<Handled, BoxError> {
        self.inner.oneshot(invocation).await
    }
}

impl fmt::Debug for Next {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Next")
    }
}
