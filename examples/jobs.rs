//! The `jobs` server from presa's seed: one `build` tool that asks for
//! confirmation before it builds, and runs as a task for clients that
//! declare the Tasks extension.
//!
//! - `cargo run --example jobs` runs an in-process demo with three clients,
//!   each accepting the confirmation with `{ok: true}`:
//!   1. a tasks client gets a task for `all` and awaits it by polling
//!      (`built all`);
//!   2. a plain client gets `docs` synchronously, the confirmation going
//!      over MRTR (`built docs`);
//!   3. a tasks client awaits `web` by listening for task notifications
//!      (`built web`).
//! - `cargo run --example jobs -- stdio` serves the same server over stdio
//!   (`stdio SECONDS` sets the drain period: how long, after end of input
//!   or SIGTERM, answers still running may take to be written).
//! - `cargo run --example jobs -- http 127.0.0.1:PORT` serves it over
//!   Streamable HTTP at `http://127.0.0.1:PORT/mcp`.

use presa::client::{AwaitOptions, ClientBuilder};
use presa::prelude::*;
use presa::server::TaskSettings;
use presa::wire::ElicitResult;
use serde::Deserialize;
use serde_json::json;
use std::time::Duration;

/// The answer `build` asks for.
#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    /// Whether to go ahead with the build.
    ok: bool,
}

/// Builds a target after the user confirms.
#[tool(task = "optional")]
async fn build(
    ctx: Context,
    #[param(description = "What to build, such as `docs` or `all`")] target: String,
) -> Result<String, ToolError> {
    let answer = ctx
        .elicit::<Confirm>("confirm", format!("Build {target}?"))
        .await?;
    match answer {
        Elicitation::Accepted(Confirm { ok: true }) => Ok(format!("built {target}")),
        _ => Err(ToolError::new("not confirmed")),
    }
}

/// The jobs server, with the seed's task settings: a one-hour TTL, a 20 ms
/// poll interval and at most 1 000 tasks kept.
fn server() -> Server {
    builder().build()
}

fn builder() -> presa::server::ServerBuilder {
    Server::builder("jobs", "1")
        .instructions("Builds targets on request; every build asks for confirmation.")
        .tool(BuildTool)
        .tasks(
            TaskSettings::default()
                .ttl(Some(Duration::from_millis(3_600_000)))
                .poll_interval(Duration::from_millis(20))
                .max_tasks(1000),
        )
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    match std::env::args().nth(1).as_deref() {
        Some("stdio") => serve_stdio(std::env::args().nth(2)).await?,
        Some("http") => serve_http(std::env::args().nth(2)).await?,
        None => demo().await?,
        Some(other) => {
            eprintln!(
                "unknown mode `{other}`; run with no argument for the demo, `stdio`, or `http ADDRESS`"
            );
            std::process::exit(2);
        }
    }
    Ok(())
}

/// Serves the jobs server over stdio, with a drain period of `seconds`.
async fn serve_stdio(seconds: Option<String>) -> Result<(), Box<dyn std::error::Error>> {
    let mut builder = builder();
    if let Some(seconds) = seconds {
        let seconds: u64 = seconds
            .parse()
            .map_err(|e| format!("the drain period must be whole seconds: {e}"))?;
        builder = builder.drain_period(Duration::from_secs(seconds));
    }
    builder.build().serve_stdio().await;
    Ok(())
}

/// Serves the jobs server over Streamable HTTP at `http://{address}/mcp`.
#[cfg(feature = "http-server")]
async fn serve_http(address: Option<String>) -> Result<(), Box<dyn std::error::Error>> {
    let address = address.ok_or("usage: jobs http ADDRESS (such as 127.0.0.1:3000)")?;
    let address: std::net::SocketAddr = address.parse()?;
    eprintln!("serving the jobs server at http://{address}/mcp");
    presa::server::http::StreamableHttp::new(server())
        .serve(address)
        .await?;
    Ok(())
}

#[cfg(not(feature = "http-server"))]
async fn serve_http(_: Option<String>) -> Result<(), Box<dyn std::error::Error>> {
    Err("this build has no HTTP server; build with the `http-server` feature".into())
}

/// A client whose elicitation handler confirms every build.
fn confirming() -> ClientBuilder {
    Client::builder()
        .info("jobs-demo", "1")
        .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
}

async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    let server = server();

    let tasks = confirming()
        .tasks(true)
        .connect(in_process(&server, Caller::anonymous()));
    let created = tasks.call_tool("build", json!({"target": "all"})).await?;
    let task = created.task().ok_or("expected a task")?;
    let result = tasks.await_task(task, AwaitOptions::default()).await?;
    println!("{}", result.text().unwrap_or("(no text)"));
    tasks.close().await?;

    let plain = confirming().connect(in_process(&server, Caller::anonymous()));
    let result = plain.call_tool("build", json!({"target": "docs"})).await?;
    println!("{}", result.text().unwrap_or("(no text)"));
    plain.close().await?;

    let watcher = confirming()
        .tasks(true)
        .connect(in_process(&server, Caller::anonymous()));
    let created = watcher.call_tool("build", json!({"target": "web"})).await?;
    let task = created.task().ok_or("expected a task")?;
    let result = watcher
        .await_task(task, AwaitOptions::default().listen(true))
        .await?;
    println!("{}", result.text().unwrap_or("(no text)"));
    watcher.close().await?;
    Ok(())
}
