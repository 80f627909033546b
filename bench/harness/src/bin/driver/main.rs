//! The neutral driver: server-side figures over stdio and Streamable HTTP,
//! the same bytes for every framework, so that only the servers differ.
//!
//! - `driver stdio` starts presa's, rmcp's and tower-mcp's servers, presa's
//!   with a cost switched on (`presa_layered`, `presa_otel`), and the
//!   framework-free floor as child processes and measures sequential
//!   `tools/call echo` latency (one request on the wire at a time) and
//!   pipelined throughput (64 requests in flight) of `echo`, `tools/list`
//!   and an MRTR-shaped `tools/call`.
//! - `driver http` starts the three frameworks' servers and presa's
//!   variants over Streamable HTTP and measures throughput with 64
//!   concurrent keep-alive connections.
//!
//! Rounds alternate between the servers (presa, presa_layered, presa_otel,
//! rmcp, tower-mcp, …) and the figures are the median rounds. The driver
//! runs on a current-thread runtime: on a two-core machine it leaves the
//! other core to the server, and it costs every server the same.

mod http;
mod stdio;

use bench_harness::figures::Figures;

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let mut figures = Figures::new();
    match std::env::args().nth(1).as_deref() {
        Some("stdio") => stdio::measure(&mut figures).await?,
        Some("http") => http::measure(&mut figures).await?,
        _ => {
            eprintln!("usage: driver stdio|http");
            std::process::exit(2);
        }
    }
    figures.emit();
    Ok(())
}
