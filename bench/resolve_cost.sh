#!/usr/bin/env bash
# Identity with 5,000 cgroups (100 pods x 50 containers, real names).
. "$(dirname "$0")/lib.sh"
"$ROOT/build/bench/resolve_cost" 5000
