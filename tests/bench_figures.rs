//! The benchmark figures in `README.md` and `docs/benchmarks.md` come from
//! one file: `bench/results/latest.json`, which `scripts/bench.sh` writes
//! after a full run. This test keeps the documents and that file in step.
//!
//! Rules, in order:
//!
//! 1. Every figure a document quotes sits in a block that starts with
//!    `<!-- bench-figures: NAME -->` and ends with
//!    `<!-- /bench-figures: NAME -->`. No figure of a run is typed by hand
//!    outside a block.
//! 2. This test renders each block from the results file. The block in
//!    the document must hold exactly that text, so a figure cannot drift
//!    from the run it came from.
//! 3. A figure a block needs must be in the results file as a number. A
//!    missing or `null` figure fails the test and names its key.
//! 4. After a new run, write the blocks with
//!    `BENCH_FIGURES=write cargo test --test bench_figures`, then commit
//!    the results file and the documents together. `scripts/bench.sh`
//!    does this for you after a full run.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use serde_json::{Map, Value};

/// The results file, relative to the repository's root.
const RESULTS: &str = "bench/results/latest.json";

/// One run's results: what ran, and every figure it measured.
struct Results {
    run: Map<String, Value>,
    figures: Map<String, Value>,
}

impl Results {
    fn read(root: &Path) -> Results {
        let text = fs::read_to_string(root.join(RESULTS))
            .unwrap_or_else(|error| panic!("cannot read {RESULTS}: {error}"));
        let json: Value = serde_json::from_str(&text)
            .unwrap_or_else(|error| panic!("{RESULTS} is not JSON: {error}"));
        let object = |name: &str| {
            json.get(name)
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_else(|| panic!("{RESULTS} has no `{name}` object"))
        };
        Results {
            run: object("run"),
            figures: object("figures"),
        }
    }

    /// The figure `key`. Panics with the key's name if the run did not
    /// measure it (rule 3).
    fn get(&self, key: &str) -> f64 {
        self.figures
            .get(key)
            .and_then(Value::as_f64)
            .unwrap_or_else(|| panic!("{RESULTS} has no number for the figure `{key}`"))
    }

    /// The figure `key`, or why it cannot be measured: the reason a peer
    /// that cannot serve a workload has in place of the number. Panics
    /// with the key's name if the run has neither (rule 3).
    fn figure(&self, key: &str) -> Result<f64, String> {
        match self.figures.get(key) {
            Some(Value::String(why)) => Err(why.clone()),
            _ => Ok(self.get(key)),
        }
    }

    /// A text field of the `run` object.
    fn run_text(&self, key: &str) -> String {
        match self.run.get(key) {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Number(number)) => number.to_string(),
            _ => panic!("{RESULTS} has no `run.{key}`"),
        }
    }
}

