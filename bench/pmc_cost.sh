#!/usr/bin/env bash
# libpmc's calls against the perf fd operations they wrap.
. "$(dirname "$0")/lib.sh"
"$ROOT/build/bench/pmc_cost"
