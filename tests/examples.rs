//! The examples a user copies first, run as the processes they are:
//! `hello` over stdio, `http_axum` with its tokens and its own route, and
//! `client` against `hello` (spawned) and `jobs` (over HTTP, a task whose
//! question it answers from stdin), and `jobs` telling a subscriber of
//! `jobs://builds/latest` that a build finished, and `jobs` serving its
//! MCP Apps dashboard. The `replicas` example needs a Redis,
//! so presa-redis tests it (`presa-redis/tests/replicas_example.rs`).
//!
//! Nothing waits on time: each test waits for a server's first line on
//! stderr, for answers, or for a process to exit, each within [`GUARD`],
//! which only turns a hang into a failure. Every process a test starts
//! is killed when the test ends, even by a panic.
#![cfg(all(feature = "http-server", feature = "http-client"))]

use crate::jobs_example;
use crate::process_start;

use std::process::{Output, Stdio};
use std::time::Duration;

use presa::client::prelude::*;
use presa::client::{ClientError, ClientTransport, HttpOptions, SubscriptionEvent};
use presa::wire::SubscriptionFilter;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::time::timeout;

use jobs_example::example_binary;
use process_start::started;

/// How long a test waits for any one thing before it fails.
const GUARD: Duration = Duration::from_secs(60);

/// A server process serving HTTP, killed when dropped.
struct HttpServer {
    _child: Child,
    url: String,
}

impl HttpServer {
    /// Starts example `name` with `args` and reads its URL from the first
    /// line it writes to stderr, which begins with `prefix`.
    async fn start(name: &'static str, args: &[&str], prefix: &str) -> HttpServer {
        let mut command = Command::new(example_binary(name));
        command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = started(name, || command.spawn());
        let mut stderr = BufReader::new(child.stderr.take().expect("piped"));
        let mut line = String::new();
        timeout(GUARD, stderr.read_line(&mut line))
            .await
            .expect("the server says where it serves")
            .unwrap();
        let url = line
            .trim()
            .strip_prefix(prefix)
            .unwrap_or_else(|| panic!("{name}'s first line: {line:?}"))
            .to_owned();
        // Whatever else it writes must not fill the pipe and stall it.
        tokio::spawn(async move { tokio::io::copy(&mut stderr, &mut tokio::io::sink()).await });
        HttpServer { _child: child, url }
    }
}

/// A client of `transport` that gives up on a request after [`GUARD`].
fn client(transport: ClientTransport) -> Client {
    Client::builder().request_timeout(GUARD).connect(transport)
}

/// The names of the tools `client` lists.
async fn tool_names(client: &Client) -> Vec<String> {
    let tools = client.list_tools().await.unwrap();
    tools.into_iter().map(|tool| tool.name).collect()
}

/// Calls `tool` through `client` and returns the text it answers.
async fn text_of(client: &Client, tool: &str, arguments: serde_json::Value) -> String {
    let outcome = client.call_tool(tool, arguments).await.unwrap();
    let result = outcome.into_complete().unwrap();
    assert!(!result.is_error(), "{tool}: {result:?}");
    result.text().expect("a text answer").to_owned()
}

#[tokio::test]
async fn hello_serves_its_two_tools_over_stdio() {
    let hello = client(started("hello", || {
        ClientTransport::spawn(Command::new(example_binary("hello")))
    }));
    let mut names = tool_names(&hello).await;
    names.sort();
    assert_eq!(names, ["add", "greet"]);
    assert_eq!(
        text_of(&hello, "greet", json!({"name": "Ada"})).await,
        "Hello, Ada!"
    );
    assert_eq!(
        text_of(&hello, "add", json!({"a": 2, "b": 3.5})).await,
        "5.5"
    );
    hello.close().await.unwrap();
}

