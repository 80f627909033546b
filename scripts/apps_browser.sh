#!/usr/bin/env bash
# The MCP Apps browser test: headless Chromium renders the `jobs`
# example's dashboard in a test host built on the official
# @modelcontextprotocol/ext-apps host side (AppBridge), clicks its
# `#start-build`, and checks what the app and the host show
# (tests/apps_browser/run.mjs says what it checks).
#
#   scripts/apps_browser.sh
#
# It installs Node 22 and the test's npm packages, at the versions of
# tests/apps_browser/package-lock.json, into .cache/apps_browser
# (git-ignored), and Debian's chromium if /usr/bin/chromium is missing
# (`CHROMIUM` names another). It builds the example, starts it on a
# loopback port the system picks, and runs the test once for each
# protocol revision a host may speak: `auto` (2026-07-28, which presa
# prefers) and `legacy` (2025-11-25). Then it runs the test once against
# a stand-in server and View on the official SDKs
# (tests/apps_browser/standin_server.mjs), which mirrors the dashboard's
# elements. Screenshots and the servers' output go to target/apps-browser/.
# It prints one line per run saying what it saw, fails if a check fails,
# and stops the servers on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=".cache/apps_browser"
OUT="target/apps-browser"
# How long a server may take to say it is listening.
READY_TIMEOUT_S=30
# How long one run of the test may take, from Chromium's start to its
# last check.
TEST_TIMEOUT_S=120

source scripts/lib/node.sh
node_cache "$CACHE"

# The test's packages, from the lock file: installed again only when the
# lock changes.
lock="tests/apps_browser/package-lock.json"
stamp="${CACHE}/test/.lock"
if [[ ! -f "$stamp" ]] || ! cmp -s "$lock" "$stamp"; then
  echo "== installing the test's npm packages (${lock})"
  rm -rf "${CACHE}/test"
  mkdir -p "${CACHE}/test"
  cp tests/apps_browser/package.json "$lock" "${CACHE}/test/"
  PATH="$(dirname "$NODE"):${PATH}" npm ci --silent --no-audit --no-fund --prefix "${CACHE}/test"
  cp "$lock" "$stamp"
fi
# The test's files run beside those packages, so that Node finds them.
cp tests/apps_browser/*.mjs tests/apps_browser/*.js tests/apps_browser/*.html "${CACHE}/test/"

CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [[ ! -x "$CHROMIUM" ]]; then
  echo "== installing Debian's chromium"
  as_root=""
  if [ "$(id -u)" != 0 ]; then as_root="sudo"; fi
  $as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq chromium >/dev/null
fi
# (Debian's wrapper script warns on stderr about its memory check.)
"$CHROMIUM" --version 2>/dev/null

echo "== building the jobs example"
cargo build --locked --quiet --example jobs

mkdir -p "$OUT"
PIDS=()
stop_all() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_all EXIT

# start NAME COMMAND...: starts a server whose output goes to
# $OUT/NAME.log, and sets `address` to the MCP endpoint it prints once it
# listens. Fails if it exits first or READY_TIMEOUT_S passes.
start() {
  local name="$1" log="${OUT}/$1.log" line pid
  shift
  rm -f "$log"
  "$@" >"$log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  address=""
  for (( i = 0; i < READY_TIMEOUT_S * 20; i++ )); do
    if line="$(grep -m1 -oE 'at http://[^ ]+/mcp' "$log" 2>/dev/null)"; then
      address="${line#at }"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      break
    fi
    sleep 0.05
  done
  echo "${name} did not say where it listens; its output:" >&2
  cat "$log" >&2
  return 1
}

passed=0
failed=0
# check ERA: one run of the test against $address.
check() {
  if CHROMIUM="$CHROMIUM" timeout "$TEST_TIMEOUT_S" "$NODE" "${CACHE}/test/run.mjs" \
    --mcp "$address" --out "$OUT" --era "$1" --name "$2"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
}

start jobs target/debug/examples/jobs http 127.0.0.1:0
echo "== the jobs dashboard at ${address}"
check auto jobs
check legacy jobs

# The same test against the stand-in, a server and View on the official
# SDKs: if presa fails where the stand-in passes, the fault is not the
# test host's.
start standin "$NODE" "${CACHE}/test/standin_server.mjs"
echo "== the stand-in at ${address}"
check auto standin

echo "apps browser: ${passed} passed, ${failed} failed"
[[ "$failed" == 0 ]]
