#!/usr/bin/env bash
# Intervals on a fixed grid, SIGTERM writing the last partial interval,
# stdout output, and nothing left loaded in the kernel afterwards.
. "$(dirname "$0")/lib.sh"
need_root
command -v bpftool >/dev/null || skip "bpftool is not installed"

# ms_of_day FILE: the time column of each distinct interval, in ms.
ms_of_day() {
	csv_awk '!seen[$col("time")]++ {
		split(substr($col("time"), 12, 12), t, ":")
		printf "%.0f %d\n", (t[1] * 3600 + t[2] * 60 + t[3]) * 1000, $col("interval_ms") }' "$1"
}

# 1. -I 200 for 3 s: 15 intervals, each end on start + k * 200 ms.
"$BPMC" record -e cpu-clock -I 200 -d 3 -o "$TMP/grid.csv" 2>"$TMP/grid.log" ||
	fail "record -I 200 -d 3 failed: $(cat "$TMP/grid.log")"
ms_of_day "$TMP/grid.csv" > "$TMP/grid.txt"
n=$(wc -l < "$TMP/grid.txt")
[ "$n" -eq 15 ] || fail "$n intervals in 3 s at -I 200, want 15"
awk 'NR == 1 { t0 = $1 }
	{ drift = $1 - t0 - (NR - 1) * 200; if (drift < 0) drift = -drift
	  if (drift > worst) worst = drift
	  if ($2 < 190 || $2 > 210) bad++ }
	END { printf "  worst drift from the 200 ms grid: %d ms\n", worst
	      exit !(worst <= 20 && !bad) }' "$TMP/grid.txt" ||
	fail "intervals drift or have the wrong length: $(tr '\n' ' ' < "$TMP/grid.txt")"

# 2. SIGTERM mid-interval: exit 0, the partial interval is written.
start_record "$TMP/term.log" -e cpu-clock -I 1000 -o "$TMP/term.csv" || exit 1
sleep 2.5
kill -TERM "$RECORD_PID"
wait "$RECORD_PID"
rc=$?
[ "$rc" -eq 0 ] || fail "record exited $rc after SIGTERM"
last=$(ms_of_day "$TMP/term.csv" | tail -1 | cut -d' ' -f2)
n=$(ms_of_day "$TMP/term.csv" | wc -l)
echo "  after SIGTERM at 2.5 s: $n intervals, the last $last ms long"
[ "$n" -eq 3 ] || fail "$n intervals written, want 3 (2 full, 1 partial)"
[ "${last:-0}" -ge 300 ] && [ "${last:-0}" -le 700 ] ||
	fail "last interval is ${last} ms, want about 500"
bpftool prog show | grep -q on_overflow &&
	fail "a BPF program is still loaded after exit"

# 3. -o -: CSV on stdout, diagnostics on stderr only.
"$BPMC" record -e cpu-clock -I 500 -d 1 -o - >"$TMP/stdout.csv" 2>"$TMP/stdout.log" ||
	fail "record -o - failed: $(cat "$TMP/stdout.log")"
head -1 "$TMP/stdout.csv" | grep -q '^time,host,interval_ms,scope,cgroup_id,cgroup,pid,tid,comm,event,count,samples' ||
	fail "stdout does not start with the header"
csv_awk '$col("time") !~ /^[0-9][0-9][0-9][0-9]-/ { f = 1 } END { exit f }' "$TMP/stdout.csv" ||
	fail "stdout holds a line that is not a row"
pass_or_fail
