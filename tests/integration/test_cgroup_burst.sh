#!/usr/bin/env bash
# 2,000 cgroups made as fast as the shell can (seconds here: a cgroup
# mkdir takes milliseconds on this VM) overflow the ring of new-cgroup
# paths (512 fit an interval): the loss is counted and said, nothing else breaks,
# and a cgroup of the burst that a task uses still gets its path (the
# tree is walked again on a miss).
. "$(dirname "$0")/lib.sh"
need_root
mk_cgroup TOP "bpmc-test-$$" || exit 1
start_record "$TMP/log" -e cpu-clock -I 10000 -o "$TMP/out.csv" || exit 1
t0=$(date +%s%3N)
for i in $(seq 2000); do mkdir "$TOP/c$i" || break; done
made=$(($(date +%s%3N) - t0))
for i in $(seq 2000); do CGROUPS+=("$TOP/c$i"); done
spawn_in "$TOP/c1999" "$HELPERS/burner" 50 1
wait "$SPAWNED"
kill -TERM "$RECORD_PID"
wait "$RECORD_PID" || fail "record failed: $(cat "$TMP/log")"
lost=$(sed -n "s/.*warning: \([0-9]*\) new cgroups' paths did not fit.*/\1/p" "$TMP/log" | awk '{ s += $1 } END { print s + 0 }')
echo "  2000 cgroups made in $made ms; $lost paths did not fit the ring, said on stderr"
[ "$lost" -gt 0 ] || fail "no loss reported for 2000 cgroups in one interval"
[ "$lost" -lt 2000 ] || fail "every path lost: the ring took none"
got=$(csv_awk -v id="$(cgroup_id "$TOP/c1999")" '$col("scope") == "cgroup" && $col("cgroup_id") == id { print $col("cgroup"); exit }' "$TMP/out.csv")
[ "$got" = "/bpmc-test-$$/c1999" ] || fail "the used cgroup of the burst has path '$got'"
pass_or_fail
