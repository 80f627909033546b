//! Small helpers shared by every layer. This module depends on nothing else
//! in the crate, so anything may use it without creating a cycle.

mod budget;
mod digest;
mod random;

pub(crate) use budget::{Budget, Charge};
pub(crate) use digest::{Digest256, HashWriter, json_digest};
#[cfg(feature = "oauth-client")]
pub(crate) use random::try_random_bytes;
pub(crate) use random::{random_bytes, random_id};

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// The last value of a kind a thread shared, for [`shared_with_last`].
pub(crate) type LastSeen<T> = RefCell<Option<Arc<T>>>;

/// `value`, shared with `last` when they are equal; otherwise `own(value)`,
/// which becomes the last. A value many requests or tasks repeat (a
/// client's capabilities, a tool's question) is then kept once per
/// thread instead of once per holder, with no lock shared between
/// threads.
pub(crate) fn shared_with_last<T: ?Sized + PartialEq>(
    last: &LastSeen<T>,
    value: &T,
    own: impl FnOnce(&T) -> Arc<T>,
) -> Arc<T> {
    let mut last = last.borrow_mut();
    match &*last {
        Some(seen) if **seen == *value => Arc::clone(seen),
        _ => Arc::clone(last.insert(own(value))),
    }
}

/// Polls `future` once, in place, on the caller's task: whether it has
/// finished. A future that answers without waiting is then done with no
/// task of its own and no wake-up of another thread. A waker that wakes
/// nothing will do: what is still pending is spawned, and its task's first
/// poll registers the waker that matters.
pub(crate) fn finished_in_place(future: &mut BoxFuture<()>) -> bool {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    future.as_mut().poll(&mut cx).is_ready()
}

/// Locks `mutex`, recovering the data if a panic poisoned it: every value
/// guarded in this crate stays consistent between statements, so a panic
/// elsewhere never leaves it half-written.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Reads under `lock`, recovering the data as [`lock`] does.
pub(crate) fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

/// Writes under `lock`, recovering the data as [`lock`] does.
pub(crate) fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}
