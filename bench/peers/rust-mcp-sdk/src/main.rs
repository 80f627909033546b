//! The benchmark server written with rust-mcp-sdk 2.0.0, as a user of its
//! public API would: the same `echo`, `work` and `ask` as presa's, rmcp's
//! and tower-mcp's servers in the harness.
//!
//! It is a package of its own, outside the harness, so that the SDK's
//! default features (auth and its crypto among them) enter no other
//! server's build. `scripts/bench.sh` builds it alone.
//!
//! - `rust-mcp-sdk-server stdio` serves newline-delimited JSON-RPC on
//!   stdin and stdout, and exits when stdin closes.
//! - `rust-mcp-sdk-server http` serves Streamable HTTP at `/mcp` on a free
//!   loopback port, and prints `listening 127.0.0.1:PORT` once it accepts.
//!
//! The SDK speaks 2026-07-28 only, stateless: no `initialize`, the
//! protocol version and the client's capabilities in each request's
//! `_meta`. That is what the driver sends.
//!
//! The tools are the SDK's `#[mcp_tool]` structs, gathered by `tool_box!`.
//! `ask` answers over MRTR, as the SDK has it: the handler's
//! `handle_call_tool_request_mrtr` returns an `InputRequiredResult` with the
//! form and a `requestState` signed by the SDK's `RequestStateCodec`
//! (HMAC-SHA256, with a ten-minute expiry like the other servers'), and
//! completes a retry whose state verifies and whose answer is there. The
//! SDK has no tasks, so `work` declares none.

use std::collections::BTreeMap;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rust_mcp_axum::axum;
use rust_mcp_axum::{McpMountOptions, mcp_routes};
use rust_mcp_sdk::error::SdkResult;
use rust_mcp_sdk::id_generator::{FastIdGenerator, UuidGenerator};
use rust_mcp_sdk::macros::{JsonSchema, mcp_elicit, mcp_tool};
use rust_mcp_sdk::mcp_http::{
    DEFAULT_MAX_LISTEN_STREAMS, DnsRebindingOptions, McpAppState, McpHttpHandler,
    resolve_dns_middleware,
};
use rust_mcp_sdk::mcp_server::{
    McpServerOptions, RequestStateCodec, ServerHandler, ToMcpServerHandler, server_runtime,
};
use rust_mcp_sdk::schema::schema_utils::CallToolError;
use rust_mcp_sdk::schema::{
    CallToolRequestParams, CallToolResult, ElicitRequest, ElicitResultAction, Implementation,
    InputRequest, InputRequests, InputRequiredResult, InputResponse, ListToolsResult,
    ListToolsResultCacheScope, PaginatedRequestParams, RpcError, ServerCapabilities,
    ServerCapabilitiesTools, ServerResult, TextContent,
};
use rust_mcp_sdk::{
    McpServer, RequestContext, ServerDetails, StdioTransport, TransportOptions, tool_box,
};

/// The key under which `ask` asks its question (the harness's `ASK_KEY`).
const ASK_KEY: &str = "confirm";

/// How long a `requestState` that `ask` issued stays valid.
const STATE_MAX_AGE: Duration = Duration::from_secs(600);

/// `echo`: answers with its `text`.
#[mcp_tool(name = "echo", description = "Echoes its input.")]
#[derive(Debug, serde::Deserialize, serde::Serialize, JsonSchema)]
pub struct EchoTool {
    /// The text to send back.
    text: String,
}

/// `work`: returns at once. The SDK has no tasks, so it declares none.
#[mcp_tool(
    name = "work",
    description = "Returns at once; a task for clients that declare tasks."
)]
#[derive(Debug, serde::Deserialize, serde::Serialize, JsonSchema)]
pub struct WorkTool {}

/// `ask`: asks once whether to go ahead, through MRTR, then answers.
#[mcp_tool(name = "ask", description = "Asks once, then answers.")]
#[derive(Debug, serde::Deserialize, serde::Serialize, JsonSchema)]
pub struct AskTool {}

/// The form `ask` sends: one required boolean, `ok`.
#[mcp_elicit(message = "Go ahead?", mode = form)]
#[derive(Debug, JsonSchema)]
pub struct Confirm {
    /// Whether to go ahead.
    ok: bool,
}

tool_box!(BenchTools, [EchoTool, WorkTool, AskTool]);

/// The benchmark handler: the codec that signs `ask`'s `requestState`.
struct BenchHandler {
    states: RequestStateCodec,
}

impl BenchHandler {
    /// A handler with a fixed key, as the other benchmark servers have.
    fn new() -> Self {
        BenchHandler {
            states: RequestStateCodec::with_key([7u8; 32]).with_max_age(STATE_MAX_AGE),
        }
    }

    /// One MRTR round of `ask`: complete with a verified answer, or ask.
    fn ask_round(&self, params: &CallToolRequestParams) -> ServerResult {
        let verified = params
            .request_state
            .as_deref()
            .and_then(|state| self.states.decode(state))
            .is_some_and(|payload| payload == ASK_KEY.as_bytes());
        if verified && let Some(ok) = answered_ok(params) {
            return text_result(ok.to_string()).into();
        }
        let request =
            InputRequest::ElicitRequest(ElicitRequest::new(Confirm::elicit_request_params()));
        ServerResult::InputRequiredResult(InputRequiredResult {
            input_requests: Some(InputRequests(BTreeMap::from([(
                ASK_KEY.to_owned(),
                request,
            )]))),
            meta: None,
            request_state: Some(self.states.encode_str(ASK_KEY)),
            result_type: "input_required".to_owned(),
        })
    }
}

