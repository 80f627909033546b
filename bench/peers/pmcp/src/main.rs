//! The benchmark server written with pmcp 2.23, as a user of its public API
//! would: the same `echo`, `work` and `ask` as the harness's other servers.
//!
//! - `echo` and `ask` are `TypedToolWithResult` tools, so they answer with a
//!   `CallToolResult` of their own. pmcp's plain `TypedTool` turns a returned
//!   value into text by serializing it as JSON, so a string would come back
//!   in quotes.
//! - `work` is a `ToolHandler` of its own, because only through its
//!   `metadata` can a tool that builds its own result also declare optional
//!   task support.
//! - `ask` asks through MRTR: without a sealed continuation it puts an
//!   `MrtrSignal` on its result's `_meta`. pmcp seals the continuation into
//!   an AEAD `requestState` and answers `input_required`. On the retry pmcp
//!   opens the state before the handler runs, and the handler reads the
//!   answer from `inputResponses`.
//!
//! The server accepts 2026-07-28 and, as pmcp's documentation tells its
//! users to, its v1 revision 2025-11-25 beside it. pmcp decides the era per
//! request from `_meta`, so no `initialize` comes first, and every request
//! the driver sends names 2026-07-28. The v1 entry matters on stdio only:
//! there pmcp reads `_meta` from `tools/call`, `prompts/get` and
//! `resources/read` alone, so a `tools/list` reaches it without one and is
//! answered at the v1 fallback. A 2026-07-28-only server refuses it.
//!
//! Over stdio pmcp also drops `requestState` and `inputResponses` (it reads
//! them on Streamable HTTP only), so `ask` completes over HTTP but asks
//! again on every stdio retry.
//!
//! `pmcp-server stdio` serves newline-delimited JSON-RPC on stdin and stdout.
//! `pmcp-server http` serves Streamable HTTP at `/mcp` on a free loopback
//! port, and prints `listening 127.0.0.1:PORT` once it accepts.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;

use pmcp::axum::{RouterConfig, concurrent_router_with_config};
use pmcp::server::streamable_http_server::StreamableHttpServerConfig;
use pmcp::server::typed_tool::TypedToolWithResult;
use pmcp::types::capabilities::ServerCapabilities;
use pmcp::types::elicitation::ElicitRequestParams;
use pmcp::types::mrtr::{InputRequest, InputRequests, InputResponse, MrtrSignal};
use pmcp::types::protocol::{PROTOCOL_VERSION_2026_07_28, ProtocolVersion};
use pmcp::types::{CallToolResult, Content, TaskSupport, ToolExecution, ToolInfo};
use pmcp::{RequestHandlerExtra, Server, ToolHandler, ToolOutput};
use serde::Deserialize;
use serde_json::{Value, json};

/// The key under which `ask` asks its question (the harness's `ASK_KEY`).
const ASK_KEY: &str = "confirm";

/// The key the `requestState` is sealed with. Fixed, as in the other
/// benchmark servers, so that no environment variable changes the run.
const REQUEST_STATE_KEY: [u8; 32] = [7; 32];

/// The arguments of `echo`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

/// The arguments of `ask`: none.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct NoArgs {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let server = server()?;
    match mode.as_str() {
        "stdio" => server.run_stdio().await?,
        "http" => serve_http(server).await?,
        _ => return Err("usage: pmcp-server stdio|http".into()),
    }
    Ok(())
}

/// The benchmark server, with its three tools.
fn server() -> pmcp::Result<Server> {
    let echo = TypedToolWithResult::new("echo", |args: EchoArgs, _extra| {
        Box::pin(async move { Ok(text_result(args.text)) })
    })
    .with_description("Echoes its input.");
    let ask = TypedToolWithResult::new("ask", |_: NoArgs, extra| {
        Box::pin(async move { ask_round(&extra) })
    })
    .with_description("Asks once, then answers.");
    Server::builder()
        .name("bench-pmcp")
        .version("1")
        .capabilities(ServerCapabilities::tools_only())
        // 2026-07-28 for the driver's requests; 2025-11-25 so that a stdio
        // `tools/list`, whose `_meta` pmcp cannot see, is answered at all.
        .with_supported_protocol_versions([
            ProtocolVersion(PROTOCOL_VERSION_2026_07_28.to_owned()),
            ProtocolVersion(pmcp::LATEST_PROTOCOL_VERSION.to_owned()),
        ])
        .with_request_state_key(REQUEST_STATE_KEY)
        .tool("echo", echo)
        .tool("work", Work)
        .tool("ask", ask)
        .build()
}

