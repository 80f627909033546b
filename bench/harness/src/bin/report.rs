//! Gathers the `FIGURES` lines of every section (read from stdin), derives
//! the ratios that have targets (docs/benchmarks.md lists them), prints
//! the summary table, and ends with one JSON object holding every figure,
//! on the last line.
//!
//! A ratio is presa / its peer (rmcp, tower-mcp, turbomcp, pmcp or
//! rust-mcp-sdk), except throughput, which is presa's calls per second
//! over the peer's (so above 1 is better for throughput, below 1 for
//! everything else). The floor ratios are the other way round, the floor's
//! rate over presa's: how far presa is below the floor. A figure a section
//! did not measure is `null`, and so is every ratio made from it; a figure
//! with no target gets no verdict. A figure a peer cannot have (a workload
//! its framework cannot serve) holds the reason, a string, and so does
//! every ratio made from it.
//!
//! The `redis` section's figures have a table of their own, with ratios
//! redis / memory and no targets: they tell what the Redis task store
//! and Redis legacy sessions cost, not whether presa keeps a promise.
//! Besides the ratios, it derives `redis_legacy_request_added_us`: the µs
//! that sessions in Redis add to each legacy request. Two of its figures
//! are in the targets table too: `redis_task_call_us`, a task's whole life
//! on Redis end to end, held to 600 µs, and `redis_round_trips_per_task`,
//! the round trips of that life, reported without a target.
//!
//! The costs of presa's optional machinery have no target either. Each
//! `…_cost_…_ratio` is presa's throughput over its variant's (an empty
//! tower layer, or telemetry switched on), so above 1 means the variant
//! is slower; each `…_added_stdio_seq_us` is the variant's sequential
//! latency minus presa's, in µs: what the cost adds to one call.
//!
//! When `BENCH_RESULTS` names a file, `report` also writes the run there
//! as JSON: a `run` object (what ran, from the `BENCH_RUN_*` variables
//! `scripts/bench.sh` sets) and a `figures` object (the same figures as
//! the last line). `scripts/bench.sh` names `bench/results/latest.json`
//! after a full release run. The README and `docs/benchmarks.md` quote
//! that file, and `tests/bench_figures.rs` checks that they do.

use std::io::BufRead;

use bench_harness::figures::{FIGURES_PREFIX, json_number};
use serde_json::{Map, Value};

/// A derived figure: key, how it is made, and the target it is held to.
struct Derived {
    key: String,
    value: Box<dyn Fn(&Figures) -> Figure>,
    target: Target,
}

impl Derived {
    /// A derived figure named `key`.
    fn new(
        key: impl Into<String>,
        target: Target,
        value: impl Fn(&Figures) -> Figure + 'static,
    ) -> Self {
        Derived {
            key: key.into(),
            value: Box::new(value),
            target,
        }
    }
}

/// What a derived figure must be to hold.
enum Target {
    AtLeast(f64),
    AtMost(f64),
    /// No target: reported for information.
    None,
}

/// One figure: a number (`NaN` when no section measured it), or why it
/// cannot be measured (a framework that cannot do the workload).
#[derive(Debug, Clone, PartialEq)]
enum Figure {
    Value(f64),
    Cannot(String),
}

impl Figure {
    /// `self` combined with `other` by `op`; a reason wins over a number.
    fn with(self, other: Figure, op: fn(f64, f64) -> f64) -> Figure {
        match (self, other) {
            (Figure::Cannot(why), _) | (_, Figure::Cannot(why)) => Figure::Cannot(why),
            (Figure::Value(a), Figure::Value(b)) => Figure::Value(op(a, b)),
        }
    }

    /// The figure as it goes into the results: a number, `null`, or the
    /// reason.
    fn json(&self) -> Value {
        match self {
            Figure::Value(value) => json_number(*value),
            Figure::Cannot(why) => Value::String(why.clone()),
        }
    }
}

/// The merged figures of all sections.
struct Figures(Map<String, Value>);

impl Figures {
    /// The figure `key`, `NaN` if no section measured it.
    fn get(&self, key: &str) -> f64 {
        self.0.get(key).and_then(Value::as_f64).unwrap_or(f64::NAN)
    }

    /// The figure `key`, with the reason a section gave in its place.
    fn figure(&self, key: &str) -> Figure {
        match self.0.get(key) {
            Some(Value::String(why)) => Figure::Cannot(why.clone()),
            _ => Figure::Value(self.get(key)),
        }
    }

