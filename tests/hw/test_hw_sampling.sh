#!/usr/bin/env bash
# Hardware sampling of cycles, -c and -F, in sampling mode. The overflow
# program must run on the PMU's overflow interrupt, not on a timer:
# - with -c P and -c 4P over the same burner, the burner's samples go
#   down 4 times (a timer's would not change) and its count stays that
#   of perf (cycles:u, in the same window: within 3 %);
# - the PMU's interrupts (/proc/interrupts: arm-pmu, or x86's PMI) and
#   the BPF programs' runs (--self-stats: the self row bpf_run_time_ns's
#   samples) rise with the samples, one per overflow;
# - -F F gives about F samples a second on each busy CPU whatever the
#   event's rate, and the burner's count is still perf's within 3 %.
# And loss: overflows the counter made that no sample credited (an
# interrupt more than a period late: the kernel skips the overflows in
# between) show in the self rows' samples_missed, as many as the system
# row's count exceeds the samples' by, in periods, and none where every
# overflow is taken (cycles:u above). QEMU raises an instruction
# counter's overflow interrupt only at the next exception (about a tick),
# so instructions:u at -c P loses nearly all of them there (perf record
# too: 51 samples for 2 x 10^8 instructions); a real PMU loses none.
. "$(dirname "$0")/lib.sh"
need_hw_pmu
need_perf

