//! MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865), server side: HTML
//! views a host renders beside a tool's results.
//!
//! A view is a [`UiResource`]: a `ui://` resource with the MIME type
//! `text/html;profile=mcp-app`, registered with
//! [`ServerBuilder::ui`](crate::server::ServerBuilder::ui) ("UI Resource
//! Format"). A tool names its view in `_meta.ui.resourceUri`, and who may
//! call it in `_meta.ui.visibility` ("Resource Discovery"):
//! `#[tool(ui = "ui://jobs/dashboard")]` writes both, and so does
//! [`Tool::with_ui`](crate::wire::Tool::with_ui) in a hand-written tool.
//! The view then talks to its host with JSON-RPC over `postMessage`
//! ("Lifecycle"), and reaches the server only through the host's
//! `tools/call` and `resources/read` ("Data Passing").
//!
//! # Rules
//!
//! 1. **A link names a view this server serves.** The specification says
//!    the resource MUST exist on the server, so
//!    [`ServerBuilder::build`](crate::server::ServerBuilder::build)
//!    refuses a tool linked to a `ui://` URI that no resource serves, and
//!    [`Server::add_tool`](crate::server::Server::add_tool) returns the
//!    same error. A `_meta.ui` that is not valid (a URI without `ui://`,
//!    an empty or unknown visibility) is refused the same way.
//! 2. **`_meta.ui` goes to every caller.** A host without Apps ignores
//!    it, and a host that has Apps but sent no capabilities on this
//!    request (a 2025-11-25 host declares them once, at `initialize`)
//!    still finds its views. The deprecated flat `_meta["ui/resourceUri"]`
//!    goes beside it, for hosts that read only that.
//! 3. **An app-only tool is listed only to a host that renders views.**
//!    A tool whose visibility is `["app"]` exists for a view to call. A
//!    host that did not declare `io.modelcontextprotocol/ui` with
//!    `text/html;profile=mcp-app` among its `mimeTypes` has no view, and
//!    would show the tool to its model, so `tools/list` leaves it out for
//!    that request. The declaration is read from the request's
//!    `clientCapabilities` (2026-07-28) or from the session's `initialize`
//!    (2025-11-25), whichever era the caller speaks. Calling the tool by
//!    name still works: visibility is about what a model is shown, not
//!    who is allowed; use scopes for that. Since the list depends on the
//!    host, every `tools/list` page is `cacheScope: private`.
//! 4. **A linked tool still answers in text.** Its result goes to hosts
//!    without Apps too, and to the model. Return text that stands on its
//!    own; put what only the view needs in `structuredContent`.
//! 5. **A view loads nothing it did not declare.** With no
//!    [`csp`](UiResource::csp), the host lets the view run only the
//!    scripts and styles it carries, and reach no network at all. Ship
//!    self-contained HTML, and declare an origin only when the view needs
//!    it ("Security Implications").
//!
//! The server registers the extension on its seam (`Apps`, which advertises
//! nothing: only hosts declare MCP Apps) when it is built with a view or
//! a linked tool.
//!
//! Layers, bottom up: resource, listing.

mod listing;
mod resource;

pub(crate) use listing::Apps;
pub use resource::{UI_RESOURCE_TTL, UiResource};
