#!/usr/bin/env bash
# The clean build time of the README's Getting started server, with
# presa's default features and with the stdio-only set
# (`default-features = false`).
#
# Writes a new crate with the README's `[dependencies]` and `src/main.rs`
# (presa taken from this repository) into a temporary
# folder, pinned to this repository's Cargo.lock, and builds it in debug
# mode twice: once per feature set, each with a fresh target folder.
# Dependencies are fetched first, so no download is timed. Builds use the
# default dev profile, as a user's would. Prints one line per feature set,
# with the seconds and the number of crates compiled; the temporary
# folder is deleted at the end.
#
#   scripts/build_time.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
unset CARGO_INCREMENTAL CARGO_PROFILE_DEV_DEBUG CARGO_BUILD_TARGET_DIR CARGO_TARGET_DIR RUSTFLAGS
export CARGO_TERM_COLOR=never

# The first block of LANGUAGE in the README's Getting started section.
readme_block() {
  awk -v fence="\`\`\`$1" '
    /^## Getting started/ { section = 1; next }
    /^## / { section = 0 }
    section && $0 == fence { code = 1; next }
    code && /^```$/ { exit }
    code { print }
  ' "$root/README.md"
}
main_rs="$(readme_block rust)"
# The README's `[dependencies]`, without its `presa-mcp` line.
dependencies="$(readme_block toml | grep -v '^presa-mcp = ')"

build() {
  local name="$1" dependency="$2"
  local dir="$work/$name"
  mkdir -p "$dir/src"
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "getting-started"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

$dependencies
presa-mcp = { path = "$root"$dependency }
TOML
  printf '%s\n' "$main_rs" > "$dir/src/main.rs"
  cp "$root/Cargo.lock" "$dir/Cargo.lock"
  (cd "$dir" && cargo fetch --quiet)
  local start end crates
  start=$(date +%s.%N)
  (cd "$dir" && cargo build --offline) >"$dir/build.log" 2>&1 || { cat "$dir/build.log" >&2; exit 1; }
  end=$(date +%s.%N)
  crates=$(grep -c '^ *Compiling ' "$dir/build.log")
  printf '%-14s %6.1f s  %3d crates\n' "$name" "$(echo "$end - $start" | bc)" "$crates"
}

echo "clean debug build of the README's Getting started, $(nproc) cores, $(date -u +%Y-%m-%d)"
build stdio-only ", default-features = false"
build default ""
