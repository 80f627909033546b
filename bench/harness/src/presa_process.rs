//! presa's benchmark server ([`crate::presa_server`]) as a process the
//! neutral driver talks to: the `main` of `presa-server` and of
//! `presa-otel-server`.
//!
//! - `stdio` serves it on stdin and stdout.
//! - `http` serves it over Streamable HTTP on a free loopback port, and
//!   prints `listening ADDRESS` on stdout once it accepts.
//! - `--variant layered` after either serves it with one empty tower
//!   layer around its handlers; `--variant otel` serves it with telemetry
//!   switched on, exported nowhere (`crate::telemetry`).
//!
//! The two binaries differ in how presa is built. `presa-server` has
//! presa's default features, as presa's users get it. `presa-otel-server`
//! is built with the harness's `otel` feature, so presa's telemetry is
//! compiled in, and only it takes `--variant otel`.

use presa::server::Server;

use crate::PresaVariant;
use crate::presa_server::{layered_server, server};

const USAGE: &str = "usage: presa-server stdio|http [--variant layered|otel]";

/// Reads the command line, then serves until stdin closes (stdio) or the
/// process is killed (HTTP).
pub async fn run() -> std::io::Result<()> {
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
    let _telemetry = (variant == Some(PresaVariant::Otel)).then(switch_telemetry_on);
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

/// Switches telemetry on, exported nowhere, until the guard drops.
#[cfg(feature = "otel")]
fn switch_telemetry_on() -> crate::telemetry::DiscardedTelemetry {
    crate::telemetry::switch_on()
}

/// Without telemetry compiled in, `--variant otel` cannot be served.
#[cfg(not(feature = "otel"))]
fn switch_telemetry_on() {
    eprintln!(
        "this server is built without telemetry: run presa-otel-server for --variant otel \
         (cargo build --manifest-path bench/Cargo.toml --bin presa-otel-server --features otel)"
    );
    std::process::exit(2);
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
