#!/usr/bin/env bash
# Cgroups made during a run with paths longer than the 495 bytes the
# kernel's cgroup_mkdir capture holds (issue 18, item 2): nested ones,
# alive at the export, get their whole path from the tree, each its own;
# one made and removed within an interval keeps the captured start marked
# "/...(cut)", never a cut path written as if whole. Then again after
# --user, without the privilege to look a cgroup up by id (a walk).
. "$(dirname "$0")/lib.sh"
need_root
T=bpmc-test-$$
A=$(printf 'a%.0s' $(seq 200))
B=$(printf 'b%.0s' $(seq 200))
C=$(printf 'c%.0s' $(seq 200))

# run NAME ARGS...: records while the long cgroups come and go, then
# checks each one's rows against its real path.
run() {
	local name=$1 out="$OUT/$1.csv" c id path want n
	shift
	start_record "$TMP/$name.log" -e cpu-clock -I 4000 -d 6 -o "$out" "$@" || return 1
	# Made and gone within the first 4 s interval.
	mk_cgroup Q "$T/$name/$A/$B/$C/quick" || return 1
	spawn_in "$Q" "$HELPERS/burner" 50 0.5
	wait "$SPAWNED"
	qid=$(cgroup_id "$Q")
	rmdir "$Q" || fail "cannot remove $Q"
	# Nested and alive at the export: the first 495 bytes are the same.
	mk_cgroup P "$T/$name/$A/$B/$C" || return 1
	mk_cgroup K "$T/$name/$A/$B/$C/$C" || return 1
	spawn_in "$P" "$HELPERS/burner" 30 2
	spawn_in "$K" "$HELPERS/burner" 30 2
	wait "$RECORD_PID" || fail "$name: bpmc record failed: $(cat "$TMP/$name.log")"
	for c in "parent $P" "child $K"; do
		set -- $c
		id=$(cgroup_id "$2")
		want=${2#$CG2}
		n=$(csv_sum "$out" cgroup cpu-clock cgroup_id "$id")
		path=$(csv_awk -v id="$id" '$col("scope") == "cgroup" && $col("cgroup_id") == id { print $col("cgroup"); exit }' "$out")
		echo "  $name: $1 (id $id, ${#want} bytes): $n ns under a path of ${#path} bytes"
		[ "$n" -gt 0 ] || fail "$name: $1: no counts exported"
		[ "$path" = "$want" ] || fail "$name: $1: path '${path:0:40}...${path: -40}' (${#path} bytes), want the whole ${#want} bytes"
	done
	want=${Q#$CG2}
	n=$(csv_sum "$out" cgroup cpu-clock cgroup_id "$qid")
	path=$(csv_awk -v id="$qid" '$col("scope") == "cgroup" && $col("cgroup_id") == id { print $col("cgroup"); exit }' "$out")
	echo "  $name: made and removed (id $qid, ${#want} bytes): $n ns under '...${path: -60}' (${#path} bytes)"
	[ "$n" -gt 0 ] || fail "$name: the removed cgroup: no counts exported"
	# Its start, whole components only, and the marker; or, if the
	# export came between mkdir and rmdir, the whole path.
	if [ "$path" != "$want" ]; then
		[[ $path == */...\(cut\) ]] ||
			fail "$name: the removed cgroup's path '${path:0:40}...${path: -40}' (${#path} bytes) is neither whole nor marked cut"
		[[ $want == "${path%/...(cut)}/"* ]] || fail "$name: the removed cgroup's marked path does not start its real one"
	fi
}

# --user's output must be its own to publish.
id -u nobody >/dev/null 2>&1 || skip "no user nobody"
chmod 711 "$TMP"
OUT="$TMP/out"
mkdir "$OUT" && chown nobody "$OUT" || exit 1
run root || fail "root: the run could not be set up"
run user --user nobody || fail "--user nobody: the run could not be set up"
grep -q "capabilities" "$TMP/user.log" && echo "  user: $(grep -o "now running as .*" "$TMP/user.log")"
pass_or_fail
