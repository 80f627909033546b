#!/usr/bin/env bash
# Compile cost: a 20-tool stdio server written with each framework's
# macros, built clean (debug) and rebuilt after one tool body changes.
#
# The two crates are generated below from one template each, into
# bench/target/compile/, with the harness's Cargo.lock so that both build
# the versions the rest of the harness measures. Each framework has a
# target directory of its own, deleted before every clean build, so every
# crate is compiled each time; dependencies are fetched beforehand, so no
# download is timed. Builds alternate between the frameworks (presa, rmcp,
# presa, …); the figures are medians, in milliseconds, printed as a
# FIGURES line like the other sections'.
#
# Both servers are stdio-only builds: presa without default features (no
# HTTP, no `json-schema`: its 20 `#[tool]`s are checked by their types, and
# no `skills`), rmcp with `server`, `macros`, `schemars` and
# `transport-io`.
#
# Usage: bench/compile/measure.sh [CLEAN_ROUNDS] [INCREMENTAL_ROUNDS]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
bench="$(dirname "$here")"
root="$(dirname "$bench")"
work="$bench/target/compile"
clean_rounds="${1:-2}"
incremental_rounds="${2:-3}"

# Builds as a user's would be: the default dev profile, incremental on.
# Unsetting the variables is not enough: a cargo config file in a parent
# directory (or in ~/.cargo) may turn incremental builds off or lower the
# debug info, and either changes both figures. Environment variables
# override config files, so the defaults are pinned here explicitly.
unset CARGO_BUILD_TARGET_DIR RUSTFLAGS CARGO_ENCODED_RUSTFLAGS
export CARGO_INCREMENTAL=1
export CARGO_PROFILE_DEV_DEBUG=true
export CARGO_PROFILE_DEV_OPT_LEVEL=0
export CARGO_PROFILE_DEV_CODEGEN_UNITS=256
export CARGO_TERM_COLOR=never

# The body of tool N, with a marker the incremental rounds change.
tool_body() { echo "format!(\"tool $1 (edit 0): {text}\")"; }

write_presa() {
  local dir="$work/presa"
  mkdir -p "$dir/src"
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "compile-presa"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
presa-mcp = { path = "$root", default-features = false }
tokio = { version = "1.48", features = ["macros", "rt-multi-thread"] }
serde = { version = "1", features = ["derive"] }
schemars = "1"

[workspace]
TOML
  {
    echo "use presa::prelude::*;"
    for n in $(seq -w 1 20); do
      echo
      echo "/// Tool $n: answers with its input."
      echo "#[tool]"
      echo "async fn tool_$n(text: String) -> String {"
      echo "    $(tool_body "$n")"
      echo "}"
    done
    echo
    echo "#[tokio::main]"
    echo "async fn main() {"
    echo "    Server::builder(\"compile-presa\", \"1\")"
    for n in $(seq -w 1 20); do echo "        .tool(Tool${n}Tool)"; done
    echo "        .build()"
    echo "        .serve_stdio()"
    echo "        .await;"
    echo "}"
  } > "$dir/src/main.rs"
}

write_rmcp() {
  local dir="$work/rmcp"
  mkdir -p "$dir/src"
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "compile-rmcp"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
rmcp = { version = "=3.11.0", default-features = false, features = ["server", "macros", "schemars", "transport-io"] }
tokio = { version = "1.48", features = ["macros", "rt-multi-thread"] }
serde = { version = "1", features = ["derive"] }
schemars = "1"

[workspace]
TOML
  {
    echo "use rmcp::handler::server::wrapper::Parameters;"
    echo "use rmcp::{ServiceExt, tool, tool_router};"
    echo
    echo "/// The argument every tool takes."
    echo "#[derive(serde::Deserialize, schemars::JsonSchema)]"
    echo "struct Text {"
    echo "    /// The text to answer with."
    echo "    text: String,"
    echo "}"
    echo
    echo "#[derive(Clone)]"
    echo "struct Tools;"
    echo
    echo "#[tool_router(server_handler)]"
    echo "impl Tools {"
    for n in $(seq -w 1 20); do
      echo "    /// Tool $n: answers with its input."
      echo "    #[tool]"
      echo "    async fn tool_$n(&self, Parameters(Text { text }): Parameters<Text>) -> String {"
      echo "        $(tool_body "$n")"
      echo "    }"
      echo
    done
    echo "}"
    echo
    echo "#[tokio::main]"
    echo "async fn main() -> Result<(), Box<dyn std::error::Error>> {"
    echo "    Tools.serve(rmcp::transport::stdio()).await?.waiting().await?;"
    echo "    Ok(())"
    echo "}"
  } > "$dir/src/main.rs"
}

# Milliseconds since the epoch.
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# Builds framework $1; prints "MILLISECONDS CRATES_COMPILED".
build() {
  local dir="$work/$1" log start end
  log="$work/$1.log"
  start=$(now_ms)
  CARGO_TARGET_DIR="$work/target-$1" cargo build --offline --manifest-path "$dir/Cargo.toml" >"$log" 2>&1 \
    || { cat "$log" >&2; exit 1; }
  end=$(now_ms)
  echo "$((end - start)) $(grep -c '^ *Compiling ' "$log" || true)"
}

# Changes the body of tool 07 of framework $1 to edit number $2.
edit_tool() {
  sed -i "s/tool 07 (edit [0-9]*)/tool 07 (edit $2)/" "$work/$1/src/main.rs"
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

mkdir -p "$work"
write_presa
write_rmcp
for fw in presa rmcp; do
  cp "$bench/Cargo.lock" "$work/$fw/Cargo.lock"
  cargo fetch --manifest-path "$work/$fw/Cargo.toml" >/dev/null 2>&1
done

declare -A clean incremental crates
for round in $(seq 1 "$clean_rounds"); do
  for fw in presa rmcp; do
    rm -rf "$work/target-$fw"
    read -r ms count < <(build "$fw")
    clean[$fw]+="$ms "
    crates[$fw]=$count
    printf '%-58s %14s  (round %s, %s crates)\n' "$fw: clean debug build of a 20-tool server, ms" "$ms" "$round" "$count"
  done
done
for round in $(seq 1 "$incremental_rounds"); do
  for fw in presa rmcp; do
    edit_tool "$fw" "$round"
    read -r ms _ < <(build "$fw")
    incremental[$fw]+="$ms "
    printf '%-58s %14s  (round %s)\n' "$fw: rebuild after editing one tool body, ms" "$ms" "$round"
  done
done

json="{"
for fw in presa rmcp; do
  c=$(echo "${clean[$fw]}" | tr ' ' '\n' | grep . | median)
  i=$(echo "${incremental[$fw]}" | tr ' ' '\n' | grep . | median)
  json+="\"${fw}_compile_clean_ms\":$c,\"${fw}_compile_incremental_ms\":$i,\"${fw}_compile_crates\":${crates[$fw]},"
done
echo "FIGURES ${json%,}}"
# The build outputs are large and of no further use.
rm -rf "$work/target-presa" "$work/target-rmcp"
