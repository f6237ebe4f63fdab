#!/usr/bin/env bash
# Runs the Slurm nightly (scripts/slurm/submit.sh: a job array of shards, then
# the finish job) on a single-node Slurm started here on localhost, and checks
# that the merged store holds every shard's campaign and the reports exist.
# Needs Debian's slurm-wlm and munge (not installed by set-up: CI does not run
# this; `apt-get install slurm-wlm munge` first). Starts its own munged,
# slurmctld and slurmd from a temporary directory and stops them at the end.
#
#   bash tests/slurm/localhost_test.sh            # exit 0: passed
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
for tool in slurmctld slurmd sbatch squeue munged sqlite3; do
  command -v "$tool" >/dev/null || { echo "localhost_test: $tool missing (apt-get install slurm-wlm munge sqlite3)" >&2; exit 77; }
done
[[ -x "$repo/build/dlfuzz" ]] || { echo "localhost_test: build/dlfuzz is not built" >&2; exit 2; }

dir=$(mktemp -d /tmp/dlfuzz-slurm.XXXXXX)
pids=()
cleanup() {
  scancel --quiet --user "$(id -un)" 2>/dev/null || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  sleep 1
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# munge: its own key, socket and state under $dir.
mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
chmod 700 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
munge_socket="$dir/munge/munge.socket"
munged --force --key-file "$dir/munge/munge.key" --socket "$munge_socket" \
  --pid-file "$dir/munge/munged.pid" --log-file "$dir/munge/munged.log" --seed-file "$dir/munge/seed"
pids+=("$(cat "$dir/munge/munged.pid")")

host=$(hostname -s)
cpus=$(nproc)
cat > "$dir/slurm.conf" <<CONF
ClusterName=dlfuzz-local
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$munge_socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 30); do
  [[ -f "$dir/slurmctld.pid" && -f "$dir/slurmd.pid" ]] && break
  sleep 1
done
pids+=("$(cat "$dir/slurmctld.pid")" "$(cat "$dir/slurmd.pid")")
for _ in $(seq 30); do
  sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed)' && break
  sleep 1
done
sinfo

out="$dir/nightly"
# Two shards of a few programs each, with a planted bug (fault-wrong-value) so
# the finish job has something to merge and reduce: the point is the array,
# the dependency and the merge, not the campaign's length.
scripts_out=$(bash "$repo/scripts/slurm/submit.sh" --out "$out" --shards 2 --programs 6 --runners ts,fault-wrong-value --reduce-max 20)
echo "$scripts_out"
for _ in $(seq 300); do
  [[ -z "$(squeue -h 2>/dev/null)" ]] && break
  sleep 2
done
[[ -z "$(squeue -h)" ]] || { echo "localhost_test: jobs still queued after 10 minutes"; squeue; exit 1; }
cat "$out"/slurm-dlfuzz-finish-*.out
campaigns=$(sqlite3 "$out/nightly.db" "SELECT count(*) FROM campaigns")
programs=$(sqlite3 "$out/nightly.db" "SELECT sum(programs) FROM campaigns")
[[ -f "$out/shard-0.db" && -f "$out/shard-1.db" ]] || { echo "FAIL: a shard database is missing"; exit 1; }
[[ "$campaigns" == 2 ]] || { echo "FAIL: merged store has $campaigns campaigns, expected 2"; exit 1; }
[[ "$programs" == 12 ]] || { echo "FAIL: merged store counts $programs programs, expected 12"; exit 1; }
[[ -f "$out/report.html" ]] || { echo "FAIL: no report.html"; exit 1; }
reduced=$(sqlite3 "$out/nightly.db" "SELECT count(*) FROM bugs WHERE status = 'reduced'")
[[ "$reduced" -ge 1 ]] || { echo "FAIL: the finish job reduced no bug"; exit 1; }
echo "PASS: Slurm job array of 2 shards + finish job on localhost: $campaigns campaigns, $programs programs merged, $reduced bug(s) reduced"
