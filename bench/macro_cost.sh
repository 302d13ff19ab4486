#!/usr/bin/env bash
# Case 9: always-on cost on real work. Four workloads, each in cgroups of
# its own under the cgroup2 mount:
#   build     rebuilding bpmc BUILDS times (default 3), each from a clean
#             output folder, from a copy of the source tree taken once
#   pingpong  tests/helpers/pingpong PP_ROUNDS across two cgroups (~3 s)
#   cpu       tests/helpers/spin SPIN, a CPU-bound loop of fixed work (~3 s)
#   fork      FORKS short shell pipelines, `sh -c 'echo x | wc -c'`, as CI
#             hosts run them (~3 s)
# each run under each configuration: none, defaults (`bpmc record -o F`),
# sampling (--mode sampling -e cpu-clock), exact1 (--mode exact -e
# cpu-clock), exact4 (+task-clock,page-faults,context-switches), perf
# (perf stat -a --for-each-cgroup over the workload's cgroups -e
# cpu-clock), bpftrace (profile:hz:997 { @[cgroup, pid, comm] = count() }).
# The collector is ready before the workload starts and is stopped after
# it. ROUNDS rounds; each runs every configuration once per workload, in
# an order rotated per round, as a pair: the workload bare, then under the
# configuration ("none": bare twice, the noise floor). A pair's slowdown
# is configured / bare - 1, of the wall-clock time and of the cgroups'
# cpu.stat usage_usec; the medians and min-max over the pairs.
# Knobs: ROUNDS, BUILDS, PP_ROUNDS, SPIN, FORKS, SETTLE (s between the
# collector's readiness and the workload), and WORKLOADS / CONFIGS (lists,
# to run a subset while developing).
# Defaults: ROUNDS=3 rounds of the ~2 s workloads (pingpong, cpu, fork:
# medians of 3 pairs) and BUILD_ROUNDS=1 of the build (a build pair is
# ~40 s here): about 12 minutes on a 2-vCPU VM.
. "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-3}
BUILD_ROUNDS=${BUILD_ROUNDS:-1}
BUILDS=${BUILDS:-3}
PP_ROUNDS=${PP_ROUNDS:-250000}
SPIN=${SPIN:-750000000}
FORKS=${FORKS:-1200}
SETTLE=${SETTLE:-0.5}
WORKLOADS=${WORKLOADS:-build pingpong cpu fork}
PP_CPU=${PP_CPU:-$(($(nproc) - 1))}
CONFIGS=${CONFIGS:-none defaults sampling exact1 exact4 perf bpftrace}
NCPU=$(nproc)
read -ra CFG <<<"$CONFIGS"

CG2=$(cgroup2_mount)
[ -n "$CG2" ] || { echo "macro_cost: no cgroup2 mount" >&2; exit 1; }
NAME=bpmc-macro-$$
BASE=$CG2/$NAME

macro_cleanup() {
	bench_cleanup
	rm_cgroups "$BASE"
}
trap macro_cleanup EXIT
trap 'echo "macro_cost: interrupted" >&2; exit 1' INT TERM

mkdir -p "$BASE/build" "$BASE/pp-a" "$BASE/pp-b" "$BASE/cpu" "$BASE/fork"

warn_other_collectors

# A fixed copy of the source tree, taken once.
SRC=$TMP/src
mkdir -p "$SRC"
if ! git -C "$ROOT" archive HEAD 2>/dev/null | tar -x -C "$SRC" 2>/dev/null; then
	rm -rf "$SRC" && mkdir -p "$SRC"
	cp -a "$ROOT/Makefile" "$ROOT/user" "$ROOT/bpf" "$ROOT/include" "$ROOT/vmlinux" "$ROOT/scripts" "$SRC"/
fi

cgroups_of() {
	case $1 in
	pingpong) echo "pp-a pp-b" ;;
	*) echo "$1" ;;
	esac
}

# usage W: usage_usec summed over W's cgroups.
usage() {
	local c s=0 u
	for c in $(cgroups_of "$1"); do
		u=$(awk '$1 == "usage_usec" { print $2 }' "$BASE/$c/cpu.stat")
		s=$((s + u))
	done
	echo "$s"
}

w_build() {
	local i
	for i in $(seq "$BUILDS"); do
		make -C "$SRC" -s -j"$NCPU" OUTPUT="$TMP/out$i" BPMC_BIN="$TMP/out$i/bpmc" "$TMP/out$i/bpmc" >/dev/null || return 1
	done
}

