#!/usr/bin/env bash
# Identity with 5,000 cgroups (100 pods x 50 containers, real names),
# and the same pods' kubelet log trees (kube_* figures).
. "$(dirname "$0")/lib.sh"
"$ROOT/build/bench/resolve_cost" 5000
