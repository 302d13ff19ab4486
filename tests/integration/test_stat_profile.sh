#!/usr/bin/env bash
# bpmc stat --profile: PROFSTART's user PCs, located through the kernel's
# mmap records and named from the ELF symbol tables, name the hot
# function first: of the command itself, and of a command a shell runs.
. "$(dirname "$0")/lib.sh"
need_root
HOT=hot_function_spin

# first_function FILE: the function of the first profile row of -x, output.
first_function() { awk -F, '$1 == "profile" { print $4; exit }' "$1"; }
share_of() { awk -F, -v f="$2" '$1 == "profile" && $4 == f { print $2; exit }' "$1"; }

for cmd in "$HELPERS/hotloop 300" "sh -c '$HELPERS/hotloop 200; true'"; do
	eval "\"\$BPMC\" stat -x, -e task-clock --profile task-clock:100000 -o \"\$TMP/out\" -- $cmd" ||
		fail "bpmc stat failed on $cmd"
	first=$(first_function "$TMP/out")
	pct=$(share_of "$TMP/out" "$HOT")
	echo "  $cmd: first $first, $HOT ${pct:-0} % of the samples"
	[ "$first" = "$HOT" ] || fail "$cmd: the first function is '$first', not $HOT: $(grep ^profile "$TMP/out" | head -5)"
	awk -v p="${pct:-0}" 'BEGIN { exit !(p >= 90) }' || fail "$cmd: $HOT has ${pct:-0} % of the samples, want >= 90"
done
# One sample per 100 us of the command's task-clock (user): about 3,000
# over hotloop's 300 ms of wall clock on an idle CPU, fewer where the
# host is busy and hotloop runs less of it, so the want is its own clock.
"$BPMC" stat --profile task-clock:100000 -- "$HELPERS/hotloop" 300 2> "$TMP/human"
n=$(sed -n 's/^ Profile: \([0-9]*\) samples.*/\1/p' "$TMP/human")
ns=$(sed -n 's/^ *task-clock: user \([0-9]*\) .*/\1/p' "$TMP/human")
want=$(( ${ns:-0} / 100000 ))
echo "  $n samples over $(( ${ns:-0} / 1000000 )) ms of user task-clock (want about $want)"
[ "$want" -ge 500 ] || fail "hotloop ran ${ns:-no} ns of task-clock: $(cat "$TMP/human")"
[ "${n:-0}" -ge $((want * 8 / 10)) ] && [ "${n:-0}" -le $((want * 11 / 10)) ] ||
	fail "$n samples, want about $want: $(cat "$TMP/human")"
grep -Eq "^ +[0-9.]+%  +[0-9]+  $HOT  \(.*hotloop\)$" "$TMP/human" || fail "no $HOT line in the table: $(cat "$TMP/human")"
"$BPMC" stat --profile no-such-event -- true 2> "$TMP/err"
[ $? = 2 ] && grep -q "no-such-event" "$TMP/err" || fail "a bad profile event: $(cat "$TMP/err")"
pass_or_fail