/// `value` rounded to a whole number, with a comma every three digits.
fn whole(value: f64) -> String {
    let digits = format!("{:.0}", value.round());
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// A time in microseconds: two decimals below 1 µs, one below 100 µs,
/// none above.
fn micros(value: f64) -> String {
    if value < 1.0 {
        format!("{value:.2} µs")
    } else if value < 100.0 {
        format!("{value:.1} µs")
    } else {
        format!("{} µs", whole(value))
    }
}

fn rate(value: f64, unit: &str) -> String {
    format!("{} {unit}", whole(value))
}

fn bytes(value: f64) -> String {
    format!("{} B", whole(value))
}

fn ratio(value: f64) -> String {
    format!("{value:.2}")
}

fn times(value: f64) -> String {
    format!("{value:.2}×")
}

/// A share as a percentage: one decimal below 10 %, none above.
fn percent(value: f64) -> String {
    let hundred = value * 100.0;
    if hundred < 10.0 {
        format!("{hundred:.1} %")
    } else {
        format!("{hundred:.0} %")
    }
}

/// A figure's target, as `report` holds it.
#[derive(Clone, Copy)]
enum Target {
    AtLeast(f64),
    AtMost(f64),
}

impl Target {
    fn holds(self, value: f64) -> bool {
        match self {
            Target::AtLeast(bound) => value >= bound,
            Target::AtMost(bound) => value <= bound,
        }
    }

    fn verdict(self, value: f64) -> String {
        let (sign, bound) = match self {
            Target::AtLeast(bound) => ("≥", bound),
            Target::AtMost(bound) => ("≤", bound),
        };
        let word = if self.holds(value) { "holds" } else { "misses" };
        format!("{sign} {bound}: {word}")
    }
}

/// The peers, by the name that starts their keys and the name a reader
/// knows them by.
const PEERS: [(&str, &str); 5] = [
    ("rmcp", "rmcp 3.11"),
    ("tower_mcp", "tower-mcp 0.25"),
    ("turbomcp", "turbomcp 4.0.0-alpha.5"),
    ("pmcp", "pmcp 2.23"),
    ("rust_mcp_sdk", "rust-mcp-sdk 2.0"),
];

/// The targets `report` checks, by the key of their figure: the ratios
/// against each peer first, then the others.
fn targets() -> Vec<(String, Target)> {
    let mut all = Vec::new();
    for (peer, _) in PEERS {
        let throughput = if peer == "rmcp" { 2.0 } else { 1.5 };
        all.extend([
            (
                format!("stdio_throughput_ratio_vs_{peer}"),
                Target::AtLeast(throughput),
            ),
            (
                format!("http_throughput_ratio_vs_{peer}"),
                Target::AtLeast(throughput),
            ),
            (
                format!("seq_latency_ratio_vs_{peer}_stdio"),
                Target::AtMost(0.8),
            ),
            (
                format!("seq_latency_ratio_vs_{peer}_http"),
                Target::AtMost(0.8),
            ),
        ]);
    }
    let others = [
        ("stdio_floor_over_presa_list", Target::AtMost(3.0)),
        ("stdio_floor_over_presa_mrtr", Target::AtMost(2.0)),
        ("seq_latency_ratio_vs_rmcp_duplex", Target::AtMost(0.8)),
        ("poll_completion_ratio_vs_rmcp", Target::AtMost(1.0)),
        ("listen_completion_ms_inprocess", Target::AtMost(0.1)),
        ("tasks_get_100k_over_1k", Target::AtMost(1.5)),
        ("bytes_per_finished_task", Target::AtMost(1024.0)),
        ("bytes_per_idle_task", Target::AtMost(4096.0)),
        ("bytes_per_parked_resumable_task", Target::AtMost(1024.0)),
        ("compile_clean_ratio_vs_rmcp", Target::AtMost(1.1)),
        ("compile_incremental_ratio_vs_rmcp", Target::AtMost(1.0)),
        ("redis_task_call_us", Target::AtMost(600.0)),
    ];
    all.extend(others.map(|(key, target)| (key.to_owned(), target)));
    all
}

fn target(key: &str) -> Target {
    targets()
        .into_iter()
        .find(|(name, _)| name == key)
        .map(|(_, target)| target)
        .unwrap_or_else(|| panic!("no target for `{key}`"))
}

/// `value`'s verdict against the target of `key`.
fn verdict(results: &Results, key: &str) -> String {
    target(key).verdict(results.get(key))
}

/// One markdown table row.
fn row(cells: &[String]) -> String {
    format!("| {} |\n", cells.join(" | "))
}

/// The README's table: presa against rmcp.
fn readme_block(r: &Results) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "`scripts/bench.sh` measured these on {date}: one run of release \
         builds on {machine}. [docs/benchmarks.md](docs/benchmarks.md#the-latest-run) \
         has every figure of the run, including four more Rust \
         frameworks and a framework-free floor. The figures come from \
         [{RESULTS}]({RESULTS}), which the script writes.",
        date = r.run_text("date"),
        machine = r.run_text("machine"),
    )
    .unwrap();
    out.push('\n');
    out.push_str("| figure | presa | rmcp 3.11 | presa / rmcp |\n|---|---|---|---|\n");
    let mut add = |label: &str, presa: String, rmcp: String, ratio: String| {
        out.push_str(&row(&[label.to_owned(), presa, rmcp, ratio]));
    };
    add(
        "stdio throughput, 64 calls in flight",
        rate(r.get("presa_stdio_calls_per_s"), "calls/s"),
        rate(r.get("rmcp_stdio_calls_per_s"), "calls/s"),
        times(r.get("stdio_throughput_ratio_vs_rmcp")),
    );
    add(
        "Streamable HTTP throughput, 64 connections",
        rate(r.get("presa_http_calls_per_s"), "calls/s"),
        rate(r.get("rmcp_http_calls_per_s"), "calls/s"),
        times(r.get("http_throughput_ratio_vs_rmcp")),
    );
    add(
        "Streamable HTTP, the server's CPU time per call",
        micros(r.get("presa_http_server_cpu_us")),
        micros(r.get("rmcp_http_server_cpu_us")),
        ratio(r.get("http_server_cpu_ratio_vs_rmcp")),
    );
    add(
        "stdio, one call at a time, latency",
        micros(r.get("presa_stdio_seq_us")),
        micros(r.get("rmcp_stdio_seq_us")),
        ratio(r.get("seq_latency_ratio_vs_rmcp_stdio")),
    );
    add(
        "one call at a time over an in-memory byte pipe, latency",
        micros(r.get("presa_duplex_seq_us")),
        micros(r.get("rmcp_duplex_seq_us")),
        ratio(r.get("seq_latency_ratio_vs_rmcp_duplex")),
    );
    add(
        "task to `completed`, polling `tasks/get`",
        micros(r.get("presa_poll_completion_us")),
        micros(r.get("rmcp_poll_completion_us")),
        ratio(r.get("poll_completion_ratio_vs_rmcp")),
    );
    add(
        "memory per finished task",
        bytes(r.get("presa_bytes_per_finished_task")),
        bytes(r.get("rmcp_bytes_per_finished_task")),
        ratio(r.get("presa_bytes_per_finished_task") / r.get("rmcp_bytes_per_finished_task")),
    );
    add(
        "memory per task waiting for input",
        bytes(r.get("presa_bytes_per_parked_task")),
        bytes(r.get("rmcp_bytes_per_parked_task")),
        ratio(r.get("presa_bytes_per_parked_task") / r.get("rmcp_bytes_per_parked_task")),
    );
    add(
        "clean debug build of a 20-tool stdio server",
        seconds(r.get("presa_compile_clean_ms"), 1),
        seconds(r.get("rmcp_compile_clean_ms"), 1),
        ratio(r.get("compile_clean_ratio_vs_rmcp")),
    );
    add(
        "rebuild after you edit one tool",
        seconds(r.get("presa_compile_incremental_ms"), 2),
        seconds(r.get("rmcp_compile_incremental_ms"), 2),
        ratio(r.get("compile_incremental_ratio_vs_rmcp")),
    );
    out
}

