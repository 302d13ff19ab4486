#!/usr/bin/env bash
# Case 10: bpmc top's own CPU at a 1 s refresh with 1,000 keys on the
# screen (TOP_KEYS sleepers waking 10 times a second, --by process, in
# a 120x40 tmux pane), from /proc/PID/schedstat (its time on a CPU, in
# ns: bpmc top and record run one thread here) over TOP_S seconds (default
# 20) once it shows them all; beside it, the same collector drawing
# nothing (--batch to /dev/null) and `bpmc record` of the same scopes to
# /dev/null, alternated, TOP_ROUNDS rounds (default 1).
. "$(dirname "$0")/lib.sh"
TOP_S=${TOP_S:-20}
TOP_KEYS=${TOP_KEYS:-1000}
TOP_ROUNDS=${TOP_ROUNDS:-1}
command -v tmux >/dev/null || BPMC_EXTRA_PKGS="tmux" "$ROOT/scripts/install-deps"
SOCK=bpmc-bench-$$
tm() { tmux -L "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null; bench_cleanup' EXIT
printf '#!/bin/sh\necho $$ > "$1"\nshift\nexec "$@"\n' > "$TMP/pid_exec"
chmod +x "$TMP/pid_exec"

cpu_ns() { awk '{ print $1 }' "/proc/$1/schedstat"; }
# cpu_pct PID: its CPU over TOP_S seconds, in % of one CPU.
cpu_pct() {
	local a b t0 t1
	a=$(cpu_ns "$1") t0=$(date +%s.%N)
	sleep "$TOP_S"
	b=$(cpu_ns "$1") t1=$(date +%s.%N)
	awk -v a="$a" -v b="$b" -v t0="$t0" -v t1="$t1" 'BEGIN {
		printf "%.3f\n", 100 * (b - a) / 1e9 / (t1 - t0) }'
}

for _ in $(seq "$TOP_KEYS"); do
	spawn "$HELPERS/sleeper" 10 $(((TOP_S + 15) * 3 * TOP_ROUNDS + 30)) >/dev/null
done
sleep 1

# The screen: until its second header line counts TOP_KEYS keys or more.
screen_round() {
	local pid keys=0
	rm -f "$TMP/top.pid"
	tm new-session -d -s top -x 120 -y 40 "$TMP/pid_exec" "$TMP/top.pid" \
		"$BPMC" top -e cpu-clock --by process -I 1000
	for _ in $(seq 100); do
		pid=$(cat "$TMP/top.pid" 2>/dev/null)
		keys=$(tm capture-pane -p -t top 2>/dev/null | sed -n 2p | sed -n 's/.* - \([0-9]*\) keys - .*/\1/p')
		[ "${keys:-0}" -ge "$TOP_KEYS" ] && break
		sleep 0.2
	done
	echo "top_screen_keys $keys"
	sleep 1
	cpu_pct "$pid" >>"$TMP/screen"
	tm send-keys -t top q
	for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
}

batch_round() {
	spawn "$BPMC" top -b -e cpu-clock --by process -I 1000 >/dev/null 2>&1
	local pid=$SPAWNED
	sleep 3
	cpu_pct "$pid" >>"$TMP/batch"
	kill -TERM "$pid"
	wait "$pid"
}

record_round() {
	spawn "$BPMC" record -e cpu-clock --by cgroup,process,container -I 1000 -o /dev/null 2>/dev/null
	local pid=$SPAWNED
	sleep 3
	cpu_pct "$pid" >>"$TMP/record"
	kill -TERM "$pid"
	wait "$pid"
}

for _ in $(seq "$TOP_ROUNDS"); do
	screen_round | tail -1 >>"$TMP/keys"
	batch_round
	record_round
done
echo "top_keys $(cut -d' ' -f2 "$TMP/keys" | median)"
echo "top_rounds $TOP_ROUNDS"
echo "top_seconds $TOP_S"
echo "top_screen_cpu_pct $(median <"$TMP/screen")"
echo "top_batch_cpu_pct $(median <"$TMP/batch")"
echo "top_record_cpu_pct $(median <"$TMP/record")"
