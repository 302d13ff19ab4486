#!/usr/bin/env bash
# Case 6: perf_event fds held: bpmc (events x CPUs, whatever the number of
# cgroups) next to perf stat -a -G over 100 cgroups with the same event.
. "$(dirname "$0")/lib.sh"
CG2=$(cgroup2_mount)
BASE=bpmc-bench-res-$$
trap 'bench_cleanup; for i in $(seq 100); do rmdir "$CG2/$BASE/c$i" 2>/dev/null; done; rmdir "$CG2/$BASE" 2>/dev/null' EXIT
mkdir -p "$CG2/$BASE"
cgs=""
for i in $(seq 100); do
	mkdir "$CG2/$BASE/c$i"
	cgs="$cgs${cgs:+,}$BASE/c$i"
done

perf_fds() { ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'perf_event'; }

spawn "$BPMC" record -e cpu-clock -o /dev/null 2>"$TMP/log"
pid=$SPAWNED
for _ in $(seq 100); do grep -q recording "$TMP/log" && break; sleep 0.1; done
echo "fds_bpmc $(perf_fds "$pid")"
kill -INT "$pid"; wait "$pid" 2>/dev/null
spawn perf stat -a -e cpu-clock --for-each-cgroup "$cgs" -o /dev/null
pid=$SPAWNED
sleep 2
echo "fds_perf_stat_100_cgroups $(perf_fds "$pid")"
kill -INT "$pid"; wait "$pid" 2>/dev/null
echo "cpus $(nproc)"
