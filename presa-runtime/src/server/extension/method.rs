//! [`ExtensionMethod`]: one method an extension serves, with the rules the
//! core applies before its handler runs.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::FutureExt;
use serde_json::Value;

use super::call::MethodCall;
use crate::util::BoxFuture;
use crate::wire::ErrorObject;

/// What runs a method: the call in, the result or the error out.
type Handler = Arc<dyn Fn(MethodCall) -> BoxFuture<Result<Value, ErrorObject>> + Send + Sync>;

/// One request method an extension serves, such as `tasks/get`.
///
/// The core routes a request to it by its name, after the checks every
/// request passes (`_meta`, version). Two rules are the method's to
/// choose:
///
/// - [`declared_by_client`](Self::declared_by_client): the request must
///   declare the extension in its `clientCapabilities`, or it is answered
///   `-32021` with the declaration it lacks (the Tasks methods); without
///   it, any request may call the method (Skills' methods);
/// - [`name_param`](Self::name_param): the params field that the
///   `Mcp-Name` header mirrors over Streamable HTTP, which the server
///   then checks against the header.
#[derive(Clone)]
pub struct ExtensionMethod {
    pub(crate) name: &'static str,
    pub(crate) declared_by_client: bool,
    pub(crate) name_param: Option<&'static str>,
    pub(crate) handler: Handler,
}

impl ExtensionMethod {
    /// Method `name`, run by `handler`. Its result goes back as it is, so
    /// build it with [`MethodCall::complete`] to give it the
    /// `resultType` and `_meta` a client expects.
    pub fn new<F, Fut>(name: &'static str, handler: F) -> Self
    where
        F: Fn(MethodCall) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
    {
        ExtensionMethod {
            name,
            declared_by_client: false,
            name_param: None,
            handler: Arc::new(move |call| handler(call).boxed()),
        }
    }

    /// A request must declare the extension to call this method; one that
    /// does not is answered `-32021`, and the handler does not run.
    pub fn declared_by_client(mut self) -> Self {
        self.declared_by_client = true;
        self
    }

    /// The params field that the `Mcp-Name` header mirrors over
    /// Streamable HTTP: a request whose header and field differ is
    /// refused before the handler runs.
    pub fn name_param(mut self, field: &'static str) -> Self {
        self.name_param = Some(field);
        self
    }

    /// The method's name, such as `tasks/get`.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

impl fmt::Debug for ExtensionMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExtensionMethod")
            .field("name", &self.name)
            .field("declared_by_client", &self.declared_by_client)
            .field("name_param", &self.name_param)
            .finish_non_exhaustive()
    }
}
