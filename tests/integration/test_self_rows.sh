#!/usr/bin/env bash
# scope=self rows: every interval, bpmc's own BPF run time and runs (with
# --self-stats, held on through an fd, never the sysctl), CPU time, peak
# RSS, and lost samples (0 in a normal run).
. "$(dirname "$0")/lib.sh"
need_root
before=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo 0)

"$BPMC" record --self-stats -e cpu-clock -I 500 -d 3 -o "$TMP/out.csv" 2>"$TMP/log" ||
	fail "record --self-stats failed: $(cat "$TMP/log")"
intervals=$(awk -F, '$4 == "system" { n++ } END { print n }' "$TMP/out.csv")
for m in bpf_run_time_ns cpu_user_ns cpu_system_ns peak_rss_bytes samples_lost; do
	n=$(awk -F, -v m="$m" '$4 == "self" && $10 == m { n++ } END { print n + 0 }' "$TMP/out.csv")
	[ "$n" -eq "$intervals" ] || fail "$n $m rows for $intervals intervals"
done
awk -F, '$4 == "self" && $10 == "bpf_run_time_ns" { t += $11; r += $12 }
	$4 == "self" && $10 == "peak_rss_bytes" { rss = $11 }
	$4 == "self" && $10 == "samples_lost" { lost += $11 }
	END { printf "  BPF: %d runs, %.0f ns/run; peak RSS %.1f MiB; samples lost %d\n", r, r ? t / r : 0, rss / 1048576, lost
	      exit !(r > 0 && t > 0 && rss > 1048576 && lost == 0) }' "$TMP/out.csv" ||
	fail "self rows do not show runs, run time, RSS, or show losses"
pid=$(awk -F, '$4 == "self" { print $7; exit }' "$TMP/out.csv")
awk -F, -v p="$pid" '$4 == "process" && $7 == p && $9 == "bpmc" { f = 1 } END { exit !f }' "$TMP/out.csv" ||
	fail "the self rows' pid $pid is not bpmc's own process row"
after=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo 0)
[ "$after" = "$before" ] || fail "kernel.bpf_stats_enabled changed from $before to $after"
pass_or_fail
