//! `presa templates`, `complete`, `ping`, `log-level` and `watch`, and the
//! connecting options `--timeout`, `-e` and `--server-log`, as processes
//! against presa's `jobs` example (2026-07-28) over stdio and Streamable
//! HTTP. `watch` is synchronised on the lines it prints: the test waits
//! for "watching", then makes the server send a notification, then waits
//! for the line that tells it; nothing waits on a clock.

#[path = "common/http_jobs.rs"]
mod http_jobs;
#[path = "../../tests/common/jobs_example.rs"]
mod jobs_example;
#[path = "../../tests/common/process_start.rs"]
mod process_start;

use http_jobs::HttpJobs;
use process_start::{finished, started};

use std::io::{BufRead, BufReader, Lines};
use std::process::{Child, ChildStderr, ChildStdout, Command, Output, Stdio};

use serde_json::{Value, json};

/// `stdio:` and the jobs example serving over stdio, answers still running
/// at the end of input given no time to finish.
fn stdio_server() -> String {
    let jobs = jobs_example::jobs_binary();
    format!(
        "stdio:{} stdio 0",
        shell_words::quote(&jobs.to_string_lossy())
    )
}

/// `presa` with `args`, stdin no terminal, the config directory a
/// temporary one.
fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_presa"));
    command
        .args(args)
        .env("PRESA_CONFIG_DIR", env!("CARGO_TARGET_TMPDIR"))
        .env_remove("PRESA_TOKEN")
        .stdin(Stdio::null());
    command
}

