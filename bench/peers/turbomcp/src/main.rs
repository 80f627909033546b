//! The benchmark server written with turbomcp 4.0.0-alpha.5, as a user of
//! its public API would: the same `echo`, `work` and `ask` as the harness's
//! presa, rmcp and tower-mcp servers.
//!
//! It is a package of its own, outside the harness, so that turbomcp's
//! dependency tree and features never touch the other servers' builds
//! (the harness pulls presa and rmcp, which this binary must not link).
//!
//! - `#[server]` over an `impl` block: the tools are `#[tool]` methods, and
//!   the macro derives their schemas and the server's capabilities.
//! - `work` is marked `#[tool(task)]`, turbomcp's own way to declare
//!   optional task support (it advertises it on `2025-11-25`; the draft
//!   Tasks extension is a separate feature, which this build leaves off).
//! - `ask` uses turbomcp's MRTR: `ctx.client.elicit` records the question
//!   and aborts the call with `input_required`; the retry carries the answer
//!   and the `requestState`, which turbomcp signs and checks (HMAC-SHA256,
//!   with an expiry) before the handler runs. The handler stores a little
//!   state so that the first answer carries a `requestState` at all, and
//!   only completes when that state comes back verified.
//!
//! With the package's `tasks` feature, turbomcp's draft Tasks extension
//! (`ext-tasks`) is registered and runs `work` as a task for clients that
//! declare the extension. `ask` stays a plain MRTR call: in a task its
//! question would go through `tasks/update`, with no `requestState`.
//!
//! The server speaks `2026-07-28` only (`protocols(...)`), as the harness's
//! other servers do.
//!
//! `turbomcp-server stdio` serves newline-delimited JSON-RPC on stdin and
//! stdout until stdin closes. `turbomcp-server http` serves Streamable HTTP
//! at `/mcp` on a free loopback port and prints `listening 127.0.0.1:PORT`
//! once it accepts.

use std::io::Write as _;
use std::net::SocketAddr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;
use turbomcp::http::{HttpConfig, router};
use turbomcp::prelude::*;

/// The key under which `ask` asks its question (the harness's `ASK_KEY`).
const ASK_KEY: &str = "confirm";

/// The benchmark server; it holds no state of its own.
#[derive(Clone)]
struct Bench;

/// What `ask`'s signed `requestState` records: that the question was asked.
#[derive(Debug, Serialize, Deserialize)]
struct Asked {
    key: String,
}

#[server(name = "bench-turbomcp", version = "1", protocols("2026-07-28"))]
impl Bench {
    /// Echoes its input.
    #[tool(description = "Echoes its input.")]
    async fn echo(&self, text: String) -> String {
        text
    }

    /// Returns at once; a task for clients that declare tasks.
    #[tool(
        description = "Returns at once; a task for clients that declare tasks.",
        task
    )]
    async fn work(&self) -> String {
        "done".to_owned()
    }

    /// Asks once whether to go ahead, through MRTR, then answers.
    #[tool(description = "Asks once, then answers.")]
    async fn ask(&self, ctx: &CallToolContext) -> McpResult<String> {
        // A retry's state was verified by turbomcp before this runs; a state
        // that fails the check never reaches the handler.
        let verified = ctx.client.load_state::<Asked>()?.is_some();
        if !verified {
            ctx.client.store_state(&Asked {
                key: ASK_KEY.to_owned(),
            })?;
        }
        let outcome = ctx.client.elicit(ASK_KEY, confirm_form()).await?;
        if !verified {
            // An answer without the state the server issued: ask again.
            return Err(McpError::InputRequired);
        }
        let ok =
            outcome.accepted() && outcome.content.get("ok").and_then(|v| v.as_bool()) == Some(true);
        Ok(ok.to_string())
    }
}

/// The form `ask` sends: one required boolean, `ok`.
fn confirm_form() -> neutral::ElicitParams {
    neutral::ElicitParams::new(
        "Go ahead?",
        json!({
            "type": "object",
            "properties": {"ok": {"type": "boolean"}},
            "required": ["ok"],
        }),
    )
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    match std::env::args().nth(1).as_deref() {
        // What `Bench.run_stdio()` does, on the builder with the extension
        // when the `tasks` feature is on.
        Some("stdio") => {
            turbomcp::serve_stdio(turbomcp::LegacySessionAdapter::new(server().build())).await?
        }
        Some("http") => serve_http().await?,
        _ => return Err("usage: turbomcp-server stdio|http".into()),
    }
    Ok(())
}

/// The server's builder, as the `#[server]` macro makes it.
#[cfg(not(feature = "tasks"))]
fn server() -> turbomcp::ServerBuilder<Bench> {
    Bench.into_server()
}

/// The server's builder, with the Tasks extension running `work` as a task.
#[cfg(feature = "tasks")]
fn server() -> turbomcp::ServerBuilder<Bench> {
    let tasks = turbomcp::ext_tasks::TasksExtension::new().task_tools(["work"]);
    Bench.into_server().with_extension(Arc::new(tasks))
}

/// Serves Streamable HTTP on a free loopback port until killed.
///
/// turbomcp's `run_http` binds the address it is given and does not say
/// which port it got, so this binds the listener itself and serves
/// turbomcp's own router on it, wired as `run_http` wires it.
async fn serve_http() -> Result<(), Box<dyn std::error::Error>> {
    let dispatcher = server().build();
    let config =
        HttpConfig::new().with_session_terminator(Arc::new(dispatcher.session_terminator()));
    let app = router(dispatcher, config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening {addr}")?;
    stdout.flush()?;
    drop(stdout);
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .await?;
    Ok(())
}
