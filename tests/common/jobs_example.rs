//! The `jobs` example, or another of presa's, as a binary that tests run
//! as a process of their own, presa's and presa-redis's (hence `-p
//! presa-mcp`, the facade's package).
//!
//! Cargo builds examples for integration tests but does not say where, so
//! the first test that needs one builds it (once per test binary) and
//! finds it beside the test executable. That build must see the environment the
//! outer `cargo test` saw: cargo describes the package to the test process
//! (`CARGO_MANIFEST_DIR`, `CARGO_PKG_NAME`, ...), and a build script that
//! watches those variables (ring's does) would otherwise rebuild half the
//! dependency tree on every run, both ways. Under Wine no cargo can run:
//! there the example is the one `cargo test --workspace` built.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// Builds the `jobs` example once and returns its path.
#[allow(dead_code)]
pub fn jobs_binary() -> PathBuf {
    example_binary("jobs")
}

/// Builds example `name` once and returns its path.
pub fn example_binary(name: &'static str) -> PathBuf {
    static PATHS: Mutex<BTreeMap<&'static str, PathBuf>> = Mutex::new(BTreeMap::new());
    let mut paths = PATHS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    paths.entry(name).or_insert_with(|| build(name)).clone()
}

fn build(name: &str) -> PathBuf {
    // Under Wine (cfg `presa_wine`, set by scripts/windows.sh) this process
    // cannot start cargo, a Linux program: the example is the one that the
    // `cargo test --workspace` which built this test built beside it.
    #[cfg(not(presa_wine))]
    run_cargo_build(name);
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let path = profile_dir
        .join("examples")
        .join(name)
        .with_extension(std::env::consts::EXE_EXTENSION);
    assert!(path.exists(), "no {name} example at {}", path.display());
    path
}

/// `cargo build`s example `name` of the facade, with the environment that
/// the outer `cargo test` saw (see the module docs).
#[cfg(not(presa_wine))]
fn run_cargo_build(name: &str) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = std::process::Command::new(cargo);
    build
        .args(["build", "--quiet", "-p", "presa-mcp", "--example", name])
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    for (variable, _) in std::env::vars_os() {
        if variable.to_str().is_some_and(describes_the_test_package) {
            build.env_remove(variable);
        }
    }
    let status = build.status().expect("cargo runs");
    assert!(status.success(), "building the {name} example failed");
}

/// Whether the environment variable `name` is one that cargo sets for a
/// test process (and not for itself): one describing the package or the
/// target under test, or the output of its build script (`OUT_DIR`, which
/// ring's build script watches).
#[cfg(not(presa_wine))]
pub fn describes_the_test_package(name: &str) -> bool {
    const PREFIXES: [&str; 4] = [
        "CARGO_PKG_",
        "CARGO_MANIFEST_",
        "CARGO_BIN_",
        "CARGO_TARGET_TMPDIR",
    ];
    const NAMES: [&str; 4] = [
        "CARGO_CRATE_NAME",
        "CARGO_PRIMARY_PACKAGE",
        "CARGO_RUSTC_CURRENT_DIR",
        "OUT_DIR",
    ];
    PREFIXES.iter().any(|prefix| name.starts_with(prefix)) || NAMES.contains(&name)
}
