#!/usr/bin/env bash
# The same workload recorded by sampling mode and exact mode side by side:
# for every process with at least 1000 samples, the two counts must agree
# within 5 %.
. "$(dirname "$0")/lib.sh"
need_root

start_record "$TMP/s.log" --mode sampling -e cpu-clock -I 1000 -d 8 -o "$TMP/s.csv" || exit 1
sampling=$RECORD_PID
start_record "$TMP/e.log" --mode exact -e cpu-clock -I 1000 -d 8 -o "$TMP/e.csv" || exit 1
exact=$RECORD_PID
mk_cgroup CG "bpmc-test-$$/cmp" || exit 1
pids=()
for duty in 90 60 35; do
	spawn_in "$CG" "$HELPERS/burner" "$duty" 5
	pids+=("$SPAWNED")
done
wait "${pids[@]}"
wait "$sampling" || fail "sampling record failed"
wait "$exact" || fail "exact record failed"

checked=0
for p in "${pids[@]}"; do
	samples=$(csv_awk -v p="$p" '$col("scope") == "process" && $col("pid") == p { s += $col("samples") } END { print s + 0 }' "$TMP/s.csv")
	s=$(csv_sum "$TMP/s.csv" process cpu-clock pid "$p")
	e=$(csv_sum "$TMP/e.csv" process cpu-clock pid "$p")
	err=$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%+.2f", b ? 100 * (a - b) / b : 0 }')
	echo "  burner $p: sampling $s ns ($samples samples), exact $e ns: $err %"
	[ "$samples" -ge 1000 ] || continue
	checked=$((checked + 1))
	within "$s" "$e" 5 || fail "burner $p: sampling is $err % off exact"
done
[ "$checked" -ge 2 ] || fail "only $checked processes reached 1000 samples"
pass_or_fail
