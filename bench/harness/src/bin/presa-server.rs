//! presa's benchmark server ([`bench_harness::presa_server`]) as a process
//! the neutral driver talks to.
//!
//! - `presa-server stdio` serves it on stdin and stdout.
//! - `presa-server http` serves it over Streamable HTTP on a free loopback
//!   port, and prints `listening ADDRESS` on stdout once it accepts.
//! - `--variant layered` after either serves it with one empty tower
//!   layer around its handlers; `--variant otel` serves it with telemetry
//!   switched on, exported nowhere ([`bench_harness::telemetry`]).

use bench_harness::PresaVariant;
use bench_harness::presa_server::{layered_server, server};
use presa::server::Server;

const USAGE: &str = "usage: presa-server stdio|http [--variant layered|otel]";

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (transport, variant) = match args.as_slice() {
        [transport] => (transport.as_str(), None),
        [transport, flag, name] if flag == "--variant" => match PresaVariant::parse(name) {
            Some(variant) => (transport.as_str(), Some(variant)),
            None => usage(),
        },
        _ => usage(),
    };
    if !matches!(transport, "stdio" | "http") {
        usage();
    }
    // Held until the server ends: dropping it shuts telemetry down.
    let _telemetry =
        (variant == Some(PresaVariant::Otel)).then(bench_harness::telemetry::switch_on);
    let server = match variant {
        Some(PresaVariant::Layered) => layered_server(),
        Some(PresaVariant::Otel) | None => server(),
    };
    if transport == "stdio" {
        server.serve_stdio().await;
        Ok(())
    } else {
        serve_http(server).await
    }
}

/// Prints how to call this program and exits.
fn usage() -> ! {
    eprintln!("{USAGE}");
    std::process::exit(2);
}

/// Serves `server` over Streamable HTTP at `/mcp` until killed.
async fn serve_http(server: Server) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("listening {}", listener.local_addr()?);
    presa::server::http::StreamableHttp::new(server)
        .serve_on(listener)
        .await
}
