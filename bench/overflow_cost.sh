#!/usr/bin/env bash
# Case 1: ns per run of the overflow program, cpu-clock at a 100 us period
# on every CPU with every CPU busy; bpmc against bpftrace, alternated.
# The floor, alternated with them: an empty program on the same overflows
# (bench/overflow_floor), which every handler pays whatever it does (the
# kernel's indirect call into it, its return, the run-time statistics'
# clock reads); and the price of single parts above it, each the empty
# program plus one helper call or one array map value's u64 incremented.
# Each tool's programs are told apart by its PID (pid_progs): another
# bpmc or bpftrace may run beside. Prints "name median_ns" lines and the
# per-pair ratios.
. "$(dirname "$0")/lib.sh"
PAIRS=${PAIRS:-5}
WARM=1.5 SPAN=3

# measure FILTER PID: ns/run over SPAN seconds once the program runs, of
# PID's programs alone (another bpmc or bpftrace may run beside).
measure() {
	local a b mine
	for _ in $(seq 150); do
		mine="$1 && $(pid_progs "$2")"
		[ "$(prog_stats "$mine" | cut -d' ' -f1)" != 0 ] && break
		sleep 0.1
	done
	sleep "$WARM"
	mine="$1 && $(pid_progs "$2")"
	a=$(prog_stats "$mine")
	sleep "$SPAN"
	b=$(prog_stats "$mine")
	echo "$a $b" | awk '$3 > $1 { printf "%.1f\n", ($4 - $2) / ($3 - $1); next } { print "nan" }'
}

run_bpmc() { # ARGS...
	spawn "$BPMC" record -c 100000 -I 1000 -o /dev/null "$@" 2>/dev/null
	local pid=$SPAWNED
	measure '$3 ~ /^on_overflow/' "$pid"
	kill -INT "$pid"; wait "$pid" 2>/dev/null
}

# run_floor VARIANT: bench/overflow_floor's program, ovf_VARIANT.
run_floor() {
	spawn "$ROOT/build/bench/overflow_floor" 100000 "$1" >/dev/null
	local pid=$SPAWNED
	measure "\$3 == \"ovf_$1\"" "$pid"
	kill -INT "$pid"; wait "$pid" 2>/dev/null
}

run_bpftrace() {
	spawn bpftrace -e 'software:cpu-clock:100000 { @[cgroup, pid, comm] = count(); }' >/dev/null 2>&1
	local pid=$SPAWNED
	measure '$2 == 7' "$pid"
	kill -INT "$pid"; wait "$pid" 2>/dev/null
}

# -G: a subtree with no task in it (every burner filtered out), and "/"
# (the filter evaluated, every task kept).
CG2=$(cgroup2_mount)
EMPTY=bpmc-bench-empty-$$
mkdir "$CG2/$EMPTY" || exit 1
trap 'bench_cleanup; rmdir "$CG2/$EMPTY"' EXIT

hold_bpf_stats || exit 1
burn_all_cpus $((PAIRS * 11 * 8 + 30))
: > "$TMP/pairs"
for i in $(seq "$PAIRS"); do
	f=$(run_floor empty)
	p=$(run_bpmc -e cpu-clock --by cgroup,process)
	t=$(run_bpmc -e cpu-clock --by cgroup,process,thread)
	m=$(run_bpmc -e cpu-clock,task-clock,page-faults,context-switches --by cgroup,process)
	b=$(run_bpftrace)
	go=$(run_bpmc -e cpu-clock -G "/$EMPTY")
	gr=$(run_bpmc -e cpu-clock -G /)
	hp=$(run_floor pid_tgid)
	hc=$(run_floor cgroup)
	hk=$(run_floor ktime)
	ha=$(run_floor array)
	echo "$p $t $m $b $go $gr $f $hp $hc $hk $ha" >> "$TMP/pairs"
	echo "  pair $i: empty program $f, bpmc $p, bpmc+thread $t, bpmc 4 events $m, bpftrace $b, -G filtered out $go, -G / $gr, empty + pid_tgid $hp, + cgroup id $hc, + ktime $hk, + an array value's u64 $ha ns/run" >&2
done
for col in 1 2 3 4 5 6 7; do
	cut -d' ' -f$col "$TMP/pairs" | median
done | paste -sd' ' > "$TMP/medians"
read -r p t m b go gr f < "$TMP/medians"
ratios=$(awk '{ printf "%.2f ", $1 / $4 }' "$TMP/pairs")
# Above the floor: each pair's difference from its own empty program.
over() { awk "{ printf \"%.1f\\n\", $1 }" "$TMP/pairs" | median; }
echo "overflow_bpmc_process_ns $p"
echo "overflow_bpmc_thread_ns $t"
echo "overflow_bpmc_4events_ns $m"
echo "overflow_bpftrace_ns $b"
echo "overflow_filtered_out_ns $go"
echo "overflow_filter_kept_ns $gr"
echo "overflow_floor_ns $f"
echo "overflow_bpmc_over_floor_ns $(over '$1 - $7')"
echo "overflow_bpftrace_over_floor_ns $(over '$4 - $7')"
echo "overflow_part_pid_tgid_ns $(over '$8 - $7')"
echo "overflow_part_cgroup_id_ns $(over '$9 - $7')"
echo "overflow_part_ktime_ns $(over '$10 - $7')"
echo "overflow_part_array_value_ns $(over '$11 - $7')"
echo "overflow_ratio_pairs $ratios"
echo "overflow_ratio_median $(awk '{ print $1 / $4 }' "$TMP/pairs" | median)"
echo "overflow_ratio_over_floor_median $(awk '$4 > $7 { print ($1 - $7) / ($4 - $7) }' "$TMP/pairs" | median)"
