#!/usr/bin/env bash
# Hybrid hosts whose tasks all sit in the cgroup v2 root: record says so,
# and --cgroup-v1 CONTROLLER attributes to that v1 hierarchy instead.
. "$(dirname "$0")/lib.sh"
need_root

ctl=""
for c in memory cpu pids; do
	awk -v c="$c" '$1 == c && $2 > 0 && $4 == 1 { f = 1 } END { exit !f }' /proc/cgroups &&
		awk -v c="$c" '/ - cgroup / && $NF ~ "(^|,)" c "(,|$)" { f = 1 } END { exit !f }' /proc/self/mountinfo &&
		{ ctl=$c; break; }
done
[ -n "$ctl" ] || skip "no cgroup v1 hierarchy with memory, cpu or pids here"

spawn "$HELPERS/burner" 40 3
pid=$SPAWNED
want=$(awk -F: -v c="$ctl" '$2 ~ "(^|,)" c "(,|$)" { print $3 }' "/proc/$pid/cgroup")
"$BPMC" record --cgroup-v1 "$ctl" -e cpu-clock -I 1000 -d 2 -o "$TMP/v1.csv" 2>"$TMP/v1.log" ||
	fail "record --cgroup-v1 $ctl: $(cat "$TMP/v1.log")"
got=$(csv_awk -v p="$pid" '$col("scope") == "process" && $col("pid") == p { print $col("cgroup"); exit }' "$TMP/v1.csv")
echo "  burner $pid in the $ctl hierarchy: /proc says '$want', bpmc wrote '$got'"
[ -n "$got" ] && [ "$got" = "$want" ] || fail "--cgroup-v1 $ctl put the burner in '$got', not '$want'"

# Without it: if every task is in the v2 root, the run must say so.
all_root=$(awk -F: '$1 == "0" && $3 != "/" { n++ } END { print n ? 0 : 1 }' /proc/[0-9]*/cgroup 2>/dev/null)
"$BPMC" record -e cpu-clock -I 1000 -d 2 -o "$TMP/v2.csv" 2>"$TMP/v2.log" || fail "record failed"
if [ "$all_root" = 1 ]; then
	grep -q "every task is in the cgroup v2 root" "$TMP/v2.log" ||
		fail "all tasks are in the v2 root and record did not say so"
	grep "every task" "$TMP/v2.log" | sed 's/^/  /'
fi
pass_or_fail
