//! The default [`TaskStore`](super::store::TaskStore): a map in this
//! process's memory.
//!
//! A task's record is an `Arc`, changed in place (`Arc::make_mut`) unless
//! a reader still holds the previous version, so changing a large record
//! does not copy it. While someone follows the task it lives in a
//! channel instead (`versions`), which holds only the current version:
//! watchers read the newest when they get to it. The channel is made by
//! the first [`watch`](super::store::TaskStore::watch), given up when a
//! read or a change finds nobody watching, and closed by the task's last
//! (terminal) change, after which the record is all that is kept: a
//! channel weighs more than a small finished record, and most tasks are
//! finished.
//!
//! One lock guards the map and the counters the limits need (bytes,
//! running tasks per subject, the order in which tasks finished), so every
//! limit is exact.
//!
//! Layers, bottom up: versions, store.

mod store;
mod versions;

pub use store::InMemoryTaskStore;
