//! [`ResponseStream`]: what the server core makes of one request.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use tokio::sync::mpsc;

use super::tool::BoxFuture;
use crate::wire::{Message, Response};

/// The messages answering one request: zero or more notifications, then
/// exactly one response.
///
/// The handler runs inside the stream: it makes progress only while the
/// stream is polled, and dropping the stream drops the handler, which is
/// how cancellation works on every transport.
pub struct ResponseStream {
    notifications: Option<mpsc::Receiver<Message>>,
    pending: Option<BoxFuture<Response>>,
    response: Option<Response>,
}

impl ResponseStream {
    /// A stream that yields `response` and ends.
    pub fn ready(response: Response) -> Self {
        ResponseStream {
            notifications: None,
            pending: None,
            response: Some(response),
        }
    }

    /// A stream whose only message is the response `handler` produces.
    pub fn deferred(handler: impl std::future::Future<Output = Response> + Send + 'static) -> Self {
        ResponseStream {
            notifications: None,
            pending: Some(Box::pin(handler)),
            response: None,
        }
    }

    /// A stream that forwards `notifications` until `handler` finishes, then
    /// yields its response. Notifications sent after that are dropped.
    pub fn new(notifications: mpsc::Receiver<Message>, handler: BoxFuture<Response>) -> Self {
        ResponseStream {
            notifications: Some(notifications),
            pending: Some(handler),
            response: None,
        }
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
            match handler.as_mut().poll(cx) {
                Poll::Ready(response) => {
                    this.pending = None;
                    this.response = Some(response);
                }
                Poll::Pending => return Poll::Pending,
            }
        }
        if let Some(rx) = &mut this.notifications {
            if let Ok(message) = rx.try_recv() {
                return Poll::Ready(Some(message));
            }
            this.notifications = None;
        }
        Poll::Ready(this.response.take().map(Message::Response))
    }
}
