#!/usr/bin/env bash
# A long campaign, watched. The campaign itself records, every 10 s, its RSS,
# its workers' RSS (all descendants) and count, its open file descriptors,
# the store's size (with its WAL) and its program count in the store's
# throughput table (triage/resource_usage.h); `triage html` plots them. This
# script runs the campaign, notes every process below it every INTERVAL
# seconds, and at the end writes the table as CSV, the growth from the first
# to the last quarter of the run, the processes left behind (must be none),
# and a plot (SVG) of the columns.
#
#   bench/soak.sh SECONDS [INTERVAL] [OUT_DIR] -- [extra `dlfuzz fuzz` flags]
#   bench/soak.sh 7200 10 soak -- --world 1,2,4
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: bench/soak.sh SECONDS [INTERVAL] [OUT_DIR] -- [fuzz flags]}
interval=${2:-10}
out=${3:-soak}
shift $(($# < 3 ? $# : 3))
[ "${1:-}" = "--" ] && shift
mkdir -p "$out"
db="$out/soak.db"
rm -f "$db" "$db-wal" "$db-shm" "$out/seen_pids"
touch "$out/seen_pids"
csv="$out/soak.csv"

build/dlfuzz fuzz --time "${seconds}s" --db "$db" --no-progress "$@" >"$out/campaign.log" 2>&1 &
pid=$!
descendants() {  # every process below $1
  local kids
  kids=$(pgrep -P "$1" || true)
  for k in $kids; do
    echo "$k"
    descendants "$k"
  done
}
started() {  # a process's start time (clock ticks since boot): a PID alone may be reused
  awk '{print $22}' "/proc/$1/stat" 2>/dev/null || true
}
while kill -0 "$pid" 2>/dev/null; do
  sleep "$interval"
  for k in $(descendants "$pid"); do echo "$k $(started "$k")" >>"$out/seen_pids"; done
done
wait "$pid" && rc=0 || rc=$?
sleep 1
left=0  # workers seen during the run that outlive the campaign (same PID, same start time)
while read -r k t; do
  [ -n "$t" ] && [ "$(started "$k")" = "$t" ] && left=$((left + 1))
done < <(sort -u "$out/seen_pids")
# Seconds since the first sample, and programs/s between samples.
sqlite3 -header -csv "$db" "
  WITH t AS (SELECT rowid, strftime('%s', at) AS s, * FROM throughput)
  SELECT s - (SELECT min(s) FROM t) AS t_s, campaign_rss_kb, workers_rss_kb, workers, open_fds AS fds,
         store_bytes, programs,
         round(coalesce((programs - lag(programs) OVER (ORDER BY rowid)) * 1.0
                        / nullif(s - lag(s) OVER (ORDER BY rowid), 0), 0), 2) AS programs_per_s
  FROM t ORDER BY rowid" >"$csv"
python3 - "$csv" "$out/soak.svg" "$rc" "$left" <<'PY'
import csv, sys
path, svg, rc, left = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
rows = list(csv.DictReader(open(path)))
# The last row is written after the workers have stopped: not part of the run.
if len(rows) > 4 and rows[-1]["workers"] == "0":
    rows = rows[:-1]
cols = ["campaign_rss_kb", "workers_rss_kb", "fds", "store_bytes", "programs_per_s"]
print(f"soak: {len(rows)} samples, campaign exit {rc}, worker processes left behind: {left}")
if len(rows) >= 4:
    q = max(1, len(rows) // 4)
    for c in cols:
        first = sum(float(r[c]) for r in rows[:q]) / q
        last = sum(float(r[c]) for r in rows[-q:]) / q
        peak = max(float(r[c]) for r in rows)
        growth = (last - first) / first * 100 if first else 0.0
        print(f"  {c:>16}: first quarter {first:.0f}, last quarter {last:.0f} ({growth:+.1f}%), peak {peak:.0f}")
# One small chart per column, inline SVG, no dependencies.
w, h, pad = 360, 140, 30
parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * w}" height="{3 * h}" font-family="sans-serif" font-size="11">',
         '<rect width="100%" height="100%" fill="white"/>']
ts = [float(r["t_s"]) for r in rows] or [0.0]
for i, c in enumerate(cols):
    x0, y0 = (i % 2) * w, (i // 2) * h
    ys = [float(r[c]) for r in rows] or [0.0]
    top = max(ys) or 1.0
    span = (max(ts) - min(ts)) or 1.0
    pts = " ".join(f"{x0 + pad + (t - min(ts)) / span * (w - 2 * pad):.1f},{y0 + h - pad - y / top * (h - 2 * pad):.1f}"
                   for t, y in zip(ts, ys))
    parts.append(f'<text x="{x0 + pad}" y="{y0 + 14}">{c} (max {top:.0f}) over {max(ts):.0f} s</text>')
    parts.append(f'<rect x="{x0 + pad}" y="{y0 + pad}" width="{w - 2 * pad}" height="{h - 2 * pad}" fill="none" stroke="#999"/>')
    parts.append(f'<polyline fill="none" stroke="#c0392b" stroke-width="1.5" points="{pts}"/>')
parts.append("</svg>")
open(svg, "w").write("\n".join(parts))
print(f"  plot: {svg}")
PY