    /// `a / b` of two figures.
    fn ratio(&self, a: &str, b: &str) -> f64 {
        self.get(a) / self.get(b)
    }

    /// `a / b` of two figures, or the reason one of them cannot be
    /// measured.
    fn ratio_of(&self, a: &str, b: &str) -> Figure {
        self.figure(a).with(self.figure(b), |a, b| a / b)
    }
}

/// The peers presa is held to, by the name that starts their keys.
const PEERS: [&str; 5] = ["rmcp", "tower_mcp", "turbomcp", "pmcp", "rust_mcp_sdk"];

/// A derived figure that is a plain ratio of two figure keys.
fn ratio(key: &str, a: impl Into<String>, b: impl Into<String>, target: Target) -> Derived {
    let (a, b) = (a.into(), b.into());
    Derived::new(key, target, move |f| f.ratio_of(&a, &b))
}

/// The derived figures: first those with targets, in the order of the
/// targets table of docs/benchmarks.md, then figures for information.
fn derived() -> Vec<Derived> {
    let mut all = Vec::new();
    // The ratios against each peer: throughput presa / peer (above 1 is
    // better), latency presa / peer (below 1 is better).
    for peer in PEERS {
        let key = |figure: &str| format!("{peer}_{figure}");
        let throughput = if peer == "rmcp" { 2.0 } else { 1.5 };
        all.push(ratio(
            &format!("stdio_throughput_ratio_vs_{peer}"),
            "presa_stdio_calls_per_s",
            key("stdio_calls_per_s"),
            Target::AtLeast(throughput),
        ));
        all.push(ratio(
            &format!("http_throughput_ratio_vs_{peer}"),
            "presa_http_calls_per_s",
            key("http_calls_per_s"),
            Target::AtLeast(throughput),
        ));
        all.push(ratio(
            &format!("seq_latency_ratio_vs_{peer}_stdio"),
            "presa_stdio_seq_us",
            key("stdio_seq_us"),
            Target::AtMost(0.8),
        ));
        all.push(ratio(
            &format!("seq_latency_ratio_vs_{peer}_http"),
            "presa_http_seq_us",
            key("http_seq_us"),
            Target::AtMost(0.8),
        ));
    }
    all.extend([
        ratio(
            "stdio_floor_over_presa_list",
            "floor_stdio_list_per_s",
            "presa_stdio_list_per_s",
            Target::AtMost(3.0),
        ),
        ratio(
            "stdio_floor_over_presa_mrtr",
            "floor_stdio_mrtr_per_s",
            "presa_stdio_mrtr_per_s",
            Target::AtMost(2.0),
        ),
        ratio(
            "http_floor_over_presa",
            "floor_http_calls_per_s",
            "presa_http_calls_per_s",
            Target::None,
        ),
        ratio(
            "http_floor_ratio_vs_rmcp",
            "floor_http_calls_per_s",
            "rmcp_http_calls_per_s",
            Target::None,
        ),
        ratio(
            "seq_latency_ratio_vs_rmcp_duplex",
            "presa_duplex_seq_us",
            "rmcp_duplex_seq_us",
            Target::AtMost(0.8),
        ),
        ratio(
            "poll_completion_ratio_vs_rmcp",
            "presa_poll_completion_us",
            "rmcp_poll_completion_us",
            Target::AtMost(1.0),
        ),
        Derived::new("listen_completion_ms_inprocess", Target::AtMost(0.1), |f| {
            Figure::Value(f.get("presa_listen_completion_us") / 1000.0)
        }),
        Derived::new("tasks_get_100k_over_1k", Target::AtMost(1.5), |f| {
            let finished = f.ratio(
                "presa_finished_tasks_get_100k_us",
                "presa_finished_tasks_get_1k_us",
            );
            let parked = f.ratio(
                "presa_parked_tasks_get_100k_us",
                "presa_parked_tasks_get_1k_us",
            );
            Figure::Value(finished.max(parked))
        }),
        Derived::new("bytes_per_finished_task", Target::AtMost(1024.0), |f| {
            f.figure("presa_bytes_per_finished_task")
        }),
        Derived::new("bytes_per_idle_task", Target::AtMost(4096.0), |f| {
            f.figure("presa_bytes_per_parked_task")
        }),
        Derived::new(
            "bytes_per_parked_resumable_task",
            Target::AtMost(1024.0),
            |f| f.figure("presa_bytes_per_parked_resumable_task"),
        ),
        ratio(
            "compile_clean_ratio_vs_rmcp",
            "presa_compile_clean_ms",
            "rmcp_compile_clean_ms",
            Target::AtMost(1.1),
        ),
        ratio(
            "compile_incremental_ratio_vs_rmcp",
            "presa_compile_incremental_ms",
            "rmcp_compile_incremental_ms",
            Target::AtMost(1.0),
        ),
        Derived::new("redis_task_call_us", Target::AtMost(600.0), |f| {
            f.figure("redis_task_call_us")
        }),
    ]);
    // For information: CPU per HTTP call, and the other stdio workloads.
    for peer in PEERS {
        let key = |figure: &str| format!("{peer}_{figure}");
        all.push(ratio(
            &format!("http_server_cpu_ratio_vs_{peer}"),
            "presa_http_server_cpu_us",
            key("http_server_cpu_us"),
            Target::None,
        ));
        all.push(ratio(
            &format!("stdio_list_ratio_vs_{peer}"),
            "presa_stdio_list_per_s",
            key("stdio_list_per_s"),
            Target::None,
        ));
        all.push(ratio(
            &format!("stdio_mrtr_ratio_vs_{peer}"),
            "presa_stdio_mrtr_per_s",
            key("stdio_mrtr_per_s"),
            Target::None,
        ));
    }
    all.extend([
        ratio(
            "seq_latency_ratio_vs_rmcp_inprocess",
            "presa_inprocess_seq_us",
            "rmcp_inprocess_seq_us",
            Target::None,
        ),
        ratio(
            "inprocess_latency_over_floor",
            "presa_inprocess_seq_us",
            "floor_us",
            Target::None,
        ),
        ratio(
            "layers_cost_stdio_ratio",
            "presa_stdio_calls_per_s",
            "presa_layered_stdio_calls_per_s",
            Target::None,
        ),
        ratio(
            "layers_cost_http_ratio",
            "presa_http_calls_per_s",
            "presa_layered_http_calls_per_s",
            Target::None,
        ),
        Derived::new("layers_added_stdio_seq_us", Target::None, |f| {
            Figure::Value(f.get("presa_layered_stdio_seq_us") - f.get("presa_stdio_seq_us"))
        }),
        ratio(
            "otel_cost_stdio_ratio",
            "presa_stdio_calls_per_s",
            "presa_otel_stdio_calls_per_s",
            Target::None,
        ),
        ratio(
            "otel_cost_http_ratio",
            "presa_http_calls_per_s",
            "presa_otel_http_calls_per_s",
            Target::None,
        ),
        Derived::new("otel_added_stdio_seq_us", Target::None, |f| {
            Figure::Value(f.get("presa_otel_stdio_seq_us") - f.get("presa_stdio_seq_us"))
        }),
        Derived::new("redis_round_trips_per_task", Target::None, |f| {
            f.figure("redis_round_trips_per_task")
        }),
    ]);
    all
}

