#!/usr/bin/env bash
# A churning host must not grow bpmc's exposition, or bpmc, without
# bound: three rounds of 500 cgroups, each made, run in (exact mode, so
# every one has counts) and removed while bpmc --listen --prom-expire 16
# records (-I 250). What docs/prometheus.md promises, whatever the pace
# at which the machine makes and runs them: every cgroup with counts in
# an interval is in the exposition from that interval's end until it has
# had none for 16 intervals, so a scraper that never lets 16 intervals
# pass between two scrapes sees each cgroup the CSV has rows of; then
# they are gone, 16 intervals after the last ran; bpmc's VmRSS after the
# third round is the first round's (flat); the CSV keeps every cgroup's
# rows all the same. (A single scrape after the round, as this test once
# took, misses the first cgroups of a round that takes over 16
# intervals to run: 267 of 500 on a slower machine.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom_lib.sh"
need_root
need_packages curl:curl

REL=bpmc-test-$$
N=500
# ASan holds freed memory back (its quarantine, 256 MiB) to catch uses
# after free: RSS then grows with every free until it is full. Without
# it, what is measured is bpmc's; leaks are still checked at exit.
[ "${SANITIZE:-}" = 1 ] &&
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
# 16 intervals of 250 ms: longer than a round's 500 tasks take to run.
EXPIRE=16
start_record_listen "$TMP/log" --mode exact -e cpu-clock -I 250 -d 120 -o "$TMP/out.csv" \
	--prom-expire $EXPIRE || exit 1

# in_exposition PREFIX: the cgroup series whose path starts with PREFIX.
in_exposition() {
	scrape | awk -v p="cgroup=\"$1" 'index($0, "bpmc_cgroup_perf_event_seconds_total{") == 1 && index($0, p) { n++ } END { print n + 0 }'
}

# Buffers grown once: every form of the exposition served a few times.
for _ in 1 2 3; do
	scrape >/dev/null
	scrape --compressed >/dev/null
	scrape -H 'Accept: application/openmetrics-text' --compressed >/dev/null
	sleep 0.3
done
rss=("$(rss_kib "$RECORD_PID")")
echo "  VmRSS before the churn: ${rss[0]} KiB"
# watch_round ROUND: scrapes until $TMP/r$ROUND.stop exists, and once
# after, so that its scrapes span the round from before the first task
# to after the last left; each scrape's bpmc_intervals_total goes to
# $TMP/r$ROUND.intervals, the round's cgroups it holds to
# $TMP/r$ROUND.seen.
watch_round() {
	local out=$TMP/r$1 last=0
	while [ "$last" = 0 ]; do
		[ -e "$out.stop" ] && last=1
		scrape 2>/dev/null | awk -v p="cgroup=\"/$REL/r$1/" -v o="$out" '
			$1 == "bpmc_intervals_total" { print $2 >>(o ".intervals") }
			index($0, "bpmc_cgroup_perf_event_seconds_total{") == 1 && (i = index($0, p)) {
				c = substr($0, i + 8); sub(/".*/, "", c); print c >>(o ".seen") }'
		sleep 0.05
	done
}

for round in 1 2 3; do
	mk_cgroup PARENT "$REL/r$round" || exit 1
	for i in $(seq "$N"); do
		mkdir "$PARENT/c$i" && CGROUPS+=("$PARENT/c$i") || exit 1
	done
	spawn watch_round "$round"
	watcher=$SPAWNED
	sleep 0.3 # its first scrape is before the first task
	# A short task in each: a subshell that moves itself in, then exits.
	start=$(date +%s%N)
	for i in $(seq "$N"); do
		(echo "$BASHPID" >"$PARENT/c$i/cgroup.procs") || exit 1
	done
	for i in $(seq "$N"); do
		rmdir "$PARENT/c$i" || fail "cannot remove $PARENT/c$i"
	done
	took=$((($(date +%s%N) - start) / 1000000))
	gone="" left="some still there 10 s after"
	for _ in $(seq 100); do
		if [ "$(in_exposition "/$REL/r$round/")" = 0 ]; then
			gone=$((($(date +%s%N) - start) / 1000000))
			left="none $gone ms after the first ran"
			break
		fi
		sleep 0.1
	done
	touch "$TMP/r$round.stop"
	wait "$watcher"
	seen=$(sort -u "$TMP/r$round.seen" 2>/dev/null | wc -l)
	gap=$(awk 'NR > 1 && $1 - last > gap { gap = $1 - last } { last = $1 } END { print gap + 0 }' "$TMP/r$round.intervals")
	rss+=("$(rss_kib "$RECORD_PID")")
	echo "  round $round: ran in ${took} ms; $seen of $N cgroups in the exposition ($(wc -l <"$TMP/r$round.intervals") scrapes, at most $gap intervals apart), $left; VmRSS ${rss[round]} KiB"
	[ "$seen" -ge $((N * 95 / 100)) ] || fail "round $round: only $seen of $N cgroups were ever in the exposition"
	[ "$gap" -lt "$EXPIRE" ] ||
		fail "round $round: $gap intervals between two scrapes: a cgroup can come and go unseen in $EXPIRE"
	[ -n "$gone" ] || fail "round $round: the removed cgroups did not leave the exposition"
done
expired=$(scrape | awk '$1 == "bpmc_keys_expired_total" { print $2 }')
echo "  bpmc_keys_expired_total $expired"
[ "${expired:-0}" -ge $((3 * N * 95 / 100)) ] || fail "only ${expired:-0} keys expired"
# Flat: the third round costs what the first did, within 1 MiB.
grew=$((rss[3] - rss[1]))
echo "  VmRSS from round 1 to round 3: $grew KiB"
[ "$grew" -le 1024 ] || fail "bpmc grew by $grew KiB over two rounds of $N cgroups"

kill -TERM "$RECORD_PID" && wait "$RECORD_PID" || fail "bpmc record did not stop cleanly: $(cat "$TMP/log")"
rows=$(csv_awk -v p="/$REL/" '$col("scope") == "cgroup" && index($col("cgroup"), p) == 1 { c[$col("cgroup")] = 1 }
	END { for (k in c) n++; print n + 0 }' "$TMP/out.csv")
echo "  the CSV holds rows of $rows of the $((3 * N)) cgroups"
[ "$rows" -ge $((3 * N * 95 / 100)) ] || fail "the CSV lost the rows of expired cgroups: $rows"
# Every cgroup with counts was in the exposition while it was due there.
for round in 1 2 3; do
	csv_awk -v p="/$REL/r$round/" '$col("scope") == "cgroup" && index($col("cgroup"), p) == 1 { print $col("cgroup") }' \
		"$TMP/out.csv" | sort -u >"$TMP/r$round.counted"
	missed=$(sort -u "$TMP/r$round.seen" 2>/dev/null | comm -23 "$TMP/r$round.counted" -)
	echo "  round $round: $(wc -l <"$TMP/r$round.counted") cgroups with rows in the CSV, $(grep -c . <<<"$missed") of them never in the exposition"
	[ -z "$missed" ] || fail "round $round: cgroups with counts never in the exposition: $(head -5 <<<"$missed" | tr '\n' ' ')"
done
pass_or_fail
