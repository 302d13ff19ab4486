# Shared by the benchmarks: sourced. Every process started here is ended
# by PID in the EXIT trap.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BPMC="$ROOT/bpmc"
HELPERS="$ROOT/build/tests"
TMP=$(mktemp -d /tmp/bpmc-bench.XXXXXX)
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
