//! [`Extension`]: what a protocol extension declares to the server.

use serde_json::{Map, Value};

use std::sync::Arc;

use super::method::ExtensionMethod;
use crate::server::handlers::resource::ResourceHandler;
use crate::server::input::context::RequestInfo;
use crate::wire::Tool;

/// A protocol extension the server serves, registered with
/// [`ServerBuilder::extension`](crate::server::ServerBuilder::extension).
///
/// Everything but [`id`](Self::id) has a default, so an extension says
/// only what it adds. The server asks for the capability, the methods, the
/// resources and the notifications once, when it is built; it calls
/// [`lists_tool`](Self::lists_tool), [`tool_meta`](Self::tool_meta) and
/// [`result_meta`](Self::result_meta) for each request, so keep them cheap.
pub trait Extension: Send + Sync + 'static {
    /// The identifier, with its vendor prefix and a `/`:
    /// `io.modelcontextprotocol/tasks`, `com.example/widgets`. Clients
    /// declare the extension under it, and `server/discover` advertises
    /// it there.
    fn id(&self) -> &'static str;

    /// The settings `server/discover` advertises under
    /// `capabilities.extensions[id]`: `{}` by default. `None` for an
    /// extension only clients declare, which the server does not
    /// advertise (MCP Apps).
    fn capability(&self) -> Option<Map<String, Value>> {
        Some(Map::new())
    }

    /// The request methods it serves. No two extensions may serve one
    /// method, and none may serve a core method.
    fn methods(&self) -> Vec<ExtensionMethod> {
        Vec::new()
    }

    /// The resources it serves (the files of the Skills extension, the
    /// `ui://` pages of MCP Apps). The server registers them with its own
    /// when it is built, so they are listed, read, hidden and layered as
    /// any other resource, and `server/discover` declares the `resources`
    /// capability. A URI registered twice makes
    /// [`build`](crate::server::ServerBuilder::build) panic, naming it.
    fn resources(&self) -> Vec<Arc<dyn ResourceHandler>> {
        Vec::new()
    }

    /// The notification methods it sends. No two extensions may claim
    /// one, so that a client can tell whose a notification is.
    fn notifications(&self) -> &'static [&'static str] {
        &[]
    }

    /// What it adds to the `_meta` of `tool`'s entry in a `tools/list`
    /// page answering `request`; `None` adds nothing. Keys it returns
    /// replace those of the same name.
    fn tool_meta(&self, tool: &Tool, request: &RequestInfo) -> Option<Map<String, Value>> {
        let _ = (tool, request);
        None
    }

    /// Whether `tool` goes in the `tools/list` answering `request`: `true`
    /// by default. A tool any extension leaves out is not listed, in
    /// either era; it can still be called by name. MCP Apps leaves out
    /// the tools only its views call when the host renders no views.
    fn lists_tool(&self, tool: &Tool, request: &RequestInfo) -> bool {
        let _ = (tool, request);
        true
    }

    /// Whether [`lists_tool`](Self::lists_tool) can answer differently for
    /// two requests: `false` by default. When any extension says `true`,
    /// every `tools/list` page is `cacheScope: private`, so that a shared
    /// cache never shows one host the list another host was given.
    fn lists_tools_per_request(&self) -> bool {
        false
    }

    /// What it adds to the `_meta` of the result of `method` answering
    /// `request`; `None` adds nothing. Keys it returns replace those of
    /// the same name. Errors have no `_meta`, so it is not asked for them.
    fn result_meta(&self, method: &str, request: &RequestInfo) -> Option<Map<String, Value>> {
        let _ = (method, request);
        None
    }
}