/// The README's Getting started: what the stdio-only feature set costs
/// to build.
fn build_block(r: &Results) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "On {machine}, a clean debug build of a stdio-only server with 20 \
         tools compiles {crates} crates and takes {clean}. A rebuild after \
         you edit one tool takes {rebuild}. `scripts/bench.sh` measured \
         this on {date}; [docs/benchmarks.md](docs/benchmarks.md#the-latest-run) \
         has the method.",
        machine = r.run_text("machine"),
        crates = whole(r.get("presa_compile_crates")),
        clean = seconds(r.get("presa_compile_clean_ms"), 1),
        rebuild = seconds(r.get("presa_compile_incremental_ms"), 2),
        date = r.run_text("date"),
    )
    .unwrap();
    out
}

/// Milliseconds shown as seconds with `decimals` decimals.
fn seconds(millis: f64, decimals: usize) -> String {
    format!("{:.*} s", decimals, millis / 1000.0)
}

/// The first lines of docs/benchmarks.md's latest run: which run it was.
fn run_block(r: &Results) -> String {
    let targets = targets();
    let measured: Vec<_> = targets
        .iter()
        .filter_map(|(key, target)| Some((r.figure(key).ok()?, target)))
        .collect();
    let held = measured
        .iter()
        .filter(|(value, target)| target.holds(*value))
        .count();
    let cannot = match targets.len() - measured.len() {
        0 => String::new(),
        1 => " One more cannot be measured: its peer cannot serve the workload.".to_owned(),
        n => format!(" {n} more cannot be measured: their peers cannot serve the workload."),
    };
    format!(
        "Date: {date}. Code: commit `{commit}`. Machine: {machine}. \
         Build profile: `{profile}`. The sections took {seconds} s. \
         {held} of the {total} measured targets hold.{cannot}\n",
        date = r.run_text("date"),
        commit = &r.run_text("commit")[..7],
        machine = r.run_text("machine"),
        profile = r.run_text("profile"),
        seconds = r.run_text("seconds"),
        total = measured.len(),
    )
}

