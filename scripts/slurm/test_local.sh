#!/usr/bin/env bash
# The Slurm scripts on a real single-node Slurm (Debian's slurm-wlm and munge), started here on
# 127.0.0.1 and stopped by their PIDs:
#   1. a 3-task array of scripts/slurm/score_array.sbatch plus a dependent merge.sbatch gives the
#      unsharded `bias score` table byte for byte;
#   2. the same with a task requeued while it runs (it resumes after its last complete chunk);
#   3. each task's job log (a file, not a terminal) holds progress lines;
#   4. with a served model (a stand-in server on 127.0.0.1), the array's tasks share its endpoint
#      and the merge again equals the unsharded run.
#
# Usage: scripts/slurm/test_local.sh [BIAS_BINARY]   (default target/debug/bias)
# Without slurmctld/slurmd/munged it prints SKIPPED and exits 0, unless BIAS_REQUIRE_SLURM=1.
set -euo pipefail
cd "$(dirname "$0")/../.."
bias=$(realpath "${1:-target/debug/bias}")

for tool in munged slurmctld slurmd sbatch scontrol squeue; do
  if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
    if [ "${BIAS_REQUIRE_SLURM:-0}" = 1 ]; then
      echo "slurm test: $tool not found (apt-get install slurm-wlm munge)" >&2
      exit 1
    fi
    echo "slurm test: SKIPPED ($tool not found; apt-get install slurm-wlm munge)"
    exit 0
  fi
done
export PATH=$PATH:/usr/sbin
if [ "$(id -u)" != 0 ]; then
  # slurmd starts jobs as their users: it runs as root.
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    exec sudo -E "$0" "$bias"
  fi
  if [ "${BIAS_REQUIRE_SLURM:-0}" = 1 ]; then
    echo "slurm test: slurmd needs root (or passwordless sudo)" >&2
    exit 1
  fi
  echo "slurm test: SKIPPED (slurmd needs root or passwordless sudo)"
  exit 0
fi

dir=$(mktemp -d /tmp/bias-slurm.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 1
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  if [ "${KEEP:-0}" != 1 ]; then rm -rf "$dir"; fi
}
trap cleanup EXIT
fail() {
  echo "slurm test: FAILED: $*" >&2
  for f in "$dir"/log/*.log; do echo "--- $f" >&2; tail -20 "$f" >&2; done
  exit 1
}
mkdir -p "$dir"/{munge,state,spool,log,work}
chmod 700 "$dir/munge"

# munge: a fresh key, its socket in the scratch folder.
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1 count=1024 status=none
chmod 400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
  --seed-file="$dir/munge/munge.seed"
pids+=("$(cat "$dir/munge/munged.pid")")

# (cred_expire: a requeued job waits this long before it starts again; 120 s by default.)
# Two free ports on 127.0.0.1 for slurmctld and slurmd.
read -r ctl_port node_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
cpus=$(nproc)
cat >"$dir/slurm.conf" <<EOF
ClusterName=biastest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$node_port
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket,cred_expire=10
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF" -N localhost
for _ in $(seq 60); do
  [ -s "$dir/slurmctld.pid" ] && [ -s "$dir/slurmd.pid" ] && break
  sleep 0.5
done
pids+=("$(cat "$dir/slurmctld.pid")" "$(cat "$dir/slurmd.pid")")
for _ in $(seq 60); do
  scontrol show node localhost 2>/dev/null | grep -Eq "State=(IDLE|MIXED)" && break
  sleep 1
done
scontrol show node localhost | grep -Eq "State=(IDLE|MIXED)" || fail "the node never came up"

model=$(realpath fixtures/models/bert)
data=$(realpath data)
export BIAS=$bias BIAS_PROGRESS_SECONDS=0 CHUNK=16 DEVICE=cpu
flags=(--data-dir "$data" --scorers aul,cps)

# The reference: one unsharded run, on one thread as each array task (--cpus-per-task=1): the
# same kernels, so the same bytes.
"$bias" score --model "$model" --dataset crows-pairs --chunk 16 --device cpu --threads 1 \
  "${flags[@]}" \
  --out "$dir/work/unsharded.csv" >/dev/null 2>&1 || fail "the unsharded run failed"
reference=$dir/work/unsharded.csv

wait_for() { # JOB_ID: until it has left the queue
  for _ in $(seq 600); do
    [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  fail "job $1 did not finish in 5 minutes"
}

run_array() { # OUT [requeue]: a 3-task array and its dependent merge into OUT/scores.csv
  local out=$1 requeue=${2:-}
  mkdir -p "$out"
  local array merge
  array=$(cd "$out" && sbatch --parsable --array=1-3 --cpus-per-task=1 \
    "$OLDPWD/scripts/slurm/score_array.sbatch" "$model" crows-pairs "$out" "${flags[@]}")
  merge=$(cd "$out" && sbatch --parsable --dependency="afterok:$array" \
    "$OLDPWD/scripts/slurm/merge.sbatch" "$out")
  if [ -n "$requeue" ]; then
    # Requeue task 2 once its first chunk is on disk: it must resume, not start again.
    local part="$out/shards/part-2-of-3.csv.progress.json"
    for _ in $(seq 600); do
      [ -s "$part" ] && grep -q '"pairs_done": *[1-9]' "$part" && break
      sleep 0.1
    done
    scontrol requeue "${array}_2" || fail "could not requeue ${array}_2"
  fi
  wait_for "$array"
  wait_for "$merge"
  [ -s "$out/scores.csv" ] || fail "no merged table in $out"
  cmp "$out/scores.csv" "$reference" || fail "$out/scores.csv differs from $reference"
  echo "$array"
}

array=$(run_array "$dir/work/plain")
echo "slurm test: a 3-task array and its merge equal the unsharded table"
log="$dir/work/plain/slurm-${array}_1.out"
[ -f "$log" ] || fail "no job log $log"
grep -Eq ': [0-9]+/[0-9]+ pairs \([0-9.]+%\)' "$log" || fail "no progress line in $log: $(cat "$log")"
echo "slurm test: the job log has progress lines: $(grep -E ': [0-9]+/[0-9]+ pairs \(' "$log" | tail -1)"

array=$(run_array "$dir/work/requeued" requeue)
log="$dir/work/requeued/slurm-${array}_2.out"
grep -Eq '\(([1-9][0-9]*) resumed\)' "$log" || fail "the requeued task did not resume: $(cat "$log")"
echo "slurm test: the requeued task resumed: $(grep -E 'resumed\)' "$log")"
echo "slurm test: with a task requeued mid-run, the same table"
# 4. A served model: the array's tasks share one endpoint (scripts/standin_server.py, an
# OpenAI-compatible stand-in on 127.0.0.1), and the merge equals the unsharded served run.
python3 scripts/standin_server.py "$dir/standin.url" &
pids+=("$!")
for _ in $(seq 100); do [ -s "$dir/standin.url" ] && break; sleep 0.1; done
[ -s "$dir/standin.url" ] || fail "the stand-in server did not start"
model=$(cat "$dir/standin.url")
flags=(--data-dir "$data" --tokenizer "$(realpath fixtures/models/llama)" --max-in-flight 2)
"$bias" score --model "$model" --dataset crows-pairs --chunk 16 "${flags[@]}" \
  --out "$dir/work/unsharded-served.csv" >/dev/null 2>&1 || fail "the unsharded served run failed"
reference=$dir/work/unsharded-served.csv
run_array "$dir/work/served" >/dev/null
echo "slurm test: 3 array tasks sharing one served endpoint merge into the unsharded table"
echo "slurm test: ok"
