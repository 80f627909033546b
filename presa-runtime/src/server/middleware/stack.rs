//! Stacks of layers: [`HandlerMiddleware`], what a layer must be;
//! [`HandlerLayers`], the
//! layers of one handler or of the server; and the innermost service,
//! which passes an invocation on to its handler's own layers and then
//! runs the handler.

use std::fmt;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use futures::FutureExt;
use tower::util::BoxCloneSyncService;
use tower::{BoxError, Layer, Service, ServiceExt};

use super::invocation::{Handled, HandlerService, Invocation};
use crate::util::BoxFuture;

/// A layer presa can put around handlers: any [`tower::Layer`] over
/// [`HandlerService`] whose service is `Clone + Send + Sync`, returns
/// [`Handled`], and fails with an error that converts into
/// [`tower::BoxError`]. Implemented for every such layer; you do not
/// implement it yourself.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a layer presa can put around a handler",
    label = "expected a tower layer over `HandlerService`",
    note = "a handler layer is a `tower::Layer<HandlerService>` whose service takes an `Invocation`, returns `Handled`, fails with an error that converts into `tower::BoxError`, and is `Clone + Send + Sync + 'static`"
)]
pub trait HandlerMiddleware: Send + Sync + 'static {
    /// `inner`, wrapped in this layer.
    fn wrap(&self, inner: HandlerService) -> HandlerService;
}

impl<L> HandlerMiddleware for L
where
    L: Layer<HandlerService> + Send + Sync + 'static,
    L::Service: Service<Invocation, Response = Handled> + Clone + Send + Sync + 'static,
    <L::Service as Service<Invocation>>::Error: Into<BoxError> + 'static,
    <L::Service as Service<Invocation>>::Future: Send + 'static,
{
    fn wrap(&self, inner: HandlerService) -> HandlerService {
        let to_box: fn(<L::Service as Service<Invocation>>::Error) -> BoxError = Into::into;
        BoxCloneSyncService::new(self.layer(inner).map_err(to_box))
    }
}

/// Layers in order, the outermost first: those of one handler
/// ([`ToolHandler::layers`](crate::server::ToolHandler::layers)), or the
/// server's.
#[derive(Clone, Default)]
pub struct HandlerLayers {
    layers: Vec<Arc<dyn HandlerMiddleware>>,
}

impl HandlerLayers {
    /// No layer.
    pub fn new() -> Self {
        HandlerLayers::default()
    }

    /// These layers, with `layer` inside the ones already here.
    pub fn with(mut self, layer: impl HandlerMiddleware) -> Self {
        self.layers.push(Arc::new(layer));
        self
    }

    /// These layers, with `inner`'s inside them, in their order.
    pub fn with_all(mut self, inner: HandlerLayers) -> Self {
        self.layers.extend(inner.layers);
        self
    }

    /// Whether there is no layer.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    /// The service these layers make around the innermost one; `None`
    /// without layers, so that a run without any costs nothing.
    pub(crate) fn service(&self) -> Option<HandlerService> {
        if self.layers.is_empty() {
            return None;
        }
        let innermost = BoxCloneSyncService::new(Proceed);
        Some(
            self.layers
                .iter()
                .rev()
                .fold(innermost, |inner, layer| layer.wrap(inner)),
        )
    }
}

impl fmt::Debug for HandlerLayers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HandlerLayers")
            .field("layers", &self.layers.len())
            .finish()
    }
}

/// The innermost service of every stack: it passes the invocation
/// through its handler's own layers when it has not yet, and otherwise
/// runs the handler.
#[derive(Clone, Copy)]
struct Proceed;

impl Service<Invocation> for Proceed {
    type Response = Handled;
    type Error = BoxError;
    type Future = BoxFuture<Result<Handled, BoxError>>;

    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut invocation: Invocation) -> Self::Future {
        match invocation.own_layers.take() {
            Some(own) => own.oneshot(invocation).boxed(),
            None => invocation.run().map(Ok).boxed(),
        }
    }
}

/// Runs `invocation` through the server's layers (`server`), then its
/// handler's own (`own`), then the handler. A layer's error becomes the
/// handler's, as rule 4 of [`middleware`](super) says.
pub(crate) async fn invoke(
    server: Option<&HandlerService>,
    own: Option<&HandlerService>,
    mut invocation: Invocation,
) -> Handled {
    let method = invocation.method();
    let outcome = match (server, own) {
        (None, None) => return invocation.run().await,
        (Some(server), own) => {
            invocation.own_layers = own.cloned();
            server.clone().oneshot(invocation).await
        }
        (None, Some(own)) => own.clone().oneshot(invocation).await,
    };
    outcome.unwrap_or_else(|error| Handled::failed(method, error.into()))
}
