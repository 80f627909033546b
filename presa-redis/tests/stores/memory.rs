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

fn memory() -> Option<Memory> {
    Some(Memory(Arc::new(InMemoryTaskStore::new())))
}

crate::rules!(memory());
