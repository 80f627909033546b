//! tower-mcp's benchmark server ([`bench_harness::tower_mcp_server`]) as a
//! process the neutral driver talks to.
//!
//! - `tower-mcp-server stdio` serves it on stdin and stdout.
//! - `tower-mcp-server http` serves it over Streamable HTTP on a free
//!   loopback port, and prints `listening ADDRESS` on stdout once it
//!   accepts.
//!
//! Both serve 2026-07-28 only; over HTTP the answers are plain JSON (no
//! SSE), which is what the other servers answer too.

use bench_harness::tower_mcp_server::{protocol_support, router};
use tower_mcp::{BoxError, HttpTransport, StdioTransport};

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    match std::env::args().nth(1).as_deref() {
        Some("stdio") => {
            StdioTransport::new(router())
                .protocol_support(protocol_support())
                .run()
                .await?
        }
        Some("http") => serve_http().await?,
        _ => {
            eprintln!("usage: tower-mcp-server stdio|http");
            std::process::exit(2);
        }
    }
    Ok(())
}

/// Serves over Streamable HTTP at `/mcp` until killed.
async fn serve_http() -> Result<(), BoxError> {
    let app = HttpTransport::new(router())
        .protocol_support(protocol_support())
        .sse_responses(false)
        .disable_host_validation()
        .into_router_at("/mcp");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("listening {}", listener.local_addr()?);
    axum::serve(listener, app).await?;
    Ok(())
}
