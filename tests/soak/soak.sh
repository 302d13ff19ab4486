#!/usr/bin/env bash
# Soak: bpmc record --by cgroup,process,thread on a churning host, in both
# modes, then once with a --max-keys too small. Checks that RSS stays flat
# (peak_rss_bytes within 10 % of its value after warm-up), that every
# interval is on the grid with no gap, that nothing is lost while
# --max-keys is large enough, that every churned cgroup seen in a row has
# its path, and that loss is counted (self rows and stderr) when it is not.
#
# SOAK_MAX_KEYS (16384) is the --max-keys of the two mode runs (issue 18
# ran them at the largest value bpmc accepts on the host).
# SOAK_SECONDS (600) is the whole run: a tenth (5 to 30 s) for the loss
# run, the rest half in each mode. SOAK_CGROUPS (500) cgroups are made and
# removed in rotation and SOAK_PROCS (10000) short processes forked into
# them, one in four with three threads, spread over the two mode runs.
# `make soak` runs it whole; tests/integration/test_soak.sh runs 60 s with
# a third of the counts. Here, not in bench/: it passes or fails, where
# bench/ measures against peers and writes docs/benchmarks.md.
. "$(dirname "$0")/../integration/lib.sh"
need_root

TOTAL=${SOAK_SECONDS:-600}
NR_CG=${SOAK_CGROUPS:-500}
NR_PROCS=${SOAK_PROCS:-10000}
MAX_KEYS=${SOAK_MAX_KEYS:-16384}
LOSS_S=$((TOTAL / 10))
[ "$LOSS_S" -lt 5 ] && LOSS_S=5
[ "$LOSS_S" -gt 30 ] && LOSS_S=30
# Each mode run: the churn's seconds, plus about 2 s of start and stop.
RUN_S=$(((TOTAL - LOSS_S) / 2 - 2))
[ "$RUN_S" -ge 10 ] || { echo "  SOAK_SECONDS=$TOTAL is too short" >&2; exit 1; }
INTERVAL_MS=1000
echo "  $TOTAL s: 2 x $RUN_S s (sampling, exact) at --max-keys $MAX_KEYS and $LOSS_S s with --max-keys 4; $NR_CG cgroups, $NR_PROCS processes"

mk_cgroup PARENT "bpmc-soak-$$" || exit 1
# The churn removes its cgroups itself, even when ended; if it is killed
# harder, its leftovers go here, before the parent.
ATEXIT+=("find '$PARENT' -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null")

# vm_rss PID: VmRSS in bytes.
vm_rss() {
	awk '/^VmRSS:/ { print $2 * 1024 }' "/proc/$1/status" 2>/dev/null
}

# churn_with_record NAME SECONDS CGROUPS PROCS ARGS...: a churn under
# $PARENT while bpmc records ARGS into $TMP/NAME.csv; samples bpmc's VmRSS
# every second into $TMP/NAME.rss. Sets CHURN_OUT, the churn's summary.
churn_with_record() {
	local name=$1 secs=$2 cgs=$3 procs=$4 churn rss
	shift 4
	start_record "$TMP/$name.log" -v -e cpu-clock -I "$INTERVAL_MS" \
		--by cgroup,process,thread -d $((secs + 1)) \
		-o "$TMP/$name.csv" "$@" || return 1
	spawn "$HELPERS/soak_churn" "$PARENT" "$cgs" "$procs" "$secs" \
		"$TMP/$name.ids" >"$TMP/$name.churn"
	churn=$SPAWNED
	: >"$TMP/$name.rss"
	while kill -0 "$churn" 2>/dev/null; do
		rss=$(vm_rss "$RECORD_PID")
		[ -n "$rss" ] && echo "$rss" >>"$TMP/$name.rss"
		sleep 1
	done
	wait "$churn" || fail "$name: the churn failed: $(cat "$TMP/$name.churn")"
	CHURN_OUT=$(cat "$TMP/$name.churn")
	wait "$RECORD_PID" || fail "$name: bpmc record exited $?: $(grep -v '^libbpf' "$TMP/$name.log" | tail -5)"
}

# self_series FILE EVENT: the self rows' count of EVENT, one per interval.
# (a gauge such as peak_rss_bytes is in value since schema 5, a delta in count)
self_series() {
	csv_awk -v m="$2" '$col("scope") == "self" && $col("event") == m {
		print $col("value") != "" ? $col("value") : $col("count") }' "$1"
}

