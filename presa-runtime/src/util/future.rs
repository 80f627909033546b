//! [`BoxFuture`], a future boxed so that it can be stored or handed to a
//! task, and [`finished_in_place`], which runs one on the caller's task
//! when it needs no wait.

use std::future::Future;
use std::pin::Pin;

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// Polls `future` once, in place, on the caller's task: whether it has
/// finished. A future that answers without waiting is then done with no
/// task of its own and no wake-up of another thread. A waker that wakes
/// nothing will do: what is still pending is spawned, and its task's first
/// poll registers the waker that matters.
pub(crate) fn finished_in_place(future: &mut BoxFuture<()>) -> bool {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    future.as_mut().poll(&mut cx).is_ready()
}
