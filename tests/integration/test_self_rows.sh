#!/usr/bin/env bash
# scope=self rows: every interval, bpmc's own BPF run time and runs (with
# --self-stats, held on through an fd, never the sysctl), CPU time, peak
# RSS, and lost samples (0 in a normal run).
. "$(dirname "$0")/lib.sh"
need_root
before=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo 0)

"$BPMC" record --self-stats -e cpu-clock -I 500 -d 3 -o "$TMP/out.csv" 2>"$TMP/log" ||
	fail "record --self-stats failed: $(cat "$TMP/log")"
intervals=$(csv_awk '$col("scope") == "system" { n++ } END { print n }' "$TMP/out.csv")
for m in bpf_run_time_ns cpu_user_ns cpu_system_ns peak_rss_bytes samples_lost; do
	n=$(csv_awk -v m="$m" '$col("scope") == "self" && $col("event") == m { n++ } END { print n + 0 }' "$TMP/out.csv")
	[ "$n" -eq "$intervals" ] || fail "$n $m rows for $intervals intervals"
done
csv_awk '$col("scope") == "self" && $col("event") == "bpf_run_time_ns" { t += $col("count"); r += $col("samples") }
	$col("scope") == "self" && $col("event") == "peak_rss_bytes" { rss = $col("value") }
	$col("scope") == "self" && $col("event") == "samples_lost" { lost += $col("count") }
	END { printf "  BPF: %d runs, %.0f ns/run; peak RSS %.1f MiB; samples lost %d\n", r, r ? t / r : 0, rss / 1048576, lost
	      exit !(r > 0 && t > 0 && rss > 1048576 && lost == 0) }' "$TMP/out.csv" ||
	fail "self rows do not show runs, run time, RSS, or show losses"
pid=$(csv_awk '$col("scope") == "self" { print $col("pid"); exit }' "$TMP/out.csv")
csv_awk -v p="$pid" '$col("scope") == "process" && $col("pid") == p && $col("comm") == "bpmc" { f = 1 } END { exit !f }' "$TMP/out.csv" ||
	fail "the self rows' pid $pid is not bpmc's own process row"
after=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo 0)
[ "$after" = "$before" ] || fail "kernel.bpf_stats_enabled changed from $before to $after"
pass_or_fail
