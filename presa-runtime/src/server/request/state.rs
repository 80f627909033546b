//! Application state shared with tools: [`State`], the map behind it, and
//! [`StateType`], how a tool declares the state it needs.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Extracts application state registered with
/// [`ServerBuilder::state`](crate::server::ServerBuilder::state). As a `#[tool]`
/// parameter, `State(db): State<Db>` receives a clone of the `Db`.
#[derive(Debug, Clone)]
pub struct State<T>(pub T);

/// A type of application state that a tool needs, as its extractors
/// declare it (see [`FromContext::required_state`](crate::server::FromContext::required_state)).
///
/// [`ServerBuilder::build`](crate::server::ServerBuilder::build) compares these with
/// the state registered, so that a missing
/// [`ServerBuilder::state`](crate::server::ServerBuilder::state) stops the server
/// from starting instead of failing every call. Two values are equal when
/// they name the same type.
#[derive(Clone, Copy)]
pub struct StateType {
    id: TypeId,
    name: &'static str,
}

impl StateType {
    /// The state of type `T`, as `ServerBuilder::state::<T>` registers it.
    pub fn of<T: Send + Sync + 'static>() -> Self {
        StateType {
            id: TypeId::of::<T>(),
            name: type_name::<T>(),
        }
    }

    /// The type's identity.
    pub fn id(&self) -> TypeId {
        self.id
    }

    /// The type's name, for messages; not unique, see
    /// [`std::any::type_name`].
    pub fn name(&self) -> &'static str {
        self.name
    }
}

impl PartialEq for StateType {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for StateType {}

impl Hash for StateType {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

impl fmt::Debug for StateType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

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

    /// Whether a value of type `ty` is registered.
    pub fn contains(&self, ty: StateType) -> bool {
        self.0.contains_key(&ty.id)
    }
}
