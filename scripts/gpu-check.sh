#!/usr/bin/env bash
# One prepared check for a GPU machine (the H200 the device tool lends): build
# dlfuzz against that machine's CUDA LibTorch (its python3's torch), run the
# GPU tests, a short GPU campaign and a throughput line per runner, and leave
# the report and the bug store under $OUT. Needs .deps/gpu from
# scripts/gpu-deps.sh (run it here first; carry .deps/gpu). Also runs, without
# a GPU, as a dry run of everything but the GPU itself.
#
#   OUT=/tmp/gpu-out GPU_PYTHON=.venv/bin/python bash scripts/gpu-check.sh   # dry run here
#   device run: bash scripts/gpu-check.sh   (carry .deps/gpu; about 8 minutes)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/dlfuzz-gpu-check}
PY=${GPU_PYTHON:-$(command -v python3)}
CAMPAIGN=${GPU_CAMPAIGN:-2m}
JOBS=$(nproc)
LOGS=${TMPDIR:-/tmp}/dlfuzz-gpu-logs  # what does not come back (the device returns 8 files)
mkdir -p "$OUT" "$LOGS"
REPORT="$OUT/gpu-report.md"
log() { echo "$*" | tee -a "$REPORT"; }
: >"$REPORT"
start=$(date +%s)
# Seconds left of the whole check's budget (the device call's limit, less a margin),
# so a slow stage shortens the later ones instead of losing the report.
BUDGET=${GPU_BUDGET:-520}
left() { echo $(( start + BUDGET - $(date +%s) )); }
cap() { local l; l=$(left); echo $(( l < $1 ? (l > 5 ? l : 5) : $1 )); }

log "# dlfuzz GPU check, $(date -u +%FT%TZ)"
log '```'
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 || echo "no nvidia-smi";
  "$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "devices", torch.cuda.device_count())'; } | tee -a "$REPORT"
log '```'

if [ ! -d .deps/gpu/usr ]; then
  log "FAIL: .deps/gpu is missing: run scripts/gpu-deps.sh here and carry .deps/gpu"
  exit 1
fi
DEPS=$PWD/.deps/gpu/usr
export LD_LIBRARY_PATH=$DEPS/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# CLI11 and nlohmann-json install their CMake files under share/.
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DDLFUZZ_TORCH=pip -DDLFUZZ_PYTHON="$PY" -DDLFUZZ_BENCH=OFF \
  -DCMAKE_PREFIX_PATH="$DEPS;$DEPS/share;$DEPS/lib/x86_64-linux-gnu/cmake" >"$LOGS/configure.log" 2>&1 ||
  { log "FAIL: configure"; tail -30 "$LOGS/configure.log" | tee -a "$REPORT"; exit 1; }
if ! timeout "$(cap 300)" cmake --build build-gpu -j"$JOBS" >"$OUT/build.log" 2>&1; then
  log "FAIL: build (build.log)"
  grep -m20 -E 'error|undefined' "$OUT/build.log" | tee -a "$REPORT"
  exit 1
fi
log "- build against $("$PY" -c 'import torch; print(torch.utils.cmake_prefix_path)'): ok, $(( $(date +%s) - start )) s"

# The GPU tests (the CPU suite is CI's; here it would spend the minutes the
# campaign needs).
export DLFUZZ_PYTHON=$PY
(cd build-gpu && timeout "$(cap 200)" ctest -j"$JOBS" --timeout 180 -R 'Cuda|Nccl' --output-on-failure) >"$OUT/gpu-tests.log" 2>&1
log "- GPU tests: $(grep -E 'tests passed|tests failed' "$OUT/gpu-tests.log" | tail -1)"
grep -E '^\s+[0-9]+ - .*\((Failed|Timeout|Subprocess|Skipped)' "$OUT/gpu-tests.log" | sed 's/^/  - /' | tee -a "$REPORT"

# Throughput per runner: the same 10 cuda programs through each.
log ""
log "| runner | programs | seconds | programs/s |"
log "|---|---|---|---|"
for r in ts ts-nnc inductor aot-eager; do
  t0=$(date +%s.%N)
  timeout "$(cap 100)" build-gpu/dlfuzz fuzz --programs 10 --device cuda --runners "$r" --jobs 1 --db "$LOGS/throughput.db" \
    --no-progress --no-recheck >"$LOGS/throughput-$r.log" 2>&1
  t1=$(date +%s.%N)
  done_n=$(grep -oE 'fuzz: [0-9]+ programs in' "$LOGS/throughput-$r.log" | tail -1 | cut -d" " -f2)
  log "$("$PY" -c "s = $t1 - $t0; n = '${done_n}'; print(f'| $r | {n} | {s:.1f} | {int(n) / s:.2f} |' if n else f'| $r | stopped | {s:.1f} | - |')")"
done

grep -h -m2 -iE "error|failed" "$LOGS"/throughput-*.log | cut -c1-300 | sed 's/^/    /' | tee -a "$REPORT"

# The campaign: every GPU path against CUDA eager and against CPU eager; at
# most what the budget leaves (less 25 s for the report and dashboard).
log ""
secs=$(( $(left) - 25 ))
case $CAMPAIGN in *m) want=$(( ${CAMPAIGN%m} * 60 ));; *s) want=${CAMPAIGN%s};; *) want=$CAMPAIGN;; esac
[ "$secs" -gt "$want" ] && secs=$want
[ "$secs" -lt 10 ] && secs=10
log "- campaign: ${secs} s"
timeout $(( secs + 20 )) build-gpu/dlfuzz fuzz --time "${secs}s" --device cuda --runners ts,ts-nnc,inductor,aot-eager --jobs 2 \
  --db "$OUT/gpu.db" --no-progress >"$OUT/campaign.log" 2>&1
log '```'
tee -a "$REPORT" <"$OUT/campaign.log" | tail -40
log '```'
build-gpu/dlfuzz triage html --db "$OUT/gpu.db" -o "$OUT/dashboard.html" >/dev/null 2>&1 || true
log "- total $(( $(date +%s) - start )) s"
