#!/usr/bin/env bash
# Hosts as fleets have them: cgroup2 mounted somewhere else, or not at
# all; bpmc inside a cgroup namespace; another tool holding system-wide
# counters at the same time. Each must give right rows or a one-line
# refusal, never a crash or a wrong path.
. "$(dirname "$0")/lib.sh"
need_root
command -v unshare >/dev/null || skip "unshare is not installed"

mk_cgroup CG "bpmc-test-$$/odd" || exit 1
rel=${CG#$CG2}

# record_remounted MNT NAME [-G PATH]: bpmc records 2 s, in a private
# mount namespace where cgroup2 is mounted at MNT and not at its usual
# place, into $TMP/NAME.csv while a burner runs 1 s in $CG; its exit
# status, or 3 where cgroup2 cannot be remounted here.
record_remounted() {
	local mnt=$1 name=$2 rec
	shift 2
	unshare -m --propagation private sh -c '
		mount -t cgroup2 none "$1" || exit 3
		umount -l "$2" || exit 3
		bpmc=$3 out=$4
		shift 4
		exec "$bpmc" record -e cpu-clock -I 500 -d 2 -o "$out" "$@"' \
		sh "$mnt" "$CG2" "$BPMC" "$TMP/$name.csv" "$@" 2>"$TMP/log.$name" &
	rec=$!
	PIDS+=("$rec")
	sleep 0.7
	spawn_in "$CG" "$HELPERS/burner" 50 1
	wait "$SPAWNED"
	wait "$rec"
}

# first_path CSV: the path of the first cgroup row of $CG.
first_path() {
	csv_awk -v id="$(cgroup_id "$CG")" '$col("scope") == "cgroup" && $col("cgroup_id") == id { print $col("cgroup"); exit }' "$1"
}

# 1. cgroup2 mounted elsewhere (a private mount namespace): bpmc finds it
# in mountinfo, and paths are the same as under the usual mount.
mkdir "$TMP/cg"
record_remounted "$TMP/cg" elsewhere
rc=$?
if [ "$rc" -eq 3 ]; then
	echo "  (cannot remount cgroup2 in a mount namespace here)"
else
	[ "$rc" -eq 0 ] || fail "cgroup2 elsewhere: exit $rc: $(cat "$TMP/log.elsewhere")"
	got=$(first_path "$TMP/elsewhere.csv")
	[ "$got" = "$rel" ] || fail "cgroup2 mounted at $TMP/cg: path '$got', want '$rel'"
	echo "  cgroup2 mounted elsewhere: the burner's cgroup is '$got'"
fi

# 1b. Mounted where mountinfo escapes the path (\040 for a space, \011 a
# tab, \134 a backslash): found, unescaped, and -G takes the mount's own
# absolute path.
MNT="$TMP/cg x"$'\t''y\z'
mkdir "$MNT"
record_remounted "$MNT" escaped -G "$MNT$rel"
rc=$?
if [ "$rc" -eq 3 ]; then
	echo "  (cannot remount cgroup2 in a mount namespace here)"
else
	[ "$rc" -eq 0 ] || fail "cgroup2 at '$MNT': exit $rc: $(cat "$TMP/log.escaped")"
	got=$(first_path "$TMP/escaped.csv")
	n=$(csv_sum "$TMP/escaped.csv" cgroup cpu-clock cgroup_id "$(cgroup_id "$CG")")
	[ "$got" = "$rel" ] && [ "$n" -gt 0 ] || fail "cgroup2 mounted at '$MNT': path '$got', $n ns, want '$rel' counted"
	echo "  cgroup2 mounted at a path with a space, a tab and a backslash: '$got', $n ns under -G"
fi

# 2. No cgroup2 mount at all: a one-line refusal, exit 2.
unshare -m --propagation private sh -c '
	for m in $(awk "\$9 == \"cgroup2\" { print \$5 }" /proc/self/mountinfo); do umount -l "$m" || exit 3; done
	exec "$1" record -e cpu-clock -d 1 -o "$2"' sh "$BPMC" "$TMP/none.csv" 2>"$TMP/log.none"
rc=$?
if [ "$rc" -ne 3 ]; then
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/log.none")" -eq 1 ] && grep -q "cgroup2 mount" "$TMP/log.none" ||
		fail "no cgroup2 mount: exit $rc: $(cat "$TMP/log.none")"
	echo "  no cgroup2 mount: $(cat "$TMP/log.none")"
fi

# 3. Inside a cgroup namespace rooted at the test's cgroup: BPF sees the
# host's cgroup ids, and bpmc writes the paths relative to the mount it
# sees, which are the host's here (the mount is the host's).
spawn_in "$CG" sh -c 'exec unshare --cgroup "$@" 2>"$0"' "$TMP/log.ns" \
	"$BPMC" record -e cpu-clock -I 500 -d 2 -o "$TMP/ns.csv"
rec=$SPAWNED
sleep 0.7
mk_cgroup CG2B "bpmc-test-$$/other" || exit 1
spawn_in "$CG2B" "$HELPERS/burner" 50 1
wait "$SPAWNED"
wait "$rec" || fail "in a cgroup namespace: record failed: $(cat "$TMP/log.ns")"
got=$(csv_awk -v id="$(cgroup_id "$CG2B")" '$col("scope") == "cgroup" && $col("cgroup_id") == id { print $col("cgroup"); exit }' "$TMP/ns.csv")
[ "$got" = "${CG2B#$CG2}" ] || fail "in a cgroup namespace: path '$got', want the host's '${CG2B#$CG2}'"
echo "  in a cgroup namespace: a burner outside it is '$got'"

# 4. perf stat -a holding the same events system-wide meanwhile: both
# count, and bpmc's cgroup row still matches cpu.stat.
if command -v perf >/dev/null; then
	spawn perf stat -a -e cpu-clock,page-faults -o "$TMP/perf.txt" sleep 3
	perf_pid=$SPAWNED
	used0=$(usage_usec "$CG")
	lost_mark
	start_record "$TMP/log.perf" -e cpu-clock,page-faults -I 500 -d 2 -o "$TMP/perf.csv" || exit 1
	spawn_in "$CG" "$HELPERS/burner" 60 1.5
	wait "$SPAWNED"
	used=$((($(usage_usec "$CG") - used0) * 1000))
	wait "$RECORD_PID" || fail "with perf stat -a: record failed: $(cat "$TMP/log.perf")"
	wait "$perf_pid" || fail "perf stat -a failed beside bpmc"
	check_usage "$TMP/perf.csv" "$CG" "$used" 5
fi
pass_or_fail