/// The figures the `redis` section measures for both stores, by the part
/// of their key after `memory_` or `redis_`; each gets a ratio, redis over
/// memory, and no target: they inform a choice of store.
const STORE_FIGURES: &[&str] = &[
    "create_us",
    "get_us",
    "apply_us",
    "create_per_s",
    "get_per_s",
    "apply_per_s",
    "task_call_us",
    "task_call_listen_us",
    "polls_per_task",
    "work_call_us",
    "legacy_request_us",
];

/// The store figures measured on Redis through TLS and through a cluster
/// node too, each with a ratio over plain Redis.
const SHAPE_FIGURES: &[&str] = &[
    "create_us",
    "get_us",
    "apply_us",
    "create_per_s",
    "get_per_s",
    "apply_per_s",
];

/// The `redis` section's figures of Redis alone.
const REDIS_ONLY_FIGURES: &[&str] = &[
    "redis_bytes_per_finished_task",
    "redis_bytes_per_parked_task",
    "redis_round_trips_per_task",
    "redis_round_trips_to_park",
    "redis_round_trips_to_complete",
    "redis_round_trips_per_get",
    "redis_round_trips_per_legacy_request",
    "redis_legacy_answer_same_replica_us",
    "redis_legacy_answer_other_replica_us",
];

fn main() {
    let mut figures = Figures(Map::new());
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        if let Some(json) = line.strip_prefix(FIGURES_PREFIX)
            && let Ok(Value::Object(values)) = serde_json::from_str(json)
        {
            figures.0.extend(values);
        }
    }
    let mut all = figures.0.clone();
    println!();
    println!("{:<38} {:>12}  {:<10} verdict", "figure", "value", "target");
    for derived in derived() {
        let value = (derived.value)(&figures);
        println!("{}", target_row(&derived, &value));
        all.insert(derived.key.clone(), value.json());
    }
    store_table(&figures, &mut all);
    if let Ok(path) = std::env::var("BENCH_RESULTS")
        && !path.is_empty()
    {
        write_results(&path, &all);
    }
    println!();
    println!("{}", Value::Object(all));
}

