#!/bin/bash
# End-to-end test of sweep-array.slurm on a real (throwaway, single-node)
# Slurm cluster started by slurm-local.sh; .ci/run runs it. As root, with
# Debian's slurm-wlm and munge installed, from the repository:
#
#   experiments/k8s/slurm-e2e.sh
#
# It runs the commands of sweep-array.slurm's header, changing only
# environment variables, in two phases:
#
#  1. EXPERIMENT=ci (embedded profiles, generated workloads, 15 runs) as a
#     3-task array plus the dependent merge-and-plot job. The merged
#     folder must equal an unsharded `polluxsim sweep --no-timing` of the
#     same experiment byte for byte (results.parquet, summary.json, every
#     cell file) and the plots must be written.
#  2. A Pollux-only spec of 18 runs (6 per shard) as a 3-task array; once
#     task 1 has stored its first run it is requeued (scontrol requeue).
#     Its second attempt must resume: keep the runs stored before (same
#     files), run only the others, and the merge must again equal an
#     unsharded sweep byte for byte. Slurm would hold the requeued task for
#     two minutes; the test makes it eligible at once (scontrol update
#     StartTime=now). A requeue that comes too late (the task had finished
#     all its runs) tests nothing: the phase is tried again, 3 times at most.
#
# It prints "slurm-e2e: SKIPPED: <reason>" and exits 0 when no cluster can
# be started here (not root, Slurm or munge not installed, an existing Slurm
# installation), and "slurm-e2e: PASSED ..." at the end. Every wait is
# bounded (SLURM_E2E_TIMEOUT seconds for each unsharded sweep and for each
# phase's Slurm jobs, default 300); on any exit the cluster's jobs are
# cancelled, its daemons stopped and its state removed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
local_sh=$here/slurm-local.sh
script=$here/sweep-array.slurm
timeout=${SLURM_E2E_TIMEOUT:-300}

say() { echo "slurm-e2e: $*"; }

rc=0
reason=$("$local_sh" check 2>&1) || rc=$?
if [ "$rc" = 3 ]; then
  say "SKIPPED: ${reason#slurm-local: }"
  exit 0
elif [ "$rc" != 0 ]; then
  echo "$reason" >&2
  exit 1
fi

work=$(mktemp -d /tmp/polluxsim-slurm-e2e.XXXXXX)
chmod 0755 "$work"
cluster=$work/cluster
failed=0

cleanup() {
  local code=$?
  trap - EXIT INT TERM
  if [ "$code" != 0 ] || [ "$failed" != 0 ]; then
    # Show what the jobs and daemons said before the state goes.
    for f in "$work"/*/polluxsim-*.out "$work"/*/slurm-*.out "$cluster"/log/slurmctld.log "$cluster"/log/slurmd.log; do
      [ -f "$f" ] || continue
      echo "---- ${f#"$work"/} (last 40 lines)" >&2
      tail -n 40 "$f" >&2
    done
  fi
  "$local_sh" stop "$cluster" || true
  rm -rf "$work"
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
  failed=1
  echo "slurm-e2e: FAIL: $*" >&2
  exit 1
}

start=$(date +%s)
mkdir -p "$work/bin"
(cd "$repo" && go build -o "$work/bin/polluxsim" ./cmd/polluxsim)
export PATH=$work/bin:$PATH

"$local_sh" start "$cluster"
export SLURM_CONF=$cluster/etc/slurm.conf
say "RUNNING on a real single-node Slurm cluster ($(sbatch --version))"

# wait_job ID waits until job ID has completed; it fails when it fails, is
# cancelled, can never start, or is not done within $timeout seconds of
# $phase_start.
wait_job() {
  local id=$1 info state reason
  while :; do
    info=$(scontrol show job -o "$id" 2>&1) || fail "scontrol show job $id: $info"
    state=$(sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' <<<"$info")
    reason=$(sed -n 's/.* Reason=\([^ ]*\).*/\1/p' <<<"$info")
    case "$state" in
    COMPLETED) return 0 ;;
    PENDING | RUNNING | CONFIGURING | COMPLETING | REQUEUED | RESIZING | SUSPENDED) ;;
    *) fail "job $id ended $state" ;;
    esac
    [ "$reason" != DependencyNeverSatisfied ] || fail "job $id can never start: a job it depends on failed"
    [ $(($(date +%s) - phase_start)) -lt "$timeout" ] || fail "job $id not done after ${timeout}s (state $state, reason $reason)"
    sleep 0.5
  done
}

# same_results A B fails unless folders A and B hold the same
# results.parquet, summary.json, experiment.json and cell files, byte for byte.
same_results() {
  local a=$1 b=$2 f
  for f in results.parquet summary.json; do
    [ -s "$a/$f" ] || fail "$a/$f missing"
    cmp "$a/$f" "$b/$f" >&2 || fail "$a/$f differs from the unsharded $b/$f"
  done
  diff -r "$a/cells" "$b/cells" >&2 || fail "$a/cells differs from the unsharded $b/cells"
  cmp "$a/experiment.json" "$b/experiment.json" >&2 || fail "$a/experiment.json differs"
}

# submit submits the array and the dependent merge exactly as the header of
# sweep-array.slurm shows (EXPERIMENT and OUT are in the environment) and
# sets $jobid and $mergeid.
submit() {
  jobid=$(sbatch --parsable --array=0-2 "$script")
  mergeid=$(sbatch --parsable --dependency=afterok:$jobid --wrap \
    'polluxsim merge --out "$OUT/merged" "$OUT"/shard-* && polluxsim plot --in "$OUT/merged" --out "$OUT/plots"')
  say "submitted array job $jobid (3 tasks) and merge job $mergeid (afterok:$jobid)"
}

