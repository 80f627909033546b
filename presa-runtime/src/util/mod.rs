//! Small helpers shared by every layer. This module depends on nothing else
//! in the crate, so anything may use it without creating a cycle.
//!
//! Layers, bottom up: locks, future, shared, digest, random, budget.

mod budget;
mod digest;
mod future;
mod locks;
mod random;
mod shared;

pub(crate) use budget::{Budget, Charge};
pub(crate) use digest::{Digest256, HashWriter, json_digest};
pub use future::BoxFuture;
pub(crate) use future::finished_in_place;
pub(crate) use locks::{lock, read, write};
#[cfg(feature = "oauth-client")]
pub(crate) use random::try_random_bytes;
pub(crate) use random::{random_bytes, random_id};
pub(crate) use shared::{LastSeen, shared_with_last};
