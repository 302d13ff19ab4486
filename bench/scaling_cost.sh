#!/usr/bin/env bash
# Case 11: cost as the number of cgroups grows. For N in NS (1 10 100
# 1000) cgroups under a base cgroup of the cgroup2 mount, the same total
# of switch-heavy work spread over them, pinned to one CPU:
#   ring  tests/helpers/ring R: M = max(N, 2) processes, process i in
#         cgroup i mod N, pass a token around a ring of pipes R times in
#         all: every hop a context switch, one that changes cgroup when
#         N > 1; it prints its wall time and each cgroup's context
#         switches (getrusage: the truth for the collectors'
#         context-switches, to one a process), then moves its processes to
#         BASE/home and kills them there (their exit is not the work's)
#   fork  FORKS iterations of `sh -c 'echo x | wc -c'`, the i-th in
#         cgroup i mod N
# under each configuration of CONFIGS, ready before the work starts and
# stopped after it; all count cpu-clock and context-switches (EVENTS)
# where they take events:
#   none      no collector (bare against bare: the noise floor)
#   defaults  bpmc record -e EVENTS -o FILE (exact mode, -I 1000)
#   sampling  bpmc record --mode sampling -e EVENTS -o FILE
#   perf      perf stat -a --for-each-cgroup (the N cgroups) -e EVENTS -I 1000
#   bperf     the same with --bpf-counters: perf built by
#             bench/build_bperf.sh (BPERF=PATH names one; skipped, saying
#             why, where there is none)
#   bpftrace  tracepoint:sched:sched_switch { @[cgroup] = count(); }
# Per N, PAIRS rounds (PAIRS_MAX_N at N >= 1000), each every configuration
# once in an order rotated per round, as a pair: the work bare, then under
# the configuration. Then, with BPF run-time statistics on, one ring run
# per configuration for the direct cost (the collector's CPU, from
# /proc/PID/task/*/schedstat, ns, plus its BPF programs' run time, over
# the cgroups' cpu.stat usage during the ring), its perf_event fds, VmRSS,
# VmLck and its BPF maps' memlock (fdinfo) at the ring's end, the CPU it
# spends per interval (its CPU from ready to stop over the intervals
# written; bpmc's self rows too), and its accuracy: cpu-clock summed over
# the N cgroups against their cpu.stat usage_usec, context-switches
# against the ring's own count (total and worst cgroup). Time to start:
# launch to ready, median of every start: bpmc's "recording" line; perf's
# first interval line (-I 1000), less its timestamp (the time since its
# counters were enabled); bpftrace's "Attaching" line and its
# tracepoint's perf_event fd open.
# Knobs: NS, CONFIGS, PAIRS, PAIRS_MAX_N, R, FORKS, SETTLE, CPU.
# Defaults: about 10 minutes on a quiet 2-vCPU VM (12.6 with FORKS=500
# at load 4-5, others building).
. "$(dirname "$0")/lib.sh"
NS=${NS:-1 10 100 1000}
CONFIGS=${CONFIGS:-none defaults sampling perf bperf bpftrace}
PAIRS=${PAIRS:-3}
PAIRS_MAX_N=${PAIRS_MAX_N:-2}
R=${R:-200000}
FORKS=${FORKS:-400}
SETTLE=${SETTLE:-0.3}
CPU=${CPU:-$(($(nproc) - 1))}
EVENTS=cpu-clock,context-switches
NCPU=$(nproc)

CG2=$(cgroup2_mount)
[ -n "$CG2" ] || { echo "scaling_cost: no cgroup2 mount" >&2; exit 1; }
NAME=bpmc-scaling-$$
BASE=$CG2/$NAME

scaling_cleanup() {
	bench_cleanup
	rm_cgroups "$BASE"
}
trap scaling_cleanup EXIT
trap 'echo "scaling_cost: interrupted" >&2; exit 1' INT TERM

[ -x "$HELPERS/ring" ] || { echo "scaling_cost: $HELPERS/ring missing (make test-bins)" >&2; exit 1; }
warn_other_collectors
[ "$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null)" = 1 ] &&
	echo "scaling_cost: warning: BPF run-time statistics are on (another process holds them): the slowdowns include their cost" >&2

