#!/bin/bash
# Checks offline, with kubectl and jq, that the Kubernetes manifests beside
# this file parse as Kubernetes objects; .ci/run runs it with Debian's
# kubectl (package kubernetes-client):
#
#   experiments/k8s/kubectl-check.sh          # KUBECTL=path to use another kubectl
#
# `kubectl create --dry-run=client` cannot do this without a cluster: it asks
# the API server for the kinds it knows (and, to validate, for its OpenAPI
# schema). Instead each manifest goes through `kubectl set image --local`,
# which decodes it into kubectl's own typed API object (apiVersion and kind
# must be known, every field must have the right type, the named container
# must exist) and prints that object. A field kubectl's types do not have is
# dropped from the print, so comparing it with the manifest as written
# (`kubectl label --local`) finds misspelt or misplaced fields. The only
# fields allowed to be missing are those newer than an old kubectl (Debian
# 12's is 1.20): the Indexed Job fields completionMode (Kubernetes 1.21),
# backoffLimitPerIndex and maxFailedIndexes (1.28); the check lists them.
#
# Not checked: anything a cluster decides (admission, quotas, that the
# image, the volumes and their claims exist) and running the Jobs.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kubectl=${KUBECTL:-kubectl}
command -v "$kubectl" >/dev/null 2>&1 || { echo "kubectl-check: $kubectl not found (apt-get install kubernetes-client)" >&2; exit 1; }
command -v jq >/dev/null 2>&1 || { echo "kubectl-check: jq not found (apt-get install jq)" >&2; exit 1; }
# No cluster: an empty configuration, so that nothing is contacted.
KUBECONFIG=$(mktemp)
export KUBECONFIG
trap 'rm -f "$KUBECONFIG"' EXIT

version=$("$kubectl" version --client 2>/dev/null | grep -o 'v[0-9][0-9.]*' | head -n 1)
newer='spec.completionMode spec.backoffLimitPerIndex spec.maxFailedIndexes'
# leaves prints every leaf's path, one a line.
leaves() { jq -r 'paths(scalars) | map(tostring) | join(".")' | sort -u; }

status=0
for pair in sweep-indexed-job.yaml:sweep merge-job.yaml:merge; do
  f=${pair%%:*}
  container=${pair#*:}
  if ! typed=$("$kubectl" set image --local -o json -f "$here/$f" "$container=polluxsim:check" 2>&1); then
    echo "kubectl-check: $f: $typed" >&2
    status=1
    continue
  fi
  raw=$("$kubectl" label --local -o json -f "$here/$f" polluxsim-check=1)
  kind=$(jq -r '.apiVersion + " " + .kind + " " + .metadata.name' <<<"$typed")
  missing=$(comm -23 <(leaves <<<"$raw") <(leaves <<<"$typed") | grep -v '^metadata\.labels\.polluxsim-check$' || true)
  unknown=""
  old=""
  for m in $missing; do
    case " $newer " in
    *" $m "*) old="$old $m" ;;
    *) unknown="$unknown $m" ;;
    esac
  done
  if [ -n "$unknown" ]; then
    echo "kubectl-check: $f: fields unknown to kubectl $version (misspelt or misplaced?):$unknown" >&2
    status=1
    continue
  fi
  echo "kubectl-check: $f parses as $kind with kubectl $version${old:+ (fields newer than this kubectl, not checked:$old)}"
done
exit "$status"
