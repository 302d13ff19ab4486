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
# 300 ms at one sample per 100 us of task-clock: about 3,000 samples.
"$BPMC" stat --profile task-clock:100000 -- "$HELPERS/hotloop" 300 2> "$TMP/human"
n=$(sed -n 's/^ Profile: \([0-9]*\) samples.*/\1/p' "$TMP/human")
echo "  $n samples over 300 ms"
[ "${n:-0}" -ge 2400 ] && [ "${n:-0}" -le 3300 ] || fail "$n samples, want about 3000: $(cat "$TMP/human")"
grep -Eq "^ +[0-9.]+%  +[0-9]+  $HOT  \(.*hotloop\)$" "$TMP/human" || fail "no $HOT line in the table: $(cat "$TMP/human")"
"$BPMC" stat --profile no-such-event -- true 2> "$TMP/err"
[ $? = 2 ] && grep -q "no-such-event" "$TMP/err" || fail "a bad profile event: $(cat "$TMP/err")"
pass_or_fail
