#!/usr/bin/env bash
# The defaults on a host with a hardware PMU: `bpmc record` with neither
# -e nor --mode records cycles and instructions in exact mode (and
# `bpmc stat` counts them by default, beside its software events); a busy
# cgroup's rows count both (its instructions at least what perf counts
# in user space for the same command), every interval's cgroup and
# process rows add up to the system row, and `make run`
# (scripts/run-default) prints both events per process.
. "$(dirname "$0")/lib.sh"
need_hw_pmu

N=3000000
floor=0
if command -v perf >/dev/null; then
	floor=$(perf stat -x, -e instructions:u -- "$HELPERS/spin" "$N" 2>&1 >/dev/null |
		awk -F, '$3 ~ /^instructions/ { print $1 }')
	[[ $floor =~ ^[0-9]+$ ]] || floor=0
fi

mk_cgroup CG "bpmc-test-$$/defaults" || exit 1
start_record "$TMP/log" -I 500 -d 3 -o "$TMP/out.csv" || exit 1
spawn_in "$CG" "$HELPERS/spin" "$N" >/dev/null
wait "$SPAWNED" || fail "spin failed"
wait "$RECORD_PID" || fail "bpmc record exited $?: $(cat "$TMP/log")"
sed 's/^/  log: /' "$TMP/log"
grep -q "no hardware PMU" "$TMP/log" && fail "record fell back to cpu-clock on a host with a PMU"

mode=$(csv_awk '$col("scope") == "meta" && $col("event") == "mode" { print $col("value") }' "$TMP/out.csv")
events=$(csv_awk '$col("scope") == "encoding" { printf "%s%s", n++ ? "," : "", $col("event") }' "$TMP/out.csv")
cpu=$(csv_awk '$col("scope") == "meta" && $col("event") == "cpu" { print $col("value") }' "$TMP/out.csv")
echo "  mode $mode, events $events; meta cpu: $cpu"
[ -n "$cpu" ] || fail "no meta row names the CPU"
[ "$mode" = exact ] || fail "the default mode is '$mode', want exact"
[ "$events" = cycles,instructions ] || fail "the default events are '$events', want cycles,instructions"

id=$(cgroup_id "$CG")
cycles=$(csv_sum "$TMP/out.csv" cgroup cycles cgroup_id "$id")
insns=$(csv_sum "$TMP/out.csv" cgroup instructions cgroup_id "$id")
sys_insns=$(csv_awk '$col("scope") == "system" && $col("event") == "instructions" { s += $col("count") } END { printf "%.0f", s }' "$TMP/out.csv")
echo "  spin $N in $CG: cycles $cycles, instructions $insns (perf's instructions:u of the same command: $floor); system instructions $sys_insns"
[ "$cycles" -gt 0 ] || fail "no cycles in the spinning cgroup"
[ "$insns" -gt 0 ] || fail "no instructions in the spinning cgroup"
[ "$insns" -ge "$floor" ] || fail "the cgroup's instructions $insns are fewer than perf's user-space count $floor"
[ "$sys_insns" -ge "$insns" ] || fail "the system row counts fewer instructions than one cgroup"
rows=$(csv_awk '$col("scope") == "cgroup" && ($col("event") == "cycles" || $col("event") == "instructions") && $col("count") > 0 { n++ } END { print n + 0 }' "$TMP/out.csv")
echo "  $rows cgroup rows with non-zero cycles or instructions"
check_conservation "$TMP/out.csv" "" || fail "an interval's rows do not add up to its system row"

# bpmc stat's defaults: cycles and instructions too, split, counted.
"$BPMC" stat -x, -- "$HELPERS/spin" 100000 2>"$TMP/stat" >/dev/null || fail "bpmc stat failed: $(cat "$TMP/stat")"
echo "  bpmc stat's defaults: $(cut -d, -f1 "$TMP/stat" | paste -sd' ')"
for ev in cycles instructions; do
	awk -F, -v e="$ev" '$1 == e && $2 > 0 { f = 1 } END { exit !f }' "$TMP/stat" ||
		fail "bpmc stat's defaults do not count $ev in user space"
done

# make run: the same defaults, printed per process by bpmc report.
spawn_in "$CG" "$HELPERS/burner" 20 3
BPMC_BIN=$BPMC BPMC_RUN_SECONDS=2 BPMC_RUN_OUT=$TMP/run.csv "$ROOT/scripts/run-default" >"$TMP/run.out" 2>&1 ||
	fail "scripts/run-default exited $?"
wait "$SPAWNED"
sed 's/^/  make run: /' "$TMP/run.out"
head=$(grep -m1 '^ *host  *pid ' "$TMP/run.out")
[[ $head == *cycles* && $head == *instructions* ]] || fail "make run's table does not show cycles and instructions"
grep -q ' burner ' "$TMP/run.out" || fail "make run's top processes do not show the burner"
pass_or_fail