/// docs/benchmarks.md: presa against rmcp, with the targets.
fn rmcp_block(r: &Results) -> String {
    let mut out =
        String::from("| figure | presa | rmcp | presa / rmcp | target |\n|---|---|---|---|---|\n");
    let mut add = |cells: [String; 5]| out.push_str(&row(&cells));
    add([
        "stdio throughput, `echo`, 64 calls in flight".into(),
        rate(r.get("presa_stdio_calls_per_s"), "calls/s"),
        rate(r.get("rmcp_stdio_calls_per_s"), "calls/s"),
        times(r.get("stdio_throughput_ratio_vs_rmcp")),
        verdict(r, "stdio_throughput_ratio_vs_rmcp"),
    ]);
    add([
        "HTTP throughput, 64 connections".into(),
        rate(r.get("presa_http_calls_per_s"), "calls/s"),
        rate(r.get("rmcp_http_calls_per_s"), "calls/s"),
        times(r.get("http_throughput_ratio_vs_rmcp")),
        verdict(r, "http_throughput_ratio_vs_rmcp"),
    ]);
    add([
        "HTTP, the server's CPU time per call".into(),
        micros(r.get("presa_http_server_cpu_us")),
        micros(r.get("rmcp_http_server_cpu_us")),
        ratio(r.get("http_server_cpu_ratio_vs_rmcp")),
        String::new(),
    ]);
    add([
        "HTTP, the driver's CPU time per call".into(),
        micros(r.get("presa_http_driver_cpu_us")),
        micros(r.get("rmcp_http_driver_cpu_us")),
        String::new(),
        String::new(),
    ]);
    add([
        "stdio, one `tools/call` at a time, latency".into(),
        micros(r.get("presa_stdio_seq_us")),
        micros(r.get("rmcp_stdio_seq_us")),
        ratio(r.get("seq_latency_ratio_vs_rmcp_stdio")),
        verdict(r, "seq_latency_ratio_vs_rmcp_stdio"),
    ]);
    add([
        "the same over a `tokio::io::duplex` pipe, both with JSON".into(),
        micros(r.get("presa_duplex_seq_us")),
        micros(r.get("rmcp_duplex_seq_us")),
        ratio(r.get("seq_latency_ratio_vs_rmcp_duplex")),
        verdict(r, "seq_latency_ratio_vs_rmcp_duplex"),
    ]);
    add([
        "in process, one call at a time (rmcp: typed channels, no JSON)".into(),
        micros(r.get("presa_inprocess_seq_us")),
        micros(r.get("rmcp_inprocess_seq_us")),
        ratio(r.get("seq_latency_ratio_vs_rmcp_inprocess")),
        String::new(),
    ]);
    add([
        "task to `completed`, polling `tasks/get`".into(),
        micros(r.get("presa_poll_completion_us")),
        micros(r.get("rmcp_poll_completion_us")),
        ratio(r.get("poll_completion_ratio_vs_rmcp")),
        verdict(r, "poll_completion_ratio_vs_rmcp"),
    ]);
    add([
        "task to `completed`, `subscriptions/listen` (target in ms)".into(),
        micros(r.get("presa_listen_completion_us")),
        "not offered".into(),
        String::new(),
        verdict(r, "listen_completion_ms_inprocess"),
    ]);
    add([
        "`tasks/get` with 1k and 100k live tasks, finished".into(),
        format!(
            "{} and {}",
            micros(r.get("presa_finished_tasks_get_1k_us")),
            micros(r.get("presa_finished_tasks_get_100k_us"))
        ),
        format!(
            "{} at 1k, {} at 10k",
            micros(r.get("rmcp_finished_tasks_get_1k_us")),
            micros(r.get("rmcp_finished_tasks_get_10k_us"))
        ),
        String::new(),
        String::new(),
    ]);
    add([
        "the same, tasks waiting for input".into(),
        format!(
            "{} and {}",
            micros(r.get("presa_parked_tasks_get_1k_us")),
            micros(r.get("presa_parked_tasks_get_100k_us"))
        ),
        String::new(),
        String::new(),
        String::new(),
    ]);
    add([
        "`tasks/get`, 100k over 1k, the worse of the two".into(),
        ratio(r.get("tasks_get_100k_over_1k")),
        String::new(),
        String::new(),
        verdict(r, "tasks_get_100k_over_1k"),
    ]);
    add([
        "resident memory per finished task (presa at 100k, rmcp at 10k)".into(),
        bytes(r.get("presa_bytes_per_finished_task")),
        bytes(r.get("rmcp_bytes_per_finished_task")),
        ratio(r.get("presa_bytes_per_finished_task") / r.get("rmcp_bytes_per_finished_task")),
        verdict(r, "bytes_per_finished_task"),
    ]);
    add([
        "resident memory per task waiting for input".into(),
        bytes(r.get("presa_bytes_per_parked_task")),
        bytes(r.get("rmcp_bytes_per_parked_task")),
        ratio(r.get("presa_bytes_per_parked_task") / r.get("rmcp_bytes_per_parked_task")),
        verdict(r, "bytes_per_idle_task"),
    ]);
    add([
        "the same, for a `resumable` tool (presa only)".into(),
        bytes(r.get("presa_bytes_per_parked_resumable_task")),
        String::new(),
        String::new(),
        verdict(r, "bytes_per_parked_resumable_task"),
    ]);
    add([
        "clean debug build, 20-tool stdio server".into(),
        format!(
            "{}, {} crates",
            seconds(r.get("presa_compile_clean_ms"), 1),
            whole(r.get("presa_compile_crates"))
        ),
        format!(
            "{}, {} crates",
            seconds(r.get("rmcp_compile_clean_ms"), 1),
            whole(r.get("rmcp_compile_crates"))
        ),
        ratio(r.get("compile_clean_ratio_vs_rmcp")),
        verdict(r, "compile_clean_ratio_vs_rmcp"),
    ]);
    add([
        "rebuild after you edit one tool body".into(),
        seconds(r.get("presa_compile_incremental_ms"), 2),
        seconds(r.get("rmcp_compile_incremental_ms"), 2),
        ratio(r.get("compile_incremental_ratio_vs_rmcp")),
        verdict(r, "compile_incremental_ratio_vs_rmcp"),
    ]);
    out
}

