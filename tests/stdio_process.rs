//! The `jobs` example as a real stdio server process.

use crate::jobs_example;
use crate::process_start;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use presa::client::{AwaitOptions, ClientTransport};
use presa::transport::{DEFAULT_MAX_MESSAGE_SIZE, FrameChannel, Inbound, StdioChild};
use presa::wire::ElicitResult;
use serde_json::{Value, json};

use jobs_example::jobs_binary;
use process_start::started;

/// `jobs stdio` with `options` after the mode, for presa's client side,
/// its stderr discarded.
fn jobs_stdio(options: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(jobs_binary());
    command.arg("stdio").args(options).stderr(Stdio::null());
    command
}

struct Session {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Session {
    fn start() -> Self {
        Self::start_with(&[])
    }

    /// A session of `jobs stdio` with `options` after the mode.
    fn start_with(options: &[&str]) -> Self {
        let mut command = Command::new(jobs_binary());
        command
            .arg("stdio")
            .args(options)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = started("the jobs server", || command.spawn());
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Session {
            child,
            stdin,
            stdout,
        }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, message: &str) {
        self.send_raw(format!("{message}\n").as_bytes());
    }

    fn recv(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        assert!(line.ends_with('\n'), "one message per line: {line:?}");
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout holds only JSON ({e}): {line:?}"))
    }

    fn exchange(&mut self, message: &str) -> Value {
        self.send(message);
        self.recv()
    }

    /// Closes stdin and returns whether the server exited successfully.
    fn close(mut self) -> bool {
        drop(self.stdin.take());
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut self.stdout, &mut rest).unwrap();
        assert!(rest.is_empty(), "nothing after EOF: {rest:?}");
        self.child.wait().unwrap().success()
    }
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"by-hand","version":"1"}}"#;

#[test]
fn a_raw_session_by_hand() {
    let mut s = Session::start();
    let discover = s.exchange(&format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{META}}}}}"#
    ));
    assert_eq!(
        discover["result"]["supportedVersions"],
        json!(["2026-07-28"])
    );
    assert_eq!(
        discover["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "jobs"
    );

    let list = s.exchange(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{{META}}}}}"#
    ));
    assert_eq!(list["result"]["tools"][0]["name"], "build");
    assert_eq!(
        list["result"]["tools"][0]["inputSchema"]["required"],
        json!(["target"])
    );

    let call = s.exchange(&format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"build","arguments":{{"target":"docs"}},{META}}}}}"#
    ));
    assert_eq!(call["result"]["resultType"], "input_required");
    assert_eq!(
        call["result"]["inputRequests"]["confirm"]["params"]["message"],
        "Build docs?"
    );
    let state = call["result"]["requestState"].as_str().unwrap();

    let done = s.exchange(&format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"build","arguments":{{"target":"docs"}},"inputResponses":{{"confirm":{{"action":"accept","content":{{"ok":true}}}}}},"requestState":"{state}",{META}}}}}"#
    ));
    assert_eq!(done["id"], 4);
    assert_eq!(
        done["result"],
        json!({
            "resultType": "complete",
            "content": [{"type": "text", "text": "built docs"}],
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "jobs", "version": "1"}}
        })
    );
    assert!(s.close(), "the server exits cleanly on EOF");
}

#[test]
fn a_legacy_host_runs_the_jobs_example_as_the_readme_shows() {
    let mut s = Session::start();
    let init = s.exchange(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"host","version":"1"}}}"#,
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["result"]["serverInfo"]["name"], "jobs");
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let question = s.exchange(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"build","arguments":{"target":"docs"}}}"#,
    );
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "Build docs?");
    let answer = json!({"jsonrpc": "2.0", "id": question["id"],
                        "result": {"action": "accept", "content": {"ok": true}}});
    let done = s.exchange(&answer.to_string());
    assert_eq!(
        done,
        json!({"jsonrpc": "2.0", "id": 2,
               "result": {"content": [{"type": "text", "text": "built docs"}]}})
    );
    assert!(s.close(), "the server exits cleanly on EOF");
}

