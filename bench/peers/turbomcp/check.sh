#!/usr/bin/env bash
# Checks the turbomcp benchmark server by hand, with the bytes the harness's
# driver sends (harness/src/wire.rs): stateless 2026-07-28 requests over
# stdio and over Streamable HTTP.
#
# Usage: check.sh [PATH-TO-turbomcp-server]
# Without an argument it uses the debug build in the bench workspace's
# target directory (CARGO_TARGET_DIR if set). Needs curl and python3.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
target=${CARGO_TARGET_DIR:-$here/../../target}
server=${1:-$target/debug/turbomcp-server}
[ -x "$server" ] || { echo "no server at $server; build it first:" \
  "cargo build --manifest-path bench/Cargo.toml -p bench-turbomcp" >&2; exit 2; }

failures=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1"; failures=$((failures + 1)); }

meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench-driver","version":"1"}}'
eliciting_meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"bench-driver","version":"1"}}'
echo_body() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},%s}}' "$1" "$meta"; }
list_body() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/list","params":{%s}}' "$1" "$meta"; }
ask_body() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"ask","arguments":{},%s}}' "$1" "$eliciting_meta"; }
ask_retry_body() {
  printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"ask","arguments":{},%s,"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}},"requestState":"%s"}}' \
    "$1" "$eliciting_meta" "$2"
}

# The driver's success test (wire.rs is_success): a result with the marker,
# no error, no tool error, no pending input.
succeeds() {
  local answer=$1 marker=$2
  [[ $answer == *'"result"'* && $answer == *"$marker"* && $answer != *'"error"'* &&
     $answer != *'"isError":true'* && $answer != *'"input_required"'* ]]
}

# ---- stdio ---------------------------------------------------------------

coproc SERVER { exec "$server" stdio; }
# Bash forgets SERVER_PID once the coprocess ends, so keep it.
server_pid=$SERVER_PID
send() { printf '%s\n' "$1" >&"${SERVER[1]}"; }
receive() { local line; IFS= read -r -t 10 line <&"${SERVER[0]}"; printf '%s' "$line"; }

send "$(echo_body 1)"
answer=$(receive)
succeeds "$answer" '"text":"hello"' && pass "stdio echo" || fail "stdio echo: $answer"

for id in $(seq 100 163); do send "$(echo_body "$id")"; done
ids=()
for _ in $(seq 64); do
  answer=$(receive)
  succeeds "$answer" '"text":"hello"' || { fail "stdio echo in flight: $answer"; break; }
  ids+=("$(sed -E 's/.*"id":([0-9]+).*/\1/' <<<"$answer")")
done
if [ "$(printf '%s\n' "${ids[@]}" | sort -n | uniq | wc -l)" = 64 ]; then
  pass "stdio 64 echo calls in flight, 64 distinct answers"
else
  fail "stdio 64 in flight: got ids ${ids[*]}"
fi

send "$(list_body 2)"
answer=$(receive)
if succeeds "$answer" '"inputSchema"' && [[ $answer == *'"name":"echo"'* && $answer == *'"name":"work"'* && $answer == *'"name":"ask"'* ]]; then
  pass "stdio tools/list names echo, work and ask"
else
  fail "stdio tools/list: $answer"
fi

send "$(ask_body 3)"
answer=$(receive)
state=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["result"].get("requestState",""))' "$answer")
if [[ $answer == *'"resultType":"input_required"'* && $answer == *'"confirm"'* && -n $state ]]; then
  pass "stdio ask without an answer: input_required with a requestState"
else
  fail "stdio ask, first round: $answer"
fi
send "$(ask_retry_body 4 "$state")"
answer=$(receive)
succeeds "$answer" '"text":"true"' && pass "stdio ask retry completes with \"true\"" || fail "stdio ask retry: $answer"
# The driver asks once and then sends the same state with every call.
send "$(ask_retry_body 6 "$state")"
answer=$(receive)
succeeds "$answer" '"text":"true"' && pass "stdio ask retry with the same state again" || fail "stdio ask second retry: $answer"

send "$(ask_retry_body 5 "v1.forged.state")"
answer=$(receive)
[[ $answer == *'"error"'* ]] && pass "stdio ask retry with a forged state is refused" || fail "stdio forged state: $answer"

exec {SERVER[1]}>&-
wait "$server_pid" && pass "stdio server exits when stdin closes" || fail "stdio exit status"

# ---- HTTP ----------------------------------------------------------------

out=$(mktemp)
"$server" http >"$out" &
http_pid=$!
trap 'kill "$http_pid" 2>/dev/null; rm -f "$out"' EXIT
for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.1; done
read -r word addr <"$out"
[ "$word" = listening ] && pass "http prints: listening $addr" || fail "http first line: $word $addr"
[ "$(wc -l <"$out")" = 1 ] || fail "http printed more than one line"

headers=(-H "Host: $addr" -H 'content-type: application/json'
  -H 'accept: application/json, text/event-stream'
  -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: tools/call' -H 'mcp-name: echo')
reply=$(curl -s -i "${headers[@]}" --data-binary "$(echo_body 1)" "http://$addr/mcp")
status=$(head -1 <<<"$reply" | tr -d '\r')
type=$(grep -i '^content-type:' <<<"$reply" | tr -d '\r')
body=$(tail -1 <<<"$reply")
if [[ $status == *" 200"* ]] && succeeds "$body" '"text":"hello"'; then
  pass "http echo: $status, $type"
else
  fail "http echo: $reply"
fi

# 64 POSTs in a row: curl reuses one connection for the URLs of one run.
args=()
for id in $(seq 1 64); do
  [ "$id" = 1 ] || args+=(--next)
  args+=("${headers[@]}" --data-binary "$(echo_body "$id")" -w '\n%{http_code} %{num_connects}\n' "http://$addr/mcp")
done
results=$(curl -s "${args[@]}")
codes=$(grep -E '^[0-9]{3} [0-9]+$' <<<"$results")
good=$(grep -c '"text":"hello"' <<<"$results" || true)
connects=$(awk '{s += $2} END {print s}' <<<"$codes")
if [ "$(grep -c '^200 ' <<<"$codes")" = 64 ] && [ "$good" = 64 ] && [ "$connects" = 1 ]; then
  pass "http 64 echo calls in a row: 64 x 200 with the text, on 1 connection"
else
  fail "http 64 in a row: $(grep -c '^200 ' <<<"$codes") x 200, $good answers, $connects connections"
fi

if [ "$failures" = 0 ]; then echo "all checks passed"; else echo "$failures check(s) failed"; exit 1; fi