/// An `http_axum` server, and a client of its endpoint holding `token`.
fn notes_client(server: &HttpServer, token: Option<&str>) -> Client {
    let options = match token {
        Some(token) => HttpOptions::default().bearer_token(token),
        None => HttpOptions::default(),
    };
    client(ClientTransport::http_with(&server.url, options).unwrap())
}

#[tokio::test]
async fn http_axum_serves_its_own_route_and_mcp_behind_tokens() {
    let server = HttpServer::start("http_axum", &["127.0.0.1:0"], "serving at ").await;

    let health = server.url.replace("/mcp", "/health");
    let answer = timeout(GUARD, reqwest::get(&health))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.text().await.unwrap(), "ok");

    let anonymous = notes_client(&server, None);
    let refused = anonymous.list_tools().await;
    assert!(refused.is_err(), "no token, yet {refused:?}");
    let forged = notes_client(&server, Some("not-a-token"));
    assert!(forged.list_tools().await.is_err());

    let bob = notes_client(&server, Some("bob-token"));
    assert_eq!(tool_names(&bob).await, ["whoami"]);
    assert_eq!(text_of(&bob, "whoami", json!({})).await, "bob");
    let denied = bob.call_tool("add_note", json!({"text": "hi"})).await;
    assert!(
        denied.as_ref().map_or(true, |outcome| outcome
            .complete()
            .is_some_and(CallToolResult::is_error)),
        "bob holds no notes:write, yet {denied:?}"
    );

    let alice = notes_client(&server, Some("alice-token"));
    let mut names = tool_names(&alice).await;
    names.sort();
    assert_eq!(names, ["add_note", "whoami"]);
    assert_eq!(
        text_of(&alice, "whoami", json!({})).await,
        "alice notes:write"
    );
    assert_eq!(
        text_of(&alice, "add_note", json!({"text": "hi"})).await,
        "1 notes"
    );
    for client in [anonymous, forged, bob, alice] {
        client.close().await.unwrap();
    }
}

