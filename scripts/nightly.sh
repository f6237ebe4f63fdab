#!/usr/bin/env bash
# A nightly campaign on one machine: SHARDS campaigns side by side (each its
# own SQLite shard and seed range), then the finish: merge the shards into one
# store, reduce each new bug, write a Markdown report per bug and the HTML
# dashboard. On a cluster, scripts/slurm/submit.sh runs the shards as a Slurm
# job array and calls `nightly.sh --finish-only` once they are done.
#
#   scripts/nightly.sh --out nightly/2026-11-30 --shards 2 --time 8h
#   scripts/nightly.sh --finish-only --out DIR     # merge/reduce/report shards already in DIR
#
# Options (environment variables of the same name in capitals also work):
#   --out DIR          where shards, the merged store and the reports go (nightly/DATE)
#   --shards N         campaigns side by side (default: number of cores)
#   --time T           the whole budget, e.g. 8h, 30m, 90s; 3/4 fuzzing, 1/4 reducing
#   --programs N       instead of --time for fuzzing: N programs per shard (tests use it)
#   --reduce-max S     at most S seconds per bug (default 120)
#   --runners A,B      passed to `dlfuzz fuzz` (default: its default set)
#   --seed S           first seed; shard i starts at S + i * 1000000000 (default: the date)
#   --shard-only I     run shard I only and exit (what a Slurm array task runs)
#   --finish-only      skip fuzzing; merge, reduce and report what DIR holds
# Exit: 0 when it ran (findings or not), 2 on bad usage or a failed step.
set -uo pipefail
cd "$(dirname "$0")/.."
DLFUZZ=${DLFUZZ:-build/dlfuzz}

out=${OUT_DIR:-nightly/$(date -u +%Y-%m-%d)}
shards=${SHARDS:-$(nproc)}
budget=${TIME:-1h}
programs=${PROGRAMS:-}
reduce_max=${REDUCE_MAX:-120}
runners=${RUNNERS:-}
seed=${SEED:-$(date -u +%Y%m%d)}
shard_only=""
finish_only=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --shards) shards=$2; shift 2 ;;
    --time) budget=$2; shift 2 ;;
    --programs) programs=$2; shift 2 ;;
    --reduce-max) reduce_max=$2; shift 2 ;;
    --runners) runners=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --shard-only) shard_only=$2; shift 2 ;;
    --finish-only) finish_only=1; shift ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "nightly.sh: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done

seconds_of() {  # 90s, 10m, 2h, 45 -> seconds
  case "$1" in
    *h) echo $(( ${1%h} * 3600 )) ;;
    *m) echo $(( ${1%m} * 60 )) ;;
    *s) echo "${1%s}" ;;
    *) echo "$1" ;;
  esac
}
total=$(seconds_of "$budget") || exit 2
[[ "$total" =~ ^[0-9]+$ && "$total" -gt 0 ]] || { echo "nightly.sh: bad --time '$budget'" >&2; exit 2; }
[[ -x "$DLFUZZ" ]] || { echo "nightly.sh: $DLFUZZ is not built (run make fuzz or scripts/setup.sh)" >&2; exit 2; }
fuzz_seconds=$(( total * 3 / 4 ))
reduce_budget=$(( total - fuzz_seconds ))
mkdir -p "$out"

run_shard() {  # one campaign into DIR/shard-I.db
  local i=$1
  local args=(fuzz --no-progress --jobs 1 --db "$out/shard-$i.db" --seed $(( seed + i * 1000000000 )))
  if [[ -n "$programs" ]]; then args+=(--programs "$programs"); else args+=(--time "${fuzz_seconds}s"); fi
  [[ -n "$runners" ]] && args+=(--runners "$runners")
  "$DLFUZZ" "${args[@]}" > "$out/shard-$i.log" 2>&1
  local rc=$?
  [[ $rc -le 1 ]] || { echo "nightly.sh: shard $i failed (exit $rc); see $out/shard-$i.log" >&2; return 2; }
}

if [[ -n "$shard_only" ]]; then
  run_shard "$shard_only"
  exit $?
fi

if [[ $finish_only -eq 0 ]]; then
  if [[ -n "$programs" ]]; then what="$programs programs each"; else what="${fuzz_seconds}s of fuzzing each"; fi
  echo "nightly: $shards shards, $what, into $out"
  pids=()
  for (( i = 0; i < shards; i++ )); do
    run_shard "$i" & pids+=($!)
  done
  failed=0
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  [[ $failed -eq 0 ]] || exit 2
fi

# --- finish: merge, reduce, report -----------------------------------------
db="$out/nightly.db"
shopt -s nullglob
shard_dbs=("$out"/shard-*.db)
[[ ${#shard_dbs[@]} -gt 0 ]] || { echo "nightly.sh: no shard databases in $out" >&2; exit 2; }
rm -f "$db" "$db-wal" "$db-shm"
"$DLFUZZ" triage merge --db "$db" "${shard_dbs[@]}" || exit 2

new_bugs=$(sqlite3 "$db" "SELECT id FROM bugs WHERE status = 'new' ORDER BY hits DESC")
deadline=$(( $(date +%s) + reduce_budget ))
mkdir -p "$out/reduced" "$out/reports"
for id in $new_bugs; do
  left=$(( deadline - $(date +%s) ))
  if [[ -z "$programs" && $left -le 5 ]]; then echo "nightly: reduction budget spent; left unreduced: bug $id and later"; break; fi
  limit=$reduce_max
  [[ -z "$programs" && $left -lt $limit ]] && limit=$left
  "$DLFUZZ" reduce "bug:$id" --db "$db" --max-time "$limit" -o "$out/reduced/bug-$id.dlf" > "$out/reduced/bug-$id.log" 2>&1
  case $? in
    0) echo "nightly: reduced bug $id: $(tail -n 1 "$out/reduced/bug-$id.log")" ;;
    3) # disk full or not writable: the rest would fail the same way
       echo "nightly: cannot write the reduction of bug $id under $out/reduced (disk full? not writable?):" >&2
       cat "$out/reduced/bug-$id.log" >&2
       exit 2 ;;
    *) echo "nightly: bug $id did not reproduce for reduction (see $out/reduced/bug-$id.log)" ;;
  esac
done

for id in $(sqlite3 "$db" "SELECT id FROM bugs WHERE duplicate_of IS NULL AND status NOT IN ('fixed','wontfix')"); do
  "$DLFUZZ" triage report "$id" --db "$db" -o "$out/reports/bug-$id.md" >/dev/null || exit 2
done
"$DLFUZZ" triage html --db "$db" -o "$out/report.html" >/dev/null || exit 2
"$DLFUZZ" triage list --db "$db"
echo "nightly: store $db, dashboard $out/report.html, bug reports in $out/reports/"