/// Writes the run and its figures to `path`, as `tests/bench_figures.rs`
/// reads them. Exits with a message if the file cannot be written, so that
/// a run never ends with stale results in place.
fn write_results(path: &str, figures: &Map<String, Value>) {
    let mut run = Map::new();
    for (key, variable) in [
        ("date", "BENCH_RUN_DATE"),
        ("commit", "BENCH_RUN_COMMIT"),
        ("machine", "BENCH_RUN_MACHINE"),
        ("profile", "BENCH_RUN_PROFILE"),
        ("sections", "BENCH_RUN_SECTIONS"),
    ] {
        let value = std::env::var(variable).unwrap_or_default();
        run.insert(key.to_owned(), Value::String(value));
    }
    let seconds = std::env::var("BENCH_RUN_SECONDS")
        .ok()
        .and_then(|text| text.parse::<u64>().ok());
    run.insert(
        "seconds".to_owned(),
        seconds.map_or(Value::Null, Value::from),
    );
    let results = serde_json::json!({ "run": run, "figures": figures });
    let text = serde_json::to_string_pretty(&results).expect("a JSON value serializes");
    if let Err(error) = std::fs::write(path, text + "\n") {
        eprintln!("report: cannot write the results to {path}: {error}");
        std::process::exit(1);
    }
    println!();
    println!("results written to {path}");
}

/// One row of the target table.
fn target_row(derived: &Derived, value: &Figure) -> String {
    let value = match value {
        Figure::Value(value) => *value,
        Figure::Cannot(why) => return format!("{:<38} cannot be measured: {why}", derived.key),
    };
    let (target, holds) = match derived.target {
        Target::AtLeast(t) => (format!(">= {t}"), value >= t),
        Target::AtMost(t) => (format!("<= {t}"), value <= t),
        Target::None => (String::new(), true),
    };
    let verdict = match (&derived.target, value.is_finite(), holds) {
        (_, false, _) => "not measured",
        (Target::None, _, _) => "",
        (_, true, true) => "holds",
        (_, true, false) => "MISSES",
    };
    format!("{:<38} {value:>12.3}  {target:<10} {verdict}", derived.key)
}

/// The table of the task stores, redis against memory, with no verdict;
/// adds each ratio to `all`. Printed only when the `redis` section ran.
fn store_table(figures: &Figures, all: &mut Map<String, Value>) {
    if !figures.get("redis_create_us").is_finite() {
        return;
    }
    println!();
    println!(
        "{:<38} {:>12} {:>12} {:>14}",
        "task store figure", "memory", "redis", "redis/memory"
    );
    for figure in STORE_FIGURES {
        let (memory, redis) = (format!("memory_{figure}"), format!("redis_{figure}"));
        let ratio = figures.ratio(&redis, &memory);
        println!(
            "{figure:<38} {:>12.2} {:>12.2} {ratio:>14.3}",
            figures.get(&memory),
            figures.get(&redis)
        );
        all.insert(
            format!("redis_{figure}_ratio_vs_memory"),
            json_number(ratio),
        );
    }
    // What sessions in Redis add to each legacy request, in µs.
    let added = figures.get("redis_legacy_request_us") - figures.get("memory_legacy_request_us");
    all.insert(
        "redis_legacy_request_added_us".to_owned(),
        json_number(added),
    );
    println!(
        "{:<38} {:>12} {added:>12.2}",
        "redis_legacy_request_added_us", ""
    );
    for key in REDIS_ONLY_FIGURES {
        println!("{key:<38} {:>12} {:>12.2}", "", figures.get(key));
    }
    shape_table(figures, all);
}

