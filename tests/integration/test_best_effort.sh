#!/usr/bin/env bash
# --best-effort on a host without a hardware PMU (this VM): cycles is
# left out with one warning saying why, cpu-clock and page-faults are
# counted (cpu-clock against the burner's cpu.stat), and the file says
# which events are live: event_supported self rows every interval, an
# event_unsupported meta row with the reason. Without the option the
# same command is refused as before; with nothing left, refused too.
. "$(dirname "$0")/lib.sh"
need_root
cd "$TMP" || exit 1
EV=cpu-clock,cycles,page-faults

# Strict, as ever: one line naming cycles, exit 2, no file.
"$BPMC" record -e "$EV" -d 1 -o "$TMP/strict.csv" >"$TMP/stdout" 2>"$TMP/strict.err"
rc=$?
[ "$rc" = 0 ] && skip "this host opens cycles: nothing to leave out"
[ "$rc" = 2 ] || fail "without --best-effort: exit $rc, want 2"
[ "$(wc -l <"$TMP/strict.err")" = 1 ] && grep -q "'cycles'.*no hardware PMU" "$TMP/strict.err" ||
	fail "without --best-effort: want one line naming cycles: $(cat "$TMP/strict.err")"
[ -e "$TMP/strict.csv" ] && fail "a refused run left a file"
echo "  strict: $(cat "$TMP/strict.err")"

mk_cgroup CG "bpmc-test-$$/burn" || exit 1
used=$(usage_usec "$CG")
lost_mark
mkdir "$TMP/prom"
start_record "$TMP/log" --best-effort -e "$EV" -I 500 -d 5 --textfile "$TMP/prom" -o "$TMP/out.csv" || exit 1
spawn_in "$CG" "$HELPERS/burner" 50 3
burner=$SPAWNED
spawn_in "$CG" "$HELPERS/pagetouch" 20000
wait "$burner" "$SPAWNED" || fail "the workload failed"
used=$((($(usage_usec "$CG") - used) * 1000))
cp "$TMP/prom/bpmc.prom" "$TMP/prom.copy" 2>/dev/null
wait "$RECORD_PID" || fail "record --best-effort exited $?: $(cat "$TMP/log")"

warn=$(grep -c "warning: event 'cycles'" "$TMP/log")
[ "$warn" = 1 ] || fail "$warn warnings about cycles, want 1: $(cat "$TMP/log")"
grep "warning: event 'cycles'" "$TMP/log" | grep -q "no hardware PMU" ||
	fail "the warning does not say why: $(cat "$TMP/log")"
grep -q "recording 2 event(s)" "$TMP/log" || fail "not recording 2 events: $(cat "$TMP/log")"
echo "  $(grep "warning: event 'cycles'" "$TMP/log")"

check_usage "$TMP/out.csv" "$CG" "$used" 5
faults=$(csv_awk '$col("scope") == "system" && $col("event") == "page-faults" { s += $col("count") }
	END { printf "%.0f", s }' "$TMP/out.csv")
echo "  system page-faults $faults for 20000 pages touched"
[ "$faults" -ge 20000 ] || fail "system page-faults $faults, want >= 20000"
cg_faults=$(csv_sum "$TMP/out.csv" cgroup page-faults cgroup_id "$(cgroup_id "$CG")")
[ "$cg_faults" -gt 0 ] || fail "no page-faults rows for the workload's cgroup"
n=$(csv_awk '$col("event") == "cycles" && $col("scope") != "encoding" { n++ } END { print n + 0 }' "$TMP/out.csv")
[ "$n" = 0 ] || fail "$n rows count cycles"

# Which events are live: every interval, one gauge per event asked for.
intervals=$(csv_awk '$col("event") == "intervals_lost" { n++ } END { print n }' "$TMP/out.csv")
for e in cpu-clock:1 cycles:0 page-faults:1; do
	got=$(csv_awk -v e="event_supported:${e%:*}" -v v="${e#*:}" '$col("scope") == "self" && $col("event") == e {
		n++; if ($col("value") != v || $col("count") != "") bad++ } END { print n + 0, bad + 0 }' "$TMP/out.csv")
	[ "$got" = "$intervals 0" ] ||
		fail "event_supported:${e%:*}: (rows, wrong) = ($got), want $intervals rows of ${e#*:}"
done
reason=$(csv_awk '$col("scope") == "meta" && $col("event") == "event_unsupported:cycles" { print $col("value") }' "$TMP/out.csv")
echo "  meta event_unsupported:cycles = $reason; $intervals intervals"
[[ $reason == *"no hardware PMU"* ]] || fail "no event_unsupported:cycles meta row with the reason"
csv_awk '$col("scope") == "meta" && $col("event") ~ /^event_unsupported:(cpu-clock|page-faults)$/ { exit 1 }' "$TMP/out.csv" ||
	fail "a counted event is said to be unsupported"
python3 "$HELPERS_PY/check_exports.py" "$TMP/out.csv" >/dev/null || fail "check_exports refuses the file"

# A group whose leader is left out: its member leads, and counts.
"$BPMC" record --best-effort -e '{cycles,cpu-clock},page-faults' -I 300 -d 1 -o "$TMP/group.csv" 2>"$TMP/group.err" ||
	fail "a group led by cycles: $(cat "$TMP/group.err")"
csv_awk '$col("scope") == "encoding" && $col("event") == "cpu-clock" && $col("value") ~ /leader=cpu-clock / { f = 1 }
	$col("scope") == "system" && $col("event") == "cpu-clock" && $col("count") > 0 { c = 1 }
	END { exit !(f && c) }' "$TMP/group.csv" || fail "cpu-clock did not take over its group"

# Nothing left: refused in one line, no file.
"$BPMC" record --best-effort -e cycles,instructions -d 1 -o "$TMP/none.csv" >"$TMP/stdout" 2>"$TMP/none.err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$TMP/none.err")" = 1 ] && grep -q "none of the events.*'cycles'.*'instructions'" "$TMP/none.err" ||
	fail "nothing countable: exit $rc, want 2 and one line: $(cat "$TMP/none.err")"
[ -e "$TMP/none.csv" ] && fail "a refused run left a file"
[ -s "$TMP/stdout" ] && fail "a refused run wrote to stdout"
echo "  none: $(cat "$TMP/none.err")"
# And as the bpmc_event_supported gauge (read while bpmc ran).
grep -q '^bpmc_event_supported{event="cycles"} 0$' "$TMP/prom.copy" &&
	grep -q '^bpmc_event_supported{event="cpu-clock"} 1$' "$TMP/prom.copy" ||
	fail "bpmc_event_supported: $(grep supported "$TMP/prom.copy")"
pass_or_fail
