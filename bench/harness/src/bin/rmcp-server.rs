//! rmcp's benchmark server ([`bench_harness::rmcp_server`]) as a process
//! the neutral driver talks to.
//!
//! - `rmcp-server stdio` serves it on stdin and stdout.
//! - `rmcp-server http` serves it over Streamable HTTP on a free loopback
//!   port, and prints `listening ADDRESS` on stdout once it accepts.
//!
//! Over HTTP it runs as rmcp recommends for 2026-07-28: no legacy
//! sessions, and plain JSON answers (`json_response`) for calls that send
//! nothing before their result, which is what presa answers too.

use std::sync::Arc;

use bench_harness::rmcp_server::RmcpBench;
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    match std::env::args().nth(1).as_deref() {
        Some("stdio") => serve_stdio().await,
        Some("http") => serve_http().await,
        _ => {
            eprintln!("usage: rmcp-server stdio|http");
            std::process::exit(2);
        }
    }
}

/// Serves on stdin and stdout until stdin closes.
async fn serve_stdio() -> Result<(), BoxError> {
    let running = RmcpBench::new().serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}

/// Serves over Streamable HTTP at `/mcp` until killed. One server value is
/// shared by every request, so that tasks outlive the request that made
/// them.
async fn serve_http() -> Result<(), BoxError> {
    let shared = RmcpBench::new();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None);
    let service = StreamableHttpService::new(
        move || Ok(shared.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("listening {}", listener.local_addr()?);
    axum::serve(listener, router).await?;
    Ok(())
}
