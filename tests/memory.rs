//! What a hostile client can make the server hold, measured.
//!
//! Every test runs the server and its client on one thread (a
//! current-thread runtime), and a counting allocator keeps, per thread, the
//! bytes allocated and not yet freed and their peak. Each test asserts a
//! bound on that peak, derived from the limits it configures, and checks
//! that the server still answers everything once the pressure is off.
//! Time is paused: "the server is idle" is when tokio's clock can jump.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::future::Future;
use std::time::Duration;

use presa::prelude::*;
use presa::server::TaskSettings;
use presa::transport::{FrameChannel, byte_stream};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;

// ---------------------------------------------------------------------------
// The counting allocator

struct Counting;

thread_local! {
    static NET: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    let _ = NET.try_with(|net| {
        let now = net.get() + delta;
        net.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counters are plain thread-local cells that never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        count(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, size) };
        if !q.is_null() {
            count(size as isize - layout.size() as isize);
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `test` on a current-thread runtime with paused time and returns
/// its output and the peak of bytes this thread held beyond what it held
/// at the start.
fn peak_of<T>(test: impl Future<Output = T>) -> (T, usize) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    let start = NET.with(Cell::get);
    PEAK.with(|peak| peak.set(start));
    let output = runtime.block_on(test);
    let peak = PEAK.with(Cell::get) - start;
    drop(runtime);
    let peak = peak.max(0) as usize;
    eprintln!("peak: {:.1} MiB", peak as f64 / MIB as f64);
    (output, peak)
}

/// Until every task on the runtime waits on something only the test can
/// give: with paused time, the clock jumps only when nothing can run.
async fn until_idle() {
    tokio::time::sleep(Duration::from_secs(60)).await;
}

// ---------------------------------------------------------------------------
// The server under test

/// How much JSON text `payload` is.
#[tool]
async fn size(payload: Value) -> String {
    payload.to_string().len().to_string()
}

/// Returns its text.
#[tool]
async fn echo(text: String) -> String {
    text
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    ok: bool,
}

/// Builds after confirmation; runs as a task for tasks clients.
#[tool(task = "optional")]
async fn build(ctx: Context, target: String) -> Result<String, ToolError> {
    let confirm = ctx.elicit::<Confirm>("confirm", format!("Build {target}?"));
    match confirm.await? {
        Elicitation::Accepted(Confirm { ok: true }) => Ok("built".into()),
        _ => Err(ToolError::new("not confirmed")),
    }
}

fn meta(tasks: bool) -> Value {
    let mut capabilities = json!({"elicitation": {"form": {}}});
    if tasks {
        capabilities["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
    }
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "memory", "version": "1"},
    })
}

