//! The `jobs` server from presa's seed: one `build` tool that asks for
//! confirmation before it builds.
//!
//! - `cargo run --example jobs` runs an in-process demo: a client whose
//!   elicitation handler accepts `{ok: true}` calls `build` with target
//!   `docs` and prints `built docs`.
//! - `cargo run --example jobs -- stdio` serves the same server over stdio.

use presa::prelude::*;
use presa::transport::{DEFAULT_MAX_MESSAGE_SIZE, in_process, stdio};
use presa::wire::ElicitResult;
use serde::Deserialize;
use serde_json::json;

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

/// The jobs server.
fn server() -> Server {
    Server::builder("jobs", "1")
        .instructions("Builds targets on request; every build asks for confirmation.")
        .tool(BuildTool)
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    match std::env::args().nth(1).as_deref() {
        Some("stdio") => {
            presa::server::serve(
                server(),
                stdio(DEFAULT_MAX_MESSAGE_SIZE),
                Caller::anonymous(),
            )
            .await;
        }
        None => demo().await?,
        Some(other) => {
            eprintln!("unknown mode `{other}`; run with no argument for the demo, or `stdio`");
            std::process::exit(2);
        }
    }
    Ok(())
}

async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    let plain = Client::builder()
        .info("jobs-demo", "1")
        .on_elicitation(|_request| async { ElicitResult::accept(json!({"ok": true})) })
        .connect(in_process(&server(), Caller::anonymous()));
    // This client does not declare tasks, so the server never makes the call one.
    let result = plain
        .call_tool("build", json!({"target": "docs"}))
        .await?
        .into_complete()?;
    println!("{}", result.text().unwrap_or("(no text)"));
    plain.close().await?;
    Ok(())
}
