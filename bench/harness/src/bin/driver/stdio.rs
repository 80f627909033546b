//! Figures over stdio: a server process per framework, and the floor,
//! fed JSON lines.
//!
//! Sequential latency writes one request and reads its answer before the
//! next. Throughput keeps 64 requests in flight: a writer sends while it
//! holds one of 64 permits, the reader gives a permit back per answer, and
//! the writer flushes only when it has to wait, so the server sees bursts
//! as a busy client would send them.
//!
//! Three workloads ([`Workload`]): `echo`, sequential and in flight, for
//! every framework and for presa's variants (a cost switched on,
//! [`PresaVariant`](bench_harness::PresaVariant)); `tools/list` and the
//! MRTR-shaped `tools/call ask`, in flight, for every framework and the
//! floor. The floor (`floor-server`) is started with presa's own answers
//! to those two requests, so that it writes the same bytes presa does.

use std::process::Stdio;
use std::time::Instant;

use bench_harness::figures::Figures;
use bench_harness::stats::{median, micros_per_op, ops_per_sec, rounds, scaled};
use bench_harness::wire::{Era, Workload, ask_call_body, handshake_bodies, request_state_of};
use bench_harness::{Served, not_started, sibling_binary};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::Semaphore;

/// Requests in flight for the throughput figures.
const IN_FLIGHT: usize = 64;

/// A server the stdio section measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Contender {
    /// A framework's benchmark server, or presa's with a cost switched on.
    Server(Served),
    /// The framework-free floor.
    Floor,
}

impl Contender {
    /// The name that starts its figure keys.
    fn name(self) -> &'static str {
        match self {
            Contender::Server(served) => served.name(),
            Contender::Floor => "floor",
        }
    }

    /// The revision it speaks; the floor answers stateless requests.
    fn era(self) -> Era {
        match self {
            Contender::Server(served) => served.framework().era(),
            Contender::Floor => Era::Stateless,
        }
    }

    /// Whether it is measured on `workload`: the floor has no `echo`,
    /// presa's variants are measured on `echo` alone, the workload whose
    /// cost the variants tell, and a peer is not measured on a workload its
    /// framework cannot serve ([`Framework::cannot`](bench_harness::Framework::cannot)).
    fn offers(self, workload: Workload) -> bool {
        match self {
            Contender::Server(Served::Framework(framework)) => framework.cannot(workload).is_none(),
            Contender::Server(Served::Presa(_)) => workload == Workload::Echo,
            Contender::Floor => workload != Workload::Echo,
        }
    }
}

/// One server process, the two ends of its stdio, and the `requestState`
/// it issued for `ask`.
struct StdioServer {
    contender: Contender,
    era: Era,
    child: Child,
    stdin: BufWriter<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    state: String,
}

impl StdioServer {
    /// Starts `served` on stdio, with the handshake of a session-based
    /// server.
    async fn start(served: Served) -> std::io::Result<StdioServer> {
        let command = Command::from(served.command("stdio"));
        let mut server = StdioServer::spawn(Contender::Server(served), command)?;
        if server.era == Era::Sessions {
            server.handshake().await?;
        }
        Ok(server)
    }

    /// Opens the session: `initialize`, its answer, then
    /// `notifications/initialized`, which has none.
    async fn handshake(&mut self) -> std::io::Result<()> {
        let [initialize, initialized] = handshake_bodies();
        let answer = self.exchange(&format!("{initialize}\n")).await?;
        if !answer.windows(8).any(|w| w == b"\"result\"") {
            let text = String::from_utf8_lossy(&answer);
            return Err(std::io::Error::other(format!("initialize failed: {text}")));
        }
        self.stdin.write_all(initialized.as_bytes()).await?;
        self.stdin.write_all(b"\n").await?;
        self.stdin.flush().await
    }

    /// Starts the floor, answering with `list` and `call` (result JSON).
    fn start_floor(list: &str, call: &str) -> std::io::Result<StdioServer> {
        let mut command = Command::new(sibling_binary("floor-server"));
        command.args([list, call]);
        StdioServer::spawn(Contender::Floor, command)
    }

