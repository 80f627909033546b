//! Locks that recover from poisoning: [`lock`], [`read`] and [`write`].
//!
//! Every value guarded in this crate stays consistent between
//! statements, so a panic elsewhere never leaves it half-written; the
//! data a poisoned lock holds is taken as is.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

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
