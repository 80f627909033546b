#!/usr/bin/env bash
# presa on Windows, from Linux: the workspace checks and lints clean for
# x86_64-pc-windows-gnu, with default features and without, and its
# unit and integration tests pass under Wine. Run by .ci/run; alone,
# `bash scripts/windows.sh` (as root, or with the packages below
# installed). The guide's Transports chapter
# (`presa::guide::transports`) says what differs there.
#
# Under Wine, the tests are built with cfg `presa_wine`: those that start a
# Linux program (cargo, Node) are then reported ignored, each saying why,
# and the process tests take the examples that this `cargo test` builds.
set -euo pipefail
cd "$(dirname "$0")/.."

target=x86_64-pc-windows-gnu
triple_env=X86_64_PC_WINDOWS_GNU

# The target's standard library, the MinGW linker and Wine. rustup does
# nothing if the target is there already.
rustup target add "$target" >/dev/null
missing=()
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || missing+=(gcc-mingw-w64-x86-64)
# Debian's wine64 puts its loader in /usr/lib/wine, not on PATH.
wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
[ -x "$wine" ] || missing+=(wine64)
if [ ${#missing[@]} -gt 0 ]; then
  as_root=""
  if [ "$(id -u)" != 0 ]; then as_root="sudo"; fi
  $as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

export "CARGO_TARGET_${triple_env}_LINKER=x86_64-w64-mingw32-gcc"
export "CARGO_TARGET_${triple_env}_RUNNER=$wine"
# No debug info: the test binaries link several times faster (with line
# tables each is some 80 MB), and a failure still names its assertion.
export CARGO_PROFILE_DEV_DEBUG=0 CARGO_PROFILE_TEST_DEBUG=0

# Each step says how long it took, for the CI log.
took() { echo "-- $1 took $SECONDS s"; SECONDS=0; }

SECONDS=0
echo "== cargo check for $target"
cargo check --target "$target" --workspace --all-targets --locked
# Telemetry is off by default; its exporter has platform code of its own.
cargo check --target "$target" -p presa-mcp --features otel --locked
took check

# Clippy type-checks as check does, so the second run is also the check
# without default features.
echo "== cargo clippy for $target -D warnings (default features, then without)"
cargo clippy --target "$target" --workspace --all-targets --locked -- -D warnings
took "clippy (default features)"
cargo clippy --target "$target" -p presa-mcp --no-default-features --all-targets --locked -- -D warnings
took "clippy (no default features)"

echo "== cargo test for $target, under Wine"
wine_dir="$PWD/target/wine"
mkdir -p "$wine_dir/dlls"
# Debian's Wine 8.0 has no bcryptprimitives.dll, whose ProcessPrng Rust's
# standard library imports, so no test binary would load. This stub is
# test infrastructure, never shipped: it forwards to RtlGenRandom.
x86_64-w64-mingw32-gcc -shared -O2 -s -o "$wine_dir/dlls/bcryptprimitives.dll" \
  scripts/windows/bcryptprimitives.c -ladvapi32
export WINEPATH="$wine_dir/dlls"
# A prefix of the build's own, not the user's ~/.wine.
export WINEPREFIX="$wine_dir/prefix"
export WINEDEBUG=-all
# One wineserver for the whole run, started before the prefix's first
# use: by default it exits a few seconds after its last client, and a
# test binary that starts as it exits loses its connection ("wine client
# error: recvmsg: Connection reset by peer").
mkdir -p "$WINEPREFIX"
wineserver="$(dirname "$wine")/wineserver"
[ -x "$wineserver" ] || wineserver=/usr/lib/wine/wineserver
[ -x "$wineserver" ] || wineserver="$(command -v wineserver || true)"
if [ -n "$wineserver" ]; then
  "$wineserver" -k >/dev/null 2>&1 || true
  "$wineserver" -p
  trap '"$wineserver" -k >/dev/null 2>&1 || true' EXIT
fi
# Wine's first start creates the prefix; done here, it is not counted in
# the first test's time.
"$wine" wineboot --init >/dev/null 2>&1
took "the stub and the Wine prefix"
# The presa-redis tests that need a redis-server are reported ignored:
# this machine's cannot serve a test under Wine (presa-redis/build.rs).
wine_test() {
  env -u PRESA_REQUIRE_REDIS "CARGO_TARGET_${triple_env}_RUSTFLAGS=--cfg presa_wine" \
    cargo test --target "$target" --workspace --locked "$@"
}
wine_test --no-run
took "test build"
wine_test
took "tests under Wine (and the doctests' build)"