#[test]
fn malformed_and_oversized_lines_are_answered_and_survived() {
    let mut s = Session::start();
    let r = s.exchange("this is not json");
    assert_eq!(r["error"]["code"], -32700);
    assert_eq!(r["id"], Value::Null);

    let huge = format!("{{\"pad\":\"{}\"}}\n", "x".repeat(5 * 1024 * 1024));
    s.send_raw(huge.as_bytes());
    let r = s.recv();
    assert_eq!(r["error"]["code"], -32600);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("4194304-byte limit")
    );

    let r = s.exchange(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2026-07-28")
    );
    let r = s.exchange(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{{{META}}}}}"#
    ));
    assert_eq!(r["id"], 2);
    assert!(s.close());
}

#[tokio::test]
async fn the_client_spawns_drives_and_shuts_down_a_server() {
    let transport = started("the jobs server", || {
        ClientTransport::spawn(jobs_stdio(&[]))
    });
    let c = presa::client::Client::builder()
        .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
        .connect(transport);
    let r = c
        .call_tool("build", json!({"target": "all"}))
        .await
        .unwrap();
    assert_eq!(r.text(), Some("built all"));
    c.close().await.unwrap();
}

/// The client's shutdown ladder on a real server, on every platform (the
/// Unix steps alone are in presa-runtime's `tests/stdio_child.rs`): a
/// server that ends on end of input is only closed, and exits by itself.
#[tokio::test]
async fn a_spawned_server_exits_by_itself_once_its_stdin_closes() {
    let (_channel, child) = started("the jobs server", || {
        StdioChild::spawn(jobs_stdio(&[]), DEFAULT_MAX_MESSAGE_SIZE)
    });
    let grace = std::time::Duration::from_secs(60);
    let closed = std::time::Instant::now();
    let status = child.grace_period(grace).shutdown().await.unwrap();
    // Before the grace period: no later step ran.
    assert!(closed.elapsed() < grace, "the server outlived its stdin");
    assert!(status.success(), "{status:?}");
}

/// `jobs stdio 600` busy with a build of 600 s once confirmed: a server
/// that closing its stdin does not end, as the drain waits for the build.
async fn a_busy_server() -> (FrameChannel, StdioChild) {
    let (mut channel, child) = started("the jobs server", || {
        StdioChild::spawn(jobs_stdio(&["600"]), DEFAULT_MAX_MESSAGE_SIZE)
    });
    let arguments = r#"{"target":"slowly","seconds":600}"#;
    let asked = exchange(&mut channel, format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"build","arguments":{arguments},{META}}}}}"#
    ))
    .await;
    let state = asked["result"]["requestState"].as_str().unwrap();
    channel.outgoing.send(format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"build","arguments":{arguments},"inputResponses":{{"confirm":{{"action":"accept","content":{{"ok":true}}}}}},"requestState":"{state}",{META}}}}}"#
    )).await.unwrap();
    // Answered in order of reading: once 3 is, 2 was read and is running.
    let discovered = exchange(
        &mut channel,
        format!(r#"{{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{{{META}}}}}"#),
    )
    .await;
    assert_eq!(discovered["id"], 3, "{discovered}");
    (channel, child)
}

/// A server still busy when the grace period lapses is ended: on Unix by
/// SIGTERM, which it takes as the drain it is already in, then by
/// SIGKILL; on Windows, where there is no SIGTERM, by TerminateProcess.
#[tokio::test]
async fn a_spawned_server_still_busy_after_the_grace_period_is_ended() {
    let (_channel, child) = a_busy_server().await;
    let status = child
        .grace_period(std::time::Duration::from_millis(200))
        .shutdown()
        .await
        .unwrap();
    // Unix: SIGTERM is the drain already under way; SIGKILL ends it.
    #[cfg(unix)]
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9)
    );
    // Windows: the exit code that TerminateProcess gives.
    #[cfg(windows)]
    assert_eq!(status.code(), Some(1));
}

/// Dropping the child instead of shutting it down runs the same ladder in
/// the background: the busy server ends.
#[tokio::test]
async fn dropping_a_spawned_server_ends_it_all_the_same() {
    let (mut channel, child) = a_busy_server().await;
    drop(child.grace_period(std::time::Duration::from_millis(100)));
    // The process's stdout closes only when it is gone.
    assert_eq!(channel.incoming.recv().await, None);
}

