#!/usr/bin/env bash
# The benchmarks: presa against rmcp 3.11, tower-mcp 0.25, turbomcp
# 4.0.0-alpha.5, pmcp 2.23, rust-mcp-sdk 2.0 and a framework-free floor
# (docs/benchmarks.md says what each figure measures).
#
# Builds the harness (bench/, a workspace of its own) in release mode, then
# runs one process per section, each measuring the frameworks in
# alternation: stdio, HTTP, in-process (latency, task lifecycle, scale),
# the Redis task store and legacy sessions against in-memory ones, and
# compile cost.
# Prints every figure as a row as it is measured, then the issue's
# targets with a verdict each; the last line is one JSON object with
# every figure.
#
# After a full run in the release profile, it also writes the run to
# bench/results/latest.json and updates the figures that README.md and
# docs/benchmarks.md quote from it (tests/bench_figures.rs). Commit the
# three files together. BENCH_RESULTS=path writes the results file of any
# run to that path instead, and leaves the documents alone.
#
#   scripts/bench.sh                          everything (about 10 minutes)
#   BENCH_SECTIONS="stdio http" scripts/bench.sh    only those sections
#
# Sections: stdio, http, latency, lifecycle, scale, redis, compile. The
# redis section starts a redis-server of its own, and is skipped, with a
# line that says so, where none is installed. Also read:
# BENCH_ROUNDS (rounds per framework), BENCH_SCALE (a factor on calls per
# round), BENCH_RMCP_100K=1 (rmcp's scale figures at 100k tasks too),
# BENCH_PEERS (the peers under bench/peers/ to build and measure: all of
# them unless set; CI sets none), BENCH_PROFILE (the cargo profile:
# release, unless CI's cheaper `ci`,
# whose figures mean nothing), CARGO_TARGET_DIR (where the harness is
# built; bench/target otherwise) and BENCH_MACHINE (how the results file
# names the machine: the system and its core count otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."

sections="${BENCH_SECTIONS:-stdio http latency lifecycle scale redis compile}"
profile="${BENCH_PROFILE:-release}"
peers="${BENCH_PEERS-$(cd bench/peers 2>/dev/null && ls)}"
bin="${CARGO_TARGET_DIR:-bench/target}/$profile"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

start=$(date +%s)
echo "== building the harness ($profile)"
# tower-mcp's server on its own: built together, its feature choices
# (`serde_json/preserve_order`) would be every server's (bench/harness/Cargo.toml).
cargo build --profile "$profile" --locked --manifest-path bench/Cargo.toml --bins 2>&1 | tail -1
cargo build --profile "$profile" --locked --manifest-path bench/Cargo.toml \
  --bin tower-mcp-server --features tower-mcp 2>&1 | tail -1
# presa with telemetry compiled in, on its own too: every other presa
# binary has presa's default features, as its users get it.
cargo build --profile "$profile" --locked --manifest-path bench/Cargo.toml \
  --bin presa-otel-server --features otel 2>&1 | tail -1
# Each peer under bench/peers/ alone too, with its own users' features.
# The driver measures those it finds built and skips the others.
for peer in $peers; do
  echo "== building the $peer peer ($profile)"
  cargo build --profile "$profile" --locked --manifest-path bench/Cargo.toml \
    -p "bench-$peer" 2>&1 | tail -1
done

run() {
  echo "== $1"
  shift
  "$@" | tee -a "$log" | grep -v '^FIGURES '
}

for section in $sections; do
  case "$section" in
    stdio | http) run "$section (neutral driver, both servers as child processes)" "$bin/driver" "$section" ;;
    latency | lifecycle | scale) run "$section (in process)" "$bin/inprocess" "$section" ;;
    redis) run "redis (task stores and legacy sessions: in memory and on a private redis-server)" "$bin/stores" ;;
    compile) run "compile (20-tool servers, debug builds)" bash bench/compile/measure.sh ;;
    *) echo "unknown section: $section" >&2; exit 2 ;;
  esac
done

seconds=$(( $(date +%s) - start ))
echo "== all sections took $seconds s"

# A full release run is the one the documents quote.
full=no
if [ "$sections" = "stdio http latency lifecycle scale redis compile" ] && [ "$profile" = release ]; then
  full=yes
fi
results="${BENCH_RESULTS:-}"
if [ -z "$results" ] && [ "$full" = yes ]; then
  results=bench/results/latest.json
fi
BENCH_RESULTS="$results" \
BENCH_RUN_DATE="$(date -u +%Y-%m-%d)" \
BENCH_RUN_COMMIT="$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
BENCH_RUN_MACHINE="${BENCH_MACHINE:-$(uname -sm), $(nproc) cores}" \
BENCH_RUN_PROFILE="$profile" \
BENCH_RUN_SECTIONS="$sections" \
BENCH_RUN_SECONDS="$seconds" \
  "$bin/report" < "$log"

if [ "$full" = yes ] && [ -z "${BENCH_RESULTS:-}" ]; then
  echo "== writing the figures into README.md and docs/benchmarks.md"
  BENCH_FIGURES=write cargo test --quiet --test bench_figures
fi
