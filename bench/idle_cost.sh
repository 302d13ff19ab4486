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
# By header name, through the strict reader: text fields are quoted.
python3 "$ROOT/tests/helpers/csv_fields.py" "$TMP/idle.csv" | awk -F '\037' '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["scope"] == "self" && ($c["event"] == "cpu_user_ns" || $c["event"] == "cpu_system_ns") { s += $c["count"] }
	$c["scope"] == "system" { n++ }
	END { printf "idle_cpu_pct_self_rows %.3f\n", n ? 100 * s / 1e9 / n : 0 }'
