#!/usr/bin/env bash
# Real OpenTelemetry backends for the end-to-end telemetry test.
#
# Traces go to Rotel, an OpenTelemetry collector written in Rust (PyPI
# package "rotel"). It listens for OTLP over HTTP and gRPC. Its debug log
# prints every span it receives, with resource attributes, parent id,
# status and links. query.py reads that log.
#
# Metrics go to VictoriaMetrics, a time series database. It takes OTLP
# metrics over HTTP at /opentelemetry/v1/metrics and answers queries on
# /api/v1/export. Debian 12 has no package for it, so we take the .deb from
# Debian 13 (trixie) with apt-get download and unpack only its binary.
# Nothing is installed system-wide and the system apt sources are untouched.
#
# Optional: OTEL_E2E_TRACES_BACKEND=phoenix sends traces to Arize Phoenix
# instead (PyPI "arize-phoenix"). Phoenix stores spans and has a REST API,
# but it drops span links and resource attributes, and it has no metrics.
#
# Usage: backends.sh install|start|stop|env
# Settings (environment):
#   OTEL_E2E_DIR            work dir (default: <repo>/target/otel-e2e)
#   OTEL_E2E_TRACES_BACKEND rotel (default) or phoenix
#   OTEL_E2E_PYTHON         python to build the venv (default: python3)
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OTEL_E2E_DIR="${OTEL_E2E_DIR:-$REPO_ROOT/target/otel-e2e}"
TRACES_BACKEND="${OTEL_E2E_TRACES_BACKEND:-rotel}"
PYTHON="${OTEL_E2E_PYTHON:-python3}"

# Pinned versions.
ROTEL_VERSION="0.0.1a15"          # bundles the rotel collector binary
PHOENIX_VERSION="20.26.1"         # only for OTEL_E2E_TRACES_BACKEND=phoenix
VM_DEB_VERSION="1.112.0+ds1-2"    # victoria-metrics in Debian trixie
VM_SUITE="trixie"

VENV="$OTEL_E2E_DIR/venv"
BIN="$OTEL_E2E_DIR/bin"
RUN="$OTEL_E2E_DIR/run"
ENV_FILE="$OTEL_E2E_DIR/env"

log() { echo "otel-e2e: $*" >&2; }
die() { log "error: $*"; exit 1; }

# Path of the rotel binary inside the venv.
rotel_bin() {
  "$VENV/bin/python" -c 'import os, rotel; print(os.path.join(os.path.dirname(rotel.__file__), "rotel-agent"))'
}

install_python() {
  if [ ! -x "$VENV/bin/python" ]; then
    log "creating venv in $VENV"
    "$PYTHON" -m venv "$VENV"
  fi
  local want=("rotel==$ROTEL_VERSION")
  if [ "$TRACES_BACKEND" = phoenix ]; then
    want+=("arize-phoenix==$PHOENIX_VERSION")
  fi
  # pip is quick when the pins are already there.
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "${want[@]}"
}

install_victoria_metrics() {
  if [ -x "$BIN/victoria-metrics" ]; then
    return
  fi
  command -v apt-get >/dev/null || die "apt-get is needed to fetch victoria-metrics"
  local apt="$OTEL_E2E_DIR/apt"
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs" "$BIN"
  # A private apt setup that only knows Debian trixie.
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $VM_SUITE main" \
    > "$apt/sources.list"
  local opts=(
    -o "Dir::Etc::SourceList=$apt/sources.list"
    -o "Dir::Etc::SourceParts=/dev/null"
    -o "Dir::State::Lists=$apt/lists"
    -o "Dir::Cache=$apt/cache"
    -o "Debug::NoLocking=1"
    -o "APT::Sandbox::User=root"
  )
  log "fetching victoria-metrics $VM_DEB_VERSION from Debian $VM_SUITE"
  apt-get "${opts[@]}" -qq update
  # Prefer the pinned version. Debian may have replaced it with a newer
  # point release; then take the current one and say so.
  if ! (cd "$apt/debs" && apt-get "${opts[@]}" -qq download "victoria-metrics=$VM_DEB_VERSION"); then
    log "warning: victoria-metrics $VM_DEB_VERSION is gone from $VM_SUITE, using the current version"
    (cd "$apt/debs" && apt-get "${opts[@]}" -qq download victoria-metrics)
  fi
  local deb
  deb="$(ls "$apt/debs"/victoria-metrics_*.deb | head -n1)"
  dpkg-deb -x "$deb" "$apt/x"
  cp "$apt/x/usr/bin/victoria-metrics" "$BIN/victoria-metrics"
  # Keep only the binary: the lists, the .deb and the other tools are large.
  rm -rf "$apt"
}

cmd_install() {
  mkdir -p "$OTEL_E2E_DIR"
  install_python
  install_victoria_metrics
  log "installed into $OTEL_E2E_DIR"
}

