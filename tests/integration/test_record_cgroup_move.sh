#!/usr/bin/env bash
# A busy task that moves to another cgroup mid-run: each cgroup must be
# credited with the time the task spent in it (cpu.stat's usage_usec),
# within 1 %, although the task never stops running on its CPU: only
# bpmc's flush switches it out, along with two other tasks, so that no
# slot holds its old key when the move is split.
. "$(dirname "$0")/lib.sh"
need_root

start_record "$TMP/log" -e cpu-clock -I 500 -d 7 -o "$TMP/out.csv" || exit 1
mk_cgroup A "bpmc-test-$$/from" || exit 1
mk_cgroup B "bpmc-test-$$/to" || exit 1
a0=$(usage_usec "$A") b0=$(usage_usec "$B")
lost_mark
spawn_in "$A" "$HELPERS/burner" 100 4
pid=$SPAWNED
sleep 2
echo "$pid" > "$B/cgroup.procs" || fail "cannot move $pid to $B"
wait "$pid"
a1=$(usage_usec "$A") b1=$(usage_usec "$B")
wait "$RECORD_PID" || fail "bpmc record exited $?: $(cat "$TMP/log")"

check_usage "$TMP/out.csv" "$A" $(((a1 - a0) * 1000)) 1
check_usage "$TMP/out.csv" "$B" $(((b1 - b0) * 1000)) 1
pass_or_fail
