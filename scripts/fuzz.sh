#!/usr/bin/env bash
# Runs presa's fuzz targets (fuzz/, docs/fuzzing.md) with cargo-fuzz and
# libFuzzer, on stable Rust, and prints how many inputs they ran.
#
#   scripts/fuzz.sh <target> <seconds> [jobs]    # run for a fixed time
#   scripts/fuzz.sh <target> runs=<N> [jobs]     # run N inputs (per job)
#   scripts/fuzz.sh <target> replay              # run each committed seed once
#   scripts/fuzz.sh ci                           # what CI runs (below)
#   scripts/fuzz.sh list                         # the targets
#
# Targets: dispatch (bytes through the framing and the server, in both
# eras), parsing (requestState, form schemas, URI templates, JSON-RPC
# frames, headers). With jobs > 1, that many fuzzing processes
# (libFuzzer's -jobs and -workers) run side by side on one corpus, each for
# the time or the runs given; libFuzzer prints each one's output when it
# ends.
#
# It installs cargo-fuzz if it is missing (`cargo install cargo-fuzz
# --locked`), builds with `--sanitizer none` (the default,
# AddressSanitizer, needs nightly's -Zsanitizer; without it the build is a
# release build with debug assertions and libFuzzer's coverage
# instrumentation, all stable flags), and runs the target on two corpus
# directories: fuzz/scratch/<target> first, where libFuzzer writes every
# new input it finds, then the committed seeds in fuzz/corpus/<target>,
# which it only reads. fuzz/scratch/ is git-ignored; delete it to start
# over from the seeds.
#
# `ci` builds every target, then for each: replays every committed seed
# once, then runs a fixed number of fresh inputs (CI_RUNS below) from the
# seeds, with a fixed random seed and a corpus of its own that it throws
# away, so the same commit runs the same inputs and fuzz/scratch/ is left
# alone. A target that crashes on a seed, or on the inputs a few mutations
# away, fails it.
#
# It exits non-zero when a target crashed (a panic, a failed check, a
# hang past 10 s, or memory past 2 GiB). The input that crashed is saved
# in fuzz/artifacts/<target>/ (git-ignored), and libFuzzer prints it in
# base64 when it is short. To reproduce a crash:
#
#   cd fuzz && cargo fuzz run --sanitizer none <target> artifacts/<target>/crash-<hash>
#   # dispatch only: print every line each way
#   PRESA_FUZZ_TRACE=1 cargo fuzz run --sanitizer none dispatch artifacts/dispatch/crash-<hash>
#   # a smaller input that crashes the same way
#   cargo fuzz tmin --sanitizer none <target> artifacts/<target>/crash-<hash>
#
# RUST_BACKTRACE=1 is set, so a panic prints its stack. Extra libFuzzer
# flags go in FUZZ_FLAGS (e.g. FUZZ_FLAGS="-max_len=16384").
set -euo pipefail
script="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$script")/../fuzz"
here="$(pwd)"

# Fresh inputs per target in `ci`: about 45 s each on one shared core of
# the project's machine (the whole of `ci`, built, about 95 s).
declare -A CI_RUNS=([dispatch]=20000 [parsing]=1000000)
CI_SEED=1

