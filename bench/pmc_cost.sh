#!/usr/bin/env bash
# libpmc's calls against the perf fd operations they wrap; fork with
# four counters (reopened in the child) against fork without libpmc,
# five rounds in turns, medians.
. "$(dirname "$0")/lib.sh"
B="$ROOT/build/bench/pmc_cost"
"$B" calls
for i in 1 2 3 4 5; do "$B" fork 0; "$B" fork 4; done > "${TMPDIR:-/tmp}/pmc_cost.$$"
for k in pmc_fork_0ctrs_us pmc_fork_4ctrs_us; do
	echo "$k $(awk -v k=$k '$1 == k { print $2 }' "${TMPDIR:-/tmp}/pmc_cost.$$" | sort -n | sed -n 3p)"
done
rm -f "${TMPDIR:-/tmp}/pmc_cost.$$"
