#!/usr/bin/env bash
# Multiplexing on a real PMU: more hardware events than counters must come
# back with running_pct below 100 and counts scaled up to match the
# system row. Without a hardware PMU this is a SKIP, with the reason.
. "$(dirname "$0")/lib.sh"
need_root

"$BPMC" encode --count cycles 2>/dev/null | grep -q "no hardware PMU" &&
	skip "multiplexing needs a hardware PMU; this host has none (cycles cannot be opened)"
EV=cycles,instructions,branches,branch-misses,cache-references,cache-misses,L1-dcache-loads,L1-dcache-load-misses
"$BPMC" record --mode exact --check -e "$EV" -I 500 -d 3 -o "$TMP/out.csv" 2>"$TMP/log" ||
	fail "record failed: $(cat "$TMP/log")"
csv_awk '$col("scope") == "system" && $col("running_pct") < 100 { m = 1 } END { exit !m }' "$TMP/out.csv" ||
	fail "8 hardware events and none multiplexed (running_pct always 100)"
pass_or_fail
