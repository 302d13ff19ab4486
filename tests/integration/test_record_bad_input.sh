#!/usr/bin/env bash
# Every refusal: one line on stderr quoting the culprit, exit status 2,
# no output file, and nothing on stdout.
. "$(dirname "$0")/lib.sh"
need_root
cd "$TMP" || exit 1

# expect_refusal QUOTED-CULPRIT ARGS...
expect_refusal() {
	local culprit=$1 out=$TMP/refused.csv rc lines
	shift
	rm -f "$out"
	"$BPMC" record "$@" >"$TMP/stdout" 2>"$TMP/stderr"
	rc=$?
	lines=$(wc -l < "$TMP/stderr")
	if [ "$rc" -ne 2 ]; then
		fail "record $*: exit $rc, want 2"
	elif [ "$lines" -ne 1 ]; then
		fail "record $*: $lines lines on stderr, want 1: $(cat "$TMP/stderr")"
	elif ! grep -qF -- "$culprit" "$TMP/stderr"; then
		fail "record $*: stderr does not name '$culprit': $(cat "$TMP/stderr")"
	elif [ -s "$TMP/stdout" ]; then
		fail "record $*: wrote to stdout"
	elif [ -e "$out" ] || ls bpmc-*.csv >/dev/null 2>&1; then
		fail "record $*: left an output file"
	else
		echo "  ok: $(cat "$TMP/stderr")"
	fi
}

O=(-o "$TMP/refused.csv")
expect_refusal "'nosuchevent'" -e nosuchevent "${O[@]}"
expect_refusal "'cpu-clock,'" -e cpu-clock, "${O[@]}"
expect_refusal "-I 0" -I 0 "${O[@]}"
expect_refusal "-I -5" -I -5 "${O[@]}"
expect_refusal "-d abc" -d abc "${O[@]}"
expect_refusal "-d -3" -d -3 "${O[@]}"
expect_refusal "-c 0" -c 0 "${O[@]}"
expect_refusal "-F x" -F x "${O[@]}"
expect_refusal "'--bogus'" --bogus "${O[@]}"
expect_refusal "'-d'" "${O[@]}" -d
expect_refusal "'pod'" --by cgroup,pod "${O[@]}"
expect_refusal "'stray'" "${O[@]}" stray
expect_refusal "'--mode bogus'" --mode bogus "${O[@]}"
expect_refusal "'-c'" --mode exact -c 1000 "${O[@]}"
expect_refusal "'-F'" --mode exact -F 99 "${O[@]}"
expect_refusal "'cpu-clock:period=1000'" --mode exact -e cpu-clock:period=1000 "${O[@]}"
expect_refusal "'--check=abc'" --check=abc "${O[@]}"
expect_refusal "'{cpu-clock,task-clock'" -e '{cpu-clock,task-clock' "${O[@]}"
expect_refusal "'--cgroup-v1 bogus'" --cgroup-v1 bogus "${O[@]}"
expect_refusal "'-G'" -G /x --cgroup-v1 memory "${O[@]}"
expect_refusal "'--rollup=abc'" --rollup=abc "${O[@]}"
expect_refusal "'containers'" --by containers "${O[@]}"
expect_refusal "/proc/bpmc-nonexistent" -o /proc/bpmc-nonexistent/x.csv
expect_refusal "'$TMP'" -o "$TMP"
# Rates the kernel or the host cannot take, named for what they are.
expect_refusal "period 1000 of 'cpu-clock'" -e cpu-clock -c 1000 "${O[@]}"
expect_refusal "'-c' and '-F'" -e cpu-clock -c 100000 -F 99 "${O[@]}"
expect_refusal "'period=-1'" -e cpu-clock:period=-1 "${O[@]}"
expect_refusal "'period=99999999999999999999'" -e cpu-clock:period=99999999999999999999 "${O[@]}"
expect_refusal "above kernel.perf_event_max_sample_rate" -e cpu-clock:freq=999999 "${O[@]}"
expect_refusal "'-d 1.2345'" -d 1.2345 "${O[@]}"
# The kubelet's trees, when given, must be there (a typo would only show
# as names that never come).
expect_refusal "'--kube-pods-dir /nonexistent-bpmc'" --kube-pods-dir /nonexistent-bpmc "${O[@]}"
expect_refusal "'--kube-containers-dir /etc/hostname'" --kube-containers-dir /etc/hostname "${O[@]}"
expect_refusal "'--kube-pods-dir '" --kube-pods-dir '' "${O[@]}"
# A tolerance that is no plain number (nan: a check that never fails).
expect_refusal "'--check=nan'" --check=nan -d 1 "${O[@]}"
expect_refusal "'--check=inf'" --check=inf -d 1 "${O[@]}"
expect_refusal "'--check=1e400'" --check=1e400 -d 1 "${O[@]}"
# -G paths that leave the cgroup2 mount, or are no path from its root.
expect_refusal "'-G /..': it leaves the cgroup2 mount" -G /.. -d 1 "${O[@]}"
expect_refusal "'-G /x/../..'" -G /x/../.. -d 1 "${O[@]}"
expect_refusal "'-G .'" -G . -d 1 "${O[@]}"
expect_refusal "'-G '" -G '' -d 1 "${O[@]}"
expect_refusal "'-G ,/'" -G ,/ -d 1 "${O[@]}"
# A culprit's control characters are escaped, never sent to the terminal.
expect_refusal 'cpu\x1B[31mclock\x0Ax' -e $'cpu\e[31mclock\nx' "${O[@]}"
LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$TMP/stderr" &&
	fail "a control character reached stderr: $(od -c "$TMP/stderr" | head -3)"
# A FIFO without a reader: refused at once, not a hang in open().
mkfifo "$TMP/fifo"
SECONDS=0
expect_refusal "has no reader" -e cpu-clock -d 1 -o "$TMP/fifo"
[ "$SECONDS" -le 3 ] || fail "a FIFO without a reader took $SECONDS s to refuse"
expect_refusal "streams: --rotate" -e cpu-clock -d 1 -o - --rotate 1h

# Default file name: a refused run must not create bpmc-HOST-*.csv here.
expect_refusal "'nosuchevent'" -e nosuchevent

# A hardware event where there is no PMU: refused with the reason.
if "$BPMC" record -e cycles -d 1 -o "$TMP/hw.csv" 2>"$TMP/hw.err"; then
	echo "  this host has a hardware PMU: cycles opened, nothing to refuse"
else
	grep -q "no hardware PMU" "$TMP/hw.err" || fail "cycles refused without 'no hardware PMU': $(cat "$TMP/hw.err")"
	[ -e "$TMP/hw.csv" ] && fail "a refused cycles run left $TMP/hw.csv"
	echo "  ok: $(cat "$TMP/hw.err")"
fi

# Without privileges: say exactly which are missing.
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$BPMC" record -d 1 -o /tmp/never.csv 2>"$TMP/priv.err"
	rc=$?
	[ "$rc" -eq 2 ] || fail "unprivileged run exited $rc, want 2"
	grep -q "CAP_BPF and CAP_PERFMON" "$TMP/priv.err" ||
		fail "unprivileged run did not name the capabilities: $(cat "$TMP/priv.err")"
	echo "  ok: $(cat "$TMP/priv.err")"
else
	fail "cannot drop privileges here (no nobody user or setpriv)"
fi
pass_or_fail
