#!/usr/bin/env bash
# Exact mode, cpu-clock: two burners at known duty cycles in two cgroups.
# Each cgroup's count must match its cpu.stat usage_usec within 1 %, and
# --check (cgroup and process rows against the system row, 0.1 %) passes.
. "$(dirname "$0")/lib.sh"
need_root

start_record "$TMP/log" --mode exact --check -e cpu-clock -I 500 -d 8 -o "$TMP/out.csv" || exit 1
mk_cgroup A "bpmc-test-$$/a" || exit 1
mk_cgroup B "bpmc-test-$$/b" || exit 1
a0=$(usage_usec "$A") b0=$(usage_usec "$B")
spawn_in "$A" "$HELPERS/burner" 60 5
pa=$SPAWNED
spawn_in "$B" "$HELPERS/burner" 30 5
pb=$SPAWNED
wait "$pa" "$pb"
a1=$(usage_usec "$A") b1=$(usage_usec "$B")
wait "$RECORD_PID" || fail "bpmc record --check exited $?: $(cat "$TMP/log")"
grep "check:" "$TMP/log" | sed 's/^/  /'

check_usage "$TMP/out.csv" "$A" $(((a1 - a0) * 1000)) 1
check_usage "$TMP/out.csv" "$B" $(((b1 - b0) * 1000)) 1
grep -qE ",process,[0-9]+,/bpmc-test-$$/a,$pa,,burner,cpu-clock," "$TMP/out.csv" ||
	fail "no process row for burner $pa"
pass_or_fail