w_fork() {
	local i
	for i in $(seq "$FORKS"); do
		sh -c 'echo x | wc -c' >/dev/null || return 1
	done
}

# run_workload W: sets WALL (s) and USAGE (s of CPU). In the background
# and waited for, so that INT and TERM are handled at once.
run_workload() {
	local u0 u1 t0 t1 pid
	rm -rf "$TMP"/out?*
	u0=$(usage "$1")
	t0=$EPOCHREALTIME
	case $1 in
	build) (echo "$BASHPID" >"$BASE/build/cgroup.procs" && w_build) </dev/null & ;;
	# On one CPU, as in switch_cost.sh: unpinned, the VM made it
	# bimodal (0.6 or 14 s a run, by where the scheduler put the pair).
	pingpong) taskset -c "$PP_CPU" "$HELPERS/pingpong" "$PP_ROUNDS" "$BASE/pp-a" "$BASE/pp-b" >/dev/null </dev/null & ;;
	cpu) (echo "$BASHPID" >"$BASE/cpu/cgroup.procs" && exec "$HELPERS/spin" "$SPIN" >/dev/null) </dev/null & ;;
	fork) (echo "$BASHPID" >"$BASE/fork/cgroup.procs" && w_fork) </dev/null & ;;
	esac
	pid=$!
	PIDS+=("$pid")
	wait "$pid" || { echo "macro_cost: workload $1 failed" >&2; exit 1; }
	t1=$EPOCHREALTIME
	u1=$(usage "$1")
	WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
	USAGE=$(awk -v a="$u0" -v b="$u1" 'BEGIN { printf "%.6f", (b - a) / 1e6 }')
	rm -rf "$TMP"/out?*
}

fds_at_least() { [ "$(perf_fds "$1")" -ge "$2" ]; }

# start_collector CONFIG W: sets CPID (empty for none).
start_collector() {
	local cgs="" c
	CPID=
	rm -f "$TMP/rec.csv"
	case $1 in
	none) return 0 ;;
	defaults) spawn "$BPMC" record -o "$TMP/rec.csv" 2>"$TMP/col.log" ;;
	sampling) spawn "$BPMC" record --mode sampling -e cpu-clock -o "$TMP/rec.csv" 2>"$TMP/col.log" ;;
	exact1) spawn "$BPMC" record --mode exact -e cpu-clock -o "$TMP/rec.csv" 2>"$TMP/col.log" ;;
	exact4) spawn "$BPMC" record --mode exact -e cpu-clock,task-clock,page-faults,context-switches -o "$TMP/rec.csv" 2>"$TMP/col.log" ;;
	perf)
		for c in $(cgroups_of "$2"); do cgs="$cgs${cgs:+,}$NAME/$c"; done
		spawn perf stat -a --for-each-cgroup "$cgs" -e cpu-clock -o "$TMP/perf.out" 2>"$TMP/col.log" ;;
	bpftrace) spawn bpftrace -e 'profile:hz:997 { @[cgroup, pid, comm] = count(); }' >"$TMP/col.log" 2>&1 ;;
	*) echo "macro_cost: unknown configuration $1" >&2; exit 1 ;;
	esac
	CPID=$SPAWNED
	case $1 in
	perf) until_ready "$CPID" perf fds_at_least "$CPID" $((NCPU * $(cgroups_of "$2" | wc -w))) ;;
	bpftrace) until_ready "$CPID" bpftrace logged Attaching
		until_ready "$CPID" bpftrace fds_at_least "$CPID" "$NCPU" ;;
	*) until_ready "$CPID" bpmc logged recording ;;
	esac
	sleep "$SETTLE"
}

start=$(date +%s)
for w in $WORKLOADS; do # warm-up, not counted
	run_workload "$w"
	echo "  warm-up $w: $WALL s, $USAGE s CPU" >&2
