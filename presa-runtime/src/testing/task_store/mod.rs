//! The conformance kit of task stores: the rules every [`TaskStore`]
//! keeps, written once, and run against the in-memory and Redis stores as
//! against yours.
//!
//! A store passes when every rule does. The rules, in the order they run:
//!
//! 1. **changes**: a created task reads back whole; every change applies
//!    as [`TaskChange::apply`] says; a change that changes nothing keeps
//!    the version; a finished task accepts no change; answers past the
//!    record size are refused; two handles racing land every change once;
//! 2. **limits**: one subject runs at most its quota; at the task cap the
//!    first finished task is evicted; the store holds at most its bytes;
//! 3. **watching**: a watch sees the current record, then each version,
//!    and ends when its task expires or is evicted;
//! 4. **living**: expired tasks are gone and purged; counting sees live
//!    tasks, and a store that lists ([`ListTasks`]) lists them by owner,
//!    in order of id;
//! 5. **leasing**: a lease is held, renewed, refused to another server and
//!    taken once lapsed; a task that ended holds none. A store that keeps
//!    the default [`hold`](crate::server::tasks::store::TaskStore::hold),
//!    which grants every lease (a store only one server uses), breaks
//!    these two.
//!
//! Each rule runs on a fresh store: the function you pass makes one.
//! Rules that need several servers open several handles on it with
//! [`SharedTaskStore::open`]; [`task_store_suite`] shares one handle,
//! [`shared_task_store_suite`] lets you give each its own connections, as
//! separate servers would have.
//!
//! Expiry is waited for, a few milliseconds at a time, by asking the store
//! whether the task is still there. A store on tokio's clock (as the
//! in-memory one is) runs the kit under paused time, where no real time
//! passes and nothing depends on the machine's speed:
//!
//! ```
//! use presa_runtime::server::tasks::InMemoryTaskStore;
//! use presa_runtime::testing::task_store_suite;
//!
//! # fn main() {
//! # tokio::runtime::Builder::new_current_thread().enable_all().start_paused(true)
//! #     .build().unwrap().block_on(async {
//! // In a test: #[tokio::test(start_paused = true)]
//! task_store_suite(async || InMemoryTaskStore::new()).await;
//! # });
//! # }
//! ```
//!
//! A failure names its rule; the panic of the assertion that failed is
//! printed above it.
//!
//! [`TaskStore`]: crate::server::tasks::store::TaskStore
//! [`TaskChange::apply`]: crate::server::tasks::store::TaskChange::apply
//! [`ListTasks`]: crate::server::tasks::store::ListTasks
//!
//! Layers, bottom up: support, changes, limits, watching, living, leasing, suite.

mod changes;
mod leasing;
mod limits;
mod living;
mod suite;
mod support;
mod watching;

pub use suite::{shared_task_store_suite, task_store_suite};
pub use support::SharedTaskStore;
