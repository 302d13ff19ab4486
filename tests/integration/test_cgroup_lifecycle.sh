#!/usr/bin/env bash
# Cgroups that come and go while recording: one made 2 s after the start,
# one removed mid-run (its counts still exported, with its path), and one
# made and removed within a single interval (its path known only from the
# kernel's cgroup_mkdir tracepoint).
. "$(dirname "$0")/lib.sh"
need_root

start_record "$TMP/log" -e cpu-clock -I 4000 -d 9 -o "$TMP/out.csv" || exit 1
T=bpmc-test-$$
# Made and gone within the first 4 s interval.
mk_cgroup Q "$T/quick" || exit 1
spawn_in "$Q" "$HELPERS/burner" 50 0.6
wait "$SPAWNED"
qid=$(cgroup_id "$Q")
rmdir "$Q" || fail "cannot remove $Q"
sleep 1.5
# Made 2 s after the start; removed once its burner is done.
mk_cgroup L "$T/late" || exit 1
spawn_in "$L" "$HELPERS/burner" 50 2
wait "$SPAWNED"
lid=$(cgroup_id "$L")
rmdir "$L" || fail "cannot remove $L"
wait "$RECORD_PID" || fail "bpmc record failed: $(cat "$TMP/log")"

for c in "quick $qid" "late $lid"; do
	set -- $c
	n=$(csv_sum "$TMP/out.csv" cgroup cpu-clock cgroup_id "$2")
	path=$(csv_awk -v id="$2" '$col("scope") == "cgroup" && $col("cgroup_id") == id { print $col("cgroup"); exit }' "$TMP/out.csv")
	echo "  $1 (id $2, removed): $n ns exported under '$path'"
	[ "$n" -gt 0 ] || fail "$1: no counts exported"
	[ "$path" = "/$T/$1" ] || fail "$1: path '$path', want /$T/$1"
done
pass_or_fail