mkdir -p "$BASE/home"

# bperf: BPERF, else the perf that bench/build_bperf.sh builds (where the
# script is present), else skipped with the reason.
BPERF=${BPERF:-}
BPERF_WHY=
if [[ " $CONFIGS " == *" bperf "* ]]; then
	if [ -z "$BPERF" ] && [ -f "$ROOT/bench/build_bperf.sh" ]; then
		if bash "$ROOT/bench/build_bperf.sh" >"$TMP/bperf.path" 2>"$TMP/bperf.log"; then
			BPERF=$(tail -n 1 "$TMP/bperf.path")
		else
			BPERF_WHY="bench/build_bperf.sh failed: $(tail -n 1 "$TMP/bperf.log")"
		fi
	fi
	if [ -z "$BPERF_WHY" ]; then
		if [ -z "$BPERF" ]; then
			BPERF_WHY="no perf with BPF skeletons (BPERF unset, bench/build_bperf.sh absent)"
		elif ! [ -x "$BPERF" ]; then
			BPERF_WHY="$BPERF is not executable"
		elif ! "$BPERF" stat --bpf-counters -a --for-each-cgroup "$NAME/home" -e cpu-clock true >"$TMP/bperf.log" 2>&1; then
			BPERF_WHY="$BPERF stat --bpf-counters --for-each-cgroup fails here: $(tail -n 1 "$TMP/bperf.log")"
		fi
	fi
	if [ -n "$BPERF_WHY" ]; then
		echo "scaling_cost: bperf skipped: $BPERF_WHY" >&2
		echo "scaling_bperf_skipped $BPERF_WHY"
		CONFIGS=$(echo " $CONFIGS " | sed 's/ bperf / /;s/^ //;s/ $//')
	fi
fi
read -ra CFG <<<"$CONFIGS"


# The N cgroups of the current round: CGS (paths), PERF_CGS (perf's
# comma-separated names under the mount), INODES "inode index" lines.
make_cgroups() {
	local i
	mkdir -p "$BASE/n$1"
	CGS=()
	PERF_CGS=
	for i in $(seq 0 $(($1 - 1))); do
		mkdir "$BASE/n$1/c$i"
		CGS+=("$BASE/n$1/c$i")
		PERF_CGS="$PERF_CGS${PERF_CGS:+,}$NAME/n$1/c$i"
	done
	for i in $(seq 0 $(($1 - 1))); do echo "$(stat -c %i "$BASE/n$1/c$i") $i"; done >"$TMP/inodes"
}

# usage_file FILE: each cgroup's usage_usec, a line each, in index order.
usage_file() {
	local c
	for c in "${CGS[@]}"; do echo "$c/cpu.stat"; done | xargs awk '$1 == "usage_usec" { print $2 }' >"$1"
}

# ring: RING_NS (wall ns); $TMP/ring.out: "index hops switches" per cgroup.
ring() {
	taskset -c "$CPU" "$HELPERS/ring" -x "$BASE/home" "$R" "${CGS[@]}" >"$TMP/ring.raw" </dev/null ||
		{ echo "scaling_cost: ring failed" >&2; exit 1; }
	RING_NS=$(head -1 "$TMP/ring.raw")
	tail -n +2 "$TMP/ring.raw" >"$TMP/ring.out"
}

# forks: FORK_NS, the loop's wall ns, iteration i in cgroup i mod N.
forks() {
	local t0 t1
	t0=$EPOCHREALTIME
	taskset -c "$CPU" bash -c 'b=$1 n=$2
		for ((i = 0; i < $3; i++)); do
			(echo "$BASHPID" >"$b/c$((i % n))/cgroup.procs" && exec sh -c "echo x | wc -c") >/dev/null || exit 1
		done' _ "$BASE/n$N" "$N" "$FORKS" </dev/null || { echo "scaling_cost: fork loop failed" >&2; exit 1; }
	t1=$EPOCHREALTIME
	FORK_NS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1e9 }')
}

# task_cpu_ns PID: CPU of all its threads, ns (schedstat: tick-based
# utime + stime is 10 ms coarse here).
task_cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'
}

