#!/usr/bin/env bash
# Event groups on a hardware PMU.
# - A group that fits is scheduled as one: beside 6 other hardware
#   events, so that the kernel multiplexes, {cycles:u,instructions:u}
#   has one running_pct for both members in every interval (each in
#   its own rotation would differ), and the burner's instructions:u,
#   scaled, is within 2 % of what it executed (where known; sampling
#   mode 5 %). Exact and sampling mode.
# - A group larger than the PMU (8 members; QEMU's Armv8 PMU has 7
#   counters, an x86 core 4 general ones besides its fixed counters) is
#   refused at start: bpmc exits non-zero, saying in one line which
#   group does not fit, and writes no rows. (The Arm PMU's own check
#   leaves a disabled leader out, so the kernel took this group and
#   never ran it; bpmc now tries it once with its leader enabled.)
# - A group the kernel accepts but can never schedule (it fits an empty
#   PMU, but a pinned event holds a counter all the time) is said to
#   have never run, not written as zeros.
. "$(dirname "$0")/lib.sh"
need_hw_pmu

# 6 x 10^8 instructions: 150 of the kernel's 4 ms rotations (a 0.1 s
# burner's scaled instructions:u came out 0.6 to 5.4 % high).
N=${HW_INSNLOOP_N:-300000000}
TRUTH=$((INSN_PER_ITER * N))
hold_sample_rate || skip "cannot set kernel.perf_event_max_sample_rate"
# Every event is sampled: instructions' floor is the highest.
PERIOD=$(((30000000000 + RATE - 1) / RATE))
mk_cgroup CG "bpmc-test-$$/burn" || exit 1
ID=$(cgroup_id "$CG")

FITS='{cycles:u,instructions:u},instructions:k,cycles:k,instructions,cycles,instructions:uk,cycles:uk'
for mode in exact sampling; do
	sargs=()
	[ "$mode" = sampling ] && sargs=(-c "$PERIOD")
	start_record "$TMP/$mode.log" --mode "$mode" "${sargs[@]}" -e "$FITS" -I 1000 -o "$TMP/$mode.csv" || exit 1
	"$HELPERS/insnloop" -c "$CG" "$N" || fail "$mode: insnloop failed"
	stop_record "$TMP/$mode.log" || fail "$mode: bpmc record failed"
	# Per interval: the two members' running_pct, and the lowest.
	out=$(csv_awk '$col("scope") == "system" && ($col("event") == "cycles:u" || $col("event") == "instructions:u") {
			r[$col("time"), $col("event")] = $col("running_pct"); t[$col("time")] = 1 }
		END { for (k in t) { d = r[k, "cycles:u"] - r[k, "instructions:u"]; if (d < 0) d = -d
				if (d > worst) worst = d; if (lo == "" || r[k, "cycles:u"] < lo) lo = r[k, "cycles:u"]; n++ }
			printf "%d %s %s\n", n, lo, worst + 0 }' "$TMP/$mode.csv")
	read -r n lo worst <<<"$out"
	got=$(csv_sum "$TMP/$mode.csv" cgroup instructions:u cgroup_id "$ID")
	cyc=$(csv_sum "$TMP/$mode.csv" cgroup cycles:u cgroup_id "$ID")
	echo "  $mode: {cycles:u,instructions:u} among 8: $n intervals, running_pct down to ${lo:-?} %, members apart by ${worst:-?} at most; burner instructions:u $got, cycles:u $cyc, executed ${TRUTH/#0/unknown}"
	awk -v w="${worst:-99}" 'BEGIN { exit !(w <= 0.1) }' ||
		fail "$mode: the group's members ran different shares ($worst points apart): not scheduled together"
	awk -v l="${lo:-100}" 'BEGIN { exit !(l < 100) }' ||
		echo "  $mode: (the group was never multiplexed: this PMU has room for all 8 events)"
	# Multiplexed, a count is an estimate: exact mode's within 2 %;
	# sampling mode's member is read at the leader's overflows, each read
	# crediting its CPU's times since the last, and the kernel's own
	# estimate is off by 1-3 % for a 0.6 s burner here
	# (test_hw_multiplexing.sh): 5 %.
	tol=2
	[ "$mode" = sampling ] && tol=5
	[ "$TRUTH" -gt 0 ] && { within "$got" "$TRUTH" "$tol" || fail "$mode: the group's instructions:u $got is not within $tol % of $TRUTH"; }
	[ "${cyc:-0}" -gt 0 ] || fail "$mode: the group's cycles:u counted nothing for the burner"