/// Sends `message` on `channel` and reads the next frame, as JSON.
async fn exchange(channel: &mut FrameChannel, message: String) -> Value {
    channel.outgoing.send(message).await.unwrap();
    match channel.incoming.recv().await {
        Some(Inbound::Frame(frame)) => serde_json::from_str(&frame).unwrap(),
        other => panic!("an answer, not {other:?}"),
    }
}

#[test]
fn the_demo_prints_the_three_seed_results_in_order() {
    let out = Command::new(jobs_binary()).output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "built all\nbuilt docs\nbuilt web\n"
    );
}

#[test]
fn a_store_option_without_its_url_or_with_the_demo_is_refused() {
    let out = Command::new(jobs_binary())
        .args(["stdio", "--store"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let usage = String::from_utf8(out.stderr).unwrap();
    assert!(usage.contains("--store redis://HOST:PORT"), "{usage}");

    let out = Command::new(jobs_binary())
        .args(["--store", "redis://127.0.0.1:6379"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let refusal = String::from_utf8(out.stderr).unwrap();
    assert!(refusal.contains("not the demo"), "{refusal}");

    let out = Command::new(jobs_binary())
        .args(["stdio", "--store", "not a url"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let refusal = String::from_utf8(out.stderr).unwrap();
    // Named by its option, not echoed: a URL that does not parse may
    // still hold a password.
    assert!(refusal.contains("--store: "), "{refusal}");
    assert!(refusal.contains("did not parse"), "{refusal}");
    assert!(!refusal.contains("not a url"), "{refusal}");
}

#[test]
fn a_lease_without_a_store_or_that_is_no_length_is_refused() {
    let refusal = |args: &[&str]| {
        let out = Command::new(jobs_binary()).args(args).output().unwrap();
        assert!(!out.status.success(), "{args:?} was accepted");
        String::from_utf8(out.stderr).unwrap()
    };
    let alone = refusal(&["stdio", "--lease", "2"]);
    assert!(alone.contains("--lease goes with --store"), "{alone}");
    for length in ["0", "-1", "soon", "inf"] {
        let bad = refusal(&["stdio", "--store", "redis://127.0.0.1:1", "--lease", length]);
        assert!(
            bad.contains("positive number of seconds"),
            "{length}: {bad}"
        );
    }
    let missing = refusal(&["stdio", "--store", "redis://127.0.0.1:1", "--lease"]);
    assert!(missing.contains("--lease SECONDS"), "{missing}");
}

/// With `--store` naming a Redis that refuses connections, the tasks are
/// there and not in memory: no task can be created or read, and `build`
/// (an `optional` tool) runs synchronously instead.
#[test]
fn with_an_unreachable_redis_store_build_runs_synchronously_and_task_reads_say_retry() {
    let mut s = Session::start_with(&["--store", "redis://127.0.0.1:1"]);
    let call = s.exchange(&format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"build","arguments":{{"target":"all"}},{TASKS_META}}}}}"#
    ));
    assert_eq!(call["result"]["resultType"], "input_required", "{call}");
    let get = s.exchange(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{{"taskId":"t",{TASKS_META}}}}}"#
    ));
    assert_eq!(get["error"]["code"], -31002, "{get}");
    assert!(s.close());
}

const TASKS_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"by-hand","version":"1"}}"#;

#[test]
fn a_raw_task_session_by_hand() {
    let mut s = Session::start();
    let created = s.exchange(&format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"build","arguments":{{"target":"all"}},{TASKS_META}}}}}"#
    ));
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    assert_eq!(created["result"]["pollIntervalMs"], 20);
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    let get = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{{"taskId":"{task}",{TASKS_META}}}}}"#
    );
    let waiting = poll_until(&mut s, &get, "input_required");
    assert_eq!(
        waiting["result"]["inputRequests"]["confirm"]["params"]["message"],
        "Build all?"
    );
    let ack = s.exchange(&format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tasks/update","params":{{"taskId":"{task}","inputResponses":{{"confirm":{{"action":"accept","content":{{"ok":true}}}}}},{TASKS_META}}}}}"#
    ));
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let done = poll_until(&mut s, &get, "completed");
    assert_eq!(done["result"]["result"]["content"][0]["text"], "built all");
    assert!(s.close(), "the server exits cleanly on EOF");
}

