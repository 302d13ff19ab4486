#!/usr/bin/env bash
# Fork+exec children are named after their last exec, not after the
# parent they were forked from: 200 children of acc_spawner each burn as
# its copy for 2 ms, then exec acc_short, which burns 5 ms. In both
# modes, every child's process row must say acc_short.
. "$(dirname "$0")/lib.sh"
need_root
ln -s "$HELPERS/burner" "$TMP/acc_short"
for mode in sampling exact; do
	mk_cgroup CG "bpmc-test-$$/$mode" || exit 1
	start_record "$TMP/log.$mode" --mode "$mode" -e cpu-clock -I 500 -o "$TMP/$mode.csv" || exit 1
	spawn_in "$CG" sh -c "exec '$HELPERS/spawner' 200 '$TMP/acc_short' 100 0.005 >'$TMP/pids.$mode'"
	wait "$SPAWNED"
	sleep 0.6
	kill -TERM "$RECORD_PID"
	wait "$RECORD_PID" || fail "$mode: record failed: $(cat "$TMP/log.$mode")"
	csv_awk -v id="$(cgroup_id "$CG")" '$col("scope") == "process" && $col("cgroup_id") == id {
		print $col("pid"), $col("time"), $col("comm") }' "$TMP/$mode.csv" | sort >"$TMP/names.$mode"
	# Per child: its last interval names it acc_short; an interval before
	# its exec may rightly say acc_spawner. The spawner itself is left out.
	awk 'NR == FNR { kid[$1] = 1; next } $1 in kid { last[$1] = $3 }
		END { for (p in last) { n++; if (last[p] != "acc_short") { bad++; print p, last[p] > "/dev/stderr" } }
		      printf "%d %d\n", n, bad }' "$TMP/pids.$mode" "$TMP/names.$mode" 2>"$TMP/bad.$mode" >"$TMP/kids.$mode"
	read -r seen wrong <"$TMP/kids.$mode"
	echo "  $mode: $seen of 200 children have process rows; last named otherwise than acc_short: ${wrong:-0}"
	# Sampled children need CPU time to be seen: a loaded host gives less.
	[ "$seen" -ge 50 ] || fail "$mode: only $seen children have rows"
	[ "${wrong:-0}" -eq 0 ] || fail "$mode: $(head -3 "$TMP/bad.$mode" | tr '\n' ' ')"
done
pass_or_fail
