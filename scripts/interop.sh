#!/usr/bin/env bash
# Runs presa against other implementations, as their users would:
#
# - the TypeScript SDK 1.x, the SDK 2025-11-25 hosts are built on: presa's
#   client against its legacy-only server, and its client against the
#   `notes` example, whose tools return structured output of every kind
#   (tests/interop_ts.rs);
# - the `presa` command line against that legacy server, every command:
#   tools and calls with their questions answered, prompts, resources,
#   discover, and tasks followed, looked up, watched and cancelled
#   (presa-cli/tests/interop_ts.rs);
# - the MCP Inspector's CLI with `--strict`, which reports tool schemas
#   that hosts mapping them onto a narrower dialect would lose: on the
#   `jobs` and `notes` examples it must list every tool and report nothing.
#
#   scripts/interop.sh
#
# It installs Node 22, the SDK and the Inspector into .cache/interop
# (git-ignored), then runs the interop tests with PRESA_INTEROP set, so
# that a missing setup fails instead of being skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

SDK_PACKAGE="@modelcontextprotocol/sdk@1.32.2"
INSPECTOR_PACKAGE="@modelcontextprotocol/inspector@2.12.0"
CACHE=".cache/interop"

source scripts/lib/node.sh
node_cache "$CACHE" "$SDK_PACKAGE" "$INSPECTOR_PACKAGE"
SDK="${CACHE}/node_modules/@modelcontextprotocol/sdk"
INSPECTOR="${CACHE}/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"

echo "== the TypeScript SDK: its legacy server, and its client against the notes example"
PRESA_INTEROP=1 PRESA_INTEROP_NODE="$(pwd)/${NODE}" PRESA_INTEROP_TS_SDK="$(pwd)/${SDK}" \
  cargo test --locked --test interop_ts -- --nocapture
echo "== the presa command line against the TypeScript SDK's legacy server"
PRESA_INTEROP=1 PRESA_INTEROP_NODE="$(pwd)/${NODE}" PRESA_INTEROP_TS_SDK="$(pwd)/${SDK}" \
  cargo test --locked -p presa-cli --test interop_ts -- --nocapture

echo "== the MCP Inspector's --strict schema check on the examples"
cargo build --locked --quiet --example jobs --example notes
# strict EXAMPLE TOOLS [ARGS...]: lists the tools of the example started
# with ARGS, and fails unless it lists TOOLS of them with no finding.
strict() {
  local example="$1" tools="$2"
  shift 2
  local out err
  out="$(mktemp)" err="$(mktemp)"
  if ! "$NODE" "$INSPECTOR" --cli "target/debug/examples/${example}" "$@" \
      --method tools/list --strict >"$out" 2>"$err"; then
    echo "the Inspector failed on ${example}:" >&2
    cat "$err" >&2
    return 1
  fi
  local listed
  listed="$("$NODE" -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).tools.length)' "$out")"
  if [[ "$listed" != "$tools" ]]; then
    echo "the Inspector lists ${listed} of ${example}'s ${tools} tools" >&2
    return 1
  fi
  if [[ -s "$err" ]]; then
    echo "the Inspector's --strict check reports on ${example}:" >&2
    cat "$err" >&2
    return 1
  fi
  echo "${example}: ${listed} tools listed, nothing reported"
  rm -f "$out" "$err"
}
strict jobs 1 stdio
strict notes 5
