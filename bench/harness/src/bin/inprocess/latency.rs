//! Sequential `tools/call echo` latency in process, and the floor it is
//! measured against.
//!
//! The floor is what any in-process call must cost without a framework:
//! serde_json encodes the request, it crosses a tokio mpsc channel to a
//! task that decodes it, encodes the answer and sends it back on another,
//! and the caller decodes the answer, with the same bytes the stdio driver
//! sends and a framework-free answer to them. That is one hop each way: a
//! caller cannot learn an answer without one. The codec alone, without the
//! channel, is reported too.

use std::time::Instant;

use bench_harness::figures::Figures;
use bench_harness::stats::{median, micros_per_op, rounds, scaled, time_sequential};
use bench_harness::wire::{echo_call_body, echo_response_body};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::clients::{Link, presa_echo, presa_pair, rmcp_echo, rmcp_pair};

/// The four in-process setups, in measuring order: (figure key, label).
const SETUPS: [(&str, &str); 4] = [
    (
        "presa_inprocess_seq_us",
        "presa: in-process sequential call, µs",
    ),
    (
        "rmcp_inprocess_seq_us",
        "rmcp: in-process sequential call (typed channels), µs",
    ),
    (
        "presa_duplex_seq_us",
        "presa: duplex pipe sequential call, µs",
    ),
    (
        "rmcp_duplex_seq_us",
        "rmcp: duplex pipe sequential call, µs",
    ),
];

/// Runs the latency section: warm-up, then alternating rounds of the four
/// setups and the floor.
pub async fn measure(figures: &mut Figures) {
    let presa = [
        presa_pair(Link::InProcess, false),
        presa_pair(Link::Duplex, false),
    ];
    let rmcp = [
        rmcp_pair(Link::InProcess, false).await,
        rmcp_pair(Link::Duplex, false).await,
    ];
    let calls = scaled(5_000);
    let mut samples: [Vec<f64>; 4] = Default::default();
    let (mut floor, mut codec) = (Vec::new(), Vec::new());
    for round in 0..=rounds(7) {
        let round_samples = [
            time_sequential(calls, || presa_echo(&presa[0])).await,
            time_sequential(calls, || rmcp_echo(&rmcp[0])).await,
            time_sequential(calls, || presa_echo(&presa[1])).await,
            time_sequential(calls, || rmcp_echo(&rmcp[1])).await,
        ];
        let (floor_us, codec_us) = (floor_round(calls * 4).await, codec_round(calls * 4));
        // Round 0 warms up caches, allocators and the runtime's threads.
        if round > 0 {
            for (all, sample) in samples.iter_mut().zip(round_samples) {
                all.push(sample);
            }
            floor.push(floor_us);
            codec.push(codec_us);
        }
    }
    for ((key, label), all) in SETUPS.iter().zip(&samples) {
        figures.record(key, label, median(all));
    }
    let label = "floor: serde_json both ways + mpsc round trip, µs";
    figures.record("floor_us", label, median(&floor));
    let label = "floor without the channel (serde_json only), µs";
    figures.record("floor_codec_only_us", label, median(&codec));
}

/// The floor with a channel: `calls` sequential round trips to a task
/// that decodes and answers; microseconds each.
async fn floor_round(calls: usize) -> f64 {
    let request: Value = serde_json::from_str(&echo_call_body(1)).expect("valid JSON");
    let answer: Value = serde_json::from_str(&echo_response_body(1)).expect("valid JSON");
    let (to_server, mut requests) = mpsc::channel::<String>(1);
    let (to_client, mut answers) = mpsc::channel::<String>(1);
    let server = tokio::spawn(async move {
        while let Some(line) = requests.recv().await {
            let decoded: Value = serde_json::from_str(&line).expect("valid JSON");
            std::hint::black_box(decoded);
            let encoded = serde_json::to_string(&answer).expect("encodable");
            if to_client.send(encoded).await.is_err() {
                break;
            }
        }
    });
    let start = Instant::now();
    for _ in 0..calls {
        let encoded = serde_json::to_string(&request).expect("encodable");
        to_server.send(encoded).await.expect("server running");
        let line = answers.recv().await.expect("an answer");
        let decoded: Value = serde_json::from_str(&line).expect("valid JSON");
        std::hint::black_box(decoded);
    }
    let elapsed = start.elapsed();
    drop(to_server);
    server.await.expect("the floor's server ends");
    micros_per_op(elapsed, calls)
}

/// The codec alone: encode and decode request and answer, `calls` times;
/// microseconds each.
fn codec_round(calls: usize) -> f64 {
    let request: Value = serde_json::from_str(&echo_call_body(1)).expect("valid JSON");
    let answer: Value = serde_json::from_str(&echo_response_body(1)).expect("valid JSON");
    let start = Instant::now();
    for _ in 0..calls {
        for message in [&request, &answer] {
            let encoded = serde_json::to_string(message).expect("encodable");
            let decoded: Value = serde_json::from_str(&encoded).expect("valid JSON");
            std::hint::black_box(decoded);
        }
    }
    micros_per_op(start.elapsed(), calls)
}

/// presa's in-process sequential call alone, `BENCH_SCALE`-scaled 200k
/// calls, for a profiler (`inprocess profile-presa`): no other framework's
/// frames in the profile.
pub async fn presa_only(figures: &mut Figures) {
    let client = presa_pair(Link::InProcess, false);
    let calls = scaled(200_000);
    let us = time_sequential(calls, || presa_echo(&client)).await;
    figures.record("presa_inprocess_seq_us", SETUPS[0].1, us);
}
