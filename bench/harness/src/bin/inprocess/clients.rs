//! Each framework's own client, connected in process to its own server,
//! and the few calls the in-process figures make through them.
//!
//! presa has one in-process transport, [`presa::in_process`]: serialized
//! frames, no byte stream, and its client's 2026-07-28 requests served in
//! place on the caller's own task, with no channel. rmcp's fastest is a
//! pair of channels carrying its typed messages, unserialized; its tests
//! also use a `tokio::io::duplex` byte pipe with newline-delimited JSON,
//! which is what presa's `byte_stream` does over the same pipe. Both
//! pairs are measured, so that the comparison can be read either way.

use bench_harness::presa_server;
use bench_harness::rmcp_server::RmcpBench;
use bench_harness::wire::ECHO_TEXT;
use presa::client::Client;
use presa::prelude::*;
use presa::transport::{DEFAULT_MAX_MESSAGE_SIZE, byte_stream};
use presa::wire::ElicitResult;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, GetTaskParams,
    Implementation, ProtocolVersion,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceExt};
use serde_json::json;

/// A connected rmcp client.
pub type RmcpClient = RunningService<RoleClient, ClientConfig>;

/// How a client reaches its server in process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// The framework's own in-process transport.
    InProcess,
    /// Newline-delimited JSON over a `tokio::io::duplex` byte pipe.
    Duplex,
}

/// A presa client of a fresh benchmark server; `tasks` declares the Tasks
/// extension (and elicitation, which a parked task needs).
pub fn presa_client(server: &Server, link: Link, tasks: bool) -> Client {
    let builder = Client::builder()
        .info("bench", "1")
        .tasks(tasks)
        .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) });
    match link {
        Link::InProcess => builder.connect(in_process(server, Caller::anonymous())),
        Link::Duplex => {
            let (client_io, server_io) = tokio::io::duplex(64 * 1024);
            let (read, write) = tokio::io::split(server_io);
            let channel = byte_stream(read, write, DEFAULT_MAX_MESSAGE_SIZE);
            tokio::spawn(presa::server::serve(
                server.clone(),
                channel,
                Caller::anonymous(),
            ));
            let (read, write) = tokio::io::split(client_io);
            builder.connect(presa::client::ClientTransport::from(byte_stream(
                read,
                write,
                DEFAULT_MAX_MESSAGE_SIZE,
            )))
        }
    }
}

/// A presa client of a new benchmark server.
pub fn presa_pair(link: Link, tasks: bool) -> Client {
    presa_client(&presa_server::server(), link, tasks)
}

/// An rmcp client of a new benchmark server, speaking 2026-07-28
/// (`server/discover`, then stateless requests).
pub async fn rmcp_pair(link: Link, tasks: bool) -> RmcpClient {
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let config = rmcp_config(tasks);
    let connected = match link {
        Link::InProcess => {
            let (to_server, from_client) = futures::channel::mpsc::unbounded();
            let (to_client, from_server) = futures::channel::mpsc::unbounded();
            spawn_rmcp_server((to_client, from_client));
            config
                .serve_with_lifecycle((to_server, from_server), lifecycle)
                .await
        }
        Link::Duplex => {
            let (client_io, server_io) = tokio::io::duplex(64 * 1024);
            spawn_rmcp_server(server_io);
            config.serve_with_lifecycle(client_io, lifecycle).await
        }
    };
    connected.expect("the rmcp client connects")
}

/// What an rmcp client declares: elicitation, and tasks if asked.
fn rmcp_config(tasks: bool) -> ClientConfig {
    let builder = ClientCapabilities::builder().enable_elicitation();
    let capabilities = if tasks {
        builder.enable_tasks().build()
    } else {
        builder.build()
    };
    ClientConfig::new(capabilities, Implementation::new("bench", "1"))
}

/// Serves a new rmcp benchmark server on `transport` in the background.
fn spawn_rmcp_server<T, E, A>(transport: T)
where
    T: rmcp::transport::IntoTransport<rmcp::RoleServer, E, A> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
    A: 'static,
{
    tokio::spawn(async move {
        let running = RmcpBench::new().serve(transport).await?;
        running.waiting().await?;
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
    });
}

/// One presa `tools/call echo`, checked.
pub async fn presa_echo(client: &Client) {
    let outcome = client
        .call_tool("echo", json!({"text": ECHO_TEXT}))
        .await
        .expect("presa echo");
    assert_eq!(outcome.text(), Some(ECHO_TEXT), "presa echo answered wrong");
}

/// One rmcp `tools/call echo`, checked.
pub async fn rmcp_echo(client: &RmcpClient) {
    let arguments = json!({"text": ECHO_TEXT});
    let params = CallToolRequestParams::new("echo")
        .with_arguments(arguments.as_object().expect("an object").clone());
    let result = client.call_tool(params).await.expect("rmcp echo");
    assert_ne!(result.is_error, Some(true), "rmcp echo answered wrong");
}

/// Starts presa's tool `name` as a task; its id.
pub async fn presa_start_task(client: &Client, name: &str) -> String {
    let outcome = client.call_tool(name, json!({})).await.expect("presa call");
    outcome.task().expect("presa made a task").id().to_owned()
}

/// Starts rmcp's tool `name` as a task; its id.
pub async fn rmcp_start_task(client: &RmcpClient, name: &str) -> String {
    match client
        .call_tool_once(CallToolRequestParams::new(name.to_owned()))
        .await
    {
        Ok(CallToolResponse::Task(created)) => created.task.task_id,
        other => panic!("rmcp made no task: {other:?}"),
    }
}

/// The status of presa task `id`, as its wire name.
pub async fn presa_task_status(client: &Client, id: &str) -> String {
    let task = client.get_task(id).await.expect("presa tasks/get");
    status_name(&task.task.status)
}

/// The status of rmcp task `id`, as its wire name.
pub async fn rmcp_task_status(client: &RmcpClient, id: &str) -> String {
    let got = client
        .get_task(GetTaskParams::new(id.to_owned()))
        .await
        .expect("rmcp tasks/get");
    status_name(&got.task.status())
}

/// The wire name of a status (`completed`, `input_required`, …), from
/// either framework's type.
fn status_name(status: &impl serde::Serialize) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Whether a status named by [`status_name`] is final.
pub fn is_terminal(status: &str) -> bool {
    matches!(status, "completed" | "failed" | "cancelled")
}
