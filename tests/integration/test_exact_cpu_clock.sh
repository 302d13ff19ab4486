#!/usr/bin/env bash
# Exact mode, cpu-clock: two burners at known duty cycles in two cgroups.
# Each cgroup's count must match its cpu.stat usage_usec within 1 %, and
# --check (cgroup and process rows against the system row, 0.1 %) passes.
. "$(dirname "$0")/lib.sh"
need_root

start_record "$TMP/log" --mode exact --check -e cpu-clock -I 500 -d 8 -o "$TMP/out.csv" || exit 1
start_two_burners "bpmc-test-$$/a" 60 "bpmc-test-$$/b" 30 5 || exit 1
wait_two_burners
wait "$RECORD_PID" || fail "bpmc record --check exited $?: $(cat "$TMP/log")"
grep "check:" "$TMP/log" | sed 's/^/  /'

check_usage "$TMP/out.csv" "$BURN_CG_A" "$BURN_NS_A" 1
check_usage "$TMP/out.csv" "$BURN_CG_B" "$BURN_NS_B" 1
csv_awk -v cg="/bpmc-test-$$/a" -v p="$BURN_PID_A" '$col("scope") == "process" &&
	$col("cgroup_id") ~ /^[0-9]+$/ && $col("cgroup") == cg && $col("pid") == p && $col("tid") == "" &&
	$col("comm") == "burner" && $col("event") == "cpu-clock" { f = 1 } END { exit !f }' "$TMP/out.csv" ||
	fail "no process row for burner $BURN_PID_A"
pass_or_fail
