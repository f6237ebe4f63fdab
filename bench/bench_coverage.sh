#!/usr/bin/env bash
# Coverage-guided (libFuzzer over the generator's choices, compiler-behavior
# features as extra counters) against generator-only fuzzing (seeds 1, 2, ...
# through the same target, no feedback), for equal time, one after the other
# on this machine's cores. Prints a table: programs, distinct compiler-behavior
# features, distinct bug signatures, findings.
#
#   bench/bench_coverage.sh [SECONDS per mode, default 300]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
target=build/dlfuzz-libfuzzer
[[ -x $target ]] || { echo "bench_coverage: $target is not built (needs clang with libFuzzer)" >&2; exit 2; }
work=$(mktemp -d /tmp/dlfuzz-coverage.XXXXXX)
mkdir -p "$work/corpus"
guided=$(DLFUZZ_DB="$work/guided.db" "$target" "$work/corpus" -max_total_time="$seconds" -print_final_stats=0 \
  -artifact_prefix="$work/" \
  2>"$work/guided.log" | tail -n 1)
plain=$(DLFUZZ_DB="$work/plain.db" "$target" --generator-only "$seconds" 2>"$work/plain.log" | tail -n 1)
# Distinct signatures over both runs, and how many each found that the other did not.
sigs() { sqlite3 "$1" "SELECT DISTINCT signature FROM findings" | sort; }
only_guided=$(comm -23 <(sigs "$work/guided.db") <(sigs "$work/plain.db") | wc -l)
only_plain=$(comm -13 <(sigs "$work/guided.db") <(sigs "$work/plain.db") | wc -l)
row() {  # mode json
  python3 -c 'import json, sys
d = json.loads(sys.argv[2])
print("| %s | %d | %d | %d | %d |" % (sys.argv[1], d["programs"], d["features"], d["signatures"], d["findings"]))' "$1" "$2"
}
echo "equal time: ${seconds}s each, $(nproc) cores; stores and logs in $work"
echo "| mode | programs | features | signatures | findings |"
echo "|---|---|---|---|---|"
row "coverage-guided (libFuzzer)" "$guided"
row "generator-only" "$plain"
echo "signatures only coverage-guided found: $only_guided; only generator-only found: $only_plain"
