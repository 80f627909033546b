//! Application state shared with tools: [`State`], and the map behind it.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

/// Extracts application state registered with
/// [`ServerBuilder::state`](super::ServerBuilder::state). As a `#[tool]`
/// parameter, `State(db): State<Db>` receives a clone of the `Db`.
#[derive(Debug, Clone)]
pub struct State<T>(pub T);

/// Application state, one value per type.
#[derive(Default, Clone)]
pub(crate) struct StateMap(HashMap<TypeId, Arc<dyn Any + Send + Sync>>);

impl StateMap {
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.0.insert(TypeId::of::<T>(), Arc::new(value));
    }

    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.0
            .get(&TypeId::of::<T>())
            .and_then(|v| v.downcast_ref())
    }
}
