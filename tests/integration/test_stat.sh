#!/usr/bin/env bash
# bpmc stat against perf stat counting the same run: task-clock within
# 1 %, page-faults of 100,000 touched pages within 0.5 %, the user/kernel
# split as perf's EVENT:u,EVENT:k; a command's descendants; its exit
# status as bpmc's; -o written whole or not at all.
. "$(dirname "$0")/lib.sh"
need_root
command -v perf > /dev/null || skip "perf is not installed"
EVENTS=task-clock,page-faults
PERF_EVENTS=task-clock:u,task-clock:k,page-faults:u,page-faults:k

# bpmc_field FILE EVENT COLUMN: -x, rows are event,user,kernel,total,unit,pct
bpmc_field() { awk -F, -v e="$2" -v c="$3" '$1 == e { print $c }' "$1"; }
# perf -x, rows: value,unit,event,...; task-clock in msec: to ns.
perf_field() {
	awk -F, -v e="$2" '$3 == e { v = $1; if ($2 == "msec") v = int(v * 1e6 + 0.5); print v }' "$1"
}

# Both tools count one run at once, so that no run-to-run noise enters
# (fixed work took 165.8 to 172.6 ms over 8 runs here: steal, a
# neighbour's cache): perf stat runs bpmc stat, which runs CMD. perf
# counts bpmc too: what bpmc costs itself is measured the same way with
# CMD `true`, and taken off. (perf stat -p attached to CMD instead adds
# counters to a task whose children the kernel then pairs wrongly with
# theirs for inherit_stat: pmc_control(3), CAVEATS.)
# LeakSanitizer's scan at bpmc's exit is left out of the nested runs:
# its time grows with the heap, so it moved bpmc's own cost by more than
# its spread (6.3 ms over 1 % in one CI run); the runs alone keep it.
nested() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" perf stat -x, -e "$PERF_EVENTS" -o "$TMP/p" -- \
		"$BPMC" stat -x, -e "$EVENTS" -o "$TMP/b" -- sh -c "$1" > /dev/null ||
		fail "perf stat -- bpmc stat -- $1 failed"
}
# The median of 5, and the spread of its clock (wider with sanitizers,
# whose bpmc varies by milliseconds), which the clock's bound allows.
self_cost() {
	local i c f
	for i in 1 2 3 4 5; do
		nested true
		c=$(($(perf_field "$TMP/p" task-clock:u) - $(bpmc_field "$TMP/b" task-clock 4)))
		f=$(($(perf_field "$TMP/p" page-faults:u) + $(perf_field "$TMP/p" page-faults:k) - $(bpmc_field "$TMP/b" page-faults 4)))
		echo "$c $f"
	done | sort -n | awk '{ c[NR] = $1; f[NR] = $2 } END { print c[3], f[3], c[4] - c[2] }'
}
read -r SELF_CLOCK SELF_FAULTS SELF_SPREAD <<< "$(self_cost)"
# With sanitizers bpmc's own cost moves between runs by more than its
# spread over five (LeakSanitizer's scan at exit: 23 ms measured with
# `true`, 6.5 ms less beside a real command, in a full sanitized run).
# Its run beside CMD also costs more than beside `true` (the rings'
# records of CMD's tasks, drained by instrumented code): -10 to +6 ms
# measured in sanitized runs. The plain suite holds the 1 %; here the
# bound is 5 %: the sanitized run is for what the sanitizers find.
CLOCK_PCT=1
[ "${SANITIZE:-}" = 1 ] && SELF_SPREAD=$((4 * SELF_SPREAD)) CLOCK_PCT=5
echo "  bpmc stat's own cost, perf stat -- bpmc stat -- true: $SELF_CLOCK ns (interquartile spread $SELF_SPREAD ns), $SELF_FAULTS page-faults"

