//! In-process figures: each framework's own client and server in one
//! process, on the multi-thread runtime `#[tokio::main]` gives.
//!
//! - `inprocess latency`: sequential `tools/call echo`, and the floor;
//! - `inprocess lifecycle`: a task call to `completed`, polling and
//!   listening;
//! - `inprocess scale`: `tasks/get` latency and memory per task with many
//!   live tasks (children `inprocess scale-child FRAMEWORK KIND`);
//! - `inprocess` alone runs the three in that order;
//! - `inprocess profile-presa`: presa's sequential call alone, for a
//!   profiler.

mod clients;
mod latency;
mod lifecycle;
mod scale;

use bench_harness::Framework;
use bench_harness::figures::Figures;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut figures = Figures::new();
    match args.as_slice() {
        [] => {
            latency::measure(&mut figures).await;
            lifecycle::measure(&mut figures).await;
            scale::measure(&mut figures).await?;
        }
        ["latency"] => latency::measure(&mut figures).await,
        ["profile-presa"] => latency::presa_only(&mut figures).await,
        ["lifecycle"] => lifecycle::measure(&mut figures).await,
        ["scale"] => scale::measure(&mut figures).await?,
        ["scale-child", framework, kind] => {
            let framework = Framework::parse(framework).filter(|f| Framework::BOTH.contains(f));
            let (Some(framework), Some(kind)) = (framework, scale::Kind::parse(kind)) else {
                usage()
            };
            figures = scale::child(framework, kind).await;
        }
        _ => usage(),
    }
    figures.emit();
    Ok(())
}

/// Prints how to call this program and exits.
fn usage() -> ! {
    eprintln!(
        "usage: inprocess [latency|lifecycle|scale|profile-presa|scale-child presa|rmcp finished|parked|parked_resumable]"
    );
    std::process::exit(2);
}