usage() {
  sed -n '2,9p' "$script" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

targets() {
  ls fuzz_targets | sed 's/\.rs$//'
}

# Builds `$1`, or every target without one.
build() {
  if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install cargo-fuzz --locked
  fi
  echo "== building ${1:-every target} (release, debug assertions, no sanitizer)"
  cargo fuzz build --sanitizer none ${1:+"$1"}
}

binary() {
  echo "${here}/target/x86_64-unknown-linux-gnu/release/$1"
}

# The flags of every run of target `$1`.
common_flags() {
  local artifacts="${here}/artifacts/$1"
  mkdir -p "$artifacts"
  flags=(
    -timeout=10
    -rss_limit_mb=2048
    -max_len=8192
    -print_final_stats=1
    "-artifact_prefix=${artifacts}/"
  )
  [[ -f "$1.dict" ]] && flags+=("-dict=${here}/$1.dict")
  # shellcheck disable=SC2206 # FUZZ_FLAGS is a list of flags
  flags+=(${FUZZ_FLAGS:-})
}

# Runs each committed seed of `$1` once.
replay() {
  local seeds=("${here}/corpus/$1"/*)
  common_flags "$1"
  echo "== replaying the ${#seeds[@]} seeds of $1"
  local started=$SECONDS status
  set +e
  RUST_BACKTRACE=1 "$(binary "$1")" "${flags[@]}" "${seeds[@]}"
  status=$?
  set -e
  echo "== $1: ${#seeds[@]} seeds in $((SECONDS - started)) s, exit status ${status}"
  crashed "$1" "$status"
}

# Fuzzes `$1` with the stop flags in `stop`, `$2` jobs, the grown corpus
# in `$3`.
fuzz() {
  local target="$1" jobs="$2" scratch="$3"
  common_flags "$target"
  flags=("${stop[@]}" "${flags[@]}")
  if [[ "$jobs" -gt 1 ]]; then
    flags+=("-jobs=${jobs}" "-workers=${jobs}")
  fi
  mkdir -p "$scratch"
  # libFuzzer writes each job's output to fuzz-<n>.log in its working directory.
  local work
  work="$(mktemp -d)"
  echo "== running ${target}: $(binary "$target") ${flags[*]} ${scratch} corpus/${target}"
  local started=$SECONDS
  set +e
  (cd "$work" && RUST_BACKTRACE=1 "$(binary "$target")" "${flags[@]}" "$scratch" "${here}/corpus/${target}") 2>&1 | tee "$work/main.log"
  local status="${PIPESTATUS[0]}"
  set -e
  local elapsed=$((SECONDS - started))
  # The final stats of the run, or of every job (whose logs libFuzzer also
  # copies to its own output): the executions add up.
  local logs=("$work/main.log")
  if [[ "$jobs" -gt 1 ]]; then
    logs=("$work"/fuzz-*.log)
  fi
  local executions rate="?"
  executions="$(cat "${logs[@]}" | sed -n 's/^stat::number_of_executed_units: *//p' | awk '{n += $1} END {print n + 0}')"
  rm -rf "$work"
  if [[ "$elapsed" -gt 0 ]]; then
    rate=$((executions / elapsed))
  fi
  echo "== ${target}: ${executions} executions in ${elapsed} s (${rate} exec/s, ${jobs} job(s)), exit status ${status}"
  crashed "$target" "$status"
}

# Says where the input is when target `$1` exited with status `$2`, and
# fails with it.
crashed() {
  if [[ "$2" -ne 0 ]]; then
    echo "== $1 crashed; the input is in fuzz/artifacts/$1/ (see the header of scripts/fuzz.sh to reproduce it)" >&2
    exit "$2"
  fi
}

case "${1:-}" in
  list)
    targets
    exit 0
    ;;
  ci)
    [[ $# -eq 1 ]] || usage
    build
    for target in $(targets); do
      replay "$target"
      stop=("-runs=${CI_RUNS[$target]:-10000}" "-seed=${CI_SEED}")
      scratch="$(mktemp -d)"
      fuzz "$target" 1 "$scratch"
      rm -rf "$scratch"
    done
    exit 0
    ;;
esac

[[ $# -ge 2 && $# -le 3 ]] || usage
target="$1"
limit="$2"
jobs="${3:-1}"
[[ -f "fuzz_targets/${target}.rs" ]] || { echo "no fuzz target '${target}' (try: $0 list)" >&2; exit 2; }
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || usage
case "$limit" in
  replay) [[ $# -eq 2 ]] || usage; build "$target"; replay "$target"; exit 0 ;;
  runs=*) runs="${limit#runs=}"; [[ "$runs" =~ ^[0-9]+$ ]] || usage; stop=("-runs=${runs}") ;;
  *) [[ "$limit" =~ ^[1-9][0-9]*$ ]] || usage; stop=("-max_total_time=${limit}") ;;
esac

build "$target"
fuzz "$target" "$jobs" "${here}/scratch/${target}"
