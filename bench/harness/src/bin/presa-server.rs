//! presa's benchmark server ([`bench_harness::presa_server`]) as a process
//! the neutral driver talks to.
//!
//! - `presa-server stdio` serves it on stdin and stdout.
//! - `presa-server http` serves it over Streamable HTTP on a free loopback
//!   port, and prints `listening ADDRESS` on stdout once it accepts.

use bench_harness::presa_server::server;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    match std::env::args().nth(1).as_deref() {
        Some("stdio") => server().serve_stdio().await,
        Some("http") => serve_http().await?,
        _ => {
            eprintln!("usage: presa-server stdio|http");
            std::process::exit(2);
        }
    }
    Ok(())
}

/// Serves over Streamable HTTP at `/mcp` until killed.
async fn serve_http() -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("listening {}", listener.local_addr()?);
    presa::server::http::StreamableHttp::new(server())
        .serve_on(listener)
        .await
}
