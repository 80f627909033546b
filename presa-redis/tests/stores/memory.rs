//! The rules against [`InMemoryTaskStore`], the reference behaviour.

use std::sync::Arc;

use presa_runtime::server::tasks::{InMemoryTaskStore, TaskStore};

use crate::suite::Stores;

/// One in-memory store, shared by every handle: the nearest it has to
/// several servers.
struct Memory(Arc<InMemoryTaskStore>);

impl Stores for Memory {
    fn open(&self) -> Arc<dyn TaskStore> {
        Arc::clone(&self.0) as Arc<dyn TaskStore>
    }
}

/// Each rule as a test, on a store of its own.
macro_rules! in_memory {
    ($($rule:ident),+ $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $rule() {
                let store = Memory(Arc::new(InMemoryTaskStore::new()));
                crate::suite::$rule(&store).await;
            }
        )+
    };
}

crate::rules!(in_memory);