fn request(id: usize, method: &str, mut params: Value, tasks: bool) -> String {
    params["_meta"] = meta(tasks);
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn call(id: usize, tool: &str, arguments: Value, tasks: bool) -> String {
    let params = json!({"name": tool, "arguments": arguments});
    request(id, "tools/call", params, tasks)
}

/// A peer on an in-process connection that sends frames and reads
/// replies by id.
struct Peer {
    channel: FrameChannel,
}

impl Peer {
    fn new(server: &Server) -> Self {
        Peer {
            channel: presa::server::in_process(server, Caller::anonymous()),
        }
    }

    async fn exchange(&mut self, frame: String) -> Value {
        let id = serde_json::from_str::<Value>(&frame).unwrap()["id"].clone();
        self.channel.outgoing.send(frame).await.unwrap();
        loop {
            let Some(presa::transport::Inbound::Frame(reply)) = self.channel.incoming.recv().await
            else {
                panic!("the connection ended");
            };
            let reply: Value = serde_json::from_str(&reply).unwrap();
            if reply["id"] == id {
                return reply;
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The estimate budgets charge

/// What parsing `text` allocates and keeps, measured.
fn parsed_bytes(text: &str) -> (Value, usize) {
    let before = NET.with(Cell::get);
    let value: Value = serde_json::from_str(text).unwrap();
    let held = NET.with(Cell::get) - before;
    (value, held as usize)
}

#[test]
fn the_footprint_estimate_is_close_to_what_parsing_allocates() {
    let dense = format!("[{}0]", "0,".repeat(200_000));
    let text = format!("\"{}\"", "x".repeat(400_000));
    let objects = format!(
        "[{}]",
        (0..20_000)
            .map(|i| format!("{{\"key{i}\":{i},\"name\":\"n{i}\"}}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let wide = format!(
        "{{{}}}",
        (0..50_000)
            .map(|i| format!("\"k{i}\":[1,2]"))
            .collect::<Vec<_>>()
            .join(",")
    );
    for (name, json) in [
        ("dense", dense),
        ("text", text),
        ("objects", objects),
        ("wide", wide),
    ] {
        let (value, measured) = parsed_bytes(&json);
        let estimate = presa::wire::footprint(&value);
        assert!(
            estimate as f64 >= 0.8 * measured as f64 && estimate as f64 <= 2.5 * measured as f64,
            "{name}: estimated {estimate} bytes, parsing held {measured} (text {} bytes)",
            json.len()
        );
    }
}

// ---------------------------------------------------------------------------
// Finding 1: large messages while the output is not read

/// A client fills the in-flight slots with requests whose answers it never
/// reads, then sends 40 lines of 1 MiB, half text (echoed back) and half
/// small numbers, whose parsed form is about 16 times their text. Without
/// a byte budget the server held every one of them, parsed: 40 lines
/// needed over 300 MiB. With it, the connection stops reading once its
/// 8 MiB are taken, and holds at most that, one parsed message and the
/// few frames the transport reads ahead.
#[test]
fn a_peer_that_does_not_read_cannot_make_the_server_hold_its_messages() {
    const SMALL: usize = 400;
    const LARGE: usize = 40;
    let ((), peak) = peak_of(async {
        let server = Server::builder("memory", "1")
            .tool(SizeTool)
            .tool(EchoTool)
            .max_in_flight(64)
            .max_message_size(MIB + KIB)
            .connection_memory_limit(8 * MIB)
            .build();
        let (client, server_end) = tokio::io::duplex(4 * KIB);
        let (read, write) = tokio::io::split(server_end);
        let channel = byte_stream(read, write, MIB + KIB);
        tokio::spawn(presa::server::serve(server, channel, Caller::anonymous()));
        let (client_read, mut client_write) = tokio::io::split(client);

        let writer = tokio::spawn(async move {
            for id in 0..SMALL {
                let line = call(id, "size", json!({"payload": [1, 2, 3]}), false);
                client_write
                    .write_all(format!("{line}\n").as_bytes())
                    .await
                    .unwrap();
            }
            for n in 0..LARGE {
                let line = if n % 2 == 0 {
                    let text = "x".repeat(MIB - 4 * KIB);
                    call(SMALL + n, "echo", json!({ "text": text }), false)
                } else {
                    // Written as text: parsing it here would cost the test
                    // what the server is meant not to hold.
                    let dense = format!("[{}0]", "0,".repeat(MIB / 2 - 4 * KIB));
                    let template = call(SMALL + n, "size", json!({"payload": "DENSE"}), false);
                    template.replace("\"DENSE\"", &dense)
                };
                client_write
                    .write_all(format!("{line}\n").as_bytes())
                    .await
                    .unwrap();
            }
            client_write
        });
        until_idle().await;
        assert!(
            !writer.is_finished(),
            "the server read every line although nobody reads its answers"
        );

        // Reading resumes: every request is answered, none is lost.
        let mut lines = BufReader::new(client_read).lines();
        let mut answered = std::collections::BTreeSet::new();
        while answered.len() < SMALL + LARGE {
            let line = lines.next_line().await.unwrap().expect("an answer");
            let reply: Value = serde_json::from_str(&line).unwrap();
            assert!(
                reply.get("result").is_some(),
                "{}",
                &line[..line.len().min(300)]
            );
            answered.insert(reply["id"].as_u64().unwrap());
        }
        drop(writer.await.unwrap());
    });
    // The budget, a dense message parsed twice over (its array doubles as
    // it grows), and a dozen frames of 1 MiB in buffers on both sides.
    let bound = 8 * MIB + 2 * 16 * MIB + 12 * MIB;
    assert!(
        peak < bound,
        "the server held {} MiB at its peak",
        peak / MIB
    );
}

// ---------------------------------------------------------------------------
// Finding 2: re-asks without end

/// A tasks client answers a task's question again and again with 512 KiB
/// that does not fit the form. Each bad answer used to be kept, and the key
/// asked again under a new name, without end. Now the key is asked again
/// three times; the fourth bad answer fails the task with a message that
/// says why, and later answers are ignored.
#[test]
fn unusable_answers_are_asked_again_three_times_then_the_task_fails() {
    let (message, peak) = peak_of(async {
        let server = Server::builder("memory", "1")
            .tool(BuildTool)
            .tasks(TaskSettings::default())
            .build();
        let mut peer = Peer::new(&server);
        let created = peer
            .exchange(call(1, "build", json!({"target": "all"}), true))
            .await;
        let task = created["result"]["taskId"].as_str().unwrap().to_owned();
        let junk = "y".repeat(512 * KIB);
        let mut id = 10;
        let mut failed = None;
        for _ in 0..20 {
            let key = loop {
                id += 1;
                let got = peer
                    .exchange(request(id, "tasks/get", json!({"taskId": task}), true))
                    .await;
                let got = &got["result"];
                if got["status"] == "failed" {
                    failed = Some(got["error"]["message"].as_str().unwrap().to_owned());
                    break None;
                }
                if let Some(requests) = got["inputRequests"].as_object() {
                    break requests.keys().next().cloned();
                }
                tokio::task::yield_now().await;
            };
            // Once the task failed, answers go to its last key, and are ignored.
            let key = key.unwrap_or_else(|| "confirm~4".into());
            id += 1;
            let answer = json!({"action": "accept", "content": {"ok": junk}});
            let params = json!({"taskId": task, "inputResponses": {key: answer}});
            let reply = peer
                .exchange(request(id, "tasks/update", params, true))
                .await;
            assert!(reply.get("result").is_some(), "{reply}");
        }
        failed.expect("the task failed")
    });
    assert_eq!(
        message,
        "Gave up on input `confirm`: 4 answers in a row did not fit its request"
    );
    // Four answers kept, and one in flight in its three forms (text,
    // parsed, kept); the 20 answers of 512 KiB sent add up to 10 MiB.
    assert!(
        peak < 8 * MIB,
        "the server held {} KiB at its peak",
        peak / KIB
    );
}

#[test]
fn an_answer_over_the_size_limit_is_refused_and_the_task_waits_on() {
    let ((too_large, status), _) = peak_of(async {
        let server = Server::builder("memory", "1")
            .tool(BuildTool)
            .tasks(TaskSettings::default())
            .max_answer_size(64 * KIB)
            .build();
        let mut peer = Peer::new(&server);
        let created = peer
            .exchange(call(1, "build", json!({"target": "all"}), true))
            .await;
        let task = created["result"]["taskId"].as_str().unwrap().to_owned();
        until_idle().await;
        let answer = json!({"action": "accept", "content": {"ok": "y".repeat(64 * KIB)}});
        let params = json!({"taskId": task, "inputResponses": {"confirm": answer}});
        let refused = peer
            .exchange(request(2, "tasks/update", params, true))
            .await;
        let got = peer
            .exchange(request(3, "tasks/get", json!({"taskId": task}), true))
            .await;
        (refused["error"].clone(), got["result"]["status"].clone())
    });
    assert_eq!(too_large["code"], -32602);
    assert_eq!(
        too_large["message"],
        "The answer to `confirm` is 65575 bytes; answers may be at most 65536 bytes"
    );
    assert_eq!(status, "input_required");
}

// ---------------------------------------------------------------------------
// Finding 3: task size

/// 200 tasks, each created with a 256 KiB argument that its question
/// repeats. Every task used to hold the text four times, with no limit but
/// the number of tasks: about 200 MiB. Now a task's record counts against
/// the task store's 8 MiB: once running tasks fill it, a task whose
/// question does not fit fails with a message that says so, and its room
/// goes to the next.
#[test]
fn tasks_hold_no_more_than_the_store_and_the_budget_allow() {
    let (statuses, peak) = peak_of(async {
        let server = Server::builder("memory", "1")
            .tool(BuildTool)
            .memory_limit(32 * MIB)
            .tasks(
                TaskSettings::default()
                    .max_tasks_per_subject(1000)
                    .max_store_size(8 * MIB),
            )
            .build();
        let mut peer = Peer::new(&server);
        let target = "z".repeat(256 * KIB);
        let mut tasks = Vec::new();
        for id in 0..200 {
            let reply = peer
                .exchange(call(id, "build", json!({ "target": target }), true))
                .await;
            match reply["result"]["taskId"].as_str() {
                Some(task) => tasks.push(task.to_owned()),
                None => assert_eq!(reply["result"]["resultType"], "input_required"),
            }
        }
        until_idle().await;
        let mut statuses = std::collections::BTreeMap::<String, usize>::new();
        for (id, task) in tasks.iter().enumerate() {
            let got = peer
                .exchange(request(
                    1000 + id,
                    "tasks/get",
                    json!({"taskId": task}),
                    true,
                ))
                .await;
            let got = &got["result"];
            let status = match got["status"].as_str() {
                Some("failed") => format!("failed: {}", got["error"]["message"]),
                status => status.unwrap_or("gone").to_owned(),
            };
            *statuses.entry(status).or_default() += 1;
        }
        statuses
    });
    let waiting = statuses.get("input_required").copied().unwrap_or(0);
    assert!(
        (20..=32).contains(&waiting),
        "{waiting} tasks wait for an answer in the store's 8 MiB: {statuses:?}"
    );
    for status in statuses.keys().filter(|s| *s != "input_required") {
        assert!(
            status.contains("Task record full: the tool's input requests would take the task past"),
            "{statuses:?}"
        );
    }
    assert!(
        peak < 40 * MIB,
        "the server held {} MiB at its peak",
        peak / MIB
    );
}

/// Returns `size` bytes of text, as a task for tasks clients.
#[tool(task = "optional")]
async fn produce(size: usize) -> String {
    "r".repeat(size)
}

/// A record may weigh `max_record_size`: answers that would take it past
/// are refused, and the task waits on; a result that would is replaced by
/// a failure that says so.
#[test]
fn what_does_not_fit_a_task_record_is_refused_or_fails_the_task() {
    let ((refused, waiting, failed), _) = peak_of(async {
        let server = Server::builder("memory", "1")
            .tool(BuildTool)
            .tool(ProduceTool)
            .tasks(TaskSettings::default().max_record_size(16 * KIB))
            .build();
        let mut peer = Peer::new(&server);
        let created = peer
            .exchange(call(1, "build", json!({"target": "all"}), true))
            .await;
        let task = created["result"]["taskId"].as_str().unwrap().to_owned();
        until_idle().await;
        let answer =
            json!({"action": "accept", "content": {"ok": true, "pad": "q".repeat(20 * KIB)}});
        let params = json!({"taskId": task, "inputResponses": {"confirm": answer}});
        let refused = peer
            .exchange(request(2, "tasks/update", params, true))
            .await;
        let waiting = peer
            .exchange(request(3, "tasks/get", json!({"taskId": task}), true))
            .await;

        let created = peer
            .exchange(call(4, "produce", json!({"size": 32 * KIB}), true))
            .await;
        let big = created["result"]["taskId"].as_str().unwrap().to_owned();
        until_idle().await;
        let failed = peer
            .exchange(request(5, "tasks/get", json!({"taskId": big}), true))
            .await;
        (refused, waiting, failed)
    });
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(
        refused["error"]["message"],
        "These answers would take the task past the 16384 bytes it may hold; send smaller ones"
    );
    assert_eq!(waiting["result"]["status"], "input_required");
    assert_eq!(failed["result"]["status"], "failed", "{failed}");
    assert_eq!(
        failed["result"]["error"]["message"],
        "Task record full: the tool's result would take the task past the 16384 bytes it may hold"
    );
}

/// Builds after confirmation, like `build`; its task may run again from
/// the start, so a parked one keeps no handler.
#[tool(task = "optional", resumable)]
async fn rebuild(ctx: Context, target: String) -> Result<String, ToolError> {
    let confirm = ctx.elicit::<Confirm>("confirm", format!("Build {target}?"));
    match confirm.await? {
        Elicitation::Accepted(Confirm { ok: true }) => Ok("built".into()),
        _ => Err(ToolError::new("not confirmed")),
    }
}

/// The bytes a server holds per task of `tool` parked at
/// `input_required`, over `tasks` tasks, once they all wait.
fn held_per_parked_task(tool: &'static str, tasks: usize) -> usize {
    let (held, _) = peak_of(async move {
        let server = Server::builder("memory", "1")
            .tool(EchoTool)
            .tool(BuildTool)
            .tool(RebuildTool)
            .tasks(TaskSettings::default().max_tasks_per_subject(tasks))
            .build();
        let mut peer = Peer::new(&server);
        // The first calls grow what every later one reuses.
        for id in 0..10 {
            peer.exchange(call(id, "echo", json!({"text": "x"}), true))
                .await;
        }
        until_idle().await;
        let before = NET.with(Cell::get);
        for id in 0..tasks {
            let reply = peer
                .exchange(call(100 + id, tool, json!({"target": "x"}), true))
                .await;
            assert!(reply["result"]["taskId"].is_string(), "{reply}");
        }
        until_idle().await;
        let held = NET.with(Cell::get) - before;
        drop(peer);
        drop(server);
        held.max(0) as usize
    });
    held / tasks
}

#[test]
fn a_parked_resumable_task_keeps_its_record_and_not_its_handler() {
    let parked = held_per_parked_task("build", 1000);
    let resumable = held_per_parked_task("rebuild", 1000);
    eprintln!("per parked task: {parked} bytes; of a resumable tool: {resumable}");
    // The record (its question and its call as text), the store's map and
    // expiry entries and the set of sleeping tasks: 1,226 bytes when
    // written (1,788 while the store kept a sleeping task's watch channel).
    assert!(
        resumable <= 3 * KIB / 2,
        "a parked resumable task holds {resumable} bytes"
    );
    assert!(resumable * 3 < parked, "{resumable} against {parked}");
    // The handler's futures and its `Context`, the record and the store's
    // entries: 4,715 bytes when written, with the caller's capabilities
    // shared between requests (5,601 while each task kept its own copy).
    assert!(parked <= 5 * KIB, "a parked task holds {parked} bytes");
}