/// docs/benchmarks.md: presa against the framework-free floors.
fn others_block(r: &Results) -> String {
    let mut out = String::from("| figure | value | target |\n|---|---|---|\n");
    let mut add = |cells: [String; 3]| out.push_str(&row(&cells));
    add([
        "`tools/list` over stdio, the floor over presa".into(),
        format!(
            "{} ({} against {})",
            ratio(r.get("stdio_floor_over_presa_list")),
            rate(r.get("floor_stdio_list_per_s"), "/s"),
            rate(r.get("presa_stdio_list_per_s"), "/s")
        ),
        verdict(r, "stdio_floor_over_presa_list"),
    ]);
    add([
        "MRTR calls over stdio, the floor over presa".into(),
        format!(
            "{} ({} against {})",
            ratio(r.get("stdio_floor_over_presa_mrtr")),
            rate(r.get("floor_stdio_mrtr_per_s"), "/s"),
            rate(r.get("presa_stdio_mrtr_per_s"), "/s")
        ),
        verdict(r, "stdio_floor_over_presa_mrtr"),
    ]);
    add([
        "in-process call, presa over the channel floor".into(),
        format!(
            "{} (floor: {})",
            ratio(r.get("inprocess_latency_over_floor")),
            micros(r.get("floor_us"))
        ),
        String::new(),
    ]);
    out
}

/// One cell of the peers table: the peer's figure, presa's ratio over
/// it and the ratio's verdict if it has a target; or a note number, when
/// the peer cannot serve the workload, whose reason goes in `notes`.
fn peer_cell(
    r: &Results,
    figure: &str,
    ratio_key: &str,
    show: fn(f64) -> String,
    show_ratio: fn(f64) -> String,
    notes: &mut Vec<String>,
    peer: &str,
) -> String {
    let value = match r.figure(figure) {
        Ok(value) => value,
        Err(why) => {
            notes.push(format!("{peer}: {why}."));
            return format!("cannot [{}]", notes.len());
        }
    };
    let presa = show_ratio(r.get(ratio_key));
    match targets().iter().find(|(key, _)| key == ratio_key) {
        Some((_, target)) => format!(
            "{}; presa {presa} ({})",
            show(value),
            target.verdict(r.get(ratio_key))
        ),
        None => format!("{}; presa {presa}", show(value)),
    }
}