N=${HW_INSNLOOP_N:-100000000}
mk_cgroup CG "bpmc-test-$$/burn" || exit 1
ID=$(cgroup_id "$CG") REL=${CG#"$CG2"}
hold_sample_rate || skip "cannot set kernel.perf_event_max_sample_rate"
# bpmc's floor for cycles: 6 GHz over the kernel's sample rate limit.
P=$(((6000000000 + RATE - 1) / RATE))
[ "$P" -lt 100000 ] && P=100000

# run NAME ARGS...: bpmc records ARGS around one burner of N iterations,
# which perf counts in the same window; the PMU interrupts meanwhile in
# $TMP/NAME.irqs.
run() {
	local name=$1 irq0 irq1
	shift
	start_record "$TMP/$name.log" --mode sampling --self-stats "$@" -I 1000 -o "$TMP/$name.csv" || return 1
	irq0=$(pmu_irqs)
	perf stat -a -x, -o "$TMP/$name.perf" -e cycles:u -G "${REL#/}" -- \
		"$HELPERS/insnloop" -c "$CG" "$N" >"$TMP/$name.perf.out" 2>&1 ||
		fail "$name: perf stat failed: $(cat "$TMP/$name.perf.out")"
	irq1=$(pmu_irqs)
	stop_record "$TMP/$name.log" || fail "$name: bpmc record failed"
	[ -n "$irq0" ] && echo $((irq1 - irq0)) >"$TMP/$name.irqs"
	return 0
}

# The burner's cycles:u count and samples, all samples of the run, the
# BPF programs' runs, and perf's count.
figures() {
	BURN=$(csv_sum "$TMP/$1.csv" cgroup cycles:u cgroup_id "$ID")
	BURN_S=$(csv_awk -v id="$ID" '$col("scope") == "cgroup" && $col("cgroup_id") == id && $col("event") == "cycles:u" { s += $col("samples") } END { print s + 0 }' "$TMP/$1.csv")
	ALL_S=$(csv_awk '$col("scope") == "system" && $col("event") == "cycles:u" { s += $col("samples") } END { print s + 0 }' "$TMP/$1.csv")
	RUNS=$(csv_awk '$col("scope") == "self" && $col("event") == "bpf_run_time_ns" { s += $col("samples") } END { print s + 0 }' "$TMP/$1.csv")
	PERF=$(perf_cgroup_count "$TMP/$1.perf" cycles:u "${REL#/}")
	IRQS=$(cat "$TMP/$1.irqs" 2>/dev/null)
	echo "  $1: burner cycles:u $BURN in $BURN_S samples (perf $PERF, $(pct_off "$BURN" "$PERF") %); all samples $ALL_S, BPF runs $RUNS, PMU interrupts ${IRQS:-unknown}"
	[ -n "$PERF" ] || fail "$1: no count from perf: $(cat "$TMP/$1.perf")"
}

run c1 -e cycles:u -c "$P" || exit 1
figures c1
c1_s=$BURN_S
within "$BURN" "$PERF" 3 || fail "-c $P: the burner's cycles:u is not within 3 % of perf's"
# Every overflow is one run of the overflow program and one interrupt.
awk -v r="$RUNS" -v s="$ALL_S" 'BEGIN { exit !(s > 100 && r >= s && r <= 1.2 * s + 2000) }' ||
	fail "-c $P: $RUNS BPF runs for $ALL_S samples: not one per overflow"
[ -n "$IRQS" ] && { awk -v i="$IRQS" -v s="$ALL_S" 'BEGIN { exit !(i >= 0.95 * s && i <= 1.2 * s + 2000) }' ||
	fail "-c $P: $IRQS PMU interrupts for $ALL_S samples: the overflows are not the PMU's"; }

run c4 -e cycles:u -c $((4 * P)) || exit 1
figures c4
within "$BURN" "$PERF" 3 || fail "-c $((4 * P)): the burner's cycles:u is not within 3 % of perf's"
ratio=$(awk -v a="$c1_s" -v b="$BURN_S" 'BEGIN { printf "%.3f", b ? a / b : 0 }')
echo "  samples at -c $P over samples at -c $((4 * P)): $ratio (4 for overflows, 1 for a timer)"
awk -v r="$ratio" 'BEGIN { exit !(r > 3.6 && r < 4.4) }' || fail "the samples do not follow the period: $ratio, not 4"

F=200
u0=$(usage_usec "$CG")
run f -e cycles:u -F "$F" || exit 1
F_USEC=$(($(usage_usec "$CG") - u0))
figures f
within "$BURN" "$PERF" 3 || fail "-F $F: the burner's cycles:u is not within 3 % of perf's"
# Samples per second of the burner's CPU time (its cgroup's cpu.stat):
# about F once the kernel has tuned the period (a few ticks).
per_s=$(awk -v s="$BURN_S" -v us="$F_USEC" 'BEGIN { printf "%.0f\n", us ? s * 1e6 / us : 0 }')
echo "  -F $F: $BURN_S samples in the burner's $((F_USEC / 1000)) ms of CPU: $per_s a second"
awk -v s="$per_s" -v f="$F" 'BEGIN { exit !(s > 0.5 * f && s < 1.5 * f) }' ||
	fail "-F $F: $per_s samples a second of the burner's CPU time"

# Loss: none where every overflow is taken.
missed() {
	csv_awk '$col("scope") == "self" && $col("event") == "samples_missed" { s += $col("count") } END { print s + 0 }' "$TMP/$1.csv"
}
for r in c1 c4; do
	m=$(missed "$r")
	echo "  $r: samples_missed $m"
	[ "$m" -eq 0 ] || fail "$r: $m overflows said missed where cycles:u overflows are all taken"
done
# instructions:u: whatever a PMU loses, the self rows say it, in periods.
PI=$(((30000000000 + RATE - 1) / RATE))
run i -e instructions:u -c "$PI" || exit 1
m=$(missed i)
out=$(csv_awk -v p="$PI" -v n="$(nproc)" '$col("scope") == "system" && $col("event") == "instructions:u" { sys += $col("count"); s += $col("samples") }
	$col("scope") == "cgroup" && $col("event") == "instructions:u" { keyed += $col("count") }
	END { e = (sys - keyed) / p - 2 * n; if (e < 0) e = 0; printf "%d %d %d %.0f\n", sys, keyed, s, e }' "$TMP/i.csv")
read -r sys keyed samples expect <<<"$out"
echo "  instructions:u -c $PI: counted $sys, sampled $keyed in $samples samples; samples_missed $m, expected $expect ($(pct_off "$keyed" "$sys") % of the count unsampled)"
awk -v m="$m" -v e="$expect" -v n="$(nproc)" 'BEGIN { d = m - e; if (d < 0) d = -d; exit !(d <= 4 * n + 0.02 * e) }' ||
	fail "samples_missed $m is not the $expect overflows the system row counted beyond the samples"
if awk -v e="$expect" -v s="$samples" 'BEGIN { exit !(e > s) }'; then
	grep -q "instructions:u: .* overflows this interval were counted and never sampled" "$TMP/i.log" ||
		fail "most overflows were missed and bpmc did not say so: $(cat "$TMP/i.log")"
fi
pass_or_fail
