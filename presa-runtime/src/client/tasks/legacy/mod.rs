//! Tasks of a legacy (2025-11-25) server: followed through `tasks/get`
//! and `tasks/result`, behind the same methods a modern task has.
//!
//! Layers, bottom up: follow.

mod follow;
