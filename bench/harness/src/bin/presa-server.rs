//! presa's benchmark server as a process, built with presa's default
//! features ([`bench_harness::presa_process`] says how to call it).

#[tokio::main]
async fn main() -> std::io::Result<()> {
    bench_harness::presa_process::run().await
}