unset REF SHARDS

# Phase 1: the ci experiment, 3 shards, merge, plot.
timeout "$timeout" polluxsim sweep --experiment ci --no-timing --quiet --out "$work/unsharded-ci" >/dev/null
phase_start=$(date +%s)
mkdir "$work/ci" && cd "$work/ci"
export EXPERIMENT=ci OUT=results/ci
submit
wait_job "$mergeid"
same_results "$OUT/merged" "$work/unsharded-ci"
for f in jct-cdf.png jct-cdf.svg; do
  [ -s "$OUT/plots/$f" ] || fail "polluxsim plot wrote no $OUT/plots/$f"
done
say "phase 1 passed in $(($(date +%s) - phase_start))s: 3-task array + merge of 'ci' equal an unsharded sweep byte for byte; $(ls "$OUT/plots" | wc -l) plot files"

# Phase 2: requeue task 1 after it has stored its first run.
spec=$work/requeue.json
cat >"$spec" <<'EOF'
{
  "name": "slurm-requeue",
  "version": 1,
  "description": "Pollux on 18 small generated workloads: 6 runs per shard of 3, long enough to requeue a task in the middle of its shard.",
  "workloads": {"count": 18, "jobs": 32},
  "cells": [{"name": "pollux", "label": "Pollux", "policy": "pollux"}]
}
EOF
timeout "$timeout" polluxsim sweep --experiment "$spec" --no-timing --quiet --out "$work/unsharded-requeue" >/dev/null
mkdir "$work/requeue" && cd "$work/requeue"
export EXPERIMENT=$spec

# requeue_once N submits the array and the merge into OUT=results/requeue-N,
# requeues task 1 as soon as it has stored a run, and checks that it
# resumed. It sets late=1 when the requeue came too late to test anything
# (the task had finished or was finishing all its runs: polluxsim finishes
# the runs in progress on SIGTERM), so that the caller can try again.
requeue_once() {
  phase_start=$(date +%s)
  export OUT=results/requeue-$1
  submit
  local task=${jobid}_1 cells=$OUT/shard-1/cells info before
  # compgen is a builtin: the loop forks little, to see the file soon.
  while ! compgen -G "$cells/*.json" >/dev/null; do
    [ $(($(date +%s) - phase_start)) -lt "$timeout" ] || fail "task $task stored no run within ${timeout}s"
    sleep 0.02
  done
  scontrol requeue "$task"
  before=$(cd "$cells" && stat -c '%n %i %Y' -- *)
  say "requeued task $task after it stored: $(echo "$before" | cut -d' ' -f1 | tr '\n' ' ')"
  # Slurm makes a requeued job wait (BeginTime = requeue + 121 s) before it
  # may start again; do not wait that long here: once it is pending, make
  # it eligible now.
  while :; do
    info=$(scontrol show job -o "$task")
    case "$info" in
    *JobState=PENDING*Reason=BeginTime*)
      scontrol update JobId="$task" StartTime=now
      break
      ;;
    *JobState=PENDING* | *JobState=RUNNING* | *JobState=COMPLETING* | *JobState=REQUEUED*) ;;
    *) fail "task $task after the requeue: $(grep -o 'JobState=[A-Z_]*' <<<"$info")" ;;
    esac
    [ $(($(date +%s) - phase_start)) -lt "$timeout" ] || fail "task $task not pending again within ${timeout}s of the requeue"
    sleep 0.2
  done
  wait_job "$mergeid"

  local log=polluxsim-$task.out restarts resumed now done_before name inode mtime
  restarts=$(scontrol show job -o "$task" | sed -n 's/.*Restarts=\([0-9]*\).*/\1/p')
  [ "$restarts" = 1 ] || fail "task $task restarted ${restarts:-?} times, want 1"
  # The second attempt's summary line: "6 runs (K run now, M already done)".
  resumed=$(grep -o '([0-9]* runs* now, [0-9]* already done)' "$log" | tail -n 1)
  [ -n "$resumed" ] || fail "no summary line of the second attempt in $log"
  now=$(sed 's/(\([0-9]*\) .*/\1/' <<<"$resumed")
  done_before=$(sed 's/.*, \([0-9]*\) already.*/\1/' <<<"$resumed")
  [ "$((now + done_before))" = 6 ] || fail "task $task: $resumed, want 6 runs"
  [ "$done_before" -ge 1 ] || fail "task $task did not resume its shard: $resumed"
  while read -r name inode mtime; do
    [ "$(stat -c '%i %Y' "$cells/$name")" = "$inode $mtime" ] || fail "$cells/$name was rewritten after the requeue"
  done <<<"$before"
  same_results "$OUT/merged" "$work/unsharded-requeue"
  if [ "$now" = 0 ]; then
    say "attempt $1: the requeue came too late, task $task had stored or was finishing all its runs: $resumed"
    late=1
    return 0
  fi
  grep -q 'DUE TO JOB REQUEUE' "$log" || fail "$log does not show that the requeue cancelled the first attempt"
  late=0
  say "phase 2 passed in $(($(date +%s) - phase_start))s: requeued task resumed its shard $resumed; merge equals an unsharded sweep byte for byte"
}

for attempt in 1 2 3; do
  requeue_once "$attempt"
  [ "$late" = 1 ] || break
  [ "$attempt" -lt 3 ] || fail "the requeue came too late in 3 attempts"
done

cd "$work"
"$local_sh" stop "$cluster"
for p in slurmctld slurmd slurmstepd; do
  ! pgrep -x "$p" >/dev/null || fail "a $p process outlived the cluster: $(pgrep -x "$p" | tr '\n' ' ')"
done
say "PASSED in $(($(date +%s) - start))s (build, cluster start, 2 phases, stop; no daemon left)"
