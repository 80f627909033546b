//! Whether the tests that need a `redis-server` can run here. Where none
//! is on `PATH` they are compiled as ignored (cfg `no_redis`, used by
//! `redis_tests!` in `tests/stores/redis_server.rs`), so that a plain
//! `cargo test` counts them as ignored, each saying how to run it, rather
//! than as passed when they ran nothing. Libtest cannot ignore a test
//! once it runs, hence a build script. With `PRESA_REQUIRE_REDIS=1` (CI)
//! they are never ignored: without a server they fail. A build for
//! another system than this one (Windows tests run under Wine) does not
//! probe: it sets cfg `redis_cross` instead, and its Redis tests are
//! reported ignored for that reason, whatever this machine's `PATH` holds.
//!
//! `PATH` is not watched: this crate, and every crate above it, would
//! rebuild whenever two callers' `PATH`s differ (an editor's and a
//! shell's; on Windows, cargo's and the one it gives the test processes
//! that build the jobs example). So the probe runs once: removing the
//! server it found makes it run again, and a server installed after it
//! found none fails one test per test binary, which says how to run it
//! again.

#[path = "tests/stores/on_path.rs"]
mod on_path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(no_redis, redis_cross)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=tests/stores/on_path.rs");
    println!("cargo::rerun-if-env-changed=PRESA_REQUIRE_REDIS");
    // The probe looks at this machine. Tests built for another system
    // (Windows, from Linux, run under Wine) run where this PATH means
    // nothing, and a server found on it is no program they can start.
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let cross = target_os != std::env::consts::OS;
    if !cross && let Some(found) = on_path::redis_server() {
        println!("cargo::rerun-if-changed={}", found.display());
        return;
    }
    if std::env::var_os("PRESA_REQUIRE_REDIS").is_some_and(|v| v == "1") {
        return;
    }
    if cross {
        println!("cargo::rustc-cfg=redis_cross");
        println!(
            "cargo::warning=building for {target_os} on {}: the presa-redis tests that \
             need a redis-server are reported ignored, since this machine's cannot \
             serve them. Build and test on {target_os} with a redis-server to run them",
            std::env::consts::OS
        );
    } else {
        println!("cargo::rustc-cfg=no_redis");
        println!(
            "cargo::warning=no redis-server on PATH: the presa-redis tests that need one \
             are reported ignored. To run them, install it (apt-get install redis-server, \
             brew install redis), then `cargo clean -p presa-redis` and `cargo test` again"
        );
    }
}
