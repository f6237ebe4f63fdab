#!/usr/bin/env bash
# Submits a nightly campaign to Slurm: the shards as one job array (one shard
# per array task, each on its own node or cores), then the finish (merge,
# reduce, report) as a job that starts when every shard has ended.
#
#   scripts/slurm/submit.sh --out /shared/nightly/2026-11-30 --shards 16 --time 8h [--partition gpu]
#
# --out must be on a file system every node sees. Prints the two job ids.
# Any other option goes to nightly.sh (--runners, --seed, --programs, --reduce-max).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out="" shards=4 partition="" pass=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --shards) shards=$2; shift 2 ;;
    --partition) partition=$2; shift 2 ;;
    *) pass+=("$1" "$2"); shift 2 ;;
  esac
done
[[ -n "$out" ]] || { echo "submit.sh: --out DIR is required" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
common=(--parsable --chdir "$repo" --output "$out/slurm-%x-%A_%a.out")
[[ -n "$partition" ]] && common+=(--partition "$partition")
array=$(sbatch "${common[@]}" --job-name dlfuzz-shard --array "0-$((shards - 1))" \
  "$here/nightly-array.sbatch" --out "$out" "${pass[@]}")
finish=$(sbatch "${common[@]}" --job-name dlfuzz-finish --dependency "afterany:${array%%;*}" \
  "$here/nightly-finish.sbatch" --out "$out" "${pass[@]}")
echo "shards: job array $array; finish: job $finish; results in $out"