/// Runs `presa` with `args` to its end.
fn presa(args: &[&str]) -> Output {
    // Under Wine, the server a command starts sometimes fails to load, or
    // dies of Wine itself; see `process_start`.
    finished("presa", &mut command(args), |output| {
        let stderr = stderr(output);
        output.status.code() == Some(3)
            && (stderr.contains("the connection to the server is closed")
                || stderr.contains("(os error 1359)"))
    })
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Runs `presa` with `args`, which must succeed; its stdout as JSON.
fn json_of(args: &[&str]) -> Value {
    let output = presa(args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("one JSON document ({e}): {}", stdout(&output)))
}

const TEMPLATE: &str = "template:jobs://builds/{target}";

fn lists_the_template(server: &str) {
    let templates = json_of(&["templates", server, "--json"]);
    assert_eq!(
        templates[0]["uriTemplate"], "jobs://builds/{target}",
        "{templates}"
    );
    assert_eq!(templates.as_array().unwrap().len(), 1, "{templates}");
    let output = presa(&["templates", server]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("jobs://builds/{target}  The last build's result"),
        "{}",
        stdout(&output)
    );
}

fn completes_a_template_argument(server: &str) {
    let output = presa(&["complete", server, TEMPLATE, "target=d"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "docs\n");
    let completion = json_of(&["complete", server, TEMPLATE, "target=", "--json"]);
    assert_eq!(
        completion["values"],
        json!(["all", "docs", "web"]),
        "{completion}"
    );
}

fn pings(server: &str) {
    let pinged = json_of(&["ping", server, "--json"]);
    assert!(pinged["milliseconds"].as_f64().is_some(), "{pinged}");
    let output = presa(&["ping", server]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("the server answered in "),
        "{}",
        stdout(&output)
    );
}

fn sets_the_log_level(server: &str) {
    let set = json_of(&["log-level", server, "warning", "--json"]);
    assert_eq!(set, json!({"level": "warning"}));
    let output = presa(&["log-level", server, "loud"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("possible values"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn templates_complete_ping_and_log_level_over_stdio() {
    let server = stdio_server();
    lists_the_template(&server);
    completes_a_template_argument(&server);
    pings(&server);
    sets_the_log_level(&server);
}

#[test]
fn templates_complete_ping_and_log_level_over_http() {
    let jobs = HttpJobs::start();
    lists_the_template(&jobs.url);
    completes_a_template_argument(&jobs.url);
    pings(&jobs.url);
    sets_the_log_level(&jobs.url);
}

#[test]
fn log_level_shows_the_server_s_log_messages_of_a_one_shot_command() {
    let server = stdio_server();
    let read = ["read", &server, "jobs://builds/web", "--log-level", "info"];
    let output = presa(&read);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(
        said.contains("[server log] info reading the build of web"),
        "{said}"
    );
    let output = presa(&[
        "read",
        &server,
        "jobs://builds/web",
        "--log-level",
        "warning",
    ]);
    assert!(
        !stderr(&output).contains("[server log]"),
        "{}",
        stderr(&output)
    );
    let output = presa(&["read", &server, "jobs://builds/web"]);
    assert!(
        !stderr(&output).contains("[server log]"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_completion_reference_that_is_neither_a_prompt_nor_a_template_is_a_usage_error() {
    let output = presa(&["complete", &stdio_server(), "tool:build", "target=d"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("prompt:NAME"),
        "{}",
        stderr(&output)
    );
}

/// A `presa watch` running, its stdout and stderr read line by line.
struct Watching {
    child: Child,
    stdout: Lines<BufReader<ChildStdout>>,
    stderr: Lines<BufReader<ChildStderr>>,
}

impl Watching {
    fn start(args: &[&str]) -> Self {
        let mut command = command(args);
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = started("presa watch", || command.spawn());
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        let stderr = BufReader::new(child.stderr.take().unwrap()).lines();
        Watching {
            child,
            stdout,
            stderr,
        }
    }

    /// The next line on stderr that starts with `start`.
    fn said(&mut self, start: &str) -> String {
        for line in self.stderr.by_ref() {
            let line = line.unwrap();
            if line.starts_with(start) {
                return line;
            }
        }
        panic!("presa watch ended without saying `{start}`");
    }

    /// The next line on stdout.
    fn printed(&mut self) -> String {
        self.stdout.next().expect("a line").unwrap()
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Builds `all` on `server`, which finishes and updates the latest build.
fn build(server: &str) {
    let output = presa(&[
        "call",
        server,
        "build",
        "target=all",
        "--answer",
        "confirm.ok=true",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn watch_prints_each_update_of_a_resource_as_a_json_line() {
    watch_prints_each_update(&[]);
}

/// The same over a 2025-11-25 session, whose updates come on the
/// session's stream.
#[test]
fn watch_prints_each_update_in_a_2025_11_25_session() {
    watch_prints_each_update(&["--protocol-version", "2025-11-25"]);
}

/// `presa watch` of the latest build, with the options `more`, prints one
/// JSON line for each build.
fn watch_prints_each_update(more: &[&str]) {
    let jobs = HttpJobs::start();
    let latest = "jobs://builds/latest";
    let mut args = vec!["watch", &jobs.url, "--resource", latest, "--json"];
    args.extend_from_slice(more);
    let mut watching = Watching::start(&args);
    let said = watching.said("presa: watching");
    assert!(said.contains("updates of jobs://builds/latest"), "{said}");
    assert!(said.contains("tool list changes"), "{said}");
    build(&jobs.url);
    let printed = watching.printed();
    let update: Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(
        update,
        json!({"method": "notifications/resources/updated", "params": {"uri": latest}})
    );
    build(&jobs.url);
    assert_eq!(watching.printed(), printed, "one line for each update");
}

#[cfg(unix)]
#[test]
fn watch_prints_an_update_as_a_line_and_ctrl_c_ends_it_with_130() {
    let jobs = HttpJobs::start();
    let latest = "jobs://builds/latest";
    let mut watching = Watching::start(&["watch", &jobs.url, "--resource", latest]);
    watching.said("presa: watching");
    build(&jobs.url);
    assert_eq!(watching.printed(), "updated jobs://builds/latest");
    let pid = watching.child.id().to_string();
    let status = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(status.success());
    assert_eq!(watching.child.wait().unwrap().code(), Some(130));
}

#[test]
fn a_request_past_the_timeout_is_cancelled_and_exits_with_6() {
    let server = stdio_server();
    let args = [
        "call",
        &server,
        "build",
        "target=all",
        "seconds=600",
        "--answer",
        "confirm.ok=true",
        "--timeout",
        "0.5",
    ];
    let output = presa(&args);
    assert_eq!(output.status.code(), Some(6), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(
        said.contains("tools/call: no answer within 0.5 s"),
        "{said}"
    );
    let output = presa(&["tools", &server, "--timeout", "soon"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

#[test]
fn a_protocol_version_presa_does_not_speak_is_a_usage_error() {
    let output = presa(&["tools", &stdio_server(), "--protocol-version", "2024-11-05"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(
        said.contains("presa does not speak MCP `2024-11-05`. It speaks 2026-07-28, 2025-11-25"),
        "{said}"
    );
}

/// The jobs example speaks every version; `discover` shows the one the
/// session settled on.
#[test]
fn each_protocol_version_is_the_one_spoken() {
    let server = stdio_server();
    for version in ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"] {
        let output = presa(&["discover", &server, "--protocol-version", version, "--json"]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{version}: {}",
            stderr(&output)
        );
        let discovered: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(
            discovered["supportedVersions"],
            json!([version]),
            "{discovered}"
        );
    }
}

/// A server that never answers: `sleep` reads nothing and writes nothing.
#[cfg(unix)]
#[test]
fn a_server_that_never_answers_exits_with_6() {
    let output = presa(&["tools", "stdio:sleep 30", "--timeout", "0.5"]);
    assert_eq!(output.status.code(), Some(6), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(
        said.contains("answered neither server/discover nor initialize within 0.5 s"),
        "{said}"
    );
}

#[test]
fn a_header_or_an_environment_for_the_wrong_kind_of_server_is_refused() {
    let output = presa(&["tools", &stdio_server(), "--header", "X-Tenant: acme"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("--header is for an HTTP server"),
        "{}",
        stderr(&output)
    );
    let jobs = HttpJobs::start();
    let output = presa(&["tools", &jobs.url, "-e", "A=b"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let output = presa(&["tools", &jobs.url, "-H", "Mcp-Session-Id: s3cret"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("`Mcp-Session-Id`"),
        "{}",
        stderr(&output)
    );
    assert!(!stderr(&output).contains("s3cret"), "{}", stderr(&output));
    let output = presa(&["tools", &jobs.url, "-H", "X-Tenant: acme", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

/// A stdio server that writes its environment's GREETING, and a line
/// with an escape sequence, on stderr, then exits.
#[cfg(unix)]
const TALKER: &str =
    r#"stdio:sh -c 'printf "%s\n" "$GREETING" >&2; printf "\033[2Jcleared\n" >&2; exit 1'"#;

#[cfg(unix)]
#[test]
fn a_stdio_server_s_stderr_shows_with_server_log_and_gets_the_environment() {
    let output = presa(&["tools", TALKER, "-e", "GREETING=hi there", "--server-log"]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(said.contains("[server] hi there\n"), "{said}");
    assert!(said.contains(r"[server] \x1b[2Jcleared"), "{said}");
    let output = presa(&["tools", TALKER, "-e", "GREETING=hi there", "--server-logs"]);
    assert!(
        stderr(&output).contains("[server] hi there"),
        "{}",
        stderr(&output)
    );
}

#[cfg(unix)]
#[test]
fn without_server_log_a_stdio_server_s_stderr_is_dropped_and_the_flag_named() {
    let output = presa(&["tools", TALKER, "-e", "GREETING=hi there"]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(!said.contains("hi there"), "{said}");
    assert!(said.contains("--server-log shows what it wrote"), "{said}");
}
