#!/usr/bin/env bash
# Runs one of presa's fuzz targets (fuzz/, docs/fuzzing.md) with cargo-fuzz
# and libFuzzer, on stable Rust, and prints how many inputs it ran.
#
#   scripts/fuzz.sh <target> <seconds> [jobs]    # run for a fixed time
#   scripts/fuzz.sh <target> runs=<N> [jobs]     # run N inputs (per job)
#   scripts/fuzz.sh list                         # the targets
#
# Targets: dispatch (bytes through the framing and the server), parsing
# (requestState, form schemas, URI templates, JSON-RPC frames, headers).
# With jobs > 1, that many fuzzing processes (libFuzzer's -jobs and
# -workers) run side by side on one corpus, each for the time or the runs
# given; libFuzzer prints each one's output when it ends.
#
# It installs cargo-fuzz if it is missing (`cargo install cargo-fuzz
# --locked`), builds the target with `--sanitizer none` (the default,
# AddressSanitizer, needs nightly's -Zsanitizer; without it the build is a
# release build with debug assertions and libFuzzer's coverage
# instrumentation, all stable flags), and runs it on two corpus
# directories: fuzz/scratch/<target> first, where libFuzzer writes every
# new input it finds, then the committed seeds in fuzz/corpus/<target>,
# which it only reads. fuzz/scratch/ is git-ignored; delete it to start
# over from the seeds.
#
# It exits non-zero when the target crashed (a panic, a failed check, a
# hang past 10 s, or memory past 2 GiB). The input that crashed is saved
# in fuzz/artifacts/<target>/ (git-ignored). To reproduce a crash:
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

usage() {
  sed -n '2,8p' "$script" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

if [[ "${1:-}" == "list" ]]; then
  ls fuzz_targets | sed 's/\.rs$//'
  exit 0
fi
[[ $# -ge 2 && $# -le 3 ]] || usage
target="$1"
limit="$2"
jobs="${3:-1}"
[[ -f "fuzz_targets/${target}.rs" ]] || { echo "no fuzz target '${target}' (try: $0 list)" >&2; exit 2; }
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || usage
case "$limit" in
  runs=*) runs="${limit#runs=}"; [[ "$runs" =~ ^[0-9]+$ ]] || usage; stop=("-runs=${runs}") ;;
  *) [[ "$limit" =~ ^[1-9][0-9]*$ ]] || usage; stop=("-max_total_time=${limit}") ;;
esac

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "== installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

echo "== building ${target} (release, debug assertions, no sanitizer)"
cargo fuzz build --sanitizer none "$target"
binary="target/x86_64-unknown-linux-gnu/release/${target}"

here="$(pwd)"
scratch="${here}/scratch/${target}"
seeds="${here}/corpus/${target}"
artifacts="${here}/artifacts/${target}"
mkdir -p "$scratch" "$artifacts"
flags=(
  "${stop[@]}"
  -timeout=10
  -rss_limit_mb=2048
  -max_len=8192
  -print_final_stats=1
  "-artifact_prefix=${artifacts}/"
)
[[ -f "${target}.dict" ]] && flags+=("-dict=${here}/${target}.dict")
# shellcheck disable=SC2206 # FUZZ_FLAGS is a list of flags
flags+=(${FUZZ_FLAGS:-})

# libFuzzer writes each job's output to fuzz-<n>.log in its working directory.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [[ "$jobs" -gt 1 ]]; then
  flags+=("-jobs=${jobs}" "-workers=${jobs}")
fi
echo "== running ${target}: ${binary} ${flags[*]} ${scratch} ${seeds}"
started=$SECONDS
set +e
(cd "$work" && RUST_BACKTRACE=1 "${here}/${binary}" "${flags[@]}" "$scratch" "$seeds") 2>&1 | tee "$work/main.log"
status="${PIPESTATUS[0]}"
set -e
elapsed=$((SECONDS - started))

# The final stats of the run, or of every job (whose logs libFuzzer also
# copies to its own output): the executions add up.
logs=("$work/main.log")
if [[ "$jobs" -gt 1 ]]; then
  logs=("$work"/fuzz-*.log)
fi
executions="$(cat "${logs[@]}" | sed -n 's/^stat::number_of_executed_units: *//p' | awk '{n += $1} END {print n + 0}')"
rate="?"
if [[ "$elapsed" -gt 0 ]]; then
  rate=$((executions / elapsed))
fi
echo "== ${target}: ${executions} executions in ${elapsed} s (${rate} exec/s, ${jobs} job(s)), exit status ${status}"
if [[ "$status" -ne 0 ]]; then
  echo "== ${target} crashed; the input is in fuzz/artifacts/${target}/ (see the header of $0 to reproduce it)" >&2
fi
exit "$status"
