//! The `dispatch` harness: one input is what a client writes on one
//! connection, byte for byte.
//!
//! The bytes go through the same path as a stdio server's input:
//! `transport::byte_stream`'s newline framing (line limit, non-UTF-8 and
//! oversized lines), then `server::serve`'s connection loop (parsing,
//! backlog, cancellation, the close and its drain), then the server core
//! (validation, tools, MRTR and `requestState`, tasks, prompts, resources,
//! completion, subscriptions) in either era: modern requests, or a legacy
//! session that an `initialize` opens, with its own requests (`ping`,
//! `logging/setLevel`, `resources/subscribe`, 2025-11-25 tasks) and the
//! requests the server sends the client in it. The client's side is then
//! closed, and everything the server writes is read until it ends.
//!
//! # Placeholders
//!
//! A fuzzer cannot guess a task id, forge a signed `requestState`, or know
//! the id of a request the server sends, so a line holding one of these
//! is sent once the server is idle, with the placeholder replaced:
//!
//! - `@TASK@` by the latest task id the server gave (modern or legacy);
//! - `@STATE@` by the latest `requestState` it issued;
//! - `@REQUEST@` by the id of the oldest request of the server's that no
//!   `@REQUEST@` has stood for yet, so that successive lines answer the
//!   server's questions in turn, with a result, an error, or anything
//!   else; a question no line answers is never answered.
//!
//! A blank line, which the server skips, makes the client wait until the
//! server is idle before it writes on: without one, the client writes
//! everything at once and closes, and a `subscriptions/listen` stream may
//! be cut before it says anything. Sequences and races are both inputs.
//!
//! # Time and state
//!
//! Tokio's clock is paused, so the connection's drain period, task TTLs
//! and the sweeper run instantly, in virtual time, whenever everything
//! else is idle. The runtime (current-thread) is built once per process; a
//! server is built per input, and each input ends only when every tokio
//! task it started is gone, so no input leaves state behind for the next
//! and every crash reproduces from its input alone. Set
//! `PRESA_FUZZ_SHARED_SERVER=1` to reuse one server instead (faster, but a
//! crash may then depend on the inputs before it).
//!
//! # What counts as a crash
//!
//! Any panic, in the harness or in a tokio task of the runtime (libFuzzer's
//! panic hook aborts on all of them), and these checks:
//!
//! - every line the server writes is a JSON-RPC message that keeps the
//!   rules of its era ([`era`]), placed in its era as [`conversation`]
//!   says: a modern result has a `resultType`; a legacy message has the
//!   2025-11-25 shape of its method, and nothing of the modern era's; the
//!   server sends requests only in a legacy session, and only those the
//!   client declared it answers; a result answers a request the client
//!   sent;
//! - the server ends within a day of virtual time after the client closed
//!   its side (the drain period is 30 s), instead of hanging;
//! - once the server has ended and the TTLs have passed, no tokio task is
//!   left, and nothing is still charged to the server's memory budget.
//!
//! Set `PRESA_FUZZ_TRACE=1` to print every line each way on stderr.

mod conversation;
mod era;
mod server;

pub use server::server;

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use presa::prelude::*;
use presa::server::serve;
use presa::transport::byte_stream;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::runtime::Runtime;

use conversation::Conversation;
use server::{SWEEP, TASK_TTL};

/// The key that signs `requestState`, fixed so that the seeds can hold
/// states the server accepts.
pub const REQUEST_STATE_KEY: [u8; 32] = *b"presa-fuzz/request-state-key/v1!";

/// How long a `requestState` stays valid: long enough for a seed's.
pub const REQUEST_STATE_TTL: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// The transport's line limit, and the server's smaller message limit: an
/// input can exceed either.
pub const TRANSPORT_LIMIT: usize = 2048;
/// See [`TRANSPORT_LIMIT`].
pub const MESSAGE_LIMIT: usize = 1024;

/// Stands for the latest task id the server gave.
pub const TASK_PLACEHOLDER: &[u8] = b"@TASK@";
/// Stands for the latest `requestState` the server issued.
pub const STATE_PLACEHOLDER: &[u8] = b"@STATE@";
/// Stands for the oldest request of the server's not yet stood for.
pub const REQUEST_PLACEHOLDER: &[u8] = b"@REQUEST@";

