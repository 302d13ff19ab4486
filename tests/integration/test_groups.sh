#!/usr/bin/env bash
# Event groups: {cpu-clock,task-clock} counts the same time slices, so on
# a busy cgroup (a burner per CPU) their ratio is 1, in exact mode (both
# read at switches) and in sampling mode (task-clock read at cpu-clock's
# overflows). Sampling credits a member's change since the leader's last
# overflow; it is only fair while the leader ticks whenever the member
# does, which is why the cgroup keeps every CPU busy.
. "$(dirname "$0")/lib.sh"
need_root

for mode in exact sampling; do
	start_record "$TMP/$mode.log" --mode "$mode" -e '{cpu-clock,task-clock}' \
		-I 500 -d 5 -o "$TMP/$mode.csv" || exit 1
	mk_cgroup CG "bpmc-test-$$/$mode" || exit 1
	burners=()
	for _ in $(seq "$(nproc)"); do
		spawn_in "$CG" "$HELPERS/burner" 100 3
		burners+=("$SPAWNED")
	done
	wait "${burners[@]}"
	wait "$RECORD_PID" || fail "$mode record failed: $(cat "$TMP/$mode.log")"
	id=$(cgroup_id "$CG")
	c=$(csv_sum "$TMP/$mode.csv" cgroup cpu-clock cgroup_id "$id")
	t=$(csv_sum "$TMP/$mode.csv" cgroup task-clock cgroup_id "$id")
	ratio=$(awk -v a="$t" -v b="$c" 'BEGIN { printf "%.4f", b ? a / b : 0 }')
	echo "  $mode: task-clock/cpu-clock on the busy cgroup = $ratio ($t / $c ns)"
	within "$t" "$c" 2 || fail "$mode: group ratio $ratio is not close to 1"
	csv_awk '$col("scope") == "system" && $col("event") == "task-clock" && $col("count") == 0 { f = 1 }
		END { exit f }' "$TMP/$mode.csv" ||
		fail "$mode: a system row of the member is 0: the member never ran"
done
pass_or_fail