# check_run NAME: the checks of a run whose --max-keys is large enough.
check_run() {
	local name=$1 csv=$TMP/$1.csv n warm grid peak0 peak1 lost ilost rss0 rss1 rssmax
	local cache seen nopath pids
	grid=$(python3 "$HELPERS_PY/check_exports.py" --runs "$INTERVAL_MS" "$csv" 2>&1 | grep '^run ') ||
		fail "$name: intervals off the grid or missing: $(python3 "$HELPERS_PY/check_exports.py" --runs "$INTERVAL_MS" "$csv" 2>&1 | tail -2)"
	n=$(self_series "$csv" peak_rss_bytes | wc -l)
	[ "$n" -ge $((RUN_S - 1)) ] || fail "$name: $n intervals in a ${RUN_S} s run"
	# Warm-up: the first fifth of the run, at least 3 intervals.
	warm=$((n / 5))
	[ "$warm" -lt 3 ] && warm=3
	peak0=$(self_series "$csv" peak_rss_bytes | sed -n "${warm}p")
	peak1=$(self_series "$csv" peak_rss_bytes | tail -1)
	rss0=$(sed -n "${warm}p" "$TMP/$name.rss")
	rss1=$(tail -1 "$TMP/$name.rss")
	rssmax=$(tail -n +"$warm" "$TMP/$name.rss" | sort -n | tail -1)
	lost=$(self_series "$csv" samples_lost | awk '{ s += $1 } END { print s + 0 }')
	ilost=$(self_series "$csv" intervals_lost | awk '{ s += $1 } END { print s + 0 }')
	# Every churned cgroup that has a row has its path.
	seen=$(csv_awk -v ids="$TMP/$name.ids" 'BEGIN { while ((getline l < ids) > 0) { split(l, f, " "); mine[f[1]] = 1 } }
		$col("scope") == "cgroup" && ($col("cgroup_id") in mine) { s[$col("cgroup_id")] = 1; if ($col("cgroup") == "") nopath[$col("cgroup_id")] = 1 }
		END { for (k in s) a++; for (k in nopath) b++; print a + 0, b + 0 }' "$csv")
	nopath=${seen#* }
	seen=${seen% *}
	pids=$(csv_awk '$col("scope") == "process" && $col("comm") == "soak_churn" { p[$col("pid")] = 1 } END { for (k in p) n++; print n + 0 }' "$csv")
	cache=$(grep -o 'cgroup cache: .*' "$TMP/$name.log")
	echo "  $name: $CHURN_OUT"
	echo "  $name: ${grid#run }; $n intervals, samples_lost $lost, intervals_lost $ilost"
	echo "  $name: peak_rss_bytes $peak0 after warm-up (interval $warm), $peak1 at the end; VmRSS $rss0 -> $rss1 (max $rssmax)"
	echo "  $name: $seen churned cgroups in rows, $nopath without a path; $pids churned processes in rows; $cache"
	[ "$lost" = 0 ] || fail "$name: $lost samples lost with --max-keys large enough"
	[ "$ilost" = 0 ] || fail "$name: $ilost intervals lost"
	[ "$nopath" = 0 ] || fail "$name: $nopath churned cgroups have rows without a path"
	[ "$seen" -gt 0 ] || fail "$name: no churned cgroup in the rows"
	awk -v a="$peak1" -v b="$peak0" 'BEGIN { exit !(b > 0 && a <= 1.10 * b) }' ||
		fail "$name: peak RSS grew from $peak0 to $peak1 bytes after warm-up (over 10 %)"
	awk -v a="$rssmax" -v b="$rss0" 'BEGIN { exit !(b > 0 && a <= 1.10 * b) }' ||
		fail "$name: VmRSS grew from $rss0 to $rssmax bytes after warm-up (over 10 %)"
}

half_cg=$((NR_CG / 2)) half_procs=$((NR_PROCS / 2))
churn_with_record sampling "$RUN_S" "$half_cg" "$half_procs" --max-keys "$MAX_KEYS" || exit 1
check_run sampling
churn_with_record exact "$RUN_S" $((NR_CG - half_cg)) $((NR_PROCS - half_procs)) --mode exact --max-keys "$MAX_KEYS" || exit 1
check_run exact

# --max-keys too small: the loss is counted in the self rows and said.
loss_procs=$((NR_PROCS * LOSS_S / TOTAL + 50))
churn_with_record loss $((LOSS_S - 1)) 4 "$loss_procs" --max-keys 4 || exit 1
lost=$(self_series "$TMP/loss.csv" samples_lost | awk '{ s += $1 } END { print s + 0 }')
warned=$(grep -c 'samples lost this interval: the counts map is full' "$TMP/loss.log")
echo "  loss: $CHURN_OUT"
echo "  loss: --max-keys 4: samples_lost $lost in the self rows, $warned warnings on stderr"
[ "$lost" -gt 0 ] || fail "loss: no samples_lost counted with --max-keys 4"
[ "$warned" -gt 0 ] || fail "loss: no warning on stderr with --max-keys 4"
grep -q 'samples were lost in all because the counts map was full (--max-keys 4)' "$TMP/loss.log" ||
	fail "loss: no loss summary at exit"
pass_or_fail
