#!/usr/bin/env bash
# libFuzzer + ASan + UBSan over dlfuzz's own readers (libfuzzer/targets/): the
# .dlf parser/verifier/printer round trip (dlf), the worker reply decoder
# (wire), the store reading a foreign or damaged database (store), and
# `triage merge` of a damaged shard (merge). Builds them with clang in
# build-fuzz/ (LibTorch-free) and runs each from its seeds (libfuzzer/corpus/T)
# and past crashes (libfuzzer/regressions/T).
#
# In `make test` the run is deterministic: a fixed seed (DLFUZZ_FUZZ_SEED, 1)
# and a fixed number of inputs per target (about 25 s each here), so CI passes
# or fails the same way every time; the time limit (DLFUZZ_FUZZ_SECONDS, 120)
# only caps a slow machine. To look for new crashes, run longer with another
# seed: DLFUZZ_FUZZ_SEED=0 (random) DLFUZZ_FUZZ_RUNS=-1 (no limit)
# DLFUZZ_FUZZ_SECONDS=600 bash scripts/check_fuzz_targets.sh
# Prints executions per second per target. A crash fails the script and leaves
# the input under build-fuzz/crashes/: fix it, then keep it as a regression
# input in libfuzzer/regressions/T/ (tests/libfuzzer/replay_test.cpp replays
# those in every build).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${DLFUZZ_FUZZ_SECONDS:-120}
seed=${DLFUZZ_FUZZ_SEED:-1}
runs_of() {  # inputs per target: the readers that open a database are ~10x slower
  if [ -n "${DLFUZZ_FUZZ_RUNS:-}" ]; then echo "$DLFUZZ_FUZZ_RUNS"; return; fi
  case $1 in store | merge) echo 20000 ;; *) echo 200000 ;; esac
}
targets=${DLFUZZ_FUZZ_TARGETS:-"dlf wire store merge"}
if ! command -v clang++ >/dev/null; then
  echo "fuzz targets: skipped (no clang++; apt-get install clang)"
  exit 0
fi
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
      -DDLFUZZ_TORCH=none -DDLFUZZ_SANITIZE=ON -DDLFUZZ_FUZZ=ON -DDLFUZZ_TESTS=OFF -DDLFUZZ_BENCH=OFF >/dev/null
build_targets=()
for t in $targets; do build_targets+=(--target "fuzz-$t"); done
cmake --build build-fuzz -j2 "${build_targets[@]}" >/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p build-fuzz/crashes
failed=0
for t in $targets; do
  mkdir -p "$work/$t"
  dirs=("$work/$t" "libfuzzer/corpus/$t")
  [ -d "libfuzzer/regressions/$t" ] && dirs+=("libfuzzer/regressions/$t")
  dict=()
  [ -f "libfuzzer/$t.dict" ] && dict=(-dict="libfuzzer/$t.dict")
  log="build-fuzz/fuzz-$t.log"
  if build-fuzz/fuzz-$t "${dirs[@]}" "${dict[@]}" -seed="$seed" -runs="$(runs_of "$t")" \
     -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
     -artifact_prefix="build-fuzz/crashes/$t-" -print_final_stats=1 >"$log" 2>&1; then
    status=ok
  else
    input=$(ls -t build-fuzz/crashes/$t-* 2>/dev/null | head -1)
    status="CRASH (input: $input; log: $log)"
    failed=1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  echo "fuzz-$t: ${runs:-0} inputs in ${secs:-$seconds} s (${rate:-0}/s, seed $seed), ${cov:-cov: ?} edges: $status"
  if [ "$status" != ok ]; then
    # CI keeps only this output: say what broke and on which input, so the
    # crash can be fixed without the machine it happened on.
    grep -m1 -A12 -E '^dlfuzz fuzz target|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error' "$log" |
      sed 's/^/  | /' || true
    if [ -n "$input" ]; then
      echo "  input (base64): $(base64 -w0 "$input" | head -c 8000)"
    fi
  fi
done
[ "$failed" = 0 ] && echo "fuzz targets: ok" || { echo "fuzz targets: FAILED"; exit 1; }