compare() {
	local label=$1 b p u k bu bk pu pk
	nested "$2"
	b=$(bpmc_field "$TMP/b" task-clock 4)
	p=$(($(perf_field "$TMP/p" task-clock:u) - SELF_CLOCK))
	bu=$(bpmc_field "$TMP/b" page-faults 2)
	bk=$(bpmc_field "$TMP/b" page-faults 3)
	pu=$(($(perf_field "$TMP/p" page-faults:u) + $(perf_field "$TMP/p" page-faults:k) - SELF_FAULTS))
	echo "  $label: task-clock bpmc $b ns, perf $p ns (less bpmc's own); page-faults bpmc $((bu + bk)), perf $pu (less bpmc's own)"
	# 1 %, plus what bpmc's own cost varies by.
	awk -v a="$b" -v b="$p" -v s="$SELF_SPREAD" -v pct="$CLOCK_PCT" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * pct / 100 + s) }' ||
		fail "$label: task-clock $b vs perf's $p (over $CLOCK_PCT % + $SELF_SPREAD ns)"
	if [ "${3:-}" = faults ]; then
		within "$((bu + bk))" "$pu" 0.5 || fail "$label: page-faults $((bu + bk)) vs perf's $pu (over 0.5 %)"
	fi
	# The split, each tool alone (perf's :u,:k against ours).
	"$BPMC" stat -x, -e "$EVENTS" -o "$TMP/b1" -- sh -c "$2" > /dev/null
	perf stat -x, -e "$PERF_EVENTS" -o "$TMP/p1" -- sh -c "$2" > /dev/null
	bu=$(bpmc_field "$TMP/b1" page-faults 2)
	bk=$(bpmc_field "$TMP/b1" page-faults 3)
	pu=$(perf_field "$TMP/p1" page-faults:u)
	pk=$(perf_field "$TMP/p1" page-faults:k)
	echo "    alone: page-faults bpmc user $bu kernel $bk, perf user $pu kernel $pk"
	if [ "${3:-}" = faults ]; then
		within "$bu" "$pu" 0.5 || fail "$label: user page-faults $bu vs perf's $pu (over 0.5 %)"
	fi
	# A handful, more with sanitizers: 10 apart, or a third.
	[ $((bk > pk ? bk - pk : pk - bk)) -le $((10 + pk / 3)) ] ||
		fail "$label: kernel page-faults $bk vs perf's $pk"
	# The kernel counts a clock whole in either mode, as perf shows:
	# two counters, started microseconds apart.
	u=$(bpmc_field "$TMP/b1" task-clock 2)
	k=$(bpmc_field "$TMP/b1" task-clock 3)
	within "$u" "$k" 0.1 || fail "$label: task-clock user $u vs kernel $k (perf's :u and :k are equal)"
}

compare "spin" "exec '$HELPERS/spin' 150000000 > /dev/null"
compare "pagetouch 100000" "exec '$HELPERS/pagetouch' 100000" faults
# Descendants: the shell's two children, one after the other.
compare "sh with two children" "'$HELPERS/spin' 80000000 > /dev/null; '$HELPERS/pagetouch' 50000; '$HELPERS/pagetouch' 50000" faults

# The human form: pmc(1)'s "event: user N kernel M", the time elapsed.
"$BPMC" stat -e page-faults -- "$HELPERS/pagetouch" 1000 2> "$TMP/human" ||
	fail "bpmc stat exited $?: $(cat "$TMP/human")"
grep -Eq '^  page-faults: user [0-9]+ kernel [0-9]+$' "$TMP/human" || fail "no 'page-faults: user N kernel M' line: $(cat "$TMP/human")"
grep -Eq 'seconds time elapsed' "$TMP/human" || fail "no elapsed time: $(cat "$TMP/human")"

# A name that says its mode is counted whole, on one counter.
"$BPMC" stat -x, -e page-faults:u -- "$HELPERS/pagetouch" 1000 2> "$TMP/whole"
grep -Eq '^page-faults:u,,,[0-9]+,' "$TMP/whole" || fail "page-faults:u is not counted whole: $(cat "$TMP/whole")"

# Its exit status is the command's.
"$BPMC" stat -e page-faults -- sh -c 'exit 7' 2> /dev/null
[ $? = 7 ] || fail "exit 7 came back as $?"
"$BPMC" stat -e page-faults -- sh -c 'kill -TERM $$' 2> /dev/null
[ $? = 143 ] || fail "a command killed by SIGTERM came back as $?, want 143"
"$BPMC" stat -- /nonexistent/cmd 2> "$TMP/err"
rc=$?
[ "$rc" = 127 ] || fail "a missing command came back as $rc, want 127"
grep -q "cannot run '/nonexistent/cmd'" "$TMP/err" || fail "no message naming the command: $(cat "$TMP/err")"

# Bad input: one line naming the culprit, nothing run, no file left.
"$BPMC" stat -e no-such-event -o "$TMP/x.csv" -- true 2> "$TMP/err"
[ $? = 2 ] || fail "an unknown event is not a usage error"
grep -q "no-such-event" "$TMP/err" || fail "the refusal does not name the event: $(cat "$TMP/err")"
[ "$(wc -l < "$TMP/err")" = 1 ] || fail "more than one line: $(cat "$TMP/err")"
ls -A "$TMP" | grep -q '^\.x\.csv\|^x\.csv$' && fail "a refused run left a file"
"$BPMC" stat -o /nonexistent/dir/x.csv -- true 2> "$TMP/err"
[ $? = 2 ] || fail "an unwritable -o is not a usage error"
"$BPMC" stat -e "$(printf 'page-faults,%.0s' $(seq 17))" -- true 2> "$TMP/err"
[ $? = 2 ] && grep -q "too many events" "$TMP/err" || fail "17 events: $(cat "$TMP/err")"
"$BPMC" stat 2> "$TMP/err"
[ $? = 2 ] || fail "no command is not a usage error"
pass_or_fail
