#!/usr/bin/env bash
# When the kernel lowers kernel.perf_event_max_sample_rate during a run
# (what it does when it throttles sampling), record says so on stderr.
# The sysctl is restored whatever happens.
. "$(dirname "$0")/lib.sh"
need_root
SYSCTL=/proc/sys/kernel/perf_event_max_sample_rate
orig=$(cat "$SYSCTL") || skip "no $SYSCTL"
ATEXIT+=("echo $orig > $SYSCTL")

start_record "$TMP/log" -e cpu-clock -F 100 -I 300 -d 2 -o "$TMP/out.csv" || exit 1
echo $((orig / 2)) > "$SYSCTL"
wait "$RECORD_PID" || fail "bpmc record exited $?"
echo "$orig" > "$SYSCTL"
grep "throttled" "$TMP/log" | sed 's/^/  /'
grep -q "the kernel throttled sampling: kernel.perf_event_max_sample_rate fell from $orig to $((orig / 2))" "$TMP/log" ||
	fail "no throttling warning: $(cat "$TMP/log")"
[ "$(grep -c throttled "$TMP/log")" -eq 1 ] || fail "the warning is repeated"
pass_or_fail