/// docs/benchmarks.md: presa against every peer, over stdio and HTTP.
fn peers_block(r: &Results) -> String {
    let mut out = String::from(
        "| peer | stdio throughput, `echo` | HTTP throughput | stdio latency | \
         HTTP latency | MRTR calls over stdio |\n|---|---|---|---|---|---|\n",
    );
    let mut notes = Vec::new();
    let per_s = |value| rate(value, "calls/s");
    let per_s_bare = |value| rate(value, "/s");
    for (peer, shown) in PEERS {
        let key = |figure: &str| format!("{peer}_{figure}");
        let cells = [
            shown.to_owned(),
            peer_cell(
                r,
                &key("stdio_calls_per_s"),
                &format!("stdio_throughput_ratio_vs_{peer}"),
                per_s,
                times,
                &mut notes,
                shown,
            ),
            peer_cell(
                r,
                &key("http_calls_per_s"),
                &format!("http_throughput_ratio_vs_{peer}"),
                per_s,
                times,
                &mut notes,
                shown,
            ),
            peer_cell(
                r,
                &key("stdio_seq_us"),
                &format!("seq_latency_ratio_vs_{peer}_stdio"),
                micros,
                ratio,
                &mut notes,
                shown,
            ),
            peer_cell(
                r,
                &key("http_seq_us"),
                &format!("seq_latency_ratio_vs_{peer}_http"),
                micros,
                ratio,
                &mut notes,
                shown,
            ),
            peer_cell(
                r,
                &key("stdio_mrtr_per_s"),
                &format!("stdio_mrtr_ratio_vs_{peer}"),
                per_s_bare,
                times,
                &mut notes,
                shown,
            ),
        ];
        out.push_str(&row(&cells));
    }
    if !notes.is_empty() {
        out.push('\n');
        for (number, note) in notes.iter().enumerate() {
            writeln!(out, "{}. {note}", number + 1).unwrap();
        }
    }
    out
}

/// docs/benchmarks.md: every target, with its value in the run.
fn targets_block(r: &Results) -> String {
    let mut out = String::from("| JSON key | target | this run |\n|---|---|---|\n");
    for (key, target) in targets() {
        let (sign, bound) = match target {
            Target::AtLeast(bound) => ("≥", bound),
            Target::AtMost(bound) => ("≤", bound),
        };
        let value = match r.figure(&key) {
            Ok(value) => {
                let word = if target.holds(value) {
                    "holds"
                } else {
                    "misses"
                };
                format!("{}: {word}", ratio(value))
            }
            Err(_) => "cannot be measured (see the peers table)".to_owned(),
        };
        out.push_str(&row(&[
            format!("`{key}`"),
            format!("{sign} {bound}"),
            value,
        ]));
    }
    out
}

/// docs/benchmarks.md: the task stores, memory against Redis.
fn stores_block(r: &Results) -> String {
    let mut out =
        String::from("| figure | in memory | Redis | Redis / memory |\n|---|---|---|---|\n");
    let mut add = |cells: [String; 4]| out.push_str(&row(&cells));
    for (name, label) in [
        ("create", "`create`"),
        ("get", "`get`"),
        ("apply", "`apply` (a status message)"),
    ] {
        add([
            format!("{label}, one caller"),
            micros(r.get(&format!("memory_{name}_us"))),
            micros(r.get(&format!("redis_{name}_us"))),
            whole(r.get(&format!("redis_{name}_us_ratio_vs_memory"))),
        ]);
    }
    for (name, label) in [
        ("create", "`create`"),
        ("get", "`get`"),
        ("apply", "`apply`"),
    ] {
        add([
            format!("{label}, 16 callers"),
            rate(r.get(&format!("memory_{name}_per_s")), "ops/s"),
            rate(r.get(&format!("redis_{name}_per_s")), "ops/s"),
            percent(r.get(&format!("redis_{name}_per_s_ratio_vs_memory"))),
        ]);
    }
    add([
        "a task's whole life, in process: call, wait for input, answer, \
         complete, polling `tasks/get`"
            .into(),
        micros(r.get("memory_task_call_us")),
        micros(r.get("redis_task_call_us")),
        format!("{:.1}", r.get("redis_task_call_us_ratio_vs_memory")),
    ]);
    add([
        "Redis round trips in that life (to wait for input, then to \
         complete)"
            .into(),
        String::new(),
        format!(
            "{:.1} ({:.1}, then {:.1})",
            r.get("redis_round_trips_per_task"),
            r.get("redis_round_trips_to_park"),
            r.get("redis_round_trips_to_complete")
        ),
        String::new(),
    ]);
    add([
        "a task call that needs no input, to `completed`".into(),
        micros(r.get("memory_work_call_us")),
        micros(r.get("redis_work_call_us")),
        format!("{:.1}", r.get("redis_work_call_us_ratio_vs_memory")),
    ]);
    add([
        "Redis `used_memory` per finished task".into(),
        String::new(),
        bytes(r.get("redis_bytes_per_finished_task")),
        String::new(),
    ]);
    add([
        "Redis `used_memory` per task waiting for input".into(),
        String::new(),
        bytes(r.get("redis_bytes_per_parked_task")),
        String::new(),
    ]);
    out
}

