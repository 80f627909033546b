//! The extension seam: how a protocol extension (Tasks, Skills, MCP Apps,
//! your own) plugs into the server without the core knowing it.
//!
//! The protocol grows by extensions. Each has an identifier with a vendor
//! prefix, settings a server advertises in `server/discover`, methods and
//! notifications of its own, and sometimes fields it adds to what core
//! methods return. An [`Extension`] declares all of that; the server
//! reads it once, when it is built, and then:
//!
//! 1. routes a request whose method no core method has to the extension
//!    method of that name ([`ExtensionMethod`]), and answers `-32601` when
//!    there is none;
//! 2. answers `-32021`, with the declaration in
//!    `data.requiredCapabilities.extensions`, when the method is
//!    [declared by the client](ExtensionMethod::declared_by_client) and the
//!    request did not declare the extension;
//! 3. runs the method's handler with a [`MethodCall`]: the params, who
//!    called, and the server's state;
//! 4. advertises each extension's [`capability`](Extension::capability)
//!    in `server/discover`;
//! 5. adds each extension's [`tool_meta`](Extension::tool_meta) to the
//!    `tools/list` entries, and its [`result_meta`](Extension::result_meta)
//!    to results;
//! 6. leaves out of `tools/list` the tools an extension does not
//!    [list](Extension::lists_tool) for the request (MCP Apps' app-only
//!    tools, for a host that renders no views).
//!
//! [`ServerBuilder::build`](crate::server::ServerBuilder::build) panics,
//! with a message that says what to change, on an identifier without a
//! `/`, two extensions with one identifier, a method the core or another
//! extension serves, or a notification another extension sends. The
//! Tasks extension ([`tasks`](crate::server::tasks)) is built on this seam
//! too. An extension that serves nothing, and is only advertised, is an
//! [`Advertised`].
//!
//! ```
//! use presa_runtime::server::extension::{Extension, ExtensionMethod, MethodCall};
//! use presa_runtime::server::Server;
//! use serde::Deserialize;
//! use serde_json::json;
//!
//! /// `com.example/echo`: one method, `echo/say`, that a request must
//! /// declare the extension to call.
//! struct Echo;
//!
//! #[derive(Deserialize)]
//! struct SayParams {
//!     text: String,
//! }
//!
//! impl Extension for Echo {
//!     fn id(&self) -> &'static str {
//!         "com.example/echo"
//!     }
//!
//!     fn methods(&self) -> Vec<ExtensionMethod> {
//!         let say = ExtensionMethod::new("echo/say", |call: MethodCall| async move {
//!             let SayParams { text } = call.params()?;
//!             Ok(call.complete(json!({ "text": text })))
//!         });
//!         vec![say.declared_by_client()]
//!     }
//! }
//!
//! let server = Server::builder("echo", "1.0").extension(Echo).build();
//! # drop(server);
//! ```
//!
//! Layers, bottom up: call, method, contract, advertised, table.

mod advertised;
mod call;
mod contract;
mod method;
pub(crate) mod table;

pub use advertised::Advertised;
pub use call::MethodCall;
pub use contract::Extension;
pub use method::ExtensionMethod;
