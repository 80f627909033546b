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
# prefers) and `legacy` (2025-11-25). Screenshots go to
# target/apps-browser/. It fails if a check fails, and stops the server on
# exit.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=".cache/apps_browser"
OUT="target/apps-browser"
LOG="${OUT}/jobs.log"
# How long the example may take to say it is listening.
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

mkdir -p "$OUT"
rm -f "$LOG"
if [[ "${1:-}" == "--standin" ]]; then
  "$NODE" "${CACHE}/test/standin_server.mjs" >"$LOG" 2>&1 &
else
  echo "== building the jobs example"
  cargo build --locked --quiet --example jobs
  target/debug/examples/jobs http 127.0.0.1:0 >"$LOG" 2>&1 &
fi
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true' EXIT

# The address the example prints once it listens; fails if it exits first
# or READY_TIMEOUT_S passes.
address=""
for (( i = 0; i < READY_TIMEOUT_S * 20; i++ )); do
  if line="$(grep -m1 -oE 'at http://[^ ]+/mcp' "$LOG" 2>/dev/null)"; then
    address="${line#at }"
    break
  fi
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    break
  fi
  sleep 0.05
done
if [[ -z "$address" ]]; then
  echo "the jobs example did not say where it listens; its output:" >&2
  cat "$LOG" >&2
  exit 1
fi
echo "== the browser test against ${address}"

passed=0
failed=0
for era in auto legacy; do
  if CHROMIUM="$CHROMIUM" timeout "$TEST_TIMEOUT_S" "$NODE" "${CACHE}/test/run.mjs" \
    --mcp "$address" --out "$OUT" --era "$era"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
done
echo "apps browser: ${passed} passed, ${failed} failed"
[[ "$failed" == 0 ]]
