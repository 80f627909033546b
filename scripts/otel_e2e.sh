#!/usr/bin/env bash
# Telemetry end to end, against real OpenTelemetry backends
# (tests/otel_e2e.rs, whose docs say what it proves):
#
# - traces go to Rotel, an OpenTelemetry collector, and metrics to
#   VictoriaMetrics; scripts/otel/backends.sh installs and starts both on
#   loopback, and scripts/otel/query.py reads back what they received;
# - the `jobs` example, built with the feature `otel`, exports to them
#   through the standard OTEL_EXPORTER_OTLP_* variables, as any user's
#   server would;
# - a presa client and the TypeScript SDK 1.x call it.
#
#   scripts/otel_e2e.sh
#
# It also runs the telemetry tests that need no backend
# (tests/telemetry.rs, tests/telemetry_metrics.rs), which need the
# feature `otel` that the README's test command leaves off. The backends
# go under target/otel-e2e, and Node 22 and the SDK into .cache/interop
# (both git-ignored). The backends are stopped when the script exits.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
finish() {
  local status=$?
  bash scripts/otel/backends.sh stop >/dev/null 2>&1 || true
  echo "   (otel_e2e.sh: $((SECONDS - started)) s, exit $status)"
}
trap finish EXIT
trap 'exit 130' INT TERM

echo "== the telemetry tests (feature otel)"
cargo test --locked --features otel --test telemetry --test telemetry_metrics

# The SDK at the version scripts/interop.sh installs.
source scripts/lib/node.sh
CACHE=".cache/interop"
node_cache "$CACHE" "@modelcontextprotocol/sdk@1.32.2" "@modelcontextprotocol/inspector@2.12.0"

echo "== the backends: Rotel for traces, VictoriaMetrics for metrics"
export OTEL_E2E_DIR="${OTEL_E2E_DIR:-$(pwd)/target/otel-e2e}"
bash scripts/otel/backends.sh install
bash scripts/otel/backends.sh start
# shellcheck disable=SC1091
source "$OTEL_E2E_DIR/env"

echo "== jobs exporting to them, called by presa's client and the TypeScript SDK"
cargo build --locked --quiet --features otel --example jobs
PRESA_OTEL_JOBS="$(pwd)/target/debug/examples/jobs" \
  PRESA_OTEL_QUERY="$(pwd)/scripts/otel/query.py" \
  PRESA_INTEROP_NODE="$(pwd)/${NODE}" \
  PRESA_INTEROP_TS_SDK="$(pwd)/${CACHE}/node_modules/@modelcontextprotocol/sdk" \
  cargo test --locked --features otel --test otel_e2e -- --nocapture
