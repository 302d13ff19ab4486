#!/usr/bin/env bash
# Two bpmc record runs on one output template and directory, or on one
# --textfile DIR, are refused (issue 26: each one's --keep deleted the
# other's files, and the first to stop removed the bpmc.prom both wrote):
# the second says which run holds it, exits 2 and writes nothing; a run
# whose names cannot collide starts, and once the first stops, the same
# outputs are free again.
. "$(dirname "$0")/lib.sh"
need_root

mkdir -p "$TMP/d" "$TMP/tf"
tmpl="$TMP/d/%h-%Y%m%dT%H%M%SZ.csv"
start_record "$TMP/log1" -e cpu-clock -I 200 --rotate 1s --keep 2 \
	-o "$tmpl" --textfile "$TMP/tf" || exit 1

try() { # try LOG ARGS...: a short second run; its exit status
	local log=$1
	shift
	"$BPMC" record -e cpu-clock -I 200 -d 1 "$@" >"$log" 2>&1
}

try "$TMP/log2" --keep 1 -o "$tmpl"
rc=$?
echo "  same template: exit $rc: $(grep -v warning "$TMP/log2" | head -1)"
[ "$rc" = 2 ] && grep -q "another bpmc record (pid $RECORD_PID" "$TMP/log2" ||
	fail "a second run on the same template was not refused"

try "$TMP/log3" -o "$TMP/other.csv" --textfile "$TMP/tf"
rc=$?
echo "  same --textfile: exit $rc: $(grep -v warning "$TMP/log3" | head -1)"
[ "$rc" = 2 ] && grep -q "another bpmc record (pid $RECORD_PID)" "$TMP/log3" ||
	fail "a second run on the same --textfile was not refused"
[ -e "$TMP/other.csv" ] && fail "the refused run wrote $TMP/other.csv"

try "$TMP/log4" --keep 1 -o "$TMP/d/other-%Y%m%dT%H%M%SZ.csv" ||
	fail "a template that cannot collide was refused: $(cat "$TMP/log4")"
ls "$TMP/d" | grep -q '^other-' || fail "the other template wrote nothing"

kill -TERM "$RECORD_PID" && wait "$RECORD_PID" ||
	fail "the first run: $(cat "$TMP/log1")"
[ -e "$TMP/tf/bpmc.prom" ] && fail "bpmc.prom left after the run"
try "$TMP/log5" --keep 1 -o "$tmpl" --textfile "$TMP/tf" ||
	fail "after the first run, the same outputs were refused: $(cat "$TMP/log5")"
n=$(ls -A "$TMP/d" | grep -c '^\.bpmc-lock\.')
[ "$n" = 0 ] || fail "$n lock files left in the output directory"
pass_or_fail