/// Sends `get` until the task has `status`; each poll is a round trip to
/// the process.
fn poll_until(s: &mut Session, get: &str, status: &str) -> Value {
    for _ in 0..100_000 {
        let r = s.exchange(get);
        if r["result"]["status"] == status {
            return r;
        }
        assert_eq!(r["result"]["resultType"], "complete", "{r}");
    }
    panic!("the task never reached {status}");
}

#[tokio::test]
async fn the_seed_clients_work_against_the_process() {
    let spawn = || {
        started("the jobs server", || {
            ClientTransport::spawn(jobs_stdio(&[]))
        })
    };
    let confirming = || {
        presa::client::Client::builder()
            .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
    };

    let tasks = confirming().tasks(true).connect(spawn());
    let created = tasks
        .call_tool("build", json!({"target": "all"}))
        .await
        .unwrap();
    assert!(created.is_task());
    let result = tasks
        .await_task(created.task().unwrap(), AwaitOptions::default())
        .await
        .unwrap();
    assert_eq!(result.text(), Some("built all"));

    // Listening, on the same process and connection.
    let created = tasks
        .call_tool("build", json!({"target": "web"}))
        .await
        .unwrap();
    let result = tasks
        .await_task(
            created.task().unwrap(),
            AwaitOptions::default().listen(true),
        )
        .await
        .unwrap();
    assert_eq!(result.text(), Some("built web"));
    tasks.close().await.unwrap();

    let plain = confirming().connect(spawn());
    let result = plain
        .call_tool("build", json!({"target": "docs"}))
        .await
        .unwrap();
    assert!(!result.is_task());
    assert_eq!(result.text(), Some("built docs"));
    plain.close().await.unwrap();
}

#[test]
fn every_piped_request_is_answered_before_exit_on_eof() {
    let mut s = Session::start();
    let mut input = String::new();
    for id in 0..200 {
        input.push_str(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"server/discover","params":{{{META}}}}}"#
        ));
        input.push('\n');
    }
    input.push_str("not json\n");
    s.send_raw(input.as_bytes());
    drop(s.stdin.take());
    let mut ids = std::collections::BTreeSet::new();
    let mut parse_errors = 0;
    for line in (&mut s.stdout).lines() {
        let v: Value = serde_json::from_str(&line.unwrap()).unwrap();
        match v["id"].as_i64() {
            Some(id) => assert!(ids.insert(id)),
            None => parse_errors += 1,
        }
    }
    assert_eq!(ids.len(), 200, "every request answered");
    assert_eq!(parse_errors, 1);
    assert!(s.child.wait().unwrap().success());
}

/// stdin and stdout that are files, not pipes: on Unix a pipe is read
/// and written on the reactor, and anything else on a thread of its own;
/// the server answers every request either way, and ends at end of input.
#[test]
fn requests_from_a_file_are_answered_into_a_file() {
    let folder = std::env::temp_dir().join(format!("presa-stdio-files-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let (requests, answers) = (folder.join("requests"), folder.join("answers"));
    let mut input = String::new();
    for id in 0..50 {
        input.push_str(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"server/discover","params":{{{META}}}}}"#
        ));
        input.push('\n');
    }
    std::fs::write(&requests, input).unwrap();
    let status = Command::new(jobs_binary())
        .arg("stdio")
        .stdin(std::fs::File::open(&requests).unwrap())
        .stdout(std::fs::File::create(&answers).unwrap())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{status:?}");
    let written = std::fs::read_to_string(&answers).unwrap();
    let ids: std::collections::BTreeSet<i64> = written
        .lines()
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap()["id"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert_eq!(ids, (0..50).collect(), "{written}");
    std::fs::remove_dir_all(&folder).unwrap();
}

/// Waits for the process to exit, for at most `limit`: a guard against a
/// hang, not a synchronisation.
fn exit_within(
    child: &mut std::process::Child,
    limit: std::time::Duration,
) -> Option<std::process::ExitStatus> {
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Answers larger than the pipe, stdin closed, stdout never read: the
/// server used to wait on its writer for ever. With a drain period of one
/// second it exits soon after.
#[test]
fn a_server_whose_output_is_never_read_exits_after_its_drain_period() {
    let mut command = Command::new(jobs_binary());
    command
        .args(["stdio", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = started("the jobs server", || command.spawn());
    let mut stdin = child.stdin.take().unwrap();
    let target = "w".repeat(256 * 1024);
    for id in 0..8 {
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"build","arguments":{{"target":"{target}"}},{META}}}}}"#
        );
        stdin.write_all(call.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
    }
    drop(stdin);
    // stdout stays open and unread.
    let _unread = child.stdout.take();
    let status = exit_within(&mut child, std::time::Duration::from_secs(60));
    assert!(
        status.is_some(),
        "the server was still running 60 s after end of input"
    );
}