done

# Too large: 8 members.
BIG='{cycles,instructions,cycles:u,instructions:u,cycles:k,instructions:k,instructions:uk,cycles:uk}'
timeout 60 "$BPMC" record -e "$BIG" -I 1000 -d 3 -o "$TMP/big.csv" >"$TMP/big.out" 2>"$TMP/big.log"
rc=$?
sed 's/^/  big group: /' "$TMP/big.log"
if [ "$rc" -eq 0 ] && grep -q "recording" "$TMP/big.log"; then
	# It opened: it must have run, or been said never to.
	if csv_awk '$col("scope") == "system" && $col("count") != "" && $col("count") > 0 { n++ } END { exit !n }' "$TMP/big.csv"; then
		echo "  (this PMU schedules a group of 8: nothing to refuse)"
	else
		fail "a group of 8 was accepted and never ran: it should have been refused at start"
	fi
else
	[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "a group of 8 made bpmc exit $rc"
	lines=$(grep -c . "$TMP/big.log")
	grep -q "group {cycles,instructions,.*} does not fit" "$TMP/big.log" ||
		fail "the refusal does not name the group that does not fit"
	[ "$lines" -eq 1 ] || fail "the refusal is $lines lines, not one"
	[ -s "$TMP/big.csv" ] && grep -q ',"system",' "$TMP/big.csv" && fail "a refused run wrote rows"
fi

# Accepted, never scheduled: a pinned event (perf's instructions:D)
# holds a general counter on every CPU, and a group of as many events as
# the PMU has general counters fits an empty PMU but never this one. The
# counters' number is the Arm PMU driver's line in the kernel log.
GEN=$(dmesg 2>/dev/null | grep -o '[0-9]* counters available' | head -1 | cut -d' ' -f1)
if [ -z "$GEN" ] || [ "$GEN" -gt 8 ] || ! perf stat -a -e instructions:D -- true >/dev/null 2>&1; then
	echo "  (no Arm PMU counter count in the kernel log, or no perf: the never-scheduled group is not checked)"
	pass_or_fail
fi
# The cycle counter and GEN-1 general ones: GEN-1 events that need a
# general counter.
names=(instructions instructions:u instructions:k instructions:uk stalled-cycles-frontend stalled-cycles-backend)
members=$(IFS=,; echo "${names[*]:0:$((GEN - 1))}")
# No workload: perf counts until SIGINT (a workload would be waited for).
spawn perf stat -a -e instructions:D -x, -o "$TMP/pinned.perf"
perf_pid=$SPAWNED
sleep 1
timeout 60 "$BPMC" record -e "{$members}" -I 1000 -d 3 -o "$TMP/starved.csv" >/dev/null 2>"$TMP/starved.log"
rc=$?
kill -INT "$perf_pid" 2>/dev/null
wait "$perf_pid" 2>/dev/null
sed 's/^/  starved group: /' "$TMP/starved.log"
zeros=$(csv_awk '$col("scope") == "system" && $col("count") == "0" { n++ } END { print n + 0 }' "$TMP/starved.csv")
empty=$(csv_awk '$col("scope") == "system" && $col("count") == "" && $col("running_pct") == "0.0" { n++ } END { print n + 0 }' "$TMP/starved.csv")
echo "  starved group {$members} beside a pinned instructions: exit $rc, $zeros system rows of 0, $empty without a count (running_pct 0.0)"
grep -q "never" "$TMP/starved.log" || fail "a group that never ran was not said to have never run"
[ "${zeros:-0}" -eq 0 ] || fail "a group that never ran was written as $zeros rows of zeros"
[ "${empty:-0}" -gt 0 ] || fail "a group that never ran has no system row saying so"
pass_or_fail
