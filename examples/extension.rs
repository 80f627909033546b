//! A protocol extension of your own, written only with presa's public
//! API, served over stdio.
//!
//! ```text
//! cargo run --example extension
//! ```
//!
//! **Stats** (`com.example/stats`) is a vendor extension. It shows the
//! parts of the seam (`presa::server::extension`) a vendor needs:
//!
//! - a method of its own, `stats/get`, that a request must declare the
//!   extension to call: one that does not is answered `-32021`, naming
//!   the declaration it lacks;
//! - `{}` advertised under `capabilities.extensions` in `server/discover`;
//! - to a request that declares it, every result says in its `_meta`
//!   which method answered.
//!
//! presa's own extensions use the same seam: Tasks
//! (`ServerBuilder::tasks`), Skills (`ServerBuilder::skills`) and MCP Apps
//! (`ServerBuilder::ui`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use presa::prelude::*;
use presa::server::extension::{Extension, ExtensionMethod, MethodCall};
use serde_json::{Map, Value, json};

/// Today's weather in a city: a core tool, whose results the extension
/// marks too.
#[tool(read_only)]
async fn weather(city: String) -> String {
    format!("Sunny in {city}, 21 °C")
}

// --- Stats -----------------------------------------------------------------

/// How many times `stats/get` was called, shared through the server's
/// state.
#[derive(Clone, Default)]
struct Calls(Arc<AtomicU64>);

/// A vendor extension whose method a request must declare it to call.
struct Stats;

impl Extension for Stats {
    fn id(&self) -> &'static str {
        "com.example/stats"
    }

    fn methods(&self) -> Vec<ExtensionMethod> {
        let get = ExtensionMethod::new("stats/get", |call: MethodCall| async move {
            let State(Calls(calls)) = call.state::<Calls>()?;
            let seen = calls.fetch_add(1, Ordering::Relaxed) + 1;
            Ok(call.complete(json!({"statsCalls": seen})))
        });
        vec![get.declared_by_client()]
    }

    fn result_meta(&self, method: &str, request: &RequestInfo) -> Option<Map<String, Value>> {
        let declared = request.client_capabilities.has_extension(self.id());
        let added = json!({"com.example/stats": {"answeredBy": method}});
        declared.then(|| added.as_object().cloned()).flatten()
    }
}

#[tokio::main]
async fn main() {
    Server::builder("extension", env!("CARGO_PKG_VERSION"))
        .tool(WeatherTool)
        .state(Calls::default())
        .extension(Stats)
        .build()
        .serve_stdio()
        .await;
}
