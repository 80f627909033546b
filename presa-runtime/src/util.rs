//! Small helpers shared by every layer. This module depends on nothing else
//! in the crate, so anything may use it without creating a cycle.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// Locks `mutex`, recovering the data if a panic poisoned it: every value
/// guarded in this crate stays consistent between statements, so a panic
/// elsewhere never leaves it half-written.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
