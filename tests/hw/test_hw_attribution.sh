#!/usr/bin/env bash
# Attribution of hardware events: two burners in two cgroups, each
# executing a known number of instructions (helpers/insnloop: a loop of
# 2 arm64 instructions an iteration, entered after the burner moved
# itself into its cgroup), while bpmc records and `perf stat -a -G`
# counts the same cgroups in the same window (perf's workload is the two
# burners). Each cgroup's instructions:u must be within 0.5 % of the
# known count (where the helper knows it: arm64) and of perf's, in exact
# mode and in sampling mode; exact mode's rows must add up to the system
# row (--check, and the CSV checked here) for cycles and instructions.
#
# The burners run one after the other: QEMU's instruction counter is the
# machine's instruction count (-icount's), so a vCPU's counter also
# advances with what the other vCPU executes meanwhile (two burners side
# by side read up to 94 % high, in perf as in bpmc); one at a time, the
# other vCPU mostly idles in the kernel, which :u leaves out.
#
# Sampling mode samples cycles:u and reads instructions:u at each of its
# overflows, a group: QEMU raises an instruction counter's overflow
# interrupt only at the next exception (about a tick), and the kernel
# drops the overflows in between (`perf record -e instructions:u -c
# 300000` of 2 x 10^8 instructions: 51 samples); cycles overflow on time.
#
# Why :u: user-space instructions are the loop and a few dozen around it,
# the same every run (QEMU's -icount counts them one by one). Counting
# the kernel too would add each tick's interrupt, the page faults and the
# cgroup move, which depend on the timing, not on the burner.
. "$(dirname "$0")/lib.sh"
need_hw_pmu
need_perf

# 2 x 10^8 instructions a burner: 0.5 % is 10^6, a few samples' periods
# at the sampling period below.
N=${HW_INSNLOOP_N:-100000000}
mk_cgroup CGA "bpmc-test-$$/a" || exit 1
mk_cgroup CGB "bpmc-test-$$/b" || exit 1
REL_A=${CGA#"$CG2"} REL_B=${CGB#"$CG2"}
TRUTH=$((INSN_PER_ITER * N))

# The period: bpmc's floor for cycles (6 G/s over the kernel's rate
# limit) or 100000, whichever is more: 2000 samples a burner.
hold_sample_rate || skip "cannot set kernel.perf_event_max_sample_rate"
PERIOD=$(((6000000000 + RATE - 1) / RATE))
[ "$PERIOD" -lt 100000 ] && PERIOD=100000

# run MODE ARGS...: bpmc records with ARGS while perf counts both cgroups
# around the two burners; leaves $TMP/MODE.csv, .log and .perf.
run() {
	local mode=$1
	shift
	start_record "$TMP/$mode.log" --mode "$mode" "$@" -I 1000 -o "$TMP/$mode.csv" || return 1
	perf stat -a -x, -o "$TMP/$mode.perf" -e instructions:u,instructions:u -G "$REL_A,$REL_B" -- \
		sh -c '"$1" -c "$2" "$4" && "$1" -c "$3" "$4"' sh \
		"$HELPERS/insnloop" "$CGA" "$CGB" "$N" >"$TMP/$mode.perf.out" 2>&1 ||
		fail "$mode: perf stat failed: $(cat "$TMP/$mode.perf.out")"
	stop_record "$TMP/$mode.log" || fail "$mode: bpmc record failed"
}

# compare MODE: each cgroup's instructions:u against the truth and perf.
compare() {
	local mode=$1 cg rel got ref
	for cg in "$CGA" "$CGB"; do
		rel=${cg#"$CG2"}
		got=$(csv_sum "$TMP/$mode.csv" cgroup instructions:u cgroup_id "$(cgroup_id "$cg")")
		ref=$(perf_cgroup_count "$TMP/$mode.perf" instructions:u "${rel#/}")
		echo "  $mode $rel: bpmc $got, perf $ref ($(pct_off "$got" "$ref") %), known $TRUTH ($(pct_off "$got" "$TRUTH") %)"
		[ -n "$ref" ] || { fail "$mode $rel: no count from perf: $(cat "$TMP/$mode.perf")"; continue; }
		within "$got" "$ref" 0.5 || fail "$mode $rel: bpmc's instructions:u $got is not within 0.5 % of perf's $ref"
		[ "$TRUTH" -gt 0 ] && { within "$got" "$TRUTH" 0.5 ||
			fail "$mode $rel: bpmc's instructions:u $got is not within 0.5 % of the $TRUTH executed"; }
		[ "$TRUTH" -gt 0 ] && { within "$ref" "$TRUTH" 0.5 ||
			fail "$mode $rel: perf's $ref is not within 0.5 % of the $TRUTH executed: the reference is off"; }
	done
}

[ "$TRUTH" -gt 0 ] || echo "  this architecture's loop has no exact instruction count: perf is the only reference"
echo "  two burners of $N iterations ($TRUTH user instructions each where known)"

run exact --check -e cycles,instructions,instructions:u || exit 1
grep "check:" "$TMP/exact.log" | sed 's/^/  /'
compare exact
check_conservation "$TMP/exact.csv" "exact: " ||
	fail "exact: an interval's rows do not add up to its system row within 0.1 %"
for ev in cycles instructions; do
	grep -q "check: $ev:" "$TMP/exact.log" || fail "exact: --check said nothing of $ev"
done

echo "  sampling: {cycles:u,instructions:u}, cycles:u sampled every $PERIOD"
run sampling -e '{cycles:u,instructions:u}' -c "$PERIOD" || exit 1
compare sampling
pass_or_fail
