#!/usr/bin/env bash
# The running kernel's features, probed as bpmc probes them (record -v
# lists every probe's finding: docs/kernels.md's table has a column per
# kernel run), and exact mode's fallbacks as this kernel takes them: the
# warning of each missing feature, and every interval's cgroup and
# process rows adding up to the system row (--check=0.1 and the CSV), on
# software events (the loads of bpf_rdonly_cast, 6.2, or their fallback)
# and on cycles and instructions. Like the whole hardware suite it skips
# on a host without a hardware PMU (test_feature_probes.sh covers the
# probes there; `bpmc record -v` lists them on any host).
. "$(dirname "$0")/lib.sh"
need_hw_pmu

mk_cgroup CG "bpmc-test-$$/work" || exit 1
SW=cpu-clock,task-clock,context-switches,page-faults
start_record "$TMP/sw.log" -v --check=0.1 -e "$SW" -I 500 -d 3 -o "$TMP/sw.csv" || exit 1
spawn_in "$CG" "$HELPERS/spin" 2000000 >/dev/null
spin=$SPAWNED
spawn_in "$CG" "$HELPERS/churn" 50 1
wait "$spin" "$SPAWNED"
wait "$RECORD_PID" || fail "record --check on $SW exited $?: $(grep -v '^libbpf' "$TMP/sw.log")"
found=$(grep -m1 "kernel features:" "$TMP/sw.log" | sed 's/.*kernel features: //')
echo "  Linux $(uname -r) $(uname -m): $found"
grep -E "exact mode, at each context switch|check:|warning" "$TMP/sw.log" | grep -v '^libbpf' | sed 's/^/  /'
[ -n "$found" ] || fail "record -v did not list the kernel's features"
# The fallback is said exactly when its probe found the feature missing.
said=$(grep -c "no kfunc bpf_rdonly_cast" "$TMP/sw.log")
case $found in
*"rdonly_cast no"*) [ "$said" = 1 ] || fail "bpf_rdonly_cast is missing, yet its fallback was not said" ;;
*"rdonly_cast yes"*) [ "$said" = 0 ] || fail "bpf_rdonly_cast is there, yet its fallback was said" ;;
*) fail "no rdonly_cast probe in: $found" ;;
esac
check_conservation "$TMP/sw.csv" "software: " || fail "software events: rows do not add up to the system row"

start_record "$TMP/hw.log" --check=0.1 -e cycles,instructions -I 500 -d 3 -o "$TMP/hw.csv" || exit 1
spawn_in "$CG" "$HELPERS/spin" 2000000 >/dev/null
spin=$SPAWNED
spawn_in "$CG" "$HELPERS/churn" 50 1
wait "$spin" "$SPAWNED"
wait "$RECORD_PID" || fail "record --check on cycles,instructions exited $?: $(cat "$TMP/hw.log")"
grep "check:" "$TMP/hw.log" | sed 's/^/  hardware: /'
check_conservation "$TMP/hw.csv" "hardware: " || fail "cycles, instructions: rows do not add up to the system row"
pass_or_fail
