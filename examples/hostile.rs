//! A hostile stdio client, for measuring what a server holds under abuse.
//!
//! It drives a server process (by default the `jobs` example built beside
//! it) the way a hostile-client audit did, and prints the server's peak
//! resident memory (`VmHWM`) and what the server answered. The figures in
//! `docs/bad-input.md` come from here; the tests assert the same bounds
//! in process, on an allocation counter.
//!
//! ```text
//! cargo build --release --example jobs --example hostile
//! target/release/examples/hostile unread      # finding 1: large lines, stdout unread
//! target/release/examples/hostile reasks      # finding 2: bad answers, re-asked
//! target/release/examples/hostile big-tasks   # finding 3: 1,000 tasks of 1 MB
//! target/release/examples/hostile quota       # finding 4: one caller's tasks
//! target/release/examples/hostile unread-exit # finding 5: EOF, stdout never read
//! target/release/examples/hostile all
//! ```
//!
//! Anything after `--` is the server command (default: `jobs stdio`).
//! Linux only: it reads `/proc/<pid>/status`.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const MIB: usize = 1024 * 1024;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (ours, server) = match args.iter().position(|a| a == "--") {
        Some(at) => (args[..at].to_vec(), args[at + 1..].to_vec()),
        None => (args, Vec::new()),
    };
    let scenario = ours.first().map(String::as_str).unwrap_or("all");
    let command = ServerCommand::new(server);
    let scenarios: &[(&str, Scenario)] = &[
        ("unread", unread),
        ("reasks", reasks),
        ("big-tasks", big_tasks),
        ("quota", quota),
        ("unread-exit", unread_exit),
    ];
    let mut ran = false;
    for (name, run) in scenarios {
        if scenario == "all" || scenario == *name {
            println!("== {name}");
            run(&command);
            ran = true;
        }
    }
    if !ran {
        eprintln!(
            "unknown scenario `{scenario}`; one of unread, reasks, big-tasks, quota, unread-exit, all"
        );
        std::process::exit(2);
    }
}

/// One way of abusing a server.
type Scenario = fn(&ServerCommand);

/// How to start the server under test.
struct ServerCommand {
    program: PathBuf,
    args: Vec<String>,
}

impl ServerCommand {
    fn new(mut given: Vec<String>) -> Self {
        if given.is_empty() {
            let exe = std::env::current_exe().expect("the path of this program");
            let jobs = exe.with_file_name("jobs");
            return ServerCommand {
                program: jobs,
                args: vec!["stdio".into()],
            };
        }
        let program = PathBuf::from(given.remove(0));
        ServerCommand {
            program,
            args: given,
        }
    }

    fn spawn(&self) -> Server {
        let mut child = Command::new(&self.program)
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.program.display()));
        let stdin = child.stdin.take();
        let stdout = Some(BufReader::new(child.stdout.take().unwrap()));
        Server {
            child,
            stdin,
            stdout,
        }
    }
}

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<BufReader<ChildStdout>>,
}

impl Server {
    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        stdin.write_all(&line).unwrap();
    }

    fn recv(&mut self) -> Option<Value> {
        let mut line = String::new();
        let stdout = self.stdout.as_mut().expect("stdout open");
        match stdout.read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(serde_json::from_str(&line).expect("stdout holds JSON")),
        }
    }

    /// Sends `message` and reads until the response with its id.
    fn exchange(&mut self, message: &Value) -> Value {
        self.send(message);
        self.stdin.as_mut().unwrap().flush().unwrap();
        loop {
            let reply = self.recv().expect("the server answers");
            if reply.get("id") == message.get("id") {
                return reply;
            }
        }
    }

    fn peak_rss_mib(&self) -> f64 {
        status_kib(self.pid(), "VmHWM").map_or(f64::NAN, |kib| kib as f64 / 1024.0)
    }

    fn rss_mib(&self) -> f64 {
        status_kib(self.pid(), "VmRSS").map_or(f64::NAN, |kib| kib as f64 / 1024.0)
    }

    fn finish(mut self) {
        drop(self.stdin.take());
        if let Some(mut stdout) = self.stdout.take() {
            let mut rest = Vec::new();
            let _ = std::io::Read::read_to_end(&mut stdout, &mut rest);
        }
        let _ = self.child.wait();
    }
}

