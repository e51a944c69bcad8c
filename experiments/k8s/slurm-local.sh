#!/bin/bash
# A throwaway single-node Slurm cluster on localhost, for testing
# sweep-array.slurm (slurm-e2e.sh) and for trying it by hand. Run as root on a
# machine with Debian's slurm-wlm and munge installed
# (apt-get install slurm-wlm munge):
#
#   experiments/k8s/slurm-local.sh check       # can a cluster start here? (exit 3: no)
#   experiments/k8s/slurm-local.sh start DIR   # start one, all of its state in DIR
#   export SLURM_CONF=DIR/etc/slurm.conf       # then sbatch, squeue, scontrol use it
#   experiments/k8s/slurm-local.sh stop DIR    # cancel its jobs, stop it, remove DIR
#
# Everything lives in DIR (a new or empty folder): a munge key and a private
# munged socket, slurm.conf with this machine's cores and memory (slurmd -C),
# state, spool, logs and pid files. Nothing under /etc, /run or /var is
# written, and the daemons listen on ports 16817 (slurmctld) and 16818
# (slurmd), not Slurm's defaults. `start` refuses (exit 3) when this machine
# already has Slurm configured (/etc/slurm/slurm.conf, SLURM_CONF) or running
# (a slurmctld, slurmd, slurmdbd or slurmstepd process), so it never touches
# an existing installation; it returns when the node is idle, or fails
# (exit 1, stopping what it started and printing the logs) after 60 s.
set -euo pipefail

CTLD_PORT=16817
SLURMD_PORT=16818
MARK=.polluxsim-slurm-local

die() { echo "slurm-local: $*" >&2; exit 1; }
cannot() { echo "slurm-local: cannot run here: $*" >&2; exit 3; }

# check exits 3 (with the reason) when a throwaway cluster cannot start here.
check() {
  [ "$(id -u)" = 0 ] || cannot "not root (slurmd must run as root)"
  local b
  for b in slurmctld slurmd munged sbatch squeue scontrol sinfo scancel; do
    command -v "$b" >/dev/null 2>&1 || cannot "$b not found (apt-get install slurm-wlm munge)"
  done
  [ -z "${SLURM_CONF:-}" ] || cannot "SLURM_CONF is set ($SLURM_CONF): an existing Slurm installation"
  local f
  for f in /etc/slurm/slurm.conf /etc/slurm-llnl/slurm.conf; do
    [ ! -e "$f" ] || cannot "$f exists: an existing Slurm installation, not touched"
  done
  local p
  for p in slurmctld slurmd slurmdbd slurmstepd; do
    if pgrep -x "$p" >/dev/null 2>&1; then
      cannot "a $p process is running: an existing Slurm installation, not touched"
    fi
  done
}

# pidof_file prints the pid stored in $1 if that process is alive.
pidof_file() {
  local pid
  [ -s "$1" ] || return 1
  pid=$(cat "$1")
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

# stop_pid sends SIGTERM to the process in pid file $1, waits up to 15 s,
# then sends SIGKILL.
stop_pid() {
  local pid
  pid=$(pidof_file "$1") || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 150); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  echo "slurm-local: pid $pid ($1) did not stop in 15 s; killing it" >&2
  kill -KILL "$pid" 2>/dev/null || true
}

start() {
  local dir=$1
  check
  if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
    die "$dir exists and is not empty"
  fi
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  chmod 0755 "$dir"
  touch "$dir/$MARK"
  mkdir -p "$dir/etc" "$dir/munge" "$dir/state" "$dir/spool" "$dir/log" "$dir/run"
  chmod 0700 "$dir/munge" "$dir/state" "$dir/spool"

  # A private munged: its own key and seed (in a folder only root reads),
  # socket, pid and log files.
  local m=$dir/munge
  dd if=/dev/urandom of="$m/munge.key" bs=1024 count=1 status=none
  chmod 0400 "$m/munge.key"
  munged --socket="$dir/run/munge.socket" --key-file="$m/munge.key" \
    --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$m/munged.seed" ||
    { cat "$dir/log/munged.log" >&2 2>/dev/null; stop "$dir"; die "munged did not start"; }

  # This machine's node line (cores, memory) as slurmd itself sees it.
  local node host
  node=$(slurmd -C | grep '^NodeName=') || { stop "$dir"; die "slurmd -C failed"; }
  host=${node#NodeName=}
  host=${host%% *}
  cat >"$dir/etc/slurm.conf" <<EOF
# Written by slurm-local.sh: a throwaway single-node cluster on localhost.
ClusterName=polluxsim-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/run/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
SchedulerParameters=sched_interval=2
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

  slurmctld -f "$dir/etc/slurm.conf" -i ||
    { tail -n 30 "$dir/log/slurmctld.log" >&2 2>/dev/null; stop "$dir"; die "slurmctld did not start"; }
  slurmd -f "$dir/etc/slurm.conf" ||
    { tail -n 30 "$dir/log/slurmd.log" >&2 2>/dev/null; stop "$dir"; die "slurmd did not start"; }

  local state=""
  for _ in $(seq 120); do
    state=$(SLURM_CONF=$dir/etc/slurm.conf sinfo -h -N -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.5
  done
  if [ "$state" != idle ]; then
    echo "slurm-local: node state after 60 s: '${state:-none}'; logs:" >&2
    tail -n 30 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 2>/dev/null || true
    stop "$dir"
    exit 1
  fi
  echo "slurm-local: node $host idle ($(echo "$node" | grep -o 'CPUs=[0-9]*'), $(echo "$node" | grep -o 'RealMemory=[0-9]*') MB); export SLURM_CONF=$dir/etc/slurm.conf"
}

# stop cancels the cluster's jobs, stops its daemons and removes DIR. It
# only acts on a folder that start made (it has the marker file).
stop() {
  local dir=$1
  [ -d "$dir" ] || return 0
  [ -e "$dir/$MARK" ] || die "$dir was not made by slurm-local.sh start; not touching it"
  local conf=$dir/etc/slurm.conf
  if pidof_file "$dir/run/slurmctld.pid" >/dev/null && pidof_file "$dir/run/slurmd.pid" >/dev/null; then
    # Cancel every job and wait (up to 30 s) until slurmd has ended them,
    # so that no job step outlives the cluster.
    SLURM_CONF=$conf scancel --full --quiet --user=root 2>/dev/null || true
    for _ in $(seq 60); do
      [ -z "$(SLURM_CONF=$conf squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.5
    done
  fi
  stop_pid "$dir/run/slurmd.pid"
  stop_pid "$dir/run/slurmctld.pid"
  stop_pid "$dir/run/munged.pid"
  rm -rf "$dir"
}

case "${1:-}" in
check) check ;;
start) [ $# = 2 ] || die "usage: $0 start DIR"; start "$2" ;;
stop) [ $# = 2 ] || die "usage: $0 stop DIR"; stop "$2" ;;
*) die "usage: $0 check | start DIR | stop DIR" ;;
esac
