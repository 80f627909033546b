//! `presa` as a process, against presa's `jobs` example over stdio and
//! Streamable HTTP: listing, calling with `--answer`, plain and as a task,
//! reading the last build's result, the failure with no terminal to ask,
//! and the exit statuses. Each test waits on the processes it starts (the
//! HTTP server's readiness line), never on a clock.

#[path = "common/http_jobs.rs"]
mod http_jobs;
#[path = "../../tests/common/jobs_example.rs"]
mod jobs_example;
#[path = "../../tests/common/process_start.rs"]
mod process_start;

use http_jobs::HttpJobs;
use process_start::finished;

use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// `stdio:` and the jobs example serving over stdio.
fn stdio_server() -> String {
    let jobs = jobs_example::jobs_binary();
    format!(
        "stdio:{} stdio",
        shell_words::quote(&jobs.to_string_lossy())
    )
}

/// Runs `presa` with `args`, stdin no terminal, the config directory a
/// temporary one.
fn presa(args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_presa"));
    command
        .args(args)
        .env("PRESA_CONFIG_DIR", env!("CARGO_TARGET_TMPDIR"))
        .env_remove("PRESA_TOKEN")
        .stdin(Stdio::null());
    // Under Wine, the server a command starts sometimes fails to load, or
    // dies of Wine itself; see `process_start`.
    finished("presa", &mut command, |output| {
        let stderr = stderr(output);
        output.status.code() == Some(3)
            && (stderr.contains("the connection to the server is closed")
                || stderr.contains("(os error 1359)"))
    })
}

fn stdout_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is one JSON document ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn first_text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or("")
}

/// `presa tools` lists `build` alone: `presa` renders no views, so the
/// dashboard's app-only `list_jobs` is not listed to it.
fn lists_build(server: &str) {
    let output = presa(&["tools", server, "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let tools = stdout_json(&output);
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["build"]);
}

/// `presa resources` lists the latest build and the dashboard, and
/// `presa read` reads `expected` from the first.
fn reads_the_latest_build(server: &str, expected: &str) {
    let output = presa(&["resources", server, "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let resources = stdout_json(&output);
    assert_eq!(resources[0]["uri"], "jobs://builds/latest", "{resources}");
    assert_eq!(resources[1]["uri"], "ui://jobs/dashboard", "{resources}");
    assert_eq!(resources.as_array().unwrap().len(), 2, "{resources}");
    let output = presa(&["read", server, "jobs://builds/latest", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let read = stdout_json(&output);
    assert_eq!(read["contents"][0]["text"], expected, "{read}");
}

fn builds_with_an_answer(server: &str, task: bool) {
    let mut args = vec![
        "call",
        server,
        "build",
        "target=all",
        "seconds=0",
        "--answer",
        "confirm.ok=true",
        "--json",
    ];
    if task {
        args.push("--task");
    }
    let output = presa(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let result = stdout_json(&output);
    assert_eq!(first_text(&result), "built all", "{result}");
}

#[test]
fn stdio_tools_json_lists_the_build_tool() {
    lists_build(&stdio_server());
}

#[test]
fn stdio_reads_that_no_build_ran_yet() {
    // Each command starts a server of its own, which has built nothing.
    reads_the_latest_build(&stdio_server(), "no build yet");
}

#[test]
fn stdio_call_answered_ahead_builds() {
    builds_with_an_answer(&stdio_server(), false);
}

#[test]
fn stdio_call_as_a_task_answered_ahead_builds() {
    builds_with_an_answer(&stdio_server(), true);
}

#[test]
fn http_tools_call_and_task() {
    let jobs = HttpJobs::start();
    lists_build(&jobs.url);
    reads_the_latest_build(&jobs.url, "no build yet");
    builds_with_an_answer(&jobs.url, false);
    builds_with_an_answer(&jobs.url, true);
    reads_the_latest_build(&jobs.url, "built all");
}

#[test]
fn with_no_terminal_an_unanswered_question_names_its_answer() {
    let server = stdio_server();
    for task in [false, true] {
        let mut args = vec!["call", server.as_str(), "build", "target=all"];
        if task {
            args.push("--task");
        }
        let output = presa(&args);
        assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
        let said = stderr(&output);
        assert!(
            said.contains("`confirm`") && said.contains("Build all?"),
            "{said}"
        );
        assert!(said.contains("--answer confirm.ok=true"), "{said}");
    }
}

#[test]
fn a_declined_build_is_a_tool_error() {
    let output = presa(&[
        "call",
        &stdio_server(),
        "build",
        "target=all",
        "--answer",
        "confirm.ok=false",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let result = stdout_json(&output);
    assert_eq!(result["isError"], Value::Bool(true), "{result}");
    assert_eq!(first_text(&result), "not confirmed");
}

#[test]
fn an_unknown_tool_is_a_protocol_error() {
    let output = presa(&["call", &stdio_server(), "deploy"]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let output = presa(&["tools", "stdio:presa-no-such-program-here"]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
}

#[test]
fn usage_errors_exit_2() {
    let cases: [&[&str]; 6] = [
        &["call"],
        &["tools", "localhost:3000"],
        &["frobnicate"],
        &["call", "stdio:true", "build", "--answer", "confirm=true"],
        &["tools", "stdio:true", "--token", "t"],
        &["tools", "stdio:true", "--token-file", "t"],
    ];
    for args in cases {
        let output = presa(args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    let output = presa(&["call", &stdio_server(), "build", "seconds=soon"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("seconds"), "{}", stderr(&output));
}

#[test]
fn help_documents_the_exit_statuses() {
    let output = presa(&["--help"]);
    assert_eq!(output.status.code(), Some(0));
    let help = String::from_utf8_lossy(&output.stdout);
    assert!(
        help.contains("Exit status") && help.contains("130"),
        "{help}"
    );
    assert!(
        help.contains("Environment:") && help.contains("PRESA_TOKEN"),
        "{help}"
    );
}