/// SIGTERM and Ctrl-C start the graceful end that end of input does: the
/// server writes what it has and exits successfully, where the signal
/// used to kill it.
// Unix only: Windows has no SIGTERM, and its Ctrl-C goes to every process
// on a console, so a test cannot send it to its child alone (the guide's
// Transports chapter, on Windows).
#[cfg(unix)]
#[test]
fn sigterm_and_ctrl_c_end_the_server_gracefully() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    for signal in [Signal::SIGTERM, Signal::SIGINT] {
        let mut s = Session::start();
        let reply = s.exchange(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{META}}}}}"#
        ));
        assert_eq!(reply["id"], 1);
        kill(Pid::from_raw(s.child.id() as i32), signal).unwrap();
        let status = exit_within(&mut s.child, std::time::Duration::from_secs(60))
            .unwrap_or_else(|| panic!("still running after {signal}"));
        assert!(status.success(), "{signal}: {status:?}");
    }
}

/// How many bytes wait in the pipe that `reader` reads, unread.
// Unix only, as FIONREAD is, and as the one test that uses it.
#[cfg(unix)]
fn unread_in_pipe(reader: &std::io::PipeReader) -> usize {
    use std::os::fd::AsRawFd;
    nix::ioctl_read_bad!(fionread, nix::libc::FIONREAD, nix::libc::c_int);
    let mut unread: nix::libc::c_int = 0;
    // SAFETY: FIONREAD writes one int through the pointer it is given.
    unsafe { fionread(reader.as_raw_fd(), &mut unread) }.expect("FIONREAD on a pipe");
    usize::try_from(unread).unwrap()
}

/// 300 pipelined requests, and SIGTERM as soon as the server has taken
/// them all out of the pipe: each is answered exactly once before the
/// process exits, with its result or with `-31003`. The server used to
/// answer the few it had parsed (6 to 59 of 300) and drop the rest.
// Unix only, as SIGTERM is (see the test above).
#[cfg(unix)]
#[test]
fn sigterm_answers_every_request_already_read_from_the_pipe() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    const REQUESTS: usize = 300;
    let (pipe, mut stdin) = std::io::pipe().unwrap();
    let probe = pipe.try_clone().unwrap();
    let mut child = Command::new(jobs_binary())
        .arg("stdio")
        .stdin(pipe)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let reading = std::thread::spawn(move || {
        let lines = stdout.lines().map(|line| line.unwrap());
        lines
            .map(|line| serde_json::from_str::<Value>(&line).unwrap())
            .collect::<Vec<_>>()
    });
    let mut input = String::new();
    for id in 0..REQUESTS {
        input.push_str(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"server/discover","params":{{{META}}}}}"#
        ));
        input.push('\n');
    }
    assert!(input.len() > 64 * 1024, "more than a pipe holds");
    stdin.write_all(input.as_bytes()).unwrap();
    // The write returns once the pipe holds the rest; the server has read
    // everything once the pipe is empty.
    while unread_in_pipe(&probe) > 0 {
        std::thread::yield_now();
    }
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).unwrap();
    let status = exit_within(&mut child, std::time::Duration::from_secs(60))
        .expect("the server exits after SIGTERM");
    assert!(status.success(), "{status:?}");
    let answers = reading.join().unwrap();
    let mut ids = std::collections::BTreeSet::new();
    for answer in &answers {
        assert!(
            ids.insert(answer["id"].as_u64().unwrap()),
            "answered twice: {answer}"
        );
        let done = answer["result"]["supportedVersions"] == json!(["2026-07-28"]);
        assert!(done || answer["error"]["code"] == -31003, "{answer}");
    }
    assert_eq!(ids.len(), REQUESTS, "answered {} of {REQUESTS}", ids.len());
    drop(stdin);
}
