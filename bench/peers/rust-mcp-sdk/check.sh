#!/usr/bin/env bash
# Checks by hand that rust-mcp-sdk-server answers the bench driver's
# requests: the same bytes as the harness's wire.rs (stateless 2026-07-28,
# no initialize). Needs jq and curl.
#
#   bench/peers/rust-mcp-sdk/check.sh [path/to/rust-mcp-sdk-server]
#
# Without an argument it uses the debug build in bench/target (or
# $CARGO_TARGET_DIR). Exits non-zero on the first check that fails.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
target=${CARGO_TARGET_DIR:-$here/../../target}
server=${1:-$target/debug/rust-mcp-sdk-server}
[ -x "$server" ] || { echo "no server at $server: build it with cargo build -p bench-rust-mcp-sdk" >&2; exit 2; }

meta='{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench-driver","version":"1"}}'
eliciting='{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"bench-driver","version":"1"}}'

echo_line() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":%s}}\n' "$1" "$meta"; }
list_line() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/list","params":{"_meta":%s}}\n' "$1" "$meta"; }
ask_line() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"ask","arguments":{},"_meta":%s}}\n' "$1" "$eliciting"; }
retry_line() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"ask","arguments":{},"_meta":%s,"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}},"requestState":"%s"}}\n' "$1" "$eliciting" "$2"
}

failures=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1: $2"; failures=$((failures + 1)); }

# The driver's success test (wire.rs is_success): a result with the
# marker, and no error, tool error or pending input.
succeeds() { # answer marker
	[[ $1 == *'"result"'* && $1 == *"$2"* && $1 != *'"error"'* && $1 != *'"isError":true'* && $1 != *'"input_required"'* ]]
}

# --- stdio ---------------------------------------------------------------
coproc SERVER { "$server" stdio; }
pid=$SERVER_PID
# Own copies of the pipes, and the coproc's closed, so that closing ours
# is the end of the server's stdin.
exec {to}>&"${SERVER[1]}" {from}<&"${SERVER[0]}"
exec {SERVER[1]}>&- {SERVER[0]}<&-
ask() { printf '%s\n' "$1" >&"$to"; IFS= read -r -t 10 answer <&"$from"; }

ask "$(echo_line 1)"
if succeeds "$answer" '"text":"hello"'; then pass "stdio echo"; else fail "stdio echo" "$answer"; fi

seq_ok=0
for id in $(seq 2 65); do
	ask "$(echo_line "$id")"
	succeeds "$answer" '"text":"hello"' && [[ $answer == *"\"id\":$id,"* ]] && seq_ok=$((seq_ok + 1))
done
if [ "$seq_ok" = 64 ]; then pass "stdio echo, 64 sequential"; else fail "stdio echo, 64 sequential" "$seq_ok of 64"; fi

# 64 in flight: write them all, then read 64 answers, in any order.
batch=""
for id in $(seq 100 163); do batch+=$(echo_line "$id")$'\n'; done
printf '%s' "$batch" >&"$to"
ids=()
for _ in $(seq 64); do
	IFS= read -r -t 10 answer <&"$from" || break
	succeeds "$answer" '"text":"hello"' && ids+=("$(jq -r .id <<<"$answer")")
done
distinct=$(printf '%s\n' "${ids[@]}" | sort -u | wc -l)
if [ "${#ids[@]}" = 64 ] && [ "$distinct" = 64 ]; then pass "stdio echo, 64 in flight"; else fail "stdio echo, 64 in flight" "${#ids[@]} answers, $distinct distinct ids"; fi

ask "$(list_line 200)"
names=$(jq -c '[.result.tools[].name]' <<<"$answer")
if succeeds "$answer" '"inputSchema"' && [ "$names" = '["echo","work","ask"]' ]; then pass "stdio tools/list $names"; else fail "stdio tools/list" "$answer"; fi

ask "$(ask_line 201)"
state=$(jq -r '.result.requestState // empty' <<<"$answer")
key=$(jq -r '.result.inputRequests | keys[0] // empty' <<<"$answer")
if [[ $answer == *'"resultType":"input_required"'* && -n $state && $key = confirm ]]; then pass "stdio ask asks (input_required, key confirm)"; else fail "stdio ask asks" "$answer"; fi

ask "$(retry_line 202 "$state")"
if succeeds "$answer" '"text":"true"'; then pass "stdio ask completes with the answer and the state"; else fail "stdio ask completes" "$answer"; fi

ask "$(retry_line 203 "x${state}")"
if [[ $answer == *'"input_required"'* ]]; then pass "stdio ask asks again on a forged state"; else fail "stdio ask, forged state" "$answer"; fi

ask "$(printf '{"jsonrpc":"2.0","id":204,"method":"tools/call","params":{"name":"work","arguments":{},"_meta":%s}}\n' "$meta")"
if succeeds "$answer" '"text":"done"'; then pass "stdio work"; else fail "stdio work" "$answer"; fi

# Closing stdin ends the server.
exec {to}>&-
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then fail "stdio exits when stdin closes" "still running"; kill "$pid"; else pass "stdio exits when stdin closes"; fi
exec {from}<&-

# --- HTTP ----------------------------------------------------------------
out=$(mktemp)
"$server" http >"$out" &
http_pid=$!
trap 'kill $http_pid 2>/dev/null; rm -f "$out"' EXIT
for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.1; done
line=$(head -n1 "$out")
address=${line#listening }
if [[ $line =~ ^listening\ 127\.0\.0\.1:[0-9]+$ ]]; then pass "http prints '$line'"; else fail "http listening line" "$line"; exit 1; fi

headers=(-H 'content-type: application/json' -H 'accept: application/json, text/event-stream'
	-H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: tools/call' -H 'mcp-name: echo')
body=$(echo_line 1)
answer=$(curl -sS --http1.1 -D - "${headers[@]}" --data-binary "$body" "http://$address/mcp")
if [[ $answer == *"HTTP/1.1 200"* && ${answer,,} == *"content-type: application/json"* ]] && succeeds "$answer" '"text":"hello"'; then
	pass "http echo: 200, application/json"
else
	fail "http echo" "$answer"
fi

# 64 POSTs on one connection: curl reuses it for every URL; num_connects
# is 1 for the first transfer and 0 for the reused ones.
urls=()
for _ in $(seq 64); do urls+=("http://$address/mcp"); done
results=$(curl -sS --http1.1 "${headers[@]}" --data-binary "$body" -w '\n%{http_code} %{num_connects}\n' "${urls[@]}")
ok=$(grep -c '"text":"hello"' <<<"$results" || true)
codes=$(grep -cE '^200 [01]$' <<<"$results" || true)
connects=$(grep -E '^[0-9]{3} [0-9]+$' <<<"$results" | awk '{s += $2} END {print s}')
if [ "$ok" = 64 ] && [ "$codes" = 64 ] && [ "$connects" = 1 ]; then pass "http echo, 64 on one keep-alive connection"; else fail "http keep-alive" "$ok bodies, $codes 200s, $connects connects"; fi

if [ "$failures" = 0 ]; then echo "all checks passed"; else echo "$failures check(s) failed"; exit 1; fi
