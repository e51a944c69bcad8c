#!/usr/bin/env bash
# Runs the Sia artifact's own simulator on one workload, Sia as the
# artifact's run_experiment.sh runs it (p = -0.5, lambda_n 1.1, lambda_a
# 0.01, 60 s rounds, --project_throughputs --share_max_replicas), with this
# folder's stand-ins for cvxpy and autograd (see README.md).
#
# usage: run.sh SIM_DIR WORKLOAD_CSV OUT_LOG
#   SIM_DIR       the artifact's sia-simulator/ folder (siasosp23/artifacts)
#   WORKLOAD_CSV  e.g. SIM_DIR/workloads/philly/workload-1.csv
#   OUT_LOG       the simulator's log (JSON lines); summarize.py reads it
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 SIM_DIR WORKLOAD_CSV OUT_LOG" >&2
  exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
sim=$(cd "$1" && pwd)
workload=$(realpath "$2")
out=$(realpath -m "$3")
command -v cbc >/dev/null || { echo "$0: cbc not found (Debian package coinor-cbc)" >&2; exit 1; }
cd "$sim"
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH="$here/shim" /usr/bin/python3 multi_simulator.py "$workload" \
  --policy=sia --policy_p_val=-0.5 --mip_lambda_a=0.01 --mip_lambda_n=1.1 --interval=60 \
  --project_throughputs --share_max_replicas --output="$out" >/dev/null
