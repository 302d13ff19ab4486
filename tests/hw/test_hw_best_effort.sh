#!/usr/bin/env bash
# --best-effort on a hardware PMU that lacks events (QEMU's implements
# few: perf says which, "<not supported>"): each lacking event is left out
# with one warning naming it and the reason (this PMU does not implement
# it, not "no hardware PMU"), cycles and instructions are counted in a
# busy cgroup, and the file says which events are live. Without the
# option the same command is refused in one line naming the first lacking
# event, exit 2, no file.
. "$(dirname "$0")/lib.sh"
need_hw_pmu

# perf is the judge of what this PMU lacks; bpmc encode --count without it.
# Three at most: with cycles and instructions, within record's 8 events.
lacking=()
for ev in branches branch-misses cache-references cache-misses bus-cycles ref-cycles L1-dcache-load-misses; do
	[ "${#lacking[@]}" -lt 3 ] || break
	if command -v perf >/dev/null; then
		perf stat -x, -e "$ev" -- true 2>&1 >/dev/null | grep -q "^<not supported>,[^,]*,$ev" && lacking+=("$ev")
	else
		"$BPMC" encode --count "$ev" 2>&1 | grep -q "not counted" && lacking+=("$ev")
	fi
done
[ "${#lacking[@]}" -gt 0 ] || skip "this PMU counts every generic event tried: nothing to leave out"
echo "  this PMU lacks (perf: <not supported>): ${lacking[*]}"
lack=$(IFS=,; echo "${lacking[*]}")
EV=cycles,$lack,instructions

# Strict: one line naming the first lacking event, exit 2, no file.
"$BPMC" record -e "$EV" -d 1 -o "$TMP/strict.csv" >"$TMP/stdout" 2>"$TMP/strict.err"
rc=$?
echo "  strict: exit $rc: $(cat "$TMP/strict.err")"
[ "$rc" = 2 ] || fail "without --best-effort: exit $rc, want 2"
[ "$(wc -l <"$TMP/strict.err")" = 1 ] && grep -q "'${lacking[0]}'" "$TMP/strict.err" ||
	fail "without --best-effort: want one line naming '${lacking[0]}'"
[ -e "$TMP/strict.csv" ] && fail "a refused run left a file"

mk_cgroup CG "bpmc-test-$$/burn" || exit 1
start_record "$TMP/log" --best-effort -e "$EV" -I 500 -d 3 -o "$TMP/out.csv" || exit 1
spawn_in "$CG" "$HELPERS/spin" 3000000 >/dev/null
wait "$SPAWNED" || fail "spin failed"
wait "$RECORD_PID" || fail "record --best-effort exited $?: $(cat "$TMP/log")"
sed 's/^/  log: /' "$TMP/log"
for ev in "${lacking[@]}"; do
	w=$(grep "warning: event '$ev'" "$TMP/log")
	[ "$(grep -c "warning: event '$ev'" "$TMP/log")" = 1 ] || fail "not one warning about $ev"
	[[ $w == *"does not implement"* ]] || fail "the warning about $ev does not say this PMU lacks it: $w"
	reason=$(csv_awk -v e="event_unsupported:$ev" '$col("scope") == "meta" && $col("event") == e { print $col("value") }' "$TMP/out.csv")
	[ -n "$reason" ] || fail "no event_unsupported:$ev meta row"
done
grep -q "recording 2 event(s)" "$TMP/log" || fail "not recording 2 events"
id=$(cgroup_id "$CG")
for ev in cycles instructions; do
	n=$(csv_sum "$TMP/out.csv" cgroup "$ev" cgroup_id "$id")
	echo "  $ev of the spinning cgroup: $n"
	[ "$n" -gt 0 ] || fail "no $ev counted in the spinning cgroup"
	v=$(csv_awk -v e="event_supported:$ev" '$col("scope") == "self" && $col("event") == e { v = $col("value") } END { print v }' "$TMP/out.csv")
	[ "$v" = 1 ] || fail "event_supported:$ev is '$v', want 1"
done
v=$(csv_awk -v e="event_supported:${lacking[0]}" '$col("scope") == "self" && $col("event") == e { v = $col("value") } END { print v }' "$TMP/out.csv")
[ "$v" = 0 ] || fail "event_supported:${lacking[0]} is '$v', want 0"
n=$(csv_awk '$col("scope") == "system" && $col("event") != "cycles" && $col("event") != "instructions" { n++ } END { print n + 0 }' "$TMP/out.csv")
[ "$n" = 0 ] || fail "$n system rows count a left-out event"
pass_or_fail
