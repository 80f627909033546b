//! Test kits for what users of presa write themselves (feature `testing`).
//!
//! - [`task_store_suite`] and [`shared_task_store_suite`]: the rules every
//!   [`TaskStore`](crate::server::TaskStore) keeps, for a store of your own
//!   (Postgres, DynamoDB) to run in one line. The in-memory and Redis
//!   stores run them as yours would.
//!
//! Layers, bottom up: task_store.

mod task_store;

pub use task_store::{SharedTaskStore, shared_task_store_suite, task_store_suite};