/// docs/benchmarks.md: Redis through TLS and on a cluster node.
fn shapes_block(r: &Results) -> String {
    let mut out = String::from("| figure | TLS / plain | cluster node / plain |\n|---|---|---|\n");
    for name in ["create", "get", "apply"] {
        out.push_str(&row(&[
            format!("`{name}`, one caller, latency"),
            ratio(r.get(&format!("redis_tls_{name}_us_ratio_vs_plain"))),
            ratio(r.get(&format!("redis_cluster_{name}_us_ratio_vs_plain"))),
        ]));
    }
    for name in ["create", "get", "apply"] {
        out.push_str(&row(&[
            format!("`{name}`, 16 callers, throughput"),
            percent(r.get(&format!("redis_tls_{name}_per_s_ratio_vs_plain"))),
            percent(r.get(&format!("redis_cluster_{name}_per_s_ratio_vs_plain"))),
        ]));
    }
    out
}

/// Each document and the blocks it holds, with their renderers.
type Render = fn(&Results) -> String;
const DOCUMENTS: [(&str, &[(&str, Render)]); 2] = [
    (
        "README.md",
        &[("build", build_block), ("readme", readme_block)],
    ),
    (
        "docs/benchmarks.md",
        &[
            ("run", run_block),
            ("rmcp", rmcp_block),
            ("peers", peers_block),
            ("others", others_block),
            ("stores", stores_block),
            ("shapes", shapes_block),
            ("targets", targets_block),
        ],
    ),
];

/// The block `name` of `text`: the byte range between its markers.
fn block(text: &str, name: &str, document: &str) -> std::ops::Range<usize> {
    let start_marker = format!("<!-- bench-figures: {name} -->\n");
    let end_marker = format!("<!-- /bench-figures: {name} -->");
    let start = text
        .find(&start_marker)
        .unwrap_or_else(|| panic!("{document} has no `{}` line", start_marker.trim()))
        + start_marker.len();
    let end = text[start..]
        .find(&end_marker)
        .unwrap_or_else(|| panic!("{document} has no `{end_marker}` line"))
        + start;
    start..end
}

#[test]
fn the_docs_quote_the_committed_bench_results() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let results = Results::read(root);
    let write = std::env::var("BENCH_FIGURES").is_ok_and(|value| value == "write");
    let mut stale = Vec::new();
    for (document, blocks) in DOCUMENTS {
        let path = root.join(document);
        let mut text = fs::read_to_string(&path).unwrap();
        for (name, render) in blocks {
            let range = block(&text, name, document);
            let expected = render(&results);
            if text[range.clone()] != expected {
                stale.push(format!(
                    "{document}, block `{name}`, should read:\n{expected}"
                ));
                text.replace_range(range, &expected);
            }
        }
        if write {
            fs::write(&path, text).unwrap();
        }
    }
    assert!(
        write || stale.is_empty(),
        "The figures differ from {RESULTS}. Write them with \
         `BENCH_FIGURES=write cargo test --test bench_figures`.\n\n{}",
        stale.join("\n")
    );
}

/// The file `scripts/redis-scale.sh` writes, relative to the root.
const REDIS_SCALE: &str = "bench/results/redis-scale.json";

