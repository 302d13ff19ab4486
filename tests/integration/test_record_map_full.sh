#!/usr/bin/env bash
# --max-keys too small for the workload: the lost samples are counted,
# reported on stderr in the interval they happen and in a summary at exit,
# and what fitted is still exported.
. "$(dirname "$0")/lib.sh"
need_root

start_record "$TMP/log" -e cpu-clock -F 997 --max-keys 2 --by cgroup,process,thread \
	-I 500 -d 4 -o "$TMP/out.csv" || exit 1
mk_cgroup CG "bpmc-test-$$/many" || exit 1
for i in $(seq 12); do
	spawn_in "$CG" "$HELPERS/burner" 20 2
done
wait "${PIDS[@]:1}"
wait "$RECORD_PID" || fail "bpmc record exited $?"
cat "$TMP/log" | sed 's/^/  /'
grep -q "samples lost this interval: the counts map is full (raise --max-keys above 2)" "$TMP/log" ||
	fail "no per-interval loss report"
grep -q "samples were lost in all because the counts map was full (--max-keys 2)" "$TMP/log" ||
	fail "no loss summary at exit"
lost=$(awk '/lost in all/ { print $3 }' "$TMP/log")
[ "${lost:-0}" -gt 0 ] || fail "summary reports ${lost:-no} lost samples"
rows=$(csv_awk '$col("scope") == "thread" { n++ } END { print n + 0 }' "$TMP/out.csv")
[ "$rows" -gt 0 ] || fail "nothing exported although some keys fitted"
pass_or_fail
