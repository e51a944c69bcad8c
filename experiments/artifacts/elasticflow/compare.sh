#!/usr/bin/env bash
# Runs polluxsim's policies on the ElasticFlow artifact's workloads,
# converted by ./convert (deadline factor kept), and prints each run's
# deadline satisfactory ratio, to set beside summarize.py's table of the
# artifact's own runs (docs/elasticflow-artifact.md).
#
# usage: compare.sh ARTIFACT_DIR POLLUXSIM OUT_DIR [WORKLOAD...]
#   ARTIFACT_DIR  a checkout of pkusys/ElasticFlow (traces unpacked as its README says)
#   POLLUXSIM     a polluxsim binary (go build -o polluxsim ./cmd/polluxsim)
#   WORKLOAD      fig8a (default), cluster01 ... cluster10, philly_103959
set -euo pipefail
# The policies set beside the artifact's (edf-elastic is the artifact's
# own EDF: jobs in deadline order, each at its fastest level).
POLICIES=(edf themis tiresias pollux elasticflow edf-elastic chronus gandiva)
if [ $# -lt 3 ]; then
  echo "usage: $0 ARTIFACT_DIR POLLUXSIM OUT_DIR [WORKLOAD...]" >&2
  exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
art=$(cd "$1" && pwd)
bin=$(realpath "$2")
out=$(realpath -m "$3")
shift 3
workloads=("$@")
[ ${#workloads[@]} -gt 0 ] || workloads=(fig8a)
mkdir -p "$out"
printf '%-14s %-12s %7s\n' workload policy ratio
for w in "${workloads[@]}"; do
  case "$w" in
    fig8a) trace=elasticVpollux_e; cluster=(--nodes 16 --gpus-per-node 4); gpn=4 ;;
    cluster01|cluster02|cluster03|cluster05|cluster06) trace=$w; cluster=(--nodes 64 --gpus-per-node 8); gpn=8 ;;
    cluster04|cluster07|cluster08|cluster09) trace=$w; cluster=(--nodes 128 --gpus-per-node 8); gpn=8 ;;
    cluster10|philly_103959) trace=$w; cluster=(--nodes 32 --gpus-per-node 8); gpn=8 ;;
    *) echo "$0: workload $w: want fig8a, cluster01 ... cluster10 or philly_103959" >&2; exit 1 ;;
  esac
  csv="$out/$w.csv"
  (cd "$root" && go run ./experiments/artifacts/elasticflow/convert -gpus-per-node "$gpn" \
    "$art/ElasticFlow/traces_for_ElasticFlow/$trace.csv" "$csv") >"$out/$w.convert.txt"
  for p in "${POLICIES[@]}"; do
    "$bin" run --no-timing --quiet --policy "$p" "${cluster[@]}" --workload "$csv" --out "$out/$w-$p" >/dev/null 2>"$out/$w-$p.log"
    ratio=$(/usr/bin/env python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["deadline_satisfactory_ratio"])' "$out/$w-$p/summary.json")
    printf '%-14s %-12s %7s\n' "$w" "$p" "$ratio"
  done
done
