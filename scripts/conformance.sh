#!/usr/bin/env bash
# Runs the official MCP conformance suite against presa's fixture server and
# client, over Streamable HTTP, and prints one summary line per suite: the
# server suite for 2026-07-28 and for 2025-11-25 (legacy sessions), the
# tasks scenarios, the Skills scenarios (SEP-2640), the client suite for
# 2026-07-28 and for 2025-11-25 (legacy servers), and the client's Skills
# scenarios.
#
#   scripts/conformance.sh            # everything
#
# It installs Node 22 and the suite into .cache/conformance (git-ignored),
# builds the two conformance examples, and fails if any suite has an
# unexpected failure (conformance/baseline.yml lists the expected ones:
# none).
set -euo pipefail
cd "$(dirname "$0")/.."

SUITE_PACKAGE="@modelcontextprotocol/conformance@0.2.0-alpha.12"
CACHE=".cache/conformance"
OUT="${CACHE}/results/$(date +%Y%m%d-%H%M%S)"
BASELINE="conformance/baseline.yml"
TASK_SCENARIOS=(
  tasks-lifecycle tasks-capability-negotiation tasks-wire-fields
  tasks-request-state-removal tasks-mrtr-input tasks-request-headers
  tasks-dispatch-and-envelope tasks-status-notifications
  tasks-required-task-error tasks-mrtr-composition
)
# The server's Skills (SEP-2640) scenarios, and the client's. The suite
# files them under an extension, so no `--suite` here runs them: each runs
# on its own.
SKILLS_SCENARIOS=(
  sep-2640-skills-directory sep-2640-skills-enumeration sep-2640-skills-manifest
)
SKILLS_CLIENT_SCENARIOS=(
  sep-2640-client-no-prefetch sep-2640-client-verify-digest
  sep-2640-client-verify-size sep-2640-client-verify-frontmatter
)

source scripts/lib/node.sh
node_cache "$CACHE" "$SUITE_PACKAGE"
CONFORMANCE="${CACHE}/node_modules/@modelcontextprotocol/conformance/dist/index.js"

echo "== building the conformance examples"
cargo build --quiet --locked --example conformance_server --example conformance_client
SERVER_BIN="target/debug/examples/conformance_server"
CLIENT_BIN="$(pwd)/target/debug/examples/conformance_client"

# A free port, chosen by the system.
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
mkdir -p "$OUT"
PORT="$PORT" "$SERVER_BIN" >"${OUT}/server.log" 2>&1 &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/${PORT}") 2>/dev/null; then break; fi
  sleep 0.1
done
URL="http://localhost:${PORT}/mcp"

summaries=()
status=0

# Runs the suite with "$@"; keeps its output; records "name: passed/total".
run_suite() {
  local name="$1"; shift
  local log="${OUT}/${name//\//-}.log"
  local code=0
  "$NODE" "$CONFORMANCE" "$@" >"$log" 2>&1 || code=$?
  local totals
  totals="$(grep -Eo '(Total: [0-9]+ passed, [0-9]+ failed|Passed: [0-9]+/[0-9]+)' "$log" | tail -n 1 || true)"
  local passed total
  if [[ "$totals" =~ Total:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
    passed="${BASH_REMATCH[1]}"; total=$(( BASH_REMATCH[1] + BASH_REMATCH[2] ))
  elif [[ "$totals" =~ Passed:\ ([0-9]+)/([0-9]+) ]]; then
    passed="${BASH_REMATCH[1]}"; total="${BASH_REMATCH[2]}"
  else
    passed="?"; total="?"
  fi
  # Scenarios, where the suite ran several: the lines it marks ✓ and ✗.
  local scenarios=""
  local ok failed
  ok="$(grep -c '^✓' "$log" || true)"
  failed="$(grep -c '^✗' "$log" || true)"
  if (( ok + failed > 1 )); then scenarios=" (${ok}/$(( ok + failed )) scenarios)"; fi
  local verdict="ok"
  if [[ $code -ne 0 ]]; then verdict="FAILED (exit ${code}; see ${log})"; status=1; fi
  summaries+=("${name}: ${passed}/${total} checks passed${scenarios}, ${verdict}")
}

echo "== server suite"
run_suite "server" server --url "$URL" --suite all --spec-version 2026-07-28 \
  --expected-failures "$BASELINE" -o "${OUT}/server"

echo "== server suite, legacy sessions"
run_suite "server-2025-11-25" server --url "$URL" --suite all --spec-version 2025-11-25 \
  --expected-failures "$BASELINE" -o "${OUT}/server-2025-11-25"

echo "== tasks scenarios"
for scenario in "${TASK_SCENARIOS[@]}"; do
  run_suite "$scenario" server --url "$URL" --scenario "$scenario" -o "${OUT}/tasks"
done

echo "== skills scenarios"
for scenario in "${SKILLS_SCENARIOS[@]}"; do
  run_suite "$scenario" server --url "$URL" --scenario "$scenario" -o "${OUT}/skills"
done

echo "== client suite"
run_suite "client" client --command "$CLIENT_BIN" --suite all --spec-version 2026-07-28 \
  --expected-failures "$BASELINE" -o "${OUT}/client"

# The same client against the suite's 2025-11-25 servers (initialize,
# tools_call, elicitation-sep1034-client-defaults, sse-retry, and the rest
# of that revision's client scenarios): it finds out their era itself.
echo "== client suite, 2025-11-25"
run_suite "client-2025-11-25" client --command "$CLIENT_BIN" --suite all --spec-version 2025-11-25 \
  --expected-failures "$BASELINE" -o "${OUT}/client-2025-11-25"

# The 2025-03-26 authorization fallbacks (a server without resource
# metadata is its own authorization server, with default endpoints when it
# has no metadata either), which only the backcompat suite runs.
echo "== client suite, 2025-03-26 authorization fallbacks"
run_suite "client-backcompat" client --command "$CLIENT_BIN" --suite backcompat -o "${OUT}/client-backcompat"

# The authorization extensions (client credentials, enterprise-managed
# authorization, DPoP, workload identity) run only as their own suite, at
# the 2025-11-25 wire; every one must pass.
echo "== client suite, authorization extensions"
run_suite "client-extensions" client --command "$CLIENT_BIN" --suite extensions -o "${OUT}/client-extensions"

echo "== client Skills scenarios"
for scenario in "${SKILLS_CLIENT_SCENARIOS[@]}"; do
  run_suite "$scenario" client --command "$CLIENT_BIN" --scenario "$scenario" -o "${OUT}/client-skills"
done

echo "== summary (logs in ${OUT})"
for line in "${summaries[@]}"; do echo "$line"; done
exit "$status"
