//! The headers `presa` sends an HTTP server, as a process: those of
//! `--header`, and those of a configured server's entry, checked by a
//! tool of this test's own server that reads the request's headers.

#[allow(
    dead_code,
    reason = "the shared server's in-process handles go unused here"
)]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use common::{Served, presa};
use presa::prelude::*;
use serde_json::{Value, json};

/// The values of the request's `X-Tenant` headers, in order, joined with
/// commas. (The server keeps `Authorization` from its tools, so a token
/// given as a header is seen only in that the call is let through.)
#[tool]
async fn tenant(Headers(headers): Headers) -> String {
    let tenants: Vec<&str> = headers
        .get_all("x-tenant")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    format!("tenants={}", tenants.join(","))
}

fn served() -> &'static Served {
    static SERVED: OnceLock<Served> = OnceLock::new();
    SERVED.get_or_init(|| Served::new(Server::builder("headers", "1").tool(TenantTool).build()))
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The text of `tenant`'s answer, the call given `output`.
fn answer(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(0), "{}", stderr(output));
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn each_header_option_is_sent_in_its_order() {
    let url = &served().url;
    let args = [
        "call",
        url,
        "tenant",
        "-H",
        "X-Tenant: acme",
        "--header",
        "x-tenant:beta",
        "--json",
    ];
    assert_eq!(answer(&presa(&args)), "tenants=acme,beta");
    let args = [
        "call",
        url,
        "tenant",
        "-H",
        "Authorization: Bearer t0k",
        "--json",
    ];
    assert_eq!(answer(&presa(&args)), "tenants=");
}

/// A folder of `test`'s own for HOME and presa's config, holding presa's
/// aliases file with `aliases`.
fn home_with(test: &str, aliases: &Value) -> PathBuf {
    let home = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("headers-{test}"));
    let _ = std::fs::remove_dir_all(&home);
    let presa_dir = home.join("presa");
    std::fs::create_dir_all(&presa_dir).unwrap();
    std::fs::write(presa_dir.join("servers.json"), aliases.to_string()).unwrap();
    home
}

/// `presa ARGS` with HOME, and every host's places, under `home`.
fn presa_at(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_presa"))
        .args(args)
        .current_dir(home)
        .env("HOME", home)
        .env("USERPROFILE", home)
        .env("XDG_CONFIG_HOME", home)
        .env("APPDATA", home)
        .env("PRESA_CONFIG_DIR", home.join("presa"))
        .env_remove("PRESA_TOKEN")
        .stdin(Stdio::null())
        .output()
        .expect("presa runs")
}

#[test]
fn a_configured_server_s_headers_are_sent_then_the_command_line_s() {
    let aliases = json!({"mcpServers": {"work": {
        "type": "http",
        "url": served().url,
        "headers": {"X-Tenant": "configured", "Authorization": "Bearer t0k"}
    }}});
    let home = home_with("configured", &aliases);
    let output = presa_at(&home, &["call", "work", "tenant", "--json"]);
    assert_eq!(answer(&output), "tenants=configured");
    let output = presa_at(
        &home,
        &["call", "work", "tenant", "-H", "X-Tenant: mine", "--json"],
    );
    assert_eq!(answer(&output), "tenants=configured,mine");
}
