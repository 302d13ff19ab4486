#!/usr/bin/env bash
# Case 3: a CPU-bound loop, bare and under `bpmc record` on its defaults,
# alternated PAIRS times. Prints the median slowdown.
. "$(dirname "$0")/lib.sh"
PAIRS=${PAIRS:-5}
N=${SPIN:-300000000}

"$HELPERS/spin" "$N" > /dev/null # warm up
: > "$TMP/pairs"
for i in $(seq "$PAIRS"); do
	bare=$("$HELPERS/spin" "$N")
	spawn "$BPMC" record -o /dev/null 2>"$TMP/log"
	pid=$SPAWNED
	for _ in $(seq 100); do grep -q recording "$TMP/log" && break; sleep 0.1; done
	under=$("$HELPERS/spin" "$N")
	kill -INT "$pid"
	wait "$pid" 2>/dev/null
	echo "$bare $under" >> "$TMP/pairs"
	echo "  pair $i: bare $bare ns, under bpmc $under ns" >&2
done
awk '{ print 100 * ($2 - $1) / $1 }' "$TMP/pairs" | median | sed 's/^/sampling_slowdown_pct /'
echo "sampling_slowdown_pairs $(awk '{ printf "%.2f ", 100 * ($2 - $1) / $1 }' "$TMP/pairs")"
