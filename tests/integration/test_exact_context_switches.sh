#!/usr/bin/env bash
# Exact mode, context-switches: a process that sleeps and wakes 200 times
# a second. Its process row must match the kernel's own count of its
# switches (voluntary + nonvoluntary in /proc/PID/status) within 1 %.
. "$(dirname "$0")/lib.sh"
need_root

start_record "$TMP/log" --mode exact -e context-switches -I 500 -d 6 -o "$TMP/out.csv" || exit 1
mk_cgroup CG "bpmc-test-$$/sleeper" || exit 1
spawn_in "$CG" "$HELPERS/sleeper" 200 3 > "$TMP/kernel"
pid=$SPAWNED
wait "$pid"
# Its own /proc/self/status at the end, plus the switch of its exit.
kernel=$(($(cat "$TMP/kernel") + 1))
wait "$RECORD_PID" || fail "bpmc record exited $?: $(cat "$TMP/log")"
got=$(csv_sum "$TMP/out.csv" process context-switches pid "$pid")
echo "  sleeper $pid: exact $got context-switches, /proc/$pid/status $kernel"
[ "${kernel:-0}" -gt 500 ] || fail "the kernel counted only ${kernel:-no} switches"
within "$got" "$kernel" 1 || fail "$got context-switches vs $kernel in /proc/$pid/status"
pass_or_fail
