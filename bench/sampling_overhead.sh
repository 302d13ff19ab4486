#!/usr/bin/env bash
# Case 3: a CPU-bound loop, bare, under `bpmc record` on its defaults
# (cpu-clock at 997 Hz), and under `perf record -a` sampling cpu-clock at
# the same rate (the peer: the same timer interrupts, no BPF), alternated
# PAIRS times. Prints the median slowdowns.
. "$(dirname "$0")/lib.sh"
PAIRS=${PAIRS:-5}
N=${SPIN:-300000000}

# under CMD...: the loop's time while CMD runs.
under() {
	spawn "$@" 2>"$TMP/log"
	local pid=$SPAWNED t
	sleep 1.5
	t=$("$HELPERS/spin" "$N")
	kill -INT "$pid"
	wait "$pid" 2>/dev/null
	echo "$t"
}

"$HELPERS/spin" "$N" > /dev/null # warm up
: > "$TMP/pairs"
for i in $(seq "$PAIRS"); do
	bare=$("$HELPERS/spin" "$N")
	bpmc=$(under "$BPMC" record -o /dev/null)
	perf=$(under perf record -q -e cpu-clock -F 997 -a -o "$TMP/perf.data")
	echo "$bare $bpmc $perf" >> "$TMP/pairs"
	echo "  pair $i: bare $bare ns, bpmc $bpmc ns, perf record $perf ns" >&2
done
awk '{ print 100 * ($2 - $1) / $1 }' "$TMP/pairs" | median | sed 's/^/sampling_slowdown_pct /'
awk '{ print 100 * ($3 - $1) / $1 }' "$TMP/pairs" | median | sed 's/^/sampling_slowdown_perf_record_pct /'
echo "sampling_slowdown_pairs $(awk '{ printf "%.2f ", 100 * ($2 - $1) / $1 }' "$TMP/pairs")"
