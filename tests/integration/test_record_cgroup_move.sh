#!/usr/bin/env bash
# A busy task that moves to another cgroup mid-run: each cgroup must be
# credited with the time the task spent in it (cpu.stat's usage_usec),
# although the task never stops running on its CPU.
. "$(dirname "$0")/lib.sh"
need_root

start_record "$TMP/log" -e cpu-clock -I 500 -d 7 -o "$TMP/out.csv" || exit 1
mk_cgroup A "bpmc-test-$$/from" || exit 1
mk_cgroup B "bpmc-test-$$/to" || exit 1
a0=$(usage_usec "$A") b0=$(usage_usec "$B")
spawn_in "$A" "$HELPERS/burner" 100 4
pid=$SPAWNED
sleep 2
echo "$pid" > "$B/cgroup.procs" || fail "cannot move $pid to $B"
wait "$pid"
a1=$(usage_usec "$A") b1=$(usage_usec "$B")
wait "$RECORD_PID" || fail "bpmc record exited $?: $(cat "$TMP/log")"

for side in A B; do
	cg=${!side}
	if [ "$side" = A ]; then used=$(((a1 - a0) * 1000)); else used=$(((b1 - b0) * 1000)); fi
	got=$(csv_sum "$TMP/out.csv" cgroup cpu-clock cgroup_id "$(cgroup_id "$cg")")
	echo "  $side ($(basename "$cg")): attributed $got ns, usage_usec $used ns"
	within "$got" "$used" 5 || fail "cgroup $(basename "$cg"): $got ns attributed vs $used ns used"
done
pass_or_fail