bpftrace_ready() { logged Attaching && [ "$(perf_fds "$1")" -gt "$NCPU" ]; }

# perf_start PERF...: ready at its first interval's line; started that
# line's timestamp (since the counters were enabled) before. Sets T_READY.
perf_start() {
	local t0=$EPOCHREALTIME line
	spawn "$@" -a -x, -I 1000 --for-each-cgroup "$PERF_CGS" -e "$EVENTS" -o "$TMP/perf.out" 2>"$TMP/col.log"
	until_ready "$SPAWNED" "$1" grep -qs cpu-clock "$TMP/perf.out"
	line=$(grep -m1 cpu-clock "$TMP/perf.out")
	T_READY=$(awk -v t0="$t0" -v now="$EPOCHREALTIME" -v ts="${line%%,*}" 'BEGIN { printf "%.6f", now - ts }')
}

# start_collector CONFIG: CPID (empty for none); START_MS, launch to ready.
start_collector() {
	local t0
	CPID=
	rm -f "$TMP/rec.csv" "$TMP/perf.out" "$TMP/col.log"
	[ "$1" = none ] && return 0
	t0=$EPOCHREALTIME
	T_READY=
	case $1 in
	defaults) spawn "$BPMC" record -e "$EVENTS" -o "$TMP/rec.csv" 2>"$TMP/col.log" ;;
	sampling) spawn "$BPMC" record --mode sampling -e "$EVENTS" -o "$TMP/rec.csv" 2>"$TMP/col.log" ;;
	perf) perf_start perf stat ;;
	bperf) perf_start "$BPERF" stat --bpf-counters ;;
	bpftrace) spawn bpftrace -e 'tracepoint:sched:sched_switch { @[cgroup] = count(); }' >"$TMP/col.log" 2>&1 ;;
	*) echo "scaling_cost: unknown configuration $1" >&2; exit 1 ;;
	esac
	CPID=$SPAWNED
	case $1 in
	defaults | sampling) until_ready "$CPID" bpmc logged recording ;;
	bpftrace) until_ready "$CPID" bpftrace bpftrace_ready "$CPID" ;;
	esac
	START_MS=$(awk -v a="$t0" -v b="${T_READY:-$EPOCHREALTIME}" 'BEGIN { printf "%.1f", (b - a) * 1e3 }')
	echo "$N $1 $START_MS" >>"$TMP/starts"
	sleep "$SETTLE"
}

# counts CONFIG: "index cpu_clock_ns switches" per cgroup the collector
# counted, from its output.
counts() {
	case $1 in
	defaults | sampling)
		awk -F, -v base="/$NAME/n$N/c" '
			{ gsub(/"/, "") }
			$4 == "cgroup" && index($6, base) == 1 {
				i = substr($6, length(base) + 1)
				if ($10 == "cpu-clock") c[i] += $11; else if ($10 == "context-switches") s[i] += $11; seen[i] = 1 }
			END { for (i in seen) printf "%d %.0f %.0f\n", i, c[i], s[i] }' "$TMP/rec.csv" ;;
	perf | bperf)
		awk -F, -v base="$NAME/n$N/c" '
			$5 != "" && index($5, base) == 1 && $2 ~ /^[0-9.]+$/ {
				i = substr($5, length(base) + 1)
				if ($4 == "cpu-clock") c[i] += $2 * 1e6; else if ($4 == "context-switches") s[i] += $2; seen[i] = 1 }
			END { for (i in seen) printf "%d %.0f %.0f\n", i, c[i], s[i] }' "$TMP/perf.out" ;;
	bpftrace)
		awk 'NR == FNR { idx[$1] = $2; next }
			match($0, /^@\[[0-9]+\]: [0-9]+/) { split($0, a, /[^0-9]+/); if (a[2] in idx) printf "%d - %s\n", idx[a[2]], a[3] }' \
			"$TMP/inodes" "$TMP/col.log" ;;
	esac
}

