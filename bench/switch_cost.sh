#!/usr/bin/env bash
# Case 2: what exact mode adds to context switches. A two-process pipe
# ping-pong, the processes in two cgroups, run bare and under
# `bpmc record --mode exact` (1 event, then 4), alternated, PAIRS times,
# with BPF run-time statistics off (they cost two clock reads a run).
# Then, statistics on, the context-switch program's ns/run.
# With PERF=1, a third arm: perf stat -a --for-each-cgroup over 100
# cgroups with the same event.
. "$(dirname "$0")/lib.sh"
PAIRS=${PAIRS:-5}
ROUNDS=${ROUNDS:-100000}
CG2=$(cgroup2_mount)
BASE=$CG2/bpmc-bench-$$
mkdir -p "$BASE/a" "$BASE/b"
trap 'bench_cleanup; for d in "$BASE"/*/ "$BASE"; do rmdir "$d" 2>/dev/null; done' EXIT

# Both processes on one CPU: every round trip is two switches there, each
# changing cgroup, the hook's worst case. Unpinned, the VM's scheduler put
# them on one CPU or two by chance, and a run took 0.6 or 14 s (an idle
# vCPU's wake-up is a hypervisor exit), so no pair could be compared.
PP_CPU=${PP_CPU:-$(($(nproc) - 1))}
pingpong() {
	taskset -c "$PP_CPU" "$HELPERS/pingpong" "$ROUNDS" "$BASE/a" "$BASE/b"
}

# under_bpmc EVENTS: pingpong's ns, and the switch program's ns/run.
under_bpmc() {
	local log=$TMP/bpmc.log t a b
	spawn "$BPMC" record --mode exact -e "$1" -I 1000 -o /dev/null 2>"$log"
	local pid=$SPAWNED
	for _ in $(seq 100); do grep -q recording "$log" && break; sleep 0.1; done
	local mine
	mine="\$3 ~ /^on_switch/ && $(pid_progs "$pid")"
	a=$(prog_stats "$mine")
	t=$(pingpong)
	b=$(prog_stats "$mine")
	kill -INT "$pid"
	wait "$pid" 2>/dev/null
	echo "$t $(echo "$a $b" | awk '{ printf "%.1f", ($3 - $1) ? ($4 - $2) / ($3 - $1) : 0 }')"
}

under_perf() {
	local cgs="" t
	for i in $(seq 100); do
		mkdir -p "$BASE/p$i"
		cgs="$cgs${cgs:+,}bpmc-bench-$$/p$i"
	done
	cgs="$cgs,bpmc-bench-$$/a,bpmc-bench-$$/b"
	spawn perf stat -a -e cpu-clock --for-each-cgroup "$cgs" -o "$TMP/perf.out"
	local pid=$SPAWNED
	sleep 1
	t=$(pingpong)
	kill -INT "$pid"
	wait "$pid" 2>/dev/null
	echo "$t"
}

pingpong > /dev/null # warm up
: > "$TMP/pairs"
for i in $(seq "$PAIRS"); do
	bare=$(pingpong)
	read -r one ns1 < <(under_bpmc cpu-clock)
	read -r four ns4 < <(under_bpmc cpu-clock,task-clock,page-faults,context-switches)
	perf=0
	[ "${PERF:-0}" = 1 ] && perf=$(under_perf)
	echo "$bare $one $four $perf" >> "$TMP/pairs"
	echo "  pair $i: bare $bare ns, exact 1 event $one ns, 4 events $four ns${PERF:+, perf $perf ns}" >&2
done
awk '{ print 100 * ($2 - $1) / $1 }' "$TMP/pairs" | median | sed 's/^/switch_slowdown_1event_pct /'
awk '{ print 100 * ($3 - $1) / $1 }' "$TMP/pairs" | median | sed 's/^/switch_slowdown_4events_pct /'
echo "switch_slowdown_1event_pairs $(awk '{ printf "%.1f ", 100 * ($2 - $1) / $1 }' "$TMP/pairs")"
hold_bpf_stats || exit 1
: > "$TMP/ns"
for i in 1 2 3; do
	read -r _ ns1 < <(under_bpmc cpu-clock)
	read -r _ ns4 < <(under_bpmc cpu-clock,task-clock,page-faults,context-switches)
	echo "$ns1 $ns4" >> "$TMP/ns"
done
cut -d' ' -f1 "$TMP/ns" | median | sed 's/^/switch_prog_1event_ns /'
cut -d' ' -f2 "$TMP/ns" | median | sed 's/^/switch_prog_4events_ns /'
if [ "${PERF:-0}" = 1 ]; then
	awk '{ print 100 * ($4 - $1) / $1 }' "$TMP/pairs" | median | sed 's/^/switch_slowdown_perf_pct /'
fi
