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

# -G paths as written, not as spelt: "/$T/out/../in/." is /$T/in, at
# depth 2; -G repeats, and "\," is a comma of a name.
mk_cgroup COMMA "$T/a,b" || exit 1
start_record "$TMP/log2" -e cpu-clock -G "/$T/out/../in/." -G "//$T/a\,b/" \
	-I 500 -d 3 -o "$TMP/spelt.csv" || exit 1
start_two_burners "$T/in/deep" 50 "$T/a,b" 50 1.5 || exit 1
spawn_in "$OUT" "$HELPERS/burner" 50 1.5
wait_two_burners
wait "$SPAWNED"
wait "$RECORD_PID" || fail "bpmc record -G spelt: $(cat "$TMP/log2")"
for c in "$IN" "$COMMA" "$OUT"; do
	n=$(csv_sum "$TMP/spelt.csv" cgroup cpu-clock cgroup_id "$(cgroup_id "$c")")
	echo "  -G /$T/out/../in/. -G //$T/a\\,b/: ${c#$CG2} $n ns"
	case $c in
	"$OUT") [ "$n" -eq 0 ] || fail "${c#$CG2} is outside the subtrees but has $n ns" ;;
	*) [ "$n" -gt 0 ] || fail "${c#$CG2} is under -G but was not counted" ;;
	esac
done
check_usage "$TMP/spelt.csv" "$IN" "$BURN_NS_A" 5
check_usage "$TMP/spelt.csv" "$COMMA" "$BURN_NS_B" 5
"$BPMC" record -G "/$T/nope" -d 1 -o "$TMP/never.csv" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "no cgroup '-G /$T/nope'" "$TMP/err" || fail "-G on a missing cgroup: $(cat "$TMP/err")"
pass_or_fail
