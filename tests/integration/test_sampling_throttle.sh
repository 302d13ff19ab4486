#!/usr/bin/env bash
# A sampled clock the kernel throttles stops counting: cpu-clock's count
# and timer stop from the throttle to the next tick, and restart from the
# clock without the gap (seen as a system row 0.7 of 2 CPUs short in an
# interval of test_cpu_hotplug in CI, up to 0.78 beside a 50 % burner). With
# kernel.perf_event_max_sample_rate at 1000 (4 overflows a 4 ms tick at
# HZ=250), two CPU-bound burners sampled at -F 997 are throttled every
# run. bpmc must say so, naming the event; every interval's system row
# must still count the clock, the online CPUs within 5 %; the periods
# never sampled must show in the self row samples_missed. The sysctl is
# put back by the EXIT trap, whatever happens.
. "$(dirname "$0")/lib.sh"
need_root

RATE=/proc/sys/kernel/perf_event_max_sample_rate
[ -w "$RATE" ] || skip "$RATE is not writable"
OLD_RATE=$(cat "$RATE")
ATEXIT+=("echo $OLD_RATE > $RATE")
echo 1000 > "$RATE" || fail "cannot set $RATE to 1000"
CPUS=$(getconf _NPROCESSORS_ONLN)

mk_cgroup CG "bpmc-test-$$/throttle" || exit 1
start_record "$TMP/rec.log" --mode sampling -e cpu-clock -F 997 -I 500 -d 4 \
	--by cgroup -o "$TMP/rec.csv" || exit 1
for i in $(seq "$CPUS"); do
	spawn_in "$CG" "$HELPERS/burner" 100 5
done
wait "$RECORD_PID" || fail "record exited $?: $(cat "$TMP/rec.log")"
echo "$OLD_RATE" > "$RATE"

grep "throttled" "$TMP/rec.log" | cut -c1-120 | sed 's/^/  /'
grep -q "warning: cpu-clock: the kernel throttled it for" "$TMP/rec.log" ||
	fail "no warning that the kernel throttled cpu-clock: $(cat "$TMP/rec.log")"
csv_awk -v cpus="$CPUS" '
	$col("scope") == "system" && $col("event") == "cpu-clock" {
		c = $col("count") / ($col("interval_ms") * 1e6); n++
		if (c < cpus * 0.95 || c > cpus * 1.05) { bad++; printf "  interval ending %s counts %.3f CPUs, want %d\n", $col("time"), c, cpus }
		if (!min || c < min) min = c }
	$col("scope") == "self" && $col("event") == "samples_missed" { missed += $col("count") }
	END { printf "  %d intervals, the fewest CPUs in one %.3f (want %d); samples_missed %d\n", n, min, cpus, missed
	      exit !(n >= 7 && !bad && missed > 0) }' "$TMP/rec.csv" ||
	fail "the system row does not count the clock, or samples_missed is 0"
pass_or_fail
