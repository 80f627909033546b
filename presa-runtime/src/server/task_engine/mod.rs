//! The task engine behind [`TaskStore`](store::TaskStore): creating
//! tasks, running their handlers, and following their records. Its rules
//! are the public [`tasks`](crate::server::tasks) module's docs.
//!
//! Layers, bottom up: lease, store, measured, dormant, link, memory, settings, runner, takeover, engine.

mod dormant;
mod engine;
mod lease;
mod link;
#[cfg(feature = "otel")]
mod measured;
mod memory;
mod runner;
mod settings;
pub mod store;
mod takeover;

pub use memory::InMemoryTaskStore;
pub use settings::TaskSettings;

pub(crate) use engine::{CreateError, OrphanGuard, TaskEngine, store_failed};
pub(crate) use link::{TaskLink, Waiting};
pub(crate) use runner::Resume;
pub(crate) use runner::TaskEnd;
