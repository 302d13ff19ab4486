#!/usr/bin/env bash
# Sampling mode, cpu-clock: two burners in two cgroups created after the
# collector started. Each cgroup's attributed time must match the kernel's
# own cpu.stat usage_usec, their ratio must hold, and the process rows
# must carry the burners' pid and comm.
. "$(dirname "$0")/lib.sh"
need_root

start_record "$TMP/log" -e cpu-clock -I 500 -d 9 -o "$TMP/out.csv" || exit 1
mk_cgroup A "bpmc-test-$$/a" || exit 1
mk_cgroup B "bpmc-test-$$/b" || exit 1
a0=$(usage_usec "$A") b0=$(usage_usec "$B")
spawn_in "$A" "$HELPERS/burner" 60 5
pa=$SPAWNED
spawn_in "$B" "$HELPERS/burner" 30 5
pb=$SPAWNED
wait "$pa" "$pb"
a1=$(usage_usec "$A") b1=$(usage_usec "$B")
wait "$RECORD_PID" || fail "bpmc record exited $?: $(cat "$TMP/log")"

ua=$(((a1 - a0) * 1000)) ub=$(((b1 - b0) * 1000))
ca=$(csv_sum "$TMP/out.csv" cgroup cpu-clock cgroup_id "$(cgroup_id "$A")")
cb=$(csv_sum "$TMP/out.csv" cgroup cpu-clock cgroup_id "$(cgroup_id "$B")")
check_usage "$TMP/out.csv" "$A" "$ua" 5
check_usage "$TMP/out.csv" "$B" "$ub" 5
ratio=$(awk -v a="$ca" -v b="$cb" 'BEGIN { printf "%.3f", b ? a / b : 0 }')
kratio=$(awk -v a="$ua" -v b="$ub" 'BEGIN { printf "%.3f", b ? a / b : 0 }')
echo "  ratio a/b: bpmc $ratio, kernel $kratio"
within "$ratio" "$kratio" 5 || fail "ratio a/b is $ratio, the kernel says $kratio"

# The cgroup column names the path, resolved although it was created late.
grep -q ",cgroup,$(cgroup_id "$A"),/bpmc-test-$$/a," "$TMP/out.csv" ||
	fail "no cgroup row with the path /bpmc-test-$$/a"
for p in "$pa" "$pb"; do
	grep -qE ",process,[0-9]+,/bpmc-test-$$/[ab],$p,,burner,cpu-clock," "$TMP/out.csv" ||
		fail "no process row for burner pid $p"
done
pass_or_fail
