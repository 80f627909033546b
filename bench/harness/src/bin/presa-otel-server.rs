//! presa's benchmark server as a process, built with presa's telemetry
//! compiled in (the harness's `otel` feature): the `presa_otel` contender
//! ([`bench_harness::presa_process`] says how to call it).

#[tokio::main]
async fn main() -> std::io::Result<()> {
    bench_harness::presa_process::run().await
}
