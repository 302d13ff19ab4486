#!/usr/bin/env bash
# -G: only tasks under the given subtrees are counted, in BPF, so nothing
# outside them is exported; the system row stays the host's total.
. "$(dirname "$0")/lib.sh"
need_root

T=bpmc-test-$$
# Both made before the start, as -G needs its cgroup to exist.
mk_cgroup IN "$T/in/deep" || exit 1
mk_cgroup OUT "$T/out" || exit 1
start_record "$TMP/log" -e cpu-clock -G "/$T/in" --by cgroup,process,thread \
	-I 500 -d 4 -o "$TMP/out.csv" || exit 1
start_two_burners "$T/in/deep" 50 "$T/out" 50 2 || exit 1
pin=$BURN_PID_A
wait_two_burners
wait "$RECORD_PID" || fail "bpmc record failed: $(cat "$TMP/log")"

# outside_rows: the rows, other than system and self, not under /$T/in.
outside_rows() {
	csv_awk -v t="/$T/in" '$col("scope") != "system" && $col("scope") != "self" &&
		$col("scope") != "meta" && $col("scope") != "encoding" &&
		index($col("cgroup"), t) != 1' "$TMP/out.csv"
}
outside=$(outside_rows | head -3)
[ -z "$outside" ] || fail "rows outside /$T/in: $outside"
n=$(csv_sum "$TMP/out.csv" process cpu-clock pid "$pin")
echo "  burner under -G: $n ns; rows outside the subtree: $(outside_rows | wc -l)"
[ "$n" -gt 0 ] || fail "the burner inside the subtree was not counted"
sys=$(csv_awk '$col("scope") == "system" { s += $col("count") } END { printf "%.0f", s }' "$TMP/out.csv")
[ "$sys" -gt "$n" ] || fail "the system row ($sys) is not the host's total"
"$BPMC" record -G "/$T/nope" -d 1 -o "$TMP/never.csv" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "no cgroup '-G /$T/nope'" "$TMP/err" || fail "-G on a missing cgroup: $(cat "$TMP/err")"
pass_or_fail