/// The table of Redis's shapes, TLS and a cluster node against plain;
/// adds each ratio to `all`.
fn shape_table(figures: &Figures, all: &mut Map<String, Value>) {
    println!();
    println!(
        "{:<24} {:>10} {:>10} {:>10} {:>10} {:>12}",
        "redis shape figure", "plain", "tls", "cluster", "tls/plain", "cluster/plain"
    );
    for figure in SHAPE_FIGURES {
        let plain = format!("redis_{figure}");
        let (tls, cluster) = (
            format!("redis_tls_{figure}"),
            format!("redis_cluster_{figure}"),
        );
        let (tls_ratio, cluster_ratio) =
            (figures.ratio(&tls, &plain), figures.ratio(&cluster, &plain));
        println!(
            "{figure:<24} {:>10.2} {:>10.2} {:>10.2} {tls_ratio:>10.3} {cluster_ratio:>12.3}",
            figures.get(&plain),
            figures.get(&tls),
            figures.get(&cluster)
        );
        all.insert(
            format!("redis_tls_{figure}_ratio_vs_plain"),
            json_number(tls_ratio),
        );
        all.insert(
            format!("redis_cluster_{figure}_ratio_vs_plain"),
            json_number(cluster_ratio),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figures of `pairs`, as the sections would print them.
    fn figures(pairs: &[(&str, f64)]) -> Figures {
        let mut map = Map::new();
        for (key, value) in pairs {
            map.insert((*key).to_owned(), json_number(*value));
        }
        Figures(map)
    }

    fn derived_figure(key: &str) -> Derived {
        derived()
            .into_iter()
            .find(|d| d.key == key)
            .expect("a derived figure")
    }

    #[test]
    fn a_redis_task_call_is_held_to_600_us() {
        let call = derived_figure("redis_task_call_us");
        let fast = figures(&[("redis_task_call_us", 550.0)]);
        let slow = figures(&[("redis_task_call_us", 650.0)]);
        assert!(target_row(&call, &(call.value)(&fast)).ends_with("holds"));
        assert!(target_row(&call, &(call.value)(&slow)).ends_with("MISSES"));
        let none = figures(&[]);
        assert!(target_row(&call, &(call.value)(&none)).ends_with("not measured"));
    }

    #[test]
    fn the_round_trips_per_task_are_reported_without_a_verdict() {
        let trips = derived_figure("redis_round_trips_per_task");
        let measured = figures(&[("redis_round_trips_per_task", 9.0)]);
        assert_eq!((trips.value)(&measured), Figure::Value(9.0));
        let row = target_row(&trips, &Figure::Value(9.0));
        assert!(!row.contains("holds") && !row.contains("MISSES"), "{row}");
        assert!(REDIS_ONLY_FIGURES.contains(&"redis_round_trips_per_task"));
    }

    #[test]
    fn a_peer_that_cannot_serve_a_workload_passes_its_reason_to_the_ratio() {
        let mut map = Map::new();
        map.insert("presa_stdio_mrtr_per_s".to_owned(), json_number(100.0));
        map.insert(
            "pmcp_stdio_mrtr_per_s".to_owned(),
            Value::String("pmcp cannot".to_owned()),
        );
        let f = Figures(map);
        let mrtr = derived_figure("stdio_mrtr_ratio_vs_pmcp");
        let value = (mrtr.value)(&f);
        assert_eq!(value, Figure::Cannot("pmcp cannot".to_owned()));
        assert_eq!(value.json(), Value::String("pmcp cannot".to_owned()));
        assert!(target_row(&mrtr, &value).contains("cannot be measured: pmcp cannot"));
        let echo = derived_figure("stdio_throughput_ratio_vs_pmcp");
        assert!(target_row(&echo, &(echo.value)(&f)).ends_with("not measured"));
    }

    #[test]
    fn every_peer_has_the_four_target_ratios() {
        let all = derived();
        for peer in PEERS {
            for key in [
                format!("stdio_throughput_ratio_vs_{peer}"),
                format!("http_throughput_ratio_vs_{peer}"),
                format!("seq_latency_ratio_vs_{peer}_stdio"),
                format!("seq_latency_ratio_vs_{peer}_http"),
            ] {
                let found = all.iter().find(|d| d.key == key);
                assert!(
                    found.is_some_and(|d| !matches!(d.target, Target::None)),
                    "{key}"
                );
            }
        }
    }
}