/// A `/proc/<pid>/status` field in KiB.
fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn meta(tasks: bool) -> Value {
    let mut capabilities = json!({"elicitation": {"form": {}}});
    if tasks {
        capabilities["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
    }
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "hostile", "version": "1"},
    })
}

fn request(id: usize, method: &str, mut params: Value, tasks: bool) -> Value {
    params["_meta"] = meta(tasks);
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn build(id: usize, target: impl Into<Value>, tasks: bool) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": "build", "arguments": {"target": target.into()}}),
        tasks,
    )
}

/// Finding 1: the in-flight slots filled, stdout unread, then lines of
/// about 4 MB, half of them text and half of them small numbers (whose
/// parsed form is many times their size).
fn unread(command: &ServerCommand) {
    const SMALL: usize = 1500;
    const LARGE: usize = 200;
    let mut server = command.spawn();
    let pid = server.pid();
    let mut stdin = server.stdin.take().unwrap();
    let written = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let written = Arc::clone(&written);
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            let mut write = |message: Value| {
                let mut line = serde_json::to_vec(&message).unwrap();
                line.push(b'\n');
                let ok = stdin.write_all(&line).is_ok();
                written.fetch_add(1, Ordering::Relaxed);
                ok
            };
            for id in 0..SMALL {
                write(build(id, "docs", false));
            }
            let text = "x".repeat(4 * MIB - 512);
            let numbers = vec![0u8; 2 * MIB - 512];
            for n in 0..LARGE {
                let target = if n % 2 == 0 {
                    Value::String(text.clone())
                } else {
                    json!(numbers)
                };
                if !write(build(SMALL + n, target, false)) {
                    break;
                }
            }
            done.store(true, Ordering::Relaxed);
            stdin
        })
    };
    let stalled = watch_until_stalled(pid, &written, &done);
    println!(
        "lines written before reading: {} of {} (writer {}); peak RSS {:.0} MiB",
        written.load(Ordering::Relaxed),
        SMALL + LARGE,
        if stalled { "blocked" } else { "finished" },
        server.peak_rss_mib()
    );
    let mut answered = 0;
    let mut errors = std::collections::BTreeMap::<String, usize>::new();
    while answered < SMALL + LARGE {
        let Some(reply) = server.recv() else { break };
        answered += 1;
        if let Some(message) = reply["error"]["message"].as_str() {
            let short: String = message.chars().take(90).collect();
            *errors.entry(short).or_default() += 1;
        }
    }
    let stdin = writer.join().unwrap();
    server.stdin = Some(stdin);
    println!(
        "answered {answered} of {}; peak RSS {:.0} MiB",
        SMALL + LARGE,
        server.peak_rss_mib()
    );
    for (message, count) in errors {
        println!("  {count} × {message}");
    }
    server.finish();
}

/// Samples the server until the writer is done or has made no progress for
/// three seconds; returns whether it stalled.
fn watch_until_stalled(pid: u32, written: &AtomicUsize, done: &AtomicBool) -> bool {
    let mut last = (0, Instant::now());
    loop {
        std::thread::sleep(Duration::from_millis(100));
        if done.load(Ordering::Relaxed) {
            return false;
        }
        let now = written.load(Ordering::Relaxed);
        if now != last.0 {
            last = (now, Instant::now());
        } else if last.1.elapsed() > Duration::from_secs(3) {
            let _ = status_kib(pid, "VmHWM");
            return true;
        }
    }
}