/// Runs the `client` example with `args`, writing `stdin` to it, and
/// returns what it printed once it exits.
async fn run_client(args: &[&str], stdin: &str) -> Output {
    let mut command = Command::new(example_binary("client"));
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = started("the client example", || command.spawn());
    let mut input = child.stdin.take().expect("piped");
    input.write_all(stdin.as_bytes()).await.unwrap();
    drop(input);
    timeout(GUARD, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("client {args:?} still running after {GUARD:?}"))
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[tokio::test]
async fn client_spawns_hello_lists_its_tools_and_calls_one() {
    let hello = example_binary("hello");
    let hello = hello.to_str().unwrap();
    let output = run_client(&["--call", "greet", r#"{"name": "Ada"}"#, hello], "").await;
    assert!(output.status.success(), "{}", stderr(&output));
    let printed = stdout(&output);
    assert!(printed.starts_with("connected to hello "), "{printed}");
    assert!(printed.contains("2 tools:\n"), "{printed}");
    assert!(
        printed.contains("  greet: Greets someone by name.\n"),
        "{printed}"
    );
    assert!(printed.ends_with("Hello, Ada!\n"), "{printed}");
}

#[tokio::test]
async fn client_follows_a_jobs_task_over_http_answering_from_stdin() {
    let jobs = HttpServer::start(
        "jobs",
        &["http", "127.0.0.1:0"],
        "serving the jobs server at ",
    )
    .await;
    let call = ["--call", "build", r#"{"target": "all"}"#, &jobs.url];

    let confirmed = run_client(&call, "{\"ok\": true}\n").await;
    assert!(confirmed.status.success(), "{}", stderr(&confirmed));
    assert!(stdout(&confirmed).ends_with("built all\n"));
    let asked = stderr(&confirmed);
    assert!(asked.contains("task "), "{asked}");
    assert!(asked.contains("the server asks: Build all?"), "{asked}");

    // The end of stdin declines: the tool answers with an error.
    let declined = run_client(&call, "").await;
    assert_eq!(declined.status.code(), Some(1), "{}", stderr(&declined));
    assert!(stdout(&declined).ends_with("not confirmed\n"));
}

#[tokio::test]
async fn jobs_tells_subscribers_of_its_latest_build_when_a_build_finishes() {
    let jobs = HttpServer::start(
        "jobs",
        &["http", "127.0.0.1:0"],
        "serving the jobs server at ",
    )
    .await;
    let client = Client::builder()
        .request_timeout(GUARD)
        .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
        .connect(ClientTransport::http(&jobs.url).unwrap());
    let latest = "jobs://builds/latest";
    let read = client.read_resource(latest).await.unwrap();
    assert_eq!(read.text(), Some("no build yet"));

    let filter = SubscriptionFilter::new().resource(latest);
    let mut subscription = client.listen(filter).await.unwrap();
    assert_eq!(
        text_of(&client, "build", json!({"target": "docs"})).await,
        "built docs"
    );
    let event = timeout(GUARD, subscription.next())
        .await
        .expect("the update comes once the build finished");
    assert_eq!(
        event,
        Some(SubscriptionEvent::ResourceUpdated { uri: latest.into() })
    );
    let read = client.read_resource(latest).await.unwrap();
    assert_eq!(read.text(), Some("built docs"));
}

#[tokio::test]
async fn client_sends_its_token_and_refuses_a_bad_command_line() {
    let notes = HttpServer::start("http_axum", &["127.0.0.1:0"], "serving at ").await;
    let whoami = ["--token", "bob-token", "--call", "whoami", "{}", &notes.url];
    let output = run_client(&whoami, "").await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).ends_with("\nbob\n"), "{}", stdout(&output));

    let refused = run_client(&[&notes.url], "").await;
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).starts_with("client: "),
        "{}",
        stderr(&refused)
    );

    let bad_lines: [&[&str]; 3] = [
        &[],
        &["--call", "whoami"],
        &["--call", "whoami", "[1]", "x"],
    ];
    for bad in bad_lines {
        let output = run_client(bad, "").await;
        assert_eq!(output.status.code(), Some(2), "{bad:?}");
        assert!(stderr(&output).contains("usage: client"), "{bad:?}");
    }
}

/// A `middleware` client holding `token`.
fn middleware_client(url: &str, token: &str) -> Client {
    client(ClientTransport::http_with(url, HttpOptions::default().bearer_token(token)).unwrap())
}

/// The text of a tool error that `tool` answers `client` with.
async fn tool_error_of(client: &Client, tool: &str, arguments: serde_json::Value) -> String {
    let outcome = client.call_tool(tool, arguments).await.unwrap();
    let result = outcome.into_complete().unwrap();
    assert!(result.is_error(), "{tool}: {result:?}");
    result.text().expect("a text answer").to_owned()
}

