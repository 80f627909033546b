//! [`ResponseStream`]: what the server core makes of one request.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::{FutureExt, Stream};
use tokio::sync::mpsc;

use crate::util::{BoxFuture, Charge};
use crate::wire::{Message, Notification, Response};

/// The messages answering one request: zero or more notifications, then
/// exactly one response, and, for a subscription the server ends itself,
/// the `notifications/cancelled` that follows it.
///
/// The handler runs inside the stream: it makes progress only while the
/// stream is polled, and dropping the stream drops the handler, which is
/// how cancellation works on every transport.
///
/// A stream can be cut short (when serving ends): the handler is dropped
/// and the stream ends as the cut says instead. The response then comes
/// from the handler or from the cut, never from both.
pub struct ResponseStream {
    notifications: Option<mpsc::Receiver<Message>>,
    pending: Option<BoxFuture<Ending>>,
    response: Option<Response>,
    trailer: Option<Notification>,
    /// What the request holds of the memory budget, until its handler ends.
    held: Option<Charge>,
    /// How the server ends this stream on its own initiative, when it
    /// may: a subscription's graceful closure.
    closing: Option<Ending>,
    /// Ends the stream instead of the handler, once it resolves.
    cut: Option<BoxFuture<Ending>>,
}

/// How a request's messages end: its response, then possibly one trailing
/// notification.
pub(crate) struct Ending {
    pub response: Response,
    pub trailer: Option<Notification>,
}

impl From<Response> for Ending {
    fn from(response: Response) -> Self {
        Ending {
            response,
            trailer: None,
        }
    }
}

impl ResponseStream {
    /// A stream that yields `response` and ends.
    pub fn ready(response: Response) -> Self {
        ResponseStream {
            notifications: None,
            pending: None,
            response: Some(response),
            trailer: None,
            held: None,
            closing: None,
            cut: None,
        }
    }

    /// A stream whose only message is the response `handler` produces.
    pub fn deferred(handler: impl std::future::Future<Output = Response> + Send + 'static) -> Self {
        ResponseStream {
            notifications: None,
            pending: Some(handler.map(Ending::from).boxed()),
            response: None,
            trailer: None,
            held: None,
            closing: None,
            cut: None,
        }
    }

    /// A stream that forwards `notifications` until `handler` finishes, then
    /// yields its response. Notifications sent after that are dropped.
    pub fn new(notifications: mpsc::Receiver<Message>, handler: BoxFuture<Response>) -> Self {
        ResponseStream::ending(notifications, handler.map(Ending::from).boxed())
    }

    /// Like [`ResponseStream::new`], with a handler that may add one
    /// notification after its response.
    pub(crate) fn ending(
        notifications: mpsc::Receiver<Message>,
        handler: BoxFuture<Ending>,
    ) -> Self {
        ResponseStream {
            notifications: Some(notifications),
            pending: Some(handler),
            response: None,
            trailer: None,
            held: None,
            closing: None,
            cut: None,
        }
    }
}

impl ResponseStream {
    /// Holds `charge` until the handler ends: the request's share of the
    /// memory budget.
    pub(crate) fn holding(mut self, charge: Charge) -> Self {
        if self.pending.is_some() {
            self.held = Some(charge);
        }
        self
    }

    /// The same messages with the response passed through `change`: how a
    /// legacy session renders a modern result.
    pub(crate) fn map_response(mut self, change: fn(Response) -> Response) -> Self {
        self.response = self.response.take().map(change);
        if let Some(handler) = self.pending.take() {
            let changed = handler.map(move |mut ending| {
                ending.response = change(ending.response);
                ending
            });
            self.pending = Some(changed.boxed());
        }
        self
    }

    /// The same messages, with `look` shown the response as it passes:
    /// how a legacy session learns of the task a call created.
    pub(crate) fn inspect_response(
        mut self,
        look: impl FnOnce(&Response) + Send + 'static,
    ) -> Self {
        if let Some(response) = &self.response {
            look(response);
        } else if let Some(handler) = self.pending.take() {
            let inspected = handler.inspect(move |ending| look(&ending.response));
            self.pending = Some(inspected.boxed());
        }
        self
    }

    /// Says how the server ends this stream on its own initiative: with
    /// `ending` instead of its handler's response.
    pub(crate) fn closes_with(mut self, ending: Ending) -> Self {
        self.closing = Some(ending);
        self
    }

    /// How the server may end this stream on its own initiative, taken
    /// out of it; `None` for a request that only its handler ends.
    pub(crate) fn take_closing(&mut self) -> Option<Ending> {
        self.closing.take()
    }

    /// Ends the stream with what `cut` resolves to, if the handler has not
    /// answered by then; the handler and its notifications are dropped.
    /// The handler is polled first, so it has run at least once when cut.
    pub(crate) fn cut_short(mut self, cut: BoxFuture<Ending>) -> Self {
        if self.pending.is_some() {
            self.cut = Some(cut);
        }
        self
    }

    /// Runs the handler inside `span`, so that everything it logs, and
    /// every task it starts, is traced there.
    pub(crate) fn instrument(mut self, span: tracing::Span) -> Self {
        if let Some(handler) = self.pending.take() {
            self.pending = Some(Box::pin(tracing::Instrument::instrument(handler, span)));
        }
        self
    }
}

impl Stream for ResponseStream {
    type Item = Message;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Message>> {
        let this = &mut *self;
        if let Some(handler) = &mut this.pending {
            if let Some(rx) = &mut this.notifications
                && let Poll::Ready(Some(message)) = rx.poll_recv(cx)
            {
                return Poll::Ready(Some(message));
            }
            let ending = match handler.as_mut().poll(cx) {
                Poll::Ready(ending) => ending,
                Poll::Pending => match this.cut.as_mut().map(|cut| cut.as_mut().poll(cx)) {
                    Some(Poll::Ready(ending)) => {
                        this.notifications = None;
                        ending
                    }
                    // What the handler sent before it waited is ready
                    // now: delivered in this poll, not after a wake-up.
                    _ => {
                        return match &mut this.notifications {
                            Some(rx) => match rx.poll_recv(cx) {
                                Poll::Ready(Some(message)) => Poll::Ready(Some(message)),
                                _ => Poll::Pending,
                            },
                            None => Poll::Pending,
                        };
                    }
                },
            };
            this.pending = None;
            this.cut = None;
            this.held = None;
            this.response = Some(ending.response);
            this.trailer = ending.trailer;
        }
        if let Some(rx) = &mut this.notifications {
            if let Ok(message) = rx.try_recv() {
                return Poll::Ready(Some(message));
            }
            this.notifications = None;
        }
        let next = match this.response.take() {
            Some(response) => Some(Message::Response(response)),
            None => this.trailer.take().map(Message::Notification),
        };
        Poll::Ready(next)
    }
}