# mem PID: "fds rss_kib lck_kib memlock_kib": perf_event fds, VmRSS, VmLck,
# and the memlock of its BPF maps (fdinfo, each map once).
mem() {
	local fds rss lck ml
	fds=$(perf_fds "$1")
	read -r rss lck < <(awk '/^VmRSS:/ { r = $2 } /^VmLck:/ { l = $2 } END { print r + 0, l + 0 }' "/proc/$1/status")
	ml=$(grep -H -E '^(map_id|memlock):' /proc/"$1"/fdinfo/* 2>/dev/null | awk -F: '
		$2 == "memlock" { m[$1] = $3 } $2 == "map_id" { id[$1] = $3 + 0 }
		END { for (f in id) if (!(id[f] in seen)) { seen[id[f]] = 1; s += m[f] } printf "%.0f", s / 1024 }')
	echo "$fds $rss $lck ${ml:-0}"
}

start=$(date +%s)
: >"$TMP/pairs"
: >"$TMP/starts"
: >"$TMP/direct"
n=${#CFG[@]}
for N in $NS; do
	make_cgroups "$N"
	ring
	forks # warm-up, not counted
	echo "  N=$N warm-up: ring $(awk -v t="$RING_NS" 'BEGIN { printf "%.3f", t / 1e9 }') s, forks $(awk -v t="$FORK_NS" 'BEGIN { printf "%.3f", t / 1e9 }') s" >&2
	pairs=$PAIRS
	[ "$N" -ge 1000 ] && [ "$PAIRS_MAX_N" -lt "$pairs" ] && pairs=$PAIRS_MAX_N
	for r in $(seq 0 $((pairs - 1))); do
		for k in $(seq 0 $((n - 1))); do
			c=${CFG[$(((r + k) % n))]}
			ring
			forks
			br=$RING_NS bf=$FORK_NS
			start_collector "$c"
			ring
			forks
			stop_collector
			echo "$N $c $br $RING_NS $bf $FORK_NS" >>"$TMP/pairs"
			awk -v N="$N" -v c="$c" -v r="$((r + 1))" -v br="$br" -v cr="$RING_NS" -v bf="$bf" -v cf="$FORK_NS" 'BEGIN {
				printf "  N=%d round %d %s: ring %.3f -> %.3f s (%+.2f %%), forks %.3f -> %.3f s (%+.2f %%)\n",
					N, r, c, br / 1e9, cr / 1e9, 100 * (cr / br - 1), bf / 1e9, cf / 1e9, 100 * (cf / bf - 1) }' >&2
		done
	done

	# The direct cost, resources and accuracy: a ring run a configuration,
	# BPF run-time statistics on.
	hold_bpf_stats || exit 1
	holder=$SPAWNED
	for c in "${CFG[@]}"; do
		[ "$c" = none ] && continue
		usage_file "$TMP/u0"
		start_collector "$c"
		t_ready=$EPOCHREALTIME
		mine="$(pid_progs "$CPID")"
		read -r _ ns0 < <(prog_stats "$mine")
		cpu0=$(task_cpu_ns "$CPID")
		ring
		cpu1=$(task_cpu_ns "$CPID")
		read -r _ ns1 < <(prog_stats "$mine")
		read -r fds rss lck memlock < <(mem "$CPID")
		usage_file "$TMP/u1"
		sleep 1.1 # the interval holding the ring's end is written
		cpu2=$(task_cpu_ns "$CPID")
		t_stop=$EPOCHREALTIME
		stop_collector
		counts "$c" >"$TMP/counts"
		# Per cgroup: index, usage delta ns, truth switches; then counts.
		paste -d' ' "$TMP/u0" "$TMP/u1" "$TMP/ring.out" | awk '{ print $3, ($2 - $1) * 1000, $5 }' >"$TMP/truth"
		selfcpu=-
		case $c in defaults | sampling)
			selfcpu=$(awk -F, '{ gsub(/"/, "") } $4 == "self" && ($10 == "cpu_user_ns" || $10 == "cpu_system_ns") { s[$1] += $11 }
				END { for (t in s) print s[t] / 1e6 }' "$TMP/rec.csv" | median) ;;
		esac
		awk -v N="$N" -v c="$c" -v ns="$((ns1 - ns0))" -v cpu="$((cpu1 - cpu0))" -v cpu_all="$((cpu2 - cpu0))" \
			-v span="$(awk -v a="$t_ready" -v b="$t_stop" 'BEGIN { print b - a }')" \
			-v fds="$fds" -v rss="$rss" -v lck="$lck" -v ml="$memlock" -v selfcpu="$selfcpu" '
			NR == FNR { use[$1] = $2; truth[$1] = $3; U += $2; T += $3; next }
			{ cc[$1] = $2; sw[$1] = $3 }
			END {
				p = "scaling_" N "_" c "_"
				bpf = ns / 1e6; self = cpu / 1e6; work = U / 1e6 - bpf
				printf "%sbpf_ms %.1f\n%sself_ms %.1f\n", p, bpf, p, self
				printf "%sdirect_pct %.2f\n", p, (work > 0 ? 100 * (bpf + self) / work : 0)
				printf "%sfds %d\n%srss_kib %d\n%slck_kib %d\n%smemlock_kib %d\n", p, fds, p, rss, p, lck, p, ml
				if (c != "bpftrace") {
					printf "%sinterval_cpu_ms %.2f\n", p, cpu_all / 1e6 / (int(span) > 0 ? int(span) : 1)
					if (selfcpu != "-") printf "%sinterval_self_cpu_ms %.2f\n", p, selfcpu
					C = 0; worst = 0
					for (i in use) { C += cc[i]; if (use[i] > 0) { e = 100 * (cc[i] / use[i] - 1); if (e * e > worst * worst) worst = e } }
					printf "%sacc_cpu_pct %.2f\n%sacc_cpu_worst_pct %.2f\n", p, (U > 0 ? 100 * (C / U - 1) : 0), p, worst
				}
				S = 0; worst = 0
				for (i in truth) { S += sw[i]; if (truth[i] > 0) { e = 100 * (sw[i] / truth[i] - 1); if (e * e > worst * worst) worst = e } }
				printf "%sacc_csw_pct %.2f\n%sacc_csw_worst_pct %.2f\n", p, (T > 0 ? 100 * (S / T - 1) : 0), p, worst
			}' "$TMP/truth" "$TMP/counts" | tee -a "$TMP/direct" | tr '\n' ' ' | sed "s/^/  direct N=$N $c: /;s/\$/\n/" >&2
	done
	kill -TERM "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	rm_cgroups "$BASE/n$N"
done

# stats KEY N C COLUMN-BARE COLUMN-CONFIGURED: KEY_pct median, KEY_range.
stats() {
	awk -v N="$2" -v c="$3" -v b="$4" -v x="$5" '$1 == N && $2 == c && $b > 0 { print 100 * ($x / $b - 1) }' "$TMP/pairs" >"$TMP/s"
	[ -s "$TMP/s" ] || return 0
	echo "$1_pct $(median <"$TMP/s" | awk '{ printf "%.2f", $1 }')"
	echo "$1_range $(sort -g "$TMP/s" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f to %.2f", lo, hi }')"
}
for N in $NS; do
	# In ns: median's mean of the middle two prints one decimal.
	awk -v N="$N" '$1 == N { print $3 }' "$TMP/pairs" | median | awk -v N="$N" '{ printf "scaling_%d_bare_ring_s %.3f\n", N, $1 / 1e9 }'
	awk -v N="$N" '$1 == N { print $5 }' "$TMP/pairs" | median | awk -v N="$N" '{ printf "scaling_%d_bare_fork_s %.3f\n", N, $1 / 1e9 }'
	for c in "${CFG[@]}"; do
		stats "scaling_${N}_${c}_ring" "$N" "$c" 3 4
		stats "scaling_${N}_${c}_fork" "$N" "$c" 5 6
		[ "$c" = none ] && continue
		awk -v N="$N" -v c="$c" '$1 == N && $2 == c { print $3 }' "$TMP/starts" | median |
			awk -v p="scaling_${N}_${c}_start_ms" '{ printf "%s %.1f\n", p, $1 }'
	done
done
cat "$TMP/direct"
echo "scaling_ns $NS"
echo "scaling_configs ${CFG[*]}"
echo "scaling_pairs $PAIRS"
echo "scaling_pairs_max_n $PAIRS_MAX_N"
echo "scaling_hops $R"
echo "scaling_forks $FORKS"
echo "scaling_seconds $(($(date +%s) - start))"
