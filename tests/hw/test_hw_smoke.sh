#!/usr/bin/env bash
# The hardware chain, end to end: bpmc stat counts a command's user
# cycles and instructions on the hardware PMU, and perf, the peer, counts
# the same command's cycles:u and instructions:u within 1 % of it (in the
# arm64 guest, -icount makes both exact: the spin loop's instructions are
# the same in every run). Skips, with perf's reason, where perf cannot
# count hardware cycles and instructions (no hardware PMU).
d=$(dirname "$0")
if [ -f "$d/lib.sh" ]; then . "$d/lib.sh"; else . "$d/../integration/lib.sh"; fi
need_root

# 15 instructions an iteration: 150 M instructions, 0.15 s of the guest's
# time. bpmc stat counts CMD from its fork, perf from its exec: the
# child's ~0.4 M instructions before exec (atfork, execvp) are 0.3 % of
# that (1.4 % of 30 M, measured in the guest).
N=10000000
probe=$(perf stat -x, -e cycles:u,instructions:u -- true 2>&1 >/dev/null)
if [ $? -ne 0 ] || echo "$probe" | grep -qE '<not (supported|counted)>'; then
	why=$(echo "$probe" | sed -n 's/^<\(not [a-z]*\)>,[^,]*,\([^,]*\),.*/\2 \1/p' | paste -sd, -)
	skip "no hardware PMU here: perf stat says ${why:-$(echo "$probe" | grep -v '^$' | tail -1)}"
fi

# perf stat -x,: value,unit,event,...
perf stat -x, -o "$TMP/perf" -e cycles:u,instructions:u -- "$HELPERS/spin" "$N" >/dev/null ||
	fail "perf stat failed: $(cat "$TMP/perf")"
# bpmc stat -x,: event,user,kernel,total,unit,running %. One event a
# run: both at once take 8 of the guest PMU's 7 counters in the child
# (running 87 %, scaled), which is not what this test is about.
for ev in cycles instructions; do
	"$BPMC" stat -x, -o "$TMP/bpmc.$ev" -e "$ev" -- "$HELPERS/spin" "$N" >/dev/null 2>"$TMP/err" ||
		fail "bpmc stat -e $ev failed: $(cat "$TMP/err")"
	p=$(awk -F, -v e="$ev:u" '$3 == e { print $1 }' "$TMP/perf")
	b=$(awk -F, -v e="$ev" '$1 == e { print $2 }' "$TMP/bpmc.$ev")
	r=$(awk -F, -v e="$ev" '$1 == e { print $6 }' "$TMP/bpmc.$ev")
	echo "  $ev (user) of spin $N: bpmc $b (running $r %), perf $p"
	if ! [[ $p =~ ^[0-9]+$ && $b =~ ^[0-9]+$ ]] || [ "$p" -eq 0 ]; then
		fail "$ev: no count to compare (perf: $(cat "$TMP/perf"); bpmc: $(cat "$TMP/bpmc.$ev"))"
		continue
	fi
	awk -v b="$b" -v p="$p" 'BEGIN { d = (b - p) / p; if (d < 0) d = -d; exit !(d <= 0.01) }' ||
		fail "$ev: bpmc $b and perf $p differ by more than 1 %"
done
pass_or_fail
