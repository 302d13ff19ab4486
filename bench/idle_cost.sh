#!/usr/bin/env bash
# Case 5: the collector's own CPU over IDLE_S seconds (default 60) on an
# idle machine at -I 1000, from /proc/PID/stat once it is running.
. "$(dirname "$0")/lib.sh"
IDLE_S=${IDLE_S:-60}
HZ=$(getconf CLK_TCK)

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

spawn "$BPMC" record -I 1000 -d $((IDLE_S + 4)) -o "$TMP/idle.csv" 2>"$TMP/log"
pid=$SPAWNED
for _ in $(seq 100); do grep -q recording "$TMP/log" && break; sleep 0.1; done
sleep 2
a=$(cpu_ticks "$pid") t0=$(date +%s.%N)
sleep "$IDLE_S"
b=$(cpu_ticks "$pid") t1=$(date +%s.%N)
wait "$pid"
awk -v a="$a" -v b="$b" -v hz="$HZ" -v t0="$t0" -v t1="$t1" 'BEGIN {
	printf "idle_cpu_pct %.3f\n", 100 * (b - a) / hz / (t1 - t0) }'
awk -F, '$4 == "self" && ($10 == "cpu_user_ns" || $10 == "cpu_system_ns") { s += $11 }
	$4 == "system" { n++ }
	END { printf "idle_cpu_pct_self_rows %.3f\n", n ? 100 * s / 1e9 / n : 0 }' "$TMP/idle.csv"
