#!/usr/bin/env bash
# presa's OAuth resource server against a real, certified authorization
# server: oidc-provider (OpenID Certified), issuing JWT access tokens for
# the MCP endpoint by resource indicators (RFC 8707) through the
# client-credentials grant, and examples/oauth_server.rs taking them.
#
#   scripts/oauth_e2e.sh
#
# It installs Node 22, oidc-provider and the TypeScript SDK 1.x into
# .cache/oauth-e2e (git-ignored), builds the example, starts the
# authorization server (scripts/oauth/provider.mjs) and the example on
# loopback ports the system picks, then runs scripts/oauth/client.mjs: the
# SDK calls `whoami` and `build` with a token, and raw requests check each
# refusal's status and exact `WWW-Authenticate`. Then presa's own client
# (tests/oauth_provider.rs) signs a user in through the provider's login
# and consent pages, refreshes, steps up and runs a task, and does the
# same as a machine client. It prints one line per check and fails if any
# fails; both servers are stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

PROVIDER_PACKAGE="oidc-provider@9.13.3"
SDK_PACKAGE="@modelcontextprotocol/sdk@1.32.2"
CACHE=".cache/oauth-e2e"
LOGS="${CACHE}/logs"
# How long each server may take to say it is listening.
READY_TIMEOUT_S=30

source scripts/lib/node.sh
node_cache "$CACHE" "$PROVIDER_PACKAGE" "$SDK_PACKAGE"
PROVIDER="${CACHE}/node_modules/oidc-provider"
SDK="${CACHE}/node_modules/@modelcontextprotocol/sdk"

echo "== building examples/oauth_server.rs and tests/oauth_provider.rs"
cargo build --quiet --locked --example oauth_server
cargo test --quiet --locked --test oauth_provider --no-run
EXAMPLE="target/debug/examples/oauth_server"

started="$(date +%s%N)"
rm -rf "$LOGS"
mkdir -p "$LOGS"
PIDS=()
stop_all() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_all EXIT

# wait_for_line PID LOG PATTERN: the first line of LOG matching PATTERN
# (an extended regex), once the process PID has written it; fails if the
# process exits first or READY_TIMEOUT_S passes.
wait_for_line() {
  local pid="$1" log="$2" pattern="$3" line
  local tries=$(( READY_TIMEOUT_S * 20 ))
  for (( i = 0; i < tries; i++ )); do
    if line="$(grep -m1 -E "$pattern" "$log")"; then
      echo "$line"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "it exited before writing /${pattern}/; its output:" >&2
      cat "$log" >&2
      return 1
    fi
    sleep 0.05
  done
  echo "no /${pattern}/ within ${READY_TIMEOUT_S} s; its output:" >&2
  cat "$log" >&2
  return 1
}

CLIENT_ID="presa-e2e"
CLIENT_SECRET="$("$NODE" -e 'console.log(require("crypto").randomBytes(32).toString("base64url"))')"

echo "== starting oidc-provider (${PROVIDER_PACKAGE})"
OIDC_PROVIDER="$(pwd)/${PROVIDER}" E2E_CLIENT_ID="$CLIENT_ID" E2E_CLIENT_SECRET="$CLIENT_SECRET" \
  "$NODE" scripts/oauth/provider.mjs >"${LOGS}/provider.log" 2>&1 &
PIDS+=($!)
line="$(wait_for_line "${PIDS[-1]}" "${LOGS}/provider.log" '^listening at http://')"
ISSUER="${line#listening at }"
echo "issuer ${ISSUER}"

echo "== starting the example, for that issuer's tokens"
"$EXAMPLE" 127.0.0.1:0 --issuer "$ISSUER" >"${LOGS}/oauth_server.log" 2>&1 &
PIDS+=($!)
line="$(wait_for_line "${PIDS[-1]}" "${LOGS}/oauth_server.log" '^serving at http://')"
RESOURCE="${line#serving at }"
RESOURCE="${RESOURCE%%,*}"
echo "resource ${RESOURCE}"

echo "== the checks (scripts/oauth/client.mjs)"
status=0
E2E_ISSUER="$ISSUER" E2E_RESOURCE="$RESOURCE" E2E_CLIENT_ID="$CLIENT_ID" \
  E2E_CLIENT_SECRET="$CLIENT_SECRET" MCP_TS_SDK="$(pwd)/${SDK}" \
  timeout 120 "$NODE" scripts/oauth/client.mjs || status=$?

echo "== presa's client (tests/oauth_provider.rs)"
E2E_ISSUER="$ISSUER" E2E_RESOURCE="$RESOURCE" E2E_CLIENT_ID="$CLIENT_ID" \
  E2E_CLIENT_SECRET="$CLIENT_SECRET" \
  timeout 120 cargo test --locked --test oauth_provider || status=$?
elapsed_ms=$(( ($(date +%s%N) - started) / 1000000 ))
if [[ $status -ne 0 ]]; then
  echo "the checks failed (exit ${status}); the servers' output:" >&2
  for log in "${LOGS}"/*.log; do
    echo "-- ${log}" >&2
    tail -n 40 "$log" >&2
  done
fi
echo "== oauth e2e: $([[ $status -eq 0 ]] && echo ok || echo FAILED), servers and checks took $(( elapsed_ms / 1000 )).$(printf '%03d' $(( elapsed_ms % 1000 ))) s"
exit "$status"