    /// Runs `command` with piped stdio.
    fn spawn(contender: Contender, mut command: Command) -> std::io::Result<StdioServer> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| not_started(command.as_std().get_program(), e))?;
        let stdin = BufWriter::new(child.stdin.take().expect("piped stdin"));
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Ok(StdioServer {
            contender,
            era: contender.era(),
            child,
            stdin,
            stdout,
            next_id: 1,
            state: String::new(),
        })
    }

    /// Sends one request line and returns its answer line, unchecked.
    async fn exchange(&mut self, line: &str) -> std::io::Result<Vec<u8>> {
        self.stdin.write_all(line.as_bytes()).await?;
        self.stdin.flush().await?;
        let mut answer = Vec::new();
        if self.stdout.read_until(b'\n', &mut answer).await? == 0 {
            return Err(std::io::Error::other("the server closed stdout"));
        }
        Ok(answer)
    }

    /// Asks `ask` once without an answer and keeps the `requestState` of
    /// the `input_required` result, for the MRTR workload.
    async fn learn_request_state(&mut self) -> std::io::Result<()> {
        let mut line = ask_call_body(0, None);
        line.push('\n');
        let answer = self.exchange(&line).await?;
        self.state = request_state_of(&answer).ok_or_else(|| {
            let text = String::from_utf8_lossy(&answer);
            std::io::Error::other(format!("no requestState in {text}"))
        })?;
        Ok(())
    }

    /// The `result` of this server's answer to one `workload` request, as
    /// JSON text.
    async fn result_of(&mut self, workload: Workload) -> std::io::Result<String> {
        let answer = self
            .exchange(&workload.line(self.era, 0, &self.state))
            .await?;
        if !workload.is_success(&answer) {
            let text = String::from_utf8_lossy(&answer);
            return Err(std::io::Error::other(format!("not a success: {text}")));
        }
        let answer: serde_json::Value =
            serde_json::from_slice(&answer).map_err(std::io::Error::other)?;
        Ok(answer["result"].to_string())
    }

    /// `count` request lines of `workload` with fresh ids.
    fn requests(&mut self, workload: Workload, count: usize) -> Vec<String> {
        let first = self.next_id;
        self.next_id += count as u64;
        (first..self.next_id)
            .map(|id| workload.line(self.era, id, &self.state))
            .collect()
    }

    /// Sends `count` echo calls one at a time; microseconds per round trip.
    async fn sequential(&mut self, count: usize) -> std::io::Result<f64> {
        let lines = self.requests(Workload::Echo, count);
        let mut answer = Vec::with_capacity(512);
        let start = Instant::now();
        for line in &lines {
            self.stdin.write_all(line.as_bytes()).await?;
            self.stdin.flush().await?;
            read_answer(&mut self.stdout, &mut answer, Workload::Echo).await?;
        }
        Ok(micros_per_op(start.elapsed(), count))
    }

    /// Sends `count` requests of `workload` with [`IN_FLIGHT`] in flight;
    /// requests per second.
    async fn pipelined(&mut self, workload: Workload, count: usize) -> std::io::Result<f64> {
        let lines = self.requests(workload, count);
        let permits = Semaphore::new(IN_FLIGHT);
        let start = Instant::now();
        let write = write_windowed(&mut self.stdin, &lines, &permits);
        let read = read_answers(&mut self.stdout, count, &permits, workload);
        tokio::try_join!(write, read)?;
        Ok(ops_per_sec(start.elapsed(), count))
    }

    /// Closes stdin and waits for the server to end.
    async fn stop(mut self) -> std::io::Result<()> {
        self.stdin.shutdown().await?;
        drop(self.stdin);
        self.child.wait().await?;
        Ok(())
    }
}

/// Writes `lines`, each once a permit is free, flushing before waiting.
async fn write_windowed(
    stdin: &mut BufWriter<ChildStdin>,
    lines: &[String],
    permits: &Semaphore,
) -> std::io::Result<()> {
    for line in lines {
        match permits.try_acquire() {
            Ok(permit) => permit.forget(),
            Err(_) => {
                stdin.flush().await?;
                permits.acquire().await.expect("never closed").forget();
            }
        }
        stdin.write_all(line.as_bytes()).await?;
    }
    stdin.flush().await
}

/// Reads `count` answers, checking each and freeing a permit per answer.
async fn read_answers(
    stdout: &mut BufReader<ChildStdout>,
    count: usize,
    permits: &Semaphore,
    workload: Workload,
) -> std::io::Result<()> {
    let mut answer = Vec::with_capacity(512);
    for _ in 0..count {
        read_answer(stdout, &mut answer, workload).await?;
        permits.add_permits(1);
    }
    Ok(())
}

