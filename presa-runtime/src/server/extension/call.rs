//! [`MethodCall`]: what the handler of an extension's method receives.

use std::any::type_name;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::server::input::context::RequestInfo;
use crate::server::request::reply::{internal_error, parse_params, to_value};
use crate::server::request::state::{State, StateMap};
use crate::wire::{ErrorObject, ResultMeta, ResultType};

/// One request for a method an extension serves, past the core's checks:
/// its version was supported, its `_meta` well formed, and, for a method
/// [declared by the client](super::ExtensionMethod::declared_by_client),
/// the request declared the extension.
#[non_exhaustive]
pub struct MethodCall {
    /// The method's own params, with `_meta` taken out; `None` when the
    /// request had none.
    pub params: Option<Value>,
    /// Who sent the request, and what it declared.
    pub request: RequestInfo,
    pub(crate) state: Arc<StateMap>,
    pub(crate) result_meta: Arc<ResultMeta>,
    pub(crate) page_size: usize,
}

impl MethodCall {
    /// The params parsed as `T`, as strictly as the core's own methods
    /// parse theirs: a missing or mistyped field is `-32602` with a
    /// message naming it. Absent params read as `{}`.
    pub fn params<T: DeserializeOwned>(&self) -> Result<T, ErrorObject> {
        parse_params(self.params.clone())
    }

    /// A clone of the application state of type `T`, registered with
    /// [`ServerBuilder::state`](crate::server::ServerBuilder::state). A
    /// missing one is a bug of the server, so the client gets `-32603`
    /// and the logs get the type's name.
    pub fn state<T: Clone + Send + Sync + 'static>(&self) -> Result<State<T>, ErrorObject> {
        self.state.get::<T>().cloned().map(State).ok_or_else(|| {
            internal_error(
                "(extension method)",
                &format!(
                    "no state of type `{}` was registered; call `ServerBuilder::state`",
                    type_name::<T>()
                ),
            )
        })
    }

    /// How many entries one page of a list holds on this server
    /// ([`ServerBuilder::page_size`](crate::server::ServerBuilder::page_size)),
    /// so that an extension's lists page as the core's do.
    pub fn page_size(&self) -> usize {
        self.page_size
    }

    /// The `_meta` every result of this server carries (its
    /// `serverInfo`).
    pub fn result_meta(&self) -> &ResultMeta {
        &self.result_meta
    }

    /// `result` as a complete result: its fields, with `resultType:
    /// "complete"` and the server's `_meta` beside them, as every core
    /// result has. Fields `result` sets itself win. A `result` that is
    /// not a JSON object is returned as it is.
    pub fn complete(&self, result: impl Serialize) -> Value {
        let mut value = to_value(result);
        if let Value::Object(fields) = &mut value {
            let mut complete = Map::new();
            complete.insert("resultType".to_owned(), to_value(ResultType::Complete));
            complete.insert("_meta".to_owned(), to_value(&*self.result_meta));
            complete.append(fields);
            *fields = complete;
        }
        value
    }
}