/// Finding 2: a task asks for confirmation; the client answers 300 times
/// with 1 MB (just under the answer limit) that does not parse.
fn reasks(command: &ServerCommand) {
    let mut server = command.spawn();
    let created = server.exchange(&build(1, "all", true));
    let task_id = created["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let junk = "y".repeat(MIB - 1024);
    let before = server.rss_mib();
    let mut slowest = Duration::ZERO;
    let mut sent = 0;
    let mut id = 10;
    for _ in 0..300 {
        let task = loop {
            id += 1;
            let reply =
                server.exchange(&request(id, "tasks/get", json!({"taskId": task_id}), true));
            let task = reply["result"].clone();
            if task["status"] != "working" {
                break task;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        if task["status"] != "input_required" {
            println!(
                "after {sent} bad answers the task is {}: {}",
                task["status"], task["statusMessage"]
            );
            break;
        }
        let key = task["inputRequests"]
            .as_object()
            .and_then(|r| r.keys().next().cloned())
            .expect("an input request");
        id += 1;
        let update = request(
            id,
            "tasks/update",
            json!({"taskId": task_id, "inputResponses": {
                key: {"action": "accept", "content": {"ok": junk}}
            }}),
            true,
        );
        let started = Instant::now();
        let reply = server.exchange(&update);
        slowest = slowest.max(started.elapsed());
        sent += 1;
        if let Some(error) = reply.get("error") {
            println!("update {sent} refused: {}", error["message"]);
            break;
        }
    }
    println!(
        "{sent} bad answers of 1 MiB; RSS {before:.0} → {:.0} MiB, peak {:.0} MiB; slowest update {slowest:?}",
        server.rss_mib(),
        server.peak_rss_mib()
    );
    server.finish();
}

/// Finding 3: 1,000 tasks, each with a 1 MB argument.
fn big_tasks(command: &ServerCommand) {
    let mut server = command.spawn();
    let target = "z".repeat(MIB);
    let mut outcomes = std::collections::BTreeMap::<String, usize>::new();
    for id in 0..1000 {
        let reply = server.exchange(&build(id, target.as_str(), true));
        let outcome = if reply["result"]["resultType"] == "task" {
            "task".to_owned()
        } else if let Some(message) = reply["error"]["message"].as_str() {
            message.chars().take(90).collect()
        } else {
            format!("resultType {}", reply["result"]["resultType"])
        };
        *outcomes.entry(outcome).or_default() += 1;
    }
    println!(
        "1000 calls with 1 MiB arguments; RSS {:.0} MiB, peak {:.0} MiB",
        server.rss_mib(),
        server.peak_rss_mib()
    );
    for (outcome, count) in outcomes {
        println!("  {count} × {outcome}");
    }
    server.finish();
}

/// Finding 4: one caller fills its quota; others still get tasks.
fn quota(command: &ServerCommand) {
    let mut server = command.spawn();
    let mut tasks = 0;
    let mut refused = None;
    for id in 0..1100 {
        let reply = server.exchange(&build(id, "cheap", true));
        if reply["result"]["resultType"] == "task" {
            tasks += 1;
        } else {
            refused = Some(reply);
            break;
        }
    }
    println!(
        "one caller got {tasks} tasks; then: {}",
        refused.map_or("nothing".into(), |r| r.to_string())
    );
    server.finish();
}

/// Finding 5: answers larger than the pipe, stdin closed, stdout never read.
fn unread_exit(command: &ServerCommand) {
    let mut server = command.spawn();
    let target = "w".repeat(MIB);
    for id in 0..8 {
        server.send(&build(id, target.as_str(), false));
    }
    let started = Instant::now();
    drop(server.stdin.take());
    let deadline = started + Duration::from_secs(120);
    let exited = loop {
        if let Ok(Some(status)) = server.child.try_wait() {
            break Some(status);
        }
        if Instant::now() > deadline {
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    match exited {
        Some(status) => println!("exited {status} {:?} after EOF", started.elapsed()),
        None => {
            println!(
                "still running {:?} after EOF; killing it",
                started.elapsed()
            );
            let _ = server.child.kill();
        }
    }
    let _ = server.child.wait();
}
