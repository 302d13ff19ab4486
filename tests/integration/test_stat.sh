#!/usr/bin/env bash
# bpmc stat against perf stat on the same commands, run in turns:
# task-clock within 1 %, page-faults of 100,000 touched pages within
# 0.5 %, the user/kernel split as perf's EVENT:u,EVENT:k; a command's
# descendants; its exit status as bpmc's; -o written whole or not at all.
. "$(dirname "$0")/lib.sh"
need_root
command -v perf > /dev/null || skip "perf is not installed"
EVENTS=task-clock,page-faults
PERF_EVENTS=task-clock:u,task-clock:k,page-faults:u,page-faults:k

# field FILE EVENT COLUMN: bpmc -x, rows are event,user,kernel,total,unit,pct
bpmc_field() { awk -F, -v e="$2" -v c="$3" '$1 == e { print $c }' "$1"; }
# perf -x, rows: value,unit,event,...; task-clock in msec: to ns.
perf_field() {
	awk -F, -v e="$2" '$3 == e { v = $1; if ($2 == "msec") v = int(v * 1e6 + 0.5); print v }' "$1"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# run3 PREFIX CMD...: three turns each of bpmc stat and perf stat.
run3() {
	local pre=$1
	shift
	for i in 1 2 3; do
		"$BPMC" stat -x, -e "$EVENTS" -o "$TMP/$pre.b$i" -- "$@" > /dev/null || fail "bpmc stat failed"
		perf stat -x, -e "$PERF_EVENTS" -o "$TMP/$pre.p$i" -- "$@" > /dev/null || fail "perf stat failed"
	done
}
bmed() { for i in 1 2 3; do bpmc_field "$TMP/$1.b$i" "$2" "$3"; done | median; }
pmed() { for i in 1 2 3; do perf_field "$TMP/$1.p$i" "$2"; done | median; }

# task-clock of CPU-bound work, whose CPU time varies least between runs.
compare_clock() {
	local label=$1 b p u k
	shift
	run3 clock "$@"
	b=$(bmed clock task-clock 4)
	p=$(pmed clock task-clock:u)
	echo "  $label: task-clock bpmc $b ns, perf $p ns ($(awk -v a="$b" -v b="$p" 'BEGIN { printf "%+.3f", 100 * (a - b) / b }') %)"
	within "$b" "$p" 1 || fail "$label: task-clock $b vs perf's $p (over 1 %)"
	# The kernel counts a clock whole in either mode, as perf shows:
	# two counters, started microseconds apart.
	u=$(bpmc_field "$TMP/clock.b1" task-clock 2)
	k=$(bpmc_field "$TMP/clock.b1" task-clock 3)
	within "$u" "$k" 0.1 || fail "$label: task-clock user $u vs kernel $k (perf's :u and :k are equal)"
}

# page-faults of fault-bound work, split into user and kernel.
compare_faults() {
	local label=$1 b p bu bk pu pk
	shift
	run3 faults "$@"
	b=$(bmed faults page-faults 4)
	bu=$(bmed faults page-faults 2)
	bk=$(bmed faults page-faults 3)
	pu=$(pmed faults page-faults:u)
	pk=$(pmed faults page-faults:k)
	p=$((pu + pk))
	echo "  $label: page-faults bpmc $b (user $bu kernel $bk), perf $p (user $pu kernel $pk)"
	within "$b" "$p" 0.5 || fail "$label: page-faults $b vs perf's $p (over 0.5 %)"
	within "$bu" "$pu" 0.5 || fail "$label: user page-faults $bu vs perf's $pu (over 0.5 %)"
	[ $((bk > pk ? bk - pk : pk - bk)) -le $((pk / 10 + 3)) ] ||
		fail "$label: kernel page-faults $bk vs perf's $pk"
}

compare_clock "spin" "$HELPERS/spin" 100000000
compare_faults "pagetouch 100000" "$HELPERS/pagetouch" 100000
# Descendants: a shell that runs two children, one after the other.
compare_clock "sh with two children" sh -c "'$HELPERS/spin' 50000000 > /dev/null; '$HELPERS/spin' 50000000"
compare_faults "sh with two children" sh -c "'$HELPERS/pagetouch' 50000; '$HELPERS/pagetouch' 50000"

# The human form: pmc(1)'s "event: user N kernel M", the time elapsed.
"$BPMC" stat -e page-faults -- "$HELPERS/pagetouch" 1000 2> "$TMP/human"
grep -Eq '^  page-faults: user [0-9]+ kernel [0-9]+$' "$TMP/human" || fail "no 'page-faults: user N kernel M' line: $(cat "$TMP/human")"
grep -Eq 'seconds time elapsed' "$TMP/human" || fail "no elapsed time: $(cat "$TMP/human")"

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
