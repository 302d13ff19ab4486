#!/usr/bin/env bash
# Sampling mode, cpu-clock: two burners in two cgroups created after the
# collector started. Each cgroup's attributed time must match the kernel's
# own cpu.stat usage_usec, their ratio must hold, and the process rows
# must carry the burners' pid and comm.
. "$(dirname "$0")/lib.sh"
need_root

start_record "$TMP/log" --mode sampling -e cpu-clock -I 500 -d 9 -o "$TMP/out.csv" || exit 1
start_two_burners "bpmc-test-$$/a" 60 "bpmc-test-$$/b" 30 5 || exit 1
wait_two_burners
wait "$RECORD_PID" || fail "bpmc record exited $?: $(cat "$TMP/log")"

A=$BURN_CG_A B=$BURN_CG_B ua=$BURN_NS_A ub=$BURN_NS_B
ca=$(csv_sum "$TMP/out.csv" cgroup cpu-clock cgroup_id "$(cgroup_id "$A")")
cb=$(csv_sum "$TMP/out.csv" cgroup cpu-clock cgroup_id "$(cgroup_id "$B")")
check_usage "$TMP/out.csv" "$A" "$ua" 5
check_usage "$TMP/out.csv" "$B" "$ub" 5
ratio=$(awk -v a="$ca" -v b="$cb" 'BEGIN { printf "%.3f", b ? a / b : 0 }')
kratio=$(awk -v a="$ua" -v b="$ub" 'BEGIN { printf "%.3f", b ? a / b : 0 }')
echo "  ratio a/b: bpmc $ratio, kernel $kratio"
within "$ratio" "$kratio" 5 || fail "ratio a/b is $ratio, the kernel says $kratio"

# The cgroup column names the path, resolved although it was created late.
csv_awk -v id="$(cgroup_id "$A")" -v cg="/bpmc-test-$$/a" '$col("scope") == "cgroup" &&
	$col("cgroup_id") == id && $col("cgroup") == cg { f = 1 } END { exit !f }' "$TMP/out.csv" ||
	fail "no cgroup row with the path /bpmc-test-$$/a"
for p in "$BURN_PID_A" "$BURN_PID_B"; do
	csv_awk -v cg="^/bpmc-test-$$/[ab]\$" -v p="$p" '$col("scope") == "process" &&
		$col("cgroup_id") ~ /^[0-9]+$/ && $col("cgroup") ~ cg && $col("pid") == p && $col("tid") == "" &&
		$col("comm") == "burner" && $col("event") == "cpu-clock" { f = 1 } END { exit !f }' "$TMP/out.csv" ||
		fail "no process row for burner pid $p"
done
pass_or_fail