# Ask the kernel for a free loopback port.
free_port() {
  "$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Poll a command until it succeeds. Give up after $2 tries, 0.25 s apart.
wait_for() {
  local what="$1" tries="$2"; shift 2
  local i
  for ((i = 0; i < tries; i++)); do
    if "$@" >/dev/null 2>&1; then
      log "$what is ready"
      return 0
    fi
    sleep 0.25
  done
  die "$what did not become ready; see the logs in $RUN"
}

# An empty OTLP/HTTP request is a valid export of zero spans: expect 200.
otlp_traces_ok() {
  curl -fsS -o /dev/null -X POST -H 'Content-Type: application/x-protobuf' --data-binary '' "$1"
}

start_rotel() {
  local http_port grpc_port
  http_port="$(free_port)"
  grpc_port="$(free_port)"
  # The debug log prints each received span in full. The blackhole
  # exporter drops the data after that: the log is the record we query.
  "$(rotel_bin)" start \
    --otlp-http-endpoint "127.0.0.1:$http_port" \
    --otlp-grpc-endpoint "127.0.0.1:$grpc_port" \
    --otlp-receiver-metrics-disabled \
    --otlp-receiver-logs-disabled \
    --exporter blackhole \
    --debug-log traces \
    --debug-log-verbosity detailed \
    >"$RUN/rotel.log" 2>&1 &
  echo $! >"$RUN/rotel.pid"
  wait_for "rotel" 80 otlp_traces_ok "http://127.0.0.1:$http_port/v1/traces"
  {
    echo "export OTEL_E2E_TRACES_KIND=rotel"
    echo "export OTEL_E2E_TRACES_QUERY=$RUN/rotel.log"
    echo "export OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:$http_port/v1/traces"
  } >>"$ENV_FILE"
}

start_phoenix() {
  local port grpc_port
  port="$(free_port)"
  grpc_port="$(free_port)"
  mkdir -p "$RUN/phoenix"
  # Phoenix keeps its SQLite database in its working dir. Note that its
  # gRPC server always listens on all interfaces ([::]).
  PHOENIX_WORKING_DIR="$RUN/phoenix" \
  PHOENIX_HOST=127.0.0.1 \
  PHOENIX_PORT="$port" \
  PHOENIX_GRPC_PORT="$grpc_port" \
  PHOENIX_TELEMETRY_ENABLED=false \
  PHOENIX_ALLOW_EXTERNAL_RESOURCES=false \
  PHOENIX_LOG_MIGRATIONS=false \
    "$VENV/bin/phoenix" serve >"$RUN/phoenix.log" 2>&1 &
  echo $! >"$RUN/phoenix.pid"
  # The first start runs database migrations: allow up to 60 s.
  wait_for "phoenix" 240 curl -fsS "http://127.0.0.1:$port/healthz"
  {
    echo "export OTEL_E2E_TRACES_KIND=phoenix"
    echo "export OTEL_E2E_TRACES_QUERY=http://127.0.0.1:$port"
    echo "export OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:$port/v1/traces"
  } >>"$ENV_FILE"
}

start_victoria_metrics() {
  local port
  port="$(free_port)"
  mkdir -p "$RUN/vmdata"
  "$BIN/victoria-metrics" \
    -storageDataPath="$RUN/vmdata" \
    -httpListenAddr="127.0.0.1:$port" \
    -retentionPeriod=1d \
    >"$RUN/victoria-metrics.log" 2>&1 &
  echo $! >"$RUN/victoria-metrics.pid"
  wait_for "victoria-metrics" 80 curl -fsS "http://127.0.0.1:$port/health"
  {
    echo "export OTEL_E2E_METRICS_QUERY=http://127.0.0.1:$port"
    echo "export OTEL_EXPORTER_OTLP_METRICS_ENDPOINT=http://127.0.0.1:$port/opentelemetry/v1/metrics"
  } >>"$ENV_FILE"
}

cmd_start() {
  [ -x "$BIN/victoria-metrics" ] || die "run '$0 install' first"
  cmd_stop
  rm -rf "$RUN"
  mkdir -p "$RUN"
  : >"$ENV_FILE"
  case "$TRACES_BACKEND" in
    rotel) start_rotel ;;
    phoenix) start_phoenix ;;
    *) die "unknown OTEL_E2E_TRACES_BACKEND: $TRACES_BACKEND" ;;
  esac
  start_victoria_metrics
  # Traces and metrics go to different servers, so the base endpoint below
  # is only a fallback: OTLP exporters prefer the per-signal variables.
  {
    echo "export OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"
    grep '^export OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=' "$ENV_FILE" \
      | sed -e 's/_TRACES_ENDPOINT=/_ENDPOINT=/' -e 's#/v1/traces$##'
  } >>"$ENV_FILE"
  log "endpoints written to $ENV_FILE"
  cat "$ENV_FILE"
}

cmd_stop() {
  local f pid i
  for f in "$RUN"/*.pid; do
    [ -e "$f" ] || continue
    pid="$(cat "$f")"
    if kill "$pid" 2>/dev/null; then
      # Wait up to 5 s for a clean exit, then force it.
      for ((i = 0; i < 20; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.25
      done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$f"
  done
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  env) cat "$ENV_FILE" ;;
  *) echo "usage: $0 install|start|stop|env" >&2; exit 2 ;;
esac
