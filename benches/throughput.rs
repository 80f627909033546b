//! Throughput and memory figures for the server core and the transports.
//!
//! Run with `cargo bench --bench throughput` (multi-thread runtime), or with
//! `BENCH_CURRENT_THREAD=1` for a single-threaded runtime, which shows the
//! CPU cost without cross-thread wake-ups. It prints one line per
//! measurement and a few ratios; the figures go in issue notes, not in
//! assertions. `BENCH_CORE_ONLY=1` runs only the server-core loop, and
//! `BENCH_TASKS_ONLY=1` only the task-engine loop, for a profiler.

use std::time::{Duration, Instant};

use presa::client::ClientTransport;
use presa::client::prelude::*;
use presa::prelude::*;
use presa::transport::{DEFAULT_MAX_MESSAGE_SIZE, Inbound, byte_stream};
use presa::wire::{ElicitResult, Message};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

/// Echoes its input.
#[tool]
async fn echo(text: String) -> String {
    text
}

#[derive(Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    ok: bool,
}

/// Asks once, then answers.
#[tool]
async fn confirm(ctx: Context) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Confirm>("c", "Go?").await?;
    Ok(format!("{}", answer.accepted().is_some_and(|c| c.ok)))
}

/// Echoes its input, always as a task.
#[tool(task = "required")]
async fn echo_task(text: String) -> String {
    text
}

/// Asks once inside the task, then answers.
#[tool(task = "required")]
async fn confirm_task(ctx: Context) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Confirm>("c", "Go?").await?;
    Ok(format!("{}", answer.accepted().is_some_and(|c| c.ok)))
}

fn server() -> Server {
    Server::builder("bench", "1")
        .tool(EchoTool)
        .tool(ConfirmTool)
        .tool(EchoTaskTool)
        .tool(ConfirmTaskTool)
        // Tasks are created faster than they finish: without room for
        // them all, anonymous callers' running quota refuses the rest.
        .tasks(
            TaskSettings::default()
                .max_tasks(1_000_000)
                .max_tasks_per_subject(1_000_000),
        )
        .build()
}

fn report(name: &str, ops: usize, elapsed: Duration) -> f64 {
    let per_sec = ops as f64 / elapsed.as_secs_f64();
    println!(
        "{name:<44} {ops:>7} ops  {:>9.2} µs/op  {per_sec:>10.0} ops/s",
        elapsed.as_secs_f64() * 1e6 / ops as f64
    );
    per_sec
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
    })
}

fn call_line(id: i64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "echo", "arguments": {"text": "hello"}, "_meta": meta()}})
    .to_string()
}

/// The floor: parsing the request and serializing a response, nothing else.
fn json_floor(n: usize) -> f64 {
    let line = call_line(1);
    let start = Instant::now();
    for _ in 0..n {
        let message: Message = line.parse().unwrap();
        let Message::Request(r) = message else {
            unreachable!()
        };
        let response = presa::wire::Response::result(
            r.id,
            json!({"resultType": "complete", "content": [{"type": "text", "text": "hello"}]}),
        );
        std::hint::black_box(Message::Response(response).to_line());
    }
    report("json floor (parse + serialize only)", n, start.elapsed())
}

async fn core_only(n: usize) -> f64 {
    use futures::StreamExt;
    let server = server();
    let caller = Caller::anonymous();
    let line = call_line(1);
    let start = Instant::now();
    for _ in 0..n {
        let Message::Request(request): Message = line.parse().unwrap() else {
            unreachable!()
        };
        let mut stream = server.handle(request, &caller);
        while let Some(m) = stream.next().await {
            std::hint::black_box(m.to_line());
        }
    }
    report(
        "server core (Server::handle, no transport)",
        n,
        start.elapsed(),
    )
}

fn tasks_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {},
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        }
    })
}

/// The task engine without a transport: `n` task creations through
/// `Server::handle`, then `tasks/get` on each once they have completed.
async fn task_core(n: usize) -> (f64, f64) {
    use futures::StreamExt;
    let server = server();
    let caller = Caller::anonymous();
    let handle = |request: Value| {
        let Message::Request(request) = Message::from_value(request).unwrap() else {
            unreachable!()
        };
        server.handle(request, &caller)
    };
    let start = Instant::now();
    let mut ids = Vec::with_capacity(n);
    for i in 0..n {
        let request = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": "echo_task", "arguments": {"text": "hello"}, "_meta": tasks_meta()}});
        let Some(Message::Response(r)) = handle(request).next().await else {
            unreachable!()
        };
        let presa::wire::Outcome::Result(created) = r.outcome else {
            panic!("no task")
        };
        ids.push(created["taskId"].as_str().unwrap().to_owned());
    }
    let create = report("task engine: create (Server::handle)", n, start.elapsed());
    // By now most handlers have finished, so reads mostly see `completed`
    // tasks with their result inlined.
    let start = Instant::now();
    for (i, id) in ids.iter().enumerate() {
        let request = json!({"jsonrpc": "2.0", "id": i, "method": "tasks/get",
            "params": {"taskId": id, "_meta": tasks_meta()}});
        let Some(m) = handle(request).next().await else {
            unreachable!()
        };
        std::hint::black_box(m.to_line());
    }
    let get = report(
        "task engine: tasks/get (Server::handle)",
        n,
        start.elapsed(),
    );
    (create, get)
}

