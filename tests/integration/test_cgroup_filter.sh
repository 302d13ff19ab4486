#!/usr/bin/env bash
# -G: only tasks under the given subtrees are counted, in BPF, so nothing
# outside them is exported; the system row stays the host's total.
. "$(dirname "$0")/lib.sh"
need_root

T=bpmc-test-$$
mk_cgroup IN "$T/in/deep" || exit 1
mk_cgroup OUT "$T/out" || exit 1
start_record "$TMP/log" -e cpu-clock -G "/$T/in" --by cgroup,process,thread \
	-I 500 -d 4 -o "$TMP/out.csv" || exit 1
spawn_in "$IN" "$HELPERS/burner" 50 2
pin=$SPAWNED
spawn_in "$OUT" "$HELPERS/burner" 50 2
pout=$SPAWNED
wait "$pin" "$pout"
wait "$RECORD_PID" || fail "bpmc record failed: $(cat "$TMP/log")"

outside=$(awk -F, -v t="/$T/in" 'NR > 1 && $4 != "system" && $4 != "self" && index($6, t) != 1' "$TMP/out.csv" | head -3)
[ -z "$outside" ] || fail "rows outside /$T/in: $outside"
n=$(csv_sum "$TMP/out.csv" process cpu-clock pid "$pin")
echo "  burner under -G: $n ns; rows outside the subtree: $(awk -F, -v t="/$T/in" 'NR > 1 && $4 != "system" && $4 != "self" && index($6, t) != 1' "$TMP/out.csv" | wc -l)"
[ "$n" -gt 0 ] || fail "the burner inside the subtree was not counted"
sys=$(awk -F, '$4 == "system" { s += $11 } END { printf "%.0f", s }' "$TMP/out.csv")
[ "$sys" -gt "$n" ] || fail "the system row ($sys) is not the host's total"
"$BPMC" record -G "/$T/nope" -d 1 -o "$TMP/never.csv" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "no cgroup '-G /$T/nope'" "$TMP/err" || fail "-G on a missing cgroup: $(cat "$TMP/err")"
pass_or_fail