/// What a blank line or a placeholder waits, in virtual time: enough for
/// the server to go idle, since paused time only moves then.
const IDLE: Duration = Duration::from_millis(1);

/// The virtual time an input may take before it counts as a hang.
const GUARD: Duration = Duration::from_secs(24 * 3600);

static RUNTIME: LazyLock<Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("a current-thread runtime builds")
});

static SHARED: LazyLock<Option<Server>> = LazyLock::new(|| {
    std::env::var_os("PRESA_FUZZ_SHARED_SERVER")
        .is_some_and(|v| v != "0")
        .then(server)
});

static TRACE: LazyLock<bool> =
    LazyLock::new(|| std::env::var_os("PRESA_FUZZ_TRACE").is_some_and(|v| v != "0"));

/// Runs one input; panics on a finding.
pub fn run(input: &[u8]) {
    RUNTIME.block_on(async {
        let server = SHARED.clone().unwrap_or_else(server);
        let shared = SHARED.is_some();
        let budget = presa_runtime::__fuzz::BudgetProbe::of(&server);
        match tokio::time::timeout(GUARD, exchange(server, input)).await {
            Ok(()) => {}
            Err(_) => panic!(
                "the server did not end within {GUARD:?} (virtual) of the client closing the connection"
            ),
        }
        // A shared server keeps its task sweeper.
        settle(usize::from(shared)).await;
        let held = budget.in_use();
        assert_eq!(
            held, 0,
            "{held} bytes still charged to the memory budget after the connection and every task ended"
        );
    });
}

/// Lets virtual time run until no more than `allowed` tokio tasks are left
/// (task runners end at their TTL, the sweeper once its store is gone).
async fn settle(allowed: usize) {
    let metrics = tokio::runtime::Handle::current().metrics();
    for _ in 0..8 {
        if metrics.num_alive_tasks() <= allowed {
            return;
        }
        tokio::time::sleep(TASK_TTL + SWEEP).await;
    }
    let left = metrics.num_alive_tasks();
    assert!(
        left <= allowed,
        "{left} tokio tasks still alive long after the connection and every task TTL ended"
    );
}

async fn exchange(server: Server, input: &[u8]) {
    let (client, server_io) = tokio::io::duplex(64 * 1024);
    let (sr, sw) = tokio::io::split(server_io);
    let channel = byte_stream(sr, sw, TRANSPORT_LIMIT);
    let serving = tokio::spawn(serve(server, channel, Caller::anonymous()));

    let (cr, mut cw) = tokio::io::split(client);
    let conversation = Arc::new(Conversation::default());
    let reader = tokio::spawn(read_output(cr, Arc::clone(&conversation)));

    for line in input.split_inclusive(|&b| b == b'\n') {
        let mut line = line.to_vec();
        if conversation::holds_placeholder(&line) {
            // Once the server is idle, what it has written has been read.
            tokio::time::sleep(IDLE).await;
            conversation.fill(&mut line);
        }
        if *TRACE {
            eprintln!(">> {}", String::from_utf8_lossy(&line).trim_end());
        }
        conversation.client_line(&line);
        if cw.write_all(&line).await.is_err() {
            break;
        }
        if line == b"\n" {
            // A blank line (which the server skips) waits until the server
            // is idle: then the clock moves, to this timer or an earlier one.
            tokio::time::sleep(IDLE).await;
        }
    }
    // End of input: the server sees the client close its side.
    let _ = cw.shutdown().await;
    reader.await.expect("the reader does not panic");
    serving.await.expect("serve does not panic");
}

/// Reads the server's output to its end, checking every line against the
/// conversation so far.
async fn read_output(output: impl AsyncRead + Unpin, conversation: Arc<Conversation>) {
    let mut output = BufReader::new(output);
    let mut line = Vec::new();
    loop {
        line.clear();
        match output.read_until(b'\n', &mut line).await {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) => panic!("reading the server's output failed: {e}"),
        }
        let text = std::str::from_utf8(&line).expect("the server writes UTF-8");
        if *TRACE {
            eprintln!("<< {}", text.trim_end());
        }
        let text = text
            .strip_suffix('\n')
            .expect("the server ends every message with a newline");
        conversation.server_line(text);
    }
}
