#!/usr/bin/env bash
# Sampling with -c 1: a process that faults in N fresh pages must be
# credited with at least N page-faults, in its cgroup row and process row.
. "$(dirname "$0")/lib.sh"
need_root
N=3000

start_record "$TMP/log" -e page-faults -c 1 -I 500 -d 4 -o "$TMP/out.csv" || exit 1
mk_cgroup CG "bpmc-test-$$/faults" || exit 1
spawn_in "$CG" "$HELPERS/pagetouch" "$N"
pid=$SPAWNED
wait "$pid" || fail "pagetouch exited $?"
wait "$RECORD_PID" || fail "bpmc record exited $?: $(cat "$TMP/log")"

id=$(cgroup_id "$CG")
cg=$(csv_sum "$TMP/out.csv" cgroup page-faults cgroup_id "$id")
proc=$(csv_sum "$TMP/out.csv" process page-faults pid "$pid")
echo "  $N pages touched: cgroup row $cg, process row $proc page-faults"
[ "$cg" -ge "$N" ] || fail "cgroup row has $cg page-faults, want >= $N"
[ "$proc" -ge "$N" ] || fail "process row has $proc page-faults, want >= $N"
# With -c 1 every fault is a sample: count and samples must agree.
csv_awk -v p="$pid" '$col("scope") == "process" && $col("pid") == p && $col("count") != $col("samples") { bad = 1 }
	END { exit bad }' "$TMP/out.csv" || fail "count != samples with -c 1"
pass_or_fail
