//! `presa` against another implementation: the TypeScript SDK 1.x's
//! legacy (2025-11-25) server that `scripts/interop.sh` installs
//! (`tests/interop/ts_legacy_server.mjs`), reached with no flag for its
//! era. Its question comes as a request of its own, filed under no key,
//! so the `--answer` is taken by the fields it names.
//!
//! The test needs `PRESA_INTEROP_NODE` and `PRESA_INTEROP_TS_SDK`, which
//! that script sets; without them it reports so and passes, unless `CI`
//! and `PRESA_INTEROP` are set, when it fails.

use std::process::{Command, Stdio};

use serde_json::Value;

fn interop_setup() -> Option<(String, String)> {
    let node = std::env::var("PRESA_INTEROP_NODE").ok();
    let sdk = std::env::var("PRESA_INTEROP_TS_SDK").ok();
    match (node, sdk) {
        (Some(node), Some(sdk)) => Some((node, sdk)),
        _ if std::env::var_os("CI").is_some() && std::env::var_os("PRESA_INTEROP").is_some() => {
            panic!("PRESA_INTEROP is set, but PRESA_INTEROP_NODE or PRESA_INTEROP_TS_SDK is not")
        }
        _ => {
            eprintln!("note: no TypeScript SDK to talk to; run scripts/interop.sh");
            None
        }
    }
}

#[test]
#[cfg_attr(
    presa_wine,
    ignore = "needs Node, a Linux program here that a test under Wine cannot start"
)]
fn presa_lists_and_calls_a_typescript_sdk_legacy_server() {
    let Some((node, sdk)) = interop_setup() else {
        return;
    };
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/interop/ts_legacy_server.mjs"
    );
    let server = format!("stdio:{}", shell_words::join([node.as_str(), script]));
    let presa = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_presa"))
            .args(args)
            .env("MCP_TS_SDK", &sdk)
            .env("PRESA_CONFIG_DIR", env!("CARGO_TARGET_TMPDIR"))
            .stdin(Stdio::null())
            .output()
            .expect("presa runs")
    };
    let listed = presa(&["tools", &server, "--json"]);
    assert_eq!(listed.status.code(), Some(0), "{listed:?}");
    let tools: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(tools[0]["name"], "greet");

    let called = presa(&[
        "call",
        &server,
        "greet",
        "name=Ada",
        "--answer",
        "greet.ok=true",
        "--json",
    ]);
    assert_eq!(called.status.code(), Some(0), "{called:?}");
    let result: Value = serde_json::from_slice(&called.stdout).unwrap();
    assert_eq!(result["content"][0]["text"], "Hello, Ada!");

    let unanswered = presa(&["call", &server, "greet", "name=Ada"]);
    assert_eq!(unanswered.status.code(), Some(4), "{unanswered:?}");
    let said = String::from_utf8_lossy(&unanswered.stderr);
    assert!(
        said.contains("Greet Ada?") && said.contains(".ok=true"),
        "{said}"
    );
}
