//! [`Apps`]: the MCP Apps extension as the server's extension seam sees
//! it: it keeps app-only tools out of the `tools/list` of hosts that
//! render no views (MCP Apps, "Resource Discovery", "Visibility"; and
//! "Client<>Server Capability Negotiation", "Server Behavior").

use crate::server::extension::Extension;
use crate::server::input::context::RequestInfo;
use crate::wire::{MCP_APP_MIME_TYPE, Tool, ToolUi, UI_EXTENSION, UiVisibility};

/// The MCP Apps extension of a server. The server advertises nothing for
/// it: only hosts declare it.
pub(crate) struct Apps;

impl Extension for Apps {
    fn id(&self) -> &'static str {
        UI_EXTENSION
    }

    fn capability(&self) -> Option<serde_json::Map<String, serde_json::Value>> {
        None
    }

    fn lists_tool(&self, tool: &Tool, request: &RequestInfo) -> bool {
        let app_only = matches!(
            ToolUi::of(tool).map(|ui| ui.map(|ui| ui.effective_visibility())),
            Ok(Some(UiVisibility::App))
        );
        !app_only || renders_views(request)
    }

    /// A host that renders views is listed the app-only tools, and one that
    /// does not is not.
    fn lists_tools_per_request(&self) -> bool {
        true
    }
}

/// Whether the request comes from a host that renders HTML views: it
/// declared `io.modelcontextprotocol/ui` with `text/html;profile=mcp-app`
/// among its `mimeTypes` ([`UiClientSettings`](crate::wire::UiClientSettings)),
/// as the specification asks a server to check.
pub(crate) fn renders_views(request: &RequestInfo) -> bool {
    let Some(settings) = request
        .client_capabilities
        .extensions
        .as_ref()
        .and_then(|extensions| extensions.get(UI_EXTENSION))
    else {
        return false;
    };
    settings
        .get("mimeTypes")
        .and_then(|types| types.as_array())
        .is_some_and(|types| types.iter().any(|t| t == MCP_APP_MIME_TYPE))
}