/// presa-redis/README.md: what one Redis carries, from
/// `scripts/redis-scale.sh`'s results.
fn redis_scale_block(scale: &Map<String, Value>, run: &Map<String, Value>) -> String {
    let get = |key: &str| {
        scale
            .get(key)
            .and_then(Value::as_f64)
            .unwrap_or_else(|| panic!("{REDIS_SCALE} has no number for `{key}`"))
    };
    let text = |key: &str| match run.get(key) {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => panic!("{REDIS_SCALE} has no `run.{key}`"),
    };
    let mut out = format!(
        "Measured on {date}, Redis {redis} on {machine}, {clients} clients:\n\n",
        date = text("date"),
        redis = text("redis"),
        machine = text("machine"),
        clients = text("clients"),
    );
    out.push_str("| figure | value |\n|---|---|\n");
    let rows = [
        (
            "round trips per task (`redis_round_trips_per_task`)",
            format!("{:.2}", get("redis_round_trips_per_task")),
        ),
        ("`GET`, ops/s", whole(get("redis_get_ops_per_s"))),
        (
            "compare-and-set script, ops/s",
            whole(get("redis_cas_script_ops_per_s")),
        ),
        (
            "task calls/s, one node",
            format!(
                "{} to {}",
                whole(get("node_task_calls_per_s_floor")),
                whole(get("node_task_calls_per_s_ceiling"))
            ),
        ),
        (
            "task calls/s, 3-shard cluster, three stores",
            format!(
                "{} to {}",
                whole(get("cluster3_task_calls_per_s_floor")),
                whole(get("cluster3_task_calls_per_s_ceiling"))
            ),
        ),
        (
            "task calls/s, 3-shard cluster, one store",
            whole(get("cluster3_one_store_task_calls_per_s_floor")),
        ),
    ];
    for (label, value) in rows {
        out.push_str(&row(&[label.to_owned(), value]));
    }
    out
}

#[test]
fn the_redis_readme_quotes_the_committed_scale_results() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = fs::read_to_string(root.join(REDIS_SCALE))
        .unwrap_or_else(|error| panic!("cannot read {REDIS_SCALE}: {error}"));
    let json: Value = serde_json::from_str(&text).expect("redis-scale.json is JSON");
    let object = |name: &str| json[name].as_object().cloned().unwrap_or_default();
    let expected = redis_scale_block(&object("figures"), &object("run"));
    let document = "presa-redis/README.md";
    let path = root.join(document);
    let mut readme = fs::read_to_string(&path).unwrap();
    let range = block(&readme, "redis-scale", document);
    if readme[range.clone()] != expected {
        assert!(
            std::env::var("BENCH_FIGURES").is_ok_and(|value| value == "write"),
            "{document}, block `redis-scale`, should read:\n{expected}\n\
             Write it with `BENCH_FIGURES=write cargo test --test bench_figures`."
        );
        readme.replace_range(range, &expected);
        fs::write(&path, readme).unwrap();
    }
}

#[test]
fn figures_outside_blocks_are_not_run_figures() {
    // Rule 1: a run's figure typed by hand outside a block would drift.
    // Every rate and latency of the results file is looked for outside
    // the blocks, in the form the blocks print it.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let results = Results::read(root);
    let mut quoted = Vec::new();
    for (key, value) in &results.figures {
        let Some(value) = value.as_f64() else {
            continue;
        };
        let shown = if key.ends_with("_per_s") && value >= 10_000.0 {
            whole(value)
        } else if key.ends_with("_us") && value >= 10.0 {
            micros(value)
        } else {
            continue;
        };
        quoted.push((key.clone(), shown));
    }
    assert!(
        quoted.len() > 20,
        "only {} figures to look for",
        quoted.len()
    );
    let mut found = Vec::new();
    for (document, blocks) in DOCUMENTS {
        let mut text = fs::read_to_string(root.join(document)).unwrap();
        for (name, _) in blocks {
            let range = block(&text, name, document);
            text.replace_range(range, "");
        }
        for (key, shown) in &quoted {
            if text.contains(shown.as_str()) {
                found.push(format!(
                    "{document} quotes `{key}` ({shown}) outside a block"
                ));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn numbers_are_shown_as_the_blocks_show_them() {
    assert_eq!(whole(192_944.4), "192,944");
    assert_eq!(whole(999.0), "999");
    assert_eq!(whole(1_395_795.0), "1,395,795");
    assert_eq!(micros(0.44), "0.44 µs");
    assert_eq!(micros(40.7), "40.7 µs");
    assert_eq!(micros(339.0), "339 µs");
    assert_eq!(percent(0.027), "2.7 %");
    assert_eq!(percent(0.6), "60 %");
    assert_eq!(seconds(47_600.0, 1), "47.6 s");
    assert!(Target::AtMost(1.0).verdict(1.1).ends_with("misses"));
    assert!(Target::AtLeast(2.0).verdict(9.83).ends_with("holds"));
}
