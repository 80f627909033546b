#!/usr/bin/env bash
# Replicas behind a real proxy, driven by the hosts people run: two `jobs`
# servers that share their 2025-11-25 sessions through one Redis, behind
# HAProxy balancing round robin with no affinity (tests/replicas_proxy.rs,
# whose docs say what each test proves):
#
# - the TypeScript SDK 1.x client runs a session across both replicas:
#   `initialize`, a tool call whose question is answered through the
#   other replica, a task, a resource subscription and its notifications,
#   and `DELETE`, after which both replicas answer 404;
# - the same client when the replica serving its call is killed: the
#   call fails instead of hanging, and the next requests succeed through
#   the replica left;
# - the MCP Inspector's CLI lists and calls tools through the proxy.
#
# What HAProxy does when a replica dies (its configuration is in the
# test, `haproxy_config`): a request whose connection to the dead replica
# is refused is sent at once to the other one (`retry-on conn-failure`,
# `option redispatch`), and the health check takes the dead one out. A
# response the replica was sending when it died ends there: the client
# sees its stream break, resumes it through the proxy with `GET` and
# `Last-Event-ID`, and the replica left answers with the call's error.
#
#   scripts/replicas.sh
#
# It installs what is missing: haproxy and redis-server from Debian's
# packages, and Node 22, the SDK and the Inspector into .cache/interop
# (git-ignored) at the versions scripts/interop.sh installs. Then it runs
# the tests with PRESA_REPLICAS=1, so that a missing setup fails instead of
# being skipped. Each test starts its own Redis, replicas and HAProxy and
# stops them when it ends. The tests run in a process group of their own,
# which the script kills when it exits, so that nothing is left running
# even if the run is interrupted.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
group=""
finish() {
  local status=$?
  if [[ -n "$group" ]]; then
    kill -KILL -- "-$group" 2>/dev/null || true
  fi
  echo "   (replicas.sh: $((SECONDS - started)) s, exit $status)"
}
trap finish EXIT
trap 'exit 130' INT TERM

# Debian puts HAProxy in /usr/sbin, which a user's PATH may lack; the test
# looks there too.
if ! { command -v haproxy >/dev/null 2>&1 || [[ -x /usr/sbin/haproxy ]]; } \
  || ! command -v redis-server >/dev/null 2>&1; then
  as_root=""
  if [[ "$(id -u)" != 0 ]]; then as_root="sudo"; fi
  $as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq haproxy redis-server >/dev/null
  # The packages start system services; the tests start their own.
  $as_root service haproxy stop >/dev/null 2>&1 || true
  $as_root service redis-server stop >/dev/null 2>&1 || true
fi

# The same versions and cache as scripts/interop.sh, so that CI installs
# them once for both.
SDK_PACKAGE="@modelcontextprotocol/sdk@1.32.2"
INSPECTOR_PACKAGE="@modelcontextprotocol/inspector@2.12.0"
CACHE=".cache/interop"

source scripts/lib/node.sh
node_cache "$CACHE" "$SDK_PACKAGE" "$INSPECTOR_PACKAGE"
SDK="${CACHE}/node_modules/@modelcontextprotocol/sdk"
INSPECTOR="${CACHE}/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"

echo "== building the jobs example and the tests"
cargo build --locked --quiet --example jobs
cargo test --locked --no-run --quiet --test replicas_proxy

echo "== two jobs replicas on one Redis behind HAProxy, round robin"
# setsid puts the tests, and every process they start, in a new process
# group, whose id is the tests' own: `finish` kills it whole.
PRESA_REPLICAS=1 PRESA_INTEROP_NODE="$(pwd)/${NODE}" PRESA_INTEROP_TS_SDK="$(pwd)/${SDK}" \
  PRESA_INSPECTOR="$(pwd)/${INSPECTOR}" \
  setsid cargo test --locked --test replicas_proxy -- --nocapture &
group=$!
wait "$group"
