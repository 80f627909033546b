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
//! When the probe runs again, in order:
//!
//! 1. It found a server: cargo watches that file, so removing it runs the
//!    probe again. `PATH` itself is not watched. Otherwise this crate, and
//!    every test built on it, would rebuild each time two callers' `PATH`s
//!    differ (an editor's and a shell's).
//! 2. It found none: cargo watches each folder on `PATH`, and `PATH`
//!    itself. Installing `redis-server` adds a file to one of those
//!    folders, or a folder to `PATH`, so the next `cargo test` probes
//!    again and runs the Redis tests. You need no `cargo clean`. The cost:
//!    while you have no server, a different `PATH` rebuilds this crate.
//!
//! Cargo reads a watched folder's whole tree for changes. So the probe
//! does not watch a folder that does not exist (cargo would run it on
//! every build), a relative one, or, on Windows, the system's own folders
//! (`SystemRoot`, tens of thousands of files where nobody installs Redis).

#[path = "tests/stores/on_path.rs"]
mod on_path;

use std::path::Path;

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
    if !cross {
        if let Some(found) = on_path::redis_server() {
            println!("cargo::rerun-if-changed={}", found.display());
            return;
        }
        watch_path();
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
             brew install redis) and run `cargo test` again"
        );
    }
}

/// Has cargo run the probe again when `PATH`, or a folder on it, changes.
fn watch_path() {
    println!("cargo::rerun-if-env-changed=PATH");
    let Some(path) = std::env::var_os("PATH") else {
        return;
    };
    // Windows compares paths without regard to case.
    let lower = |path: &Path| path.to_string_lossy().to_lowercase();
    let system = std::env::var_os("SystemRoot")
        .filter(|_| cfg!(windows))
        .map(|root| lower(Path::new(&root)));
    for dir in std::env::split_paths(&path) {
        let system_folder = system
            .as_ref()
            .is_some_and(|root| Path::new(&lower(&dir)).starts_with(root));
        if dir.is_absolute() && dir.is_dir() && !system_folder {
            println!("cargo::rerun-if-changed={}", dir.display());
        }
    }
}