done
: >"$TMP/pairs"
n=${#CFG[@]}
for r in $(seq 0 $((ROUNDS - 1))); do
	for w in $WORKLOADS; do
		# Builds take ~20 s a run: BUILD_ROUNDS of them, the rest ROUNDS.
		[ "$w" = build ] && [ "$r" -ge "$BUILD_ROUNDS" ] && continue
		for k in $(seq 0 $((n - 1))); do
			c=${CFG[$(((r + k) % n))]}
			run_workload "$w"
			bw=$WALL bu=$USAGE
			start_collector "$c" "$w"
			run_workload "$w"
			stop_collector
			echo "$w $c $bw $WALL $bu $USAGE" >>"$TMP/pairs"
			awk -v w="$w" -v c="$c" -v r="$((r + 1))" -v bw="$bw" -v cw="$WALL" -v bu="$bu" -v cu="$USAGE" 'BEGIN {
				printf "  round %d %s %s: bare %.3f s, %.3f s CPU; configured %.3f s, %.3f s CPU: %+.2f %%, CPU %+.2f %%\n",
					r, w, c, bw, bu, cw, cu, 100 * (cw / bw - 1), 100 * (cu / bu - 1) }' >&2
		done
	done
done

# What each bpmc configuration costs directly, which the pairs' wall
# clock cannot resolve below a few per cent on this VM (bare against
# bare moves by as much): once per workload and configuration, with BPF
# run-time statistics on, the run time of the collector's programs (they
# run on the workload's CPUs, in its time) and the collector's own CPU
# (utime + stime), over the workload's cgroups' CPU without them. A floor
# for sampling, whose timer interrupts (a hypervisor exit each, here)
# cost outside any program; all of it but cache effects for exact mode.
# DIRECT=0 skips it.
proc_cpu_ms() { # PID: utime + stime in ms
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.3f", ($12 + $13) * 1000 / hz }' "/proc/$1/stat"
}
if [ "${DIRECT:-1}" = 1 ]; then
	hold_bpf_stats || exit 1
	for w in $WORKLOADS; do
		for c in "${CFG[@]}"; do
			case $c in defaults | sampling | exact1 | exact4) ;; *) continue ;; esac
			start_collector "$c" "$w"
			mine="$(pid_progs "$CPID")"
			read -r _ ns0 < <(prog_stats "$mine")
			self0=$(proc_cpu_ms "$CPID")
			run_workload "$w"
			read -r _ ns1 < <(prog_stats "$mine")
			self1=$(proc_cpu_ms "$CPID")
			stop_collector
			awk -v w="$w" -v c="$c" -v ns="$((ns1 - ns0))" -v s0="$self0" -v s1="$self1" -v u="$USAGE" 'BEGIN {
				bpf = ns / 1e6; self = s1 - s0; work = u * 1000 - bpf
				printf "macro_%s_%s_bpf_ms %.1f\n", w, c, bpf
				printf "macro_%s_%s_self_ms %.1f\n", w, c, self
				printf "macro_%s_%s_direct_pct %.2f\n", w, c, (work > 0 ? 100 * (bpf + self) / work : 0) }' |
				tee -a "$TMP/direct" | tr '\n' ' ' | sed "s/^/  direct $w $c: /;s/\$/\n/" >&2
		done
	done
	end_children
fi

# stats KEY W C COLUMN-BARE COLUMN-CONFIGURED: KEY median, KEY_range min-max.
stats() {
	awk -v w="$2" -v c="$3" -v b="$4" -v x="$5" '$1 == w && $2 == c && $b > 0 { print 100 * ($x / $b - 1) }' "$TMP/pairs" >"$TMP/s"
	[ -s "$TMP/s" ] || return 0
	echo "$1_pct $(median <"$TMP/s" | awk '{ printf "%.2f", $1 }')"
	echo "$1_range $(sort -g "$TMP/s" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }')"
}
for w in $WORKLOADS; do
	awk -v w="$w" '$1 == w { print $3 }' "$TMP/pairs" | median | awk -v w="$w" '{ printf "macro_%s_bare_s %.3f\n", w, $1 }'
	awk -v w="$w" '$1 == w { print $5 }' "$TMP/pairs" | median | awk -v w="$w" '{ printf "macro_%s_bare_cpu_s %.3f\n", w, $1 }'
	for c in "${CFG[@]}"; do
		stats "macro_${w}_$c" "$w" "$c" 3 4
		stats "macro_${w}_${c}_usage" "$w" "$c" 5 6
	done
done
[ -s "$TMP/direct" ] && cat "$TMP/direct"
echo "macro_rounds $ROUNDS"
echo "macro_build_rounds $BUILD_ROUNDS"
echo "macro_build_builds $BUILDS"
echo "macro_pingpong_rounds $PP_ROUNDS"
echo "macro_cpu_spin $SPIN"
echo "macro_fork_forks $FORKS"
echo "macro_seconds $(($(date +%s) - start))"