/// A result with one text content.
fn text_result(text: impl Into<String>) -> CallToolResult {
    CallToolResult::new(vec![Content::text(text)])
}

/// `work`: returns at once, and declares optional task support.
struct Work;

#[pmcp::async_trait]
impl ToolHandler for Work {
    async fn handle(&self, _args: Value, _extra: RequestHandlerExtra) -> pmcp::Result<Value> {
        Ok(serde_json::to_value(text_result("done"))?)
    }

    async fn handle_output(
        &self,
        _args: Value,
        _extra: RequestHandlerExtra,
    ) -> pmcp::Result<ToolOutput> {
        Ok(ToolOutput::Result(text_result("done")))
    }

    fn metadata(&self) -> Option<ToolInfo> {
        let mut info = ToolInfo::new(
            "work",
            Some("Returns at once; a task for clients that declare tasks.".to_owned()),
            json!({"type": "object", "properties": {}}),
        );
        info.execution = Some(ToolExecution::new().with_task_support(TaskSupport::Optional));
        Some(info)
    }
}

/// One round of `ask`: complete once pmcp has verified the continuation and
/// the answer is there, or ask.
fn ask_round(extra: &RequestHandlerExtra) -> pmcp::Result<CallToolResult> {
    if extra.mrtr_continuation().is_some()
        && let Some(ok) = answered_ok(extra)
    {
        return Ok(text_result(ok.to_string()));
    }
    let mut requests = InputRequests::new();
    requests.insert(
        ASK_KEY.to_owned(),
        InputRequest::Elicitation(Box::new(ElicitRequestParams::Form {
            message: "Go ahead?".to_owned(),
            requested_schema: json!({
                "type": "object",
                "properties": {"ok": {"type": "boolean"}},
                "required": ["ok"],
            }),
        })),
    );
    let signal = MrtrSignal {
        input_requests: requests,
        continuation: json!({"asked": ASK_KEY}),
    };
    let (key, value) = signal
        .into_meta_entry()
        .map_err(|error| pmcp::Error::internal(error.to_string()))?;
    extra.set_result_meta(serde_json::Map::from_iter([(key, value)]));
    Ok(text_result("asking"))
}

/// The `ok` field of an accepted answer to the question, if there is one.
fn answered_ok(extra: &RequestHandlerExtra) -> Option<bool> {
    let InputResponse::Elicitation(answer) = extra.input_responses()?.get(ASK_KEY)? else {
        return None;
    };
    answer.content.as_ref()?.get("ok")?.as_bool()
}

/// Serves Streamable HTTP at `/mcp` on a free loopback port until killed.
///
/// pmcp's stateless configuration answers POSTs with plain JSON, without
/// sessions. The concurrent router handles requests in parallel (the plain
/// one puts the server behind a mutex). pmcp serves its router at `/`, so
/// it is nested under `/mcp`. Its DNS rebinding check stays at pmcp's
/// default, which accepts a loopback `Host` on any port.
async fn serve_http(server: Server) -> Result<(), Box<dyn std::error::Error>> {
    let mut server_config = StreamableHttpServerConfig::stateless();
    server_config.allowed_origins = None;
    let config = RouterConfig {
        server_config,
        ..RouterConfig::default()
    };
    let app = axum::Router::new().nest(
        "/mcp",
        concurrent_router_with_config(Arc::new(server), config),
    );
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
    let addr = listener.local_addr()?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening {addr}")?;
    stdout.flush()?;
    drop(stdout);
    axum::serve(listener, app).await?;
    Ok(())
}