/// Sequential task calls awaited by listening, with one input round each
/// when `tool` asks.
async fn task_listen(name: &str, client: &Client, tool: &str, args: Value, n: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        let created = client.call_tool(tool, args.clone()).await.unwrap();
        let task = created.task().expect("a task");
        let result = client
            .await_task(task, AwaitOptions::default().listen(true))
            .await
            .unwrap();
        std::hint::black_box(result);
    }
    report(name, n, start.elapsed())
}

async fn sequential(name: &str, client: &Client, n: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        let r = client
            .call_tool("echo", json!({"text": "hello"}))
            .await
            .unwrap();
        std::hint::black_box(r);
    }
    report(name, n, start.elapsed())
}

async fn concurrent(name: &str, client: &Client, n: usize, width: usize) -> f64 {
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..width {
        let client = client.clone();
        tasks.push(tokio::spawn(async move {
            for _ in 0..n / width {
                client
                    .call_tool("echo", json!({"text": "hello"}))
                    .await
                    .unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    report(name, n / width * width, start.elapsed())
}

fn stdio_client(server: &Server, builder: presa::client::ClientBuilder) -> Client {
    let (client_io, server_io) = tokio::io::duplex(256 * 1024);
    let (sr, sw) = tokio::io::split(server_io);
    tokio::spawn(presa::server::serve(
        server.clone(),
        byte_stream(sr, sw, DEFAULT_MAX_MESSAGE_SIZE),
        Caller::anonymous(),
    ));
    let (cr, cw) = tokio::io::split(client_io);
    builder.connect(ClientTransport::from(byte_stream(
        cr,
        cw,
        DEFAULT_MAX_MESSAGE_SIZE,
    )))
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Streams one 256 MiB line into a 4 MiB-limited reader and reports how
/// much the peak resident set grew.
async fn oversized_memory() {
    let before = peak_rss_kib();
    let (mut writer, reader) = tokio::io::duplex(64 * 1024);
    let (_unused_read, sink) = tokio::io::split(tokio::io::duplex(16).0);
    let mut channel = byte_stream(reader, sink, DEFAULT_MAX_MESSAGE_SIZE);
    let feed = tokio::spawn(async move {
        let chunk = vec![b'x'; 1024 * 1024];
        for _ in 0..256 {
            writer.write_all(&chunk).await.unwrap();
        }
        writer.write_all(b"\n{\"after\":1}\n").await.unwrap();
    });
    assert!(matches!(
        channel.incoming.recv().await,
        Some(Inbound::Oversized { .. })
    ));
    assert!(matches!(
        channel.incoming.recv().await,
        Some(Inbound::Frame(_))
    ));
    feed.await.unwrap();
    let grown = peak_rss_kib().saturating_sub(before);
    println!(
        "{:<44} peak RSS grew {grown} KiB while discarding a 256 MiB line (limit 4 MiB)",
        "oversized line"
    );
}

fn main() {
    let n = 20_000;
    if std::env::var_os("BENCH_TASKS_ONLY").is_some() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(task_core(n * 5));
        return;
    }
    if std::env::var_os("BENCH_CORE_ONLY").is_some() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(core_only(n));
        return;
    }
    let floor = json_floor(n * 5);
    let runtime = if std::env::var_os("BENCH_CURRENT_THREAD").is_some() {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .unwrap()
    };
    runtime.block_on(async {
        let core = core_only(n * 2).await;
        let server = server();
        let in_proc = Client::builder().connect(in_process(&server, Caller::anonymous()));
        let seq = sequential("in-process call_tool, sequential", &in_proc, n).await;
        let conc = concurrent("in-process call_tool, 64 concurrent", &in_proc, n * 2, 64).await;
        let stdio = stdio_client(&server, Client::builder());
        let seq_stdio = sequential("stdio framing call_tool, sequential", &stdio, n).await;
        concurrent("stdio framing call_tool, 64 concurrent", &stdio, n * 2, 64).await;
        let mrtr_client = Client::builder()
            .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
            .connect(in_process(&server, Caller::anonymous()));
        let start = Instant::now();
        for _ in 0..n / 2 {
            mrtr_client.call_tool("confirm", json!({})).await.unwrap();
        }
        let mrtr = report(
            "in-process call with one MRTR round",
            n / 2,
            start.elapsed(),
        );
        let (create, _) = task_core(n).await;
        let tasks_client = Client::builder()
            .tasks(true)
            .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
            .connect(in_process(&server, Caller::anonymous()));
        let task_plain = task_listen(
            "in-process task, call + listen to completion",
            &tasks_client,
            "echo_task",
            json!({"text": "hello"}),
            n / 4,
        )
        .await;
        let task_input = task_listen(
            "in-process task with one input round, listening",
            &tasks_client,
            "confirm_task",
            json!({}),
            n / 4,
        )
        .await;
        oversized_memory().await;
        println!();
        println!("ratios: core / json floor = {:.2}", core / floor);
        println!("        in-process sequential / core = {:.2}", seq / core);
        println!(
            "        stdio framing / in-process (sequential) = {:.2}",
            seq_stdio / seq
        );
        println!(
            "        64 concurrent / sequential (in-process) = {:.2}",
            conc / seq
        );
        println!("        one MRTR round / plain call = {:.2}", mrtr / seq);
        println!(
            "        task creation / plain call (core) = {:.2}",
            create / core
        );
        println!(
            "        task call + listen / plain call (in-process) = {:.2}",
            task_plain / seq
        );
        println!(
            "        task with input / task without = {:.2}",
            task_input / task_plain
        );
    });
}