#[tokio::test]
async fn middleware_audits_limits_times_out_and_hides() {
    let mut command = Command::new(example_binary("middleware"));
    command
        .arg("127.0.0.1:0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = started("middleware", || command.spawn());
    let mut stderr = BufReader::new(child.stderr.take().expect("piped")).lines();
    let first = timeout(GUARD, stderr.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let url = first
        .strip_prefix("serving at ")
        .expect("the URL")
        .to_owned();
    let (lines, mut audit) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok(Some(line)) = stderr.next_line().await {
            let _ = lines.send(line);
        }
    });

    let alice = middleware_client(&url, "alice-token");
    let bob = middleware_client(&url, "bob-token");
    let mut names = tool_names(&alice).await;
    names.sort();
    assert_eq!(names, ["echo", "purge", "report"]);
    let mut names = tool_names(&bob).await;
    names.sort();
    assert_eq!(names, ["echo", "report"], "purge is hidden from bob");

    match bob.call_tool("purge", json!({})).await {
        Err(ClientError::Rpc(error)) => assert_eq!(error.code, -32602, "{error:?}"),
        other => panic!("bob may not know of purge: {other:?}"),
    }
    assert_eq!(text_of(&alice, "purge", json!({})).await, "purged");

    // The report's own timeout layer stops it.
    assert_eq!(
        tool_error_of(&bob, "report", json!({"seconds": 3600})).await,
        "request timed out"
    );
    // Bob's tenth call a minute passes; his eleventh is refused at once.
    for n in 2..=10 {
        assert_eq!(
            text_of(&bob, "echo", json!({"text": "hi"})).await,
            "hi",
            "call {n}"
        );
    }
    assert_eq!(
        tool_error_of(&bob, "echo", json!({"text": "hi"})).await,
        "service overloaded"
    );
    // Alice has a limit of her own.
    assert_eq!(text_of(&alice, "echo", json!({"text": "me"})).await, "me");

    let mut seen = Vec::new();
    while seen.len() < 13 {
        let line = timeout(GUARD, audit.recv()).await.unwrap().expect("a line");
        if let Some(audited) = line.strip_prefix("audit: ") {
            // Drop the time each call took.
            seen.push(audited.rsplit_once(" in ").unwrap().0.to_owned());
        }
    }
    assert_eq!(seen[0], "alice tools/call purge ok");
    assert_eq!(
        seen[1],
        "bob tools/call report stopped by a layer: request timed out"
    );
    assert!(
        seen[2..11]
            .iter()
            .all(|line| line == "bob tools/call echo ok"),
        "{seen:?}"
    );
    assert_eq!(
        seen[11],
        "bob tools/call echo stopped by a layer: service overloaded"
    );
    assert_eq!(seen[12], "alice tools/call echo ok");
}

#[tokio::test]
async fn jobs_serves_its_dashboard_and_hides_the_app_only_tool_from_plain_hosts() {
    use presa::wire::{MCP_APP_MIME_TYPE, ToolUi, UI_EXTENSION, UiClientSettings};
    let jobs = HttpServer::start(
        "jobs",
        &["http", "127.0.0.1:0"],
        "serving the jobs server at ",
    )
    .await;
    let host = Client::builder()
        .request_timeout(GUARD)
        .extension(UI_EXTENSION, UiClientSettings::html().to_settings())
        .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
        .connect(ClientTransport::http(&jobs.url).unwrap());
    let plain = Client::builder()
        .request_timeout(GUARD)
        .connect(ClientTransport::http(&jobs.url).unwrap());

    let read = host.read_resource("ui://jobs/dashboard").await.unwrap();
    let contents = &read.contents[0];
    assert_eq!(contents.mime_type.as_deref(), Some(MCP_APP_MIME_TYPE));
    let html = read.text().expect("the dashboard is text");
    assert!(html.contains(r#"id="start-build""#) && html.contains(r#"id="jobs""#));
    // Self-contained: no CSP, so the host lets it reach nothing.
    assert_eq!(
        serde_json::Value::Object(contents.meta.clone().unwrap()),
        json!({"ui": {"prefersBorder": true}})
    );

    let tools = host.list_tools().await.unwrap();
    let link = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        ToolUi::of(tool).unwrap().expect("linked to the dashboard")
    };
    assert_eq!(
        link("build").resource_uri.unwrap().as_str(),
        "ui://jobs/dashboard"
    );
    assert!(!link("list_jobs").effective_visibility().model());
    let plain_names: Vec<String> = plain
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(plain_names, ["build"]);

    // The view's two calls: a build, then the list that shows it.
    assert_eq!(
        text_of(&host, "build", json!({"target": "docs"})).await,
        "built docs"
    );
    let listed = host.call_tool("list_jobs", json!({})).await.unwrap();
    let listed = listed.into_complete().unwrap();
    let jobs_listed = &listed.structured_content.as_ref().unwrap()["jobs"];
    assert_eq!(jobs_listed[0]["target"], "docs");
    assert_eq!(jobs_listed[0]["status"], "built");
    assert!(jobs_listed[0]["id"].as_str().unwrap().starts_with("call-"));
}
