# Shared by the benchmarks: sourced. Every process started here is ended
# by PID in the EXIT trap.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BPMC="$ROOT/bpmc"
HELPERS="$ROOT/build/tests"
TMP=$(mktemp -d /tmp/bpmc-bench.XXXXXX)
# The case's name, for its messages.
BENCH=$(basename "$0" .sh)
. "$ROOT/scripts/children.sh"

bench_cleanup() {
	end_children
	rm -rf "$TMP"
}
trap bench_cleanup EXIT
trap 'exit 1' INT TERM

# Run-time statistics stay on while this holder lives.
hold_bpf_stats() {
	spawn "$HELPERS/bpfstats" hold >"$TMP/stats-hold"
	for _ in $(seq 50); do
		grep -q ready "$TMP/stats-hold" && return 0
		sleep 0.1
	done
	echo "bench: cannot enable BPF run-time statistics" >&2
	return 1
}

# prog_stats AWK-FILTER: "run_cnt run_time_ns" summed over matching progs.
# Fields: $1 id, $2 type (7 = perf_event), $3 name, $4 cnt, $5 ns.
prog_stats() {
	"$HELPERS/bpfstats" show | awk "$1"' { c += $4; t += $5 } END { printf "%.0f %.0f\n", c, t }'
}

# pid_progs PID: an awk condition, true for the programs PID holds (its
# fds' and links' prog_id): the machine may run other bpmc instances,
# whose programs have the same names.
pid_progs() {
	local ids
	ids=$(awk '/^prog_id:/ { printf ",%s", $2 }' /proc/"$1"/fdinfo/* 2>/dev/null)
	echo "index(\"$ids,\", \",\" \$1 \",\")"
}

# wait_prog AWK-FILTER: until a matching program exists (tools load late).
wait_prog() {
	for _ in $(seq 150); do
		[ "$(prog_stats "$1" | cut -d' ' -f1)" != 0 ] && return 0
		sleep 0.1
	done
	return 1
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.10g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# burn_all_cpus SECONDS: one 100 % burner per CPU.
burn_all_cpus() {
	for _ in $(seq "$(nproc)"); do
		spawn "$HELPERS/burner" 100 "$1"
	done
}

# cgroup2_mount: where cgroup v2 is mounted (hybrid hosts have it under
# another name), from mountinfo; empty if nowhere.
cgroup2_mount() {
	awk '{ for (i = 1; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") print $5; break } }' /proc/self/mountinfo | head -1
}

# rm_cgroups DIR: kills what runs in DIR's children and grandchildren
# (cgroup.kill, else one by one), then removes them and DIR once empty.
rm_cgroups() {
	local d p
	[ -d "$1" ] || return 0
	for d in "$1"/*/ "$1"/*/*/; do
		[ -d "$d" ] || continue
		if [ -e "$d/cgroup.kill" ]; then
			echo 1 >"$d/cgroup.kill" 2>/dev/null
		else
			while read -r p; do kill -KILL "$p" 2>/dev/null; done <"$d/cgroup.procs"
		fi
	done
	for d in "$1"/*/*/ "$1"/*/ "$1"; do
		[ -d "$d" ] || continue
		for _ in $(seq 100); do
			rmdir "$d" 2>/dev/null && break
			[ -d "$d" ] || break
			sleep 0.05
		done
		[ -d "$d" ] && echo "$BENCH: could not remove $d" >&2
	done
	return 0
}

# warn_other_collectors: others' collectors would skew every figure.
warn_other_collectors() {
	local others
	others=$(for p in bpmc bpftrace perf; do pgrep -x "$p"; done | tr '\n' ' ')
	[ -n "$others" ] && echo "$BENCH: warning: other collectors run meanwhile (pids $others)" >&2
	return 0
}

# perf_fds PID: its perf_event fds.
perf_fds() {
	find "/proc/$1/fd" -lname 'anon_inode:\[perf_event\]' 2>/dev/null | wc -l
}

# The collector a case started (CPID) logs to $TMP/col.log.
logged() { grep -q "$1" "$TMP/col.log"; }

# until_ready PID WHAT TEST...: waits (60 s at most) for TEST to hold while
# PID lives; else says so, with the collector's log, and exits.
until_ready() {
	local pid=$1 what=$2
	shift 2
	for _ in $(seq 3000); do
		"$@" && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.02
	done
	echo "$BENCH: $what did not start: $(tail -n 3 "$TMP/col.log" 2>/dev/null)" >&2
	exit 1
}

# stop_collector: ends CPID (SIGINT: it writes its output) and waits.
stop_collector() {
	[ -n "${CPID:-}" ] || return 0
	kill -INT "$CPID" 2>/dev/null
	wait "$CPID" 2>/dev/null
	CPID=
}