/// Reads one answer line into `buffer` and fails unless it is a success.
async fn read_answer(
    stdout: &mut BufReader<ChildStdout>,
    buffer: &mut Vec<u8>,
    workload: Workload,
) -> std::io::Result<()> {
    buffer.clear();
    if stdout.read_until(b'\n', buffer).await? == 0 {
        return Err(std::io::Error::other("the server closed stdout"));
    }
    if !workload.is_success(buffer) {
        let text = String::from_utf8_lossy(buffer);
        return Err(std::io::Error::other(format!("not a success: {text}")));
    }
    Ok(())
}

/// The samples of one server: echo latency, echo, list and MRTR rates.
#[derive(Default)]
struct Samples {
    seq: Vec<f64>,
    echo: Vec<f64>,
    list: Vec<f64>,
    mrtr: Vec<f64>,
}

/// Runs the stdio section: start every server (the floor with presa's
/// answers), warm each up, then alternating rounds.
pub async fn measure(figures: &mut Figures) -> std::io::Result<()> {
    let mut servers = Vec::new();
    // presa's plain server comes first: the floor answers with its bytes.
    for served in Served::available() {
        let mut server = StdioServer::start(served).await?;
        if server.contender.offers(Workload::Mrtr) {
            server.learn_request_state().await?;
        }
        servers.push(server);
    }
    let list = servers[0].result_of(Workload::List).await?;
    let call = servers[0].result_of(Workload::Mrtr).await?;
    servers.push(StdioServer::start_floor(&list, &call)?);
    for server in &mut servers {
        one_round(
            server,
            scaled(2_000),
            scaled(10_000),
            &mut Samples::default(),
        )
        .await?;
    }
    let (seq_calls, pipe_calls) = (scaled(3_000), scaled(20_000));
    let mut samples: Vec<Samples> = servers.iter().map(|_| Samples::default()).collect();
    for _ in 0..rounds(7) {
        for (server, samples) in servers.iter_mut().zip(&mut samples) {
            one_round(server, seq_calls, pipe_calls, samples).await?;
        }
    }
    for (server, samples) in servers.into_iter().zip(&samples) {
        record(figures, server.contender, samples);
        server.stop().await?;
    }
    Ok(())
}

/// One round on `server` of every workload it offers.
async fn one_round(
    server: &mut StdioServer,
    seq_calls: usize,
    pipe_calls: usize,
    samples: &mut Samples,
) -> std::io::Result<()> {
    let contender = server.contender;
    if contender.offers(Workload::Echo) {
        samples.seq.push(server.sequential(seq_calls).await?);
    }
    let piped = [
        (Workload::Echo, &mut samples.echo),
        (Workload::List, &mut samples.list),
        (Workload::Mrtr, &mut samples.mrtr),
    ];
    for (workload, kept) in piped {
        if contender.offers(workload) {
            kept.push(server.pipelined(workload, pipe_calls).await?);
        }
    }
    Ok(())
}

/// Records the medians of `samples` under `contender`'s keys. A workload
/// its framework cannot serve gets the reason as its figure; any other
/// workload it does not offer has no samples and no key.
fn record(figures: &mut Figures, contender: Contender, samples: &Samples) {
    let name = contender.name();
    if let Contender::Server(Served::Framework(framework)) = contender {
        let workloads = [
            (Workload::Echo, "stdio_seq_us"),
            (Workload::Echo, "stdio_calls_per_s"),
            (Workload::List, "stdio_list_per_s"),
            (Workload::Mrtr, "stdio_mrtr_per_s"),
        ];
        for (workload, key) in workloads {
            if let Some(why) = framework.cannot(workload) {
                figures.record_why(&format!("{name}_{key}"), why);
            }
        }
    }
    let rows = [
        (
            &samples.seq,
            "stdio_seq_us",
            "stdio sequential tools/call echo, µs",
        ),
        (
            &samples.echo,
            "stdio_calls_per_s",
            "stdio throughput, echo, 64 in flight, calls/s",
        ),
        (
            &samples.list,
            "stdio_list_per_s",
            "stdio throughput, tools/list, 64 in flight, /s",
        ),
        (
            &samples.mrtr,
            "stdio_mrtr_per_s",
            "stdio throughput, MRTR tools/call, 64 in flight, /s",
        ),
    ];
    for (values, key, label) in rows {
        if !values.is_empty() {
            figures.record(
                &format!("{name}_{key}"),
                &format!("{name}: {label}"),
                median(values),
            );
        }
    }
}
