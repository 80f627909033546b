//! The conformance kit against [`InMemoryTaskStore`], the reference
//! behaviour, on paused time: expiry runs on tokio's clock, so the rules
//! that wait for it take no real time.

use presa::server::TaskStore;
use presa::server::tasks::InMemoryTaskStore;
use presa::testing::task_store_suite;

#[tokio::test(start_paused = true)]
async fn the_in_memory_store_keeps_every_rule() {
    assert!(InMemoryTaskStore::new().lister().is_some(), "it lists");
    task_store_suite(async || InMemoryTaskStore::new()).await;
}

/// Racing changes on two worker threads, on the clock that runs: the
/// rules again where the store's lock is really contended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_memory_store_keeps_every_rule_on_two_threads() {
    task_store_suite(async || InMemoryTaskStore::new()).await;
}
