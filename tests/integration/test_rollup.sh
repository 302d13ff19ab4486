#!/usr/bin/env bash
# --rollup: a cgroup_total row per ancestor. In every interval a parent's
# total is exactly its own cgroup row plus its children's totals, and the
# root's total is every cgroup row of the interval.
. "$(dirname "$0")/lib.sh"
need_root

T=bpmc-test-$$
mk_cgroup P "$T/p" || exit 1
mk_cgroup C1 "$T/p/c1" || exit 1
mk_cgroup C2 "$T/p/c2/leaf" || exit 1
start_record "$TMP/log" --mode exact -e cpu-clock,context-switches --rollup \
	-I 500 -d 4 -o "$TMP/out.csv" || exit 1
for cg in "$P" "$C1" "$C2"; do
	spawn_in "$cg" "$HELPERS/burner" 30 2
done
wait "${PIDS[@]:1}"
wait "$RECORD_PID" || fail "bpmc record failed: $(cat "$TMP/log")"

csv_awk -v p="/$T/p" '{ t = $col("time"); e = $col("event"); g = $col("cgroup"); v = $col("count") }
	$col("scope") == "cgroup" { own[t, e, g] = v; all[t, e] += v }
	$col("scope") == "cgroup_total" { tot[t, e, g] = v; keys[t, e] = 1 }
	END {
		for (k in keys) {
			split(k, kk, SUBSEP)
			want = own[kk[1], kk[2], p] + tot[kk[1], kk[2], p "/c1"] + tot[kk[1], kk[2], p "/c2"]
			if (tot[kk[1], kk[2], p] != want) { print "  " kk[1] " " kk[2] ": total " tot[kk[1], kk[2], p] " != " want; bad = 1 }
			if (tot[kk[1], kk[2], "/"] != all[kk[1], kk[2]]) { print "  " kk[1] " " kk[2] ": root total " tot[kk[1], kk[2], "/"] " != " all[kk[1], kk[2]]; bad = 1 }
			n++
		}
		printf "  %d interval x event pairs: parent = own + children, root = all cgroup rows\n", n
		exit bad || !n
	}' "$TMP/out.csv" || fail "a cgroup_total is not the exact sum of its subtree"
"$BPMC" record --rollup=1 -d 1 -o "$TMP/d1.csv" 2>/dev/null || fail "--rollup=1 failed"
deep=$(csv_awk '{ g = $col("cgroup") } $col("scope") == "cgroup_total" && gsub("/", "/", g) > 1' "$TMP/d1.csv" | head -1)
[ -z "$deep" ] || fail "--rollup=1 wrote a deeper total: $deep"
pass_or_fail