/// The `ok` field of an accepted answer to `ask`'s question, if there is one.
fn answered_ok(params: &CallToolRequestParams) -> Option<bool> {
    let responses = params.input_responses.as_ref()?;
    let Some(InputResponse::ElicitResult(answer)) = responses.0.get(ASK_KEY) else {
        return None;
    };
    if answer.action != ElicitResultAction::Accept {
        return None;
    }
    Confirm::from_elicit_result_content(answer.content.clone())
        .ok()
        .map(|confirm| confirm.ok)
}

/// A tool result of one text content.
fn text_result(text: String) -> CallToolResult {
    CallToolResult::text_content(vec![TextContent::from(text)])
}

#[async_trait]
impl ServerHandler for BenchHandler {
    async fn handle_list_tools_request(
        &self,
        _params: Option<PaginatedRequestParams>,
        _context: &RequestContext,
        _runtime: Arc<dyn McpServer>,
    ) -> Result<ListToolsResult, RpcError> {
        Ok(ListToolsResult {
            tools: BenchTools::tools(),
            meta: None,
            next_cursor: None,
            cache_scope: ListToolsResultCacheScope::Private,
            result_type: "complete".to_owned(),
            ttl_ms: 0,
        })
    }

    async fn handle_call_tool_request(
        &self,
        params: CallToolRequestParams,
        _context: &RequestContext,
        _runtime: Arc<dyn McpServer>,
    ) -> Result<ServerResult, CallToolError> {
        match BenchTools::try_from(params).map_err(CallToolError::new)? {
            BenchTools::EchoTool(EchoTool { text }) => Ok(text_result(text).into()),
            BenchTools::WorkTool(_) => Ok(text_result("done".to_owned()).into()),
            BenchTools::AskTool(_) => Err(CallToolError::unknown_tool("ask".to_owned())),
        }
    }

    async fn handle_call_tool_request_mrtr(
        &self,
        params: CallToolRequestParams,
        context: &RequestContext,
        runtime: Arc<dyn McpServer>,
    ) -> Result<ServerResult, RpcError> {
        if params.name == AskTool::tool_name() {
            return Ok(self.ask_round(&params));
        }
        match self
            .handle_call_tool_request(params, context, runtime)
            .await
        {
            Ok(result) => Ok(result),
            Err(error) => Ok(CallToolResult::from(error).into()),
        }
    }
}

/// The server's identity and capabilities: tools only.
fn server_details() -> ServerDetails {
    ServerDetails {
        server_info: Implementation {
            name: "bench-rust-mcp-sdk".into(),
            version: "1".into(),
            title: None,
            description: None,
            icons: vec![],
            website_url: None,
        },
        capabilities: ServerCapabilities {
            tools: Some(ServerCapabilitiesTools { list_changed: None }),
            ..Default::default()
        },
        instructions: None,
        meta: None,
    }
}

/// Serves MCP on stdin and stdout until stdin closes.
async fn serve_stdio() -> SdkResult<()> {
    let transport = StdioTransport::new(TransportOptions::default())?;
    let server = server_runtime::create_server(McpServerOptions {
        server_details: server_details(),
        transport,
        handler: BenchHandler::new().to_mcp_server_handler(),
        message_observer: None,
    });
    server.start().await
}

/// Serves Streamable HTTP at `/mcp` on a free loopback port.
///
/// The SDK's `create_axum_server` binds the port it is given and derives
/// its DNS-rebinding allow list from that port, so port 0 would leave the
/// real `Host` refused. This is the SDK's other documented way, "BYO
/// server": bind first, then mount its routes with the allow list of the
/// port actually bound, and its defaults otherwise.
async fn serve_http() -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address: SocketAddr = listener.local_addr()?;
    let state = Arc::new(McpAppState {
        id_generator: Arc::new(UuidGenerator {}),
        stream_id_gen: Arc::new(FastIdGenerator::new(Some("s_"))),
        server_details: Arc::new(server_details()),
        handler: BenchHandler::new().to_mcp_server_handler(),
        ping_interval: Duration::from_secs(12),
        transport_options: Default::default(),
        enable_json_response: true,
        message_observer: None,
        extensions: Arc::new(tokio::sync::RwLock::new(None)),
        active_listen_streams: Arc::new(tokio::sync::Mutex::new(Vec::new())),
        max_listen_streams: DEFAULT_MAX_LISTEN_STREAMS,
    });
    let mut dns = DnsRebindingOptions::default();
    let middlewares = resolve_dns_middleware(&mut dns, &address.ip().to_string(), address.port())
        .map(|protector| vec![Arc::new(protector) as _])
        .unwrap_or_default();
    let http_handler = McpHttpHandler::new(None, middlewares, None);
    let mount = McpMountOptions {
        streamable_http_endpoint: "/mcp".into(),
        ..Default::default()
    };
    let app = mcp_routes(state, &mount, http_handler);
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening {address}")?;
    stdout.flush()?;
    drop(stdout);
    axum::serve(listener, app).await
}

#[tokio::main]
async fn main() {
    let mode = std::env::args().nth(1);
    let outcome = match mode.as_deref() {
        Some("stdio") => serve_stdio().await.map_err(|e| e.to_string()),
        Some("http") => serve_http().await.map_err(|e| e.to_string()),
        _ => Err("usage: rust-mcp-sdk-server stdio|http".to_owned()),
    };
    if let Err(error) = outcome {
        eprintln!("rust-mcp-sdk-server: {error}");
        std::process::exit(1);
    }
}
