//! Figures over stdio: a server process per framework, fed JSON lines.
//!
//! Sequential latency writes one request and reads its answer before the
//! next. Throughput keeps 64 requests in flight: a writer sends while it
//! holds one of 64 permits, the reader gives a permit back per answer, and
//! the writer flushes only when it has to wait, so the server sees bursts
//! as a busy client would send them.

use std::process::Stdio;
use std::time::Instant;

use bench_harness::Framework;
use bench_harness::figures::Figures;
use bench_harness::stats::{median, micros_per_op, ops_per_sec, rounds, scaled};
use bench_harness::wire::{echo_call_line, is_success};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::Semaphore;

/// Requests in flight for the throughput figure.
const IN_FLIGHT: usize = 64;

/// One server process and the two ends of its stdio.
struct StdioServer {
    child: Child,
    stdin: BufWriter<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl StdioServer {
    /// Starts `framework`'s server on stdio.
    fn start(framework: Framework) -> std::io::Result<StdioServer> {
        let mut child = Command::new(framework.server_binary())
            .arg("stdio")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let stdin = BufWriter::new(child.stdin.take().expect("piped stdin"));
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Ok(StdioServer {
            child,
            stdin,
            stdout,
            next_id: 1,
        })
    }

    /// `count` request lines with fresh ids.
    fn requests(&mut self, count: usize) -> Vec<String> {
        let first = self.next_id;
        self.next_id += count as u64;
        (first..self.next_id).map(echo_call_line).collect()
    }

    /// Sends `count` requests one at a time; microseconds per round trip.
    async fn sequential(&mut self, count: usize) -> std::io::Result<f64> {
        let lines = self.requests(count);
        let mut answer = Vec::with_capacity(512);
        let start = Instant::now();
        for line in &lines {
            self.stdin.write_all(line.as_bytes()).await?;
            self.stdin.flush().await?;
            read_answer(&mut self.stdout, &mut answer).await?;
        }
        Ok(micros_per_op(start.elapsed(), count))
    }

    /// Sends `count` requests with [`IN_FLIGHT`] in flight; calls per second.
    async fn pipelined(&mut self, count: usize) -> std::io::Result<f64> {
        let lines = self.requests(count);
        let permits = Semaphore::new(IN_FLIGHT);
        let start = Instant::now();
        let write = write_windowed(&mut self.stdin, &lines, &permits);
        let read = read_answers(&mut self.stdout, count, &permits);
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
) -> std::io::Result<()> {
    let mut answer = Vec::with_capacity(512);
    for _ in 0..count {
        read_answer(stdout, &mut answer).await?;
        permits.add_permits(1);
    }
    Ok(())
}

/// Reads one answer line into `buffer` and fails unless it is a success.
async fn read_answer(
    stdout: &mut BufReader<ChildStdout>,
    buffer: &mut Vec<u8>,
) -> std::io::Result<()> {
    buffer.clear();
    if stdout.read_until(b'\n', buffer).await? == 0 {
        return Err(std::io::Error::other("the server closed stdout"));
    }
    if !is_success(buffer) {
        let text = String::from_utf8_lossy(buffer);
        return Err(std::io::Error::other(format!("not a success: {text}")));
    }
    Ok(())
}

/// Runs the stdio section: warm-up, then alternating rounds.
pub async fn measure(figures: &mut Figures) -> std::io::Result<()> {
    let mut servers = Vec::new();
    for framework in Framework::BOTH {
        let mut server = StdioServer::start(framework)?;
        server.sequential(scaled(2_000)).await?;
        server.pipelined(scaled(10_000)).await?;
        servers.push((framework, server));
    }
    let (seq_calls, pipe_calls) = (scaled(3_000), scaled(20_000));
    let mut seq = [Vec::new(), Vec::new()];
    let mut pipe = [Vec::new(), Vec::new()];
    for _ in 0..rounds(7) {
        for (i, (_, server)) in servers.iter_mut().enumerate() {
            seq[i].push(server.sequential(seq_calls).await?);
            pipe[i].push(server.pipelined(pipe_calls).await?);
        }
    }
    for (i, (framework, server)) in servers.into_iter().enumerate() {
        let name = framework.name();
        let label = format!("{name}: stdio sequential tools/call echo, µs");
        figures.record(&format!("{name}_stdio_seq_us"), &label, median(&seq[i]));
        let label = format!("{name}: stdio throughput, {IN_FLIGHT} in flight, calls/s");
        figures.record(
            &format!("{name}_stdio_calls_per_s"),
            &label,
            median(&pipe[i]),
        );
        server.stop().await?;
    }
    Ok(())
}
