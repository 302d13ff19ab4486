# Shared by the hardware suite (tests/hw/test_*.sh): sourced, never run.
# The suite runs unchanged inside the arm64 guest (scripts/vm-run, where
# BPMC and HELPERS come from the environment and there is no python3) and
# on any host with a hardware PMU (`make test-hw`); on a host without one
# each test skips with the reason. tests/integration/lib.sh does the rest:
# registered processes and cgroups, removed at exit; fail, skip,
# pass_or_fail, within.

# The guest's harness names the binary and the helpers; the runner here
# names them through BPMC_BIN and BPMC_BUILD, which lib.sh reads.
_hw_bpmc=${BPMC:-} _hw_helpers=${HELPERS:-}
# A root extracted from Debian's packages has gawk but not the awk of
# its alternatives, nor always getconf (lib.sh needs CLK_TCK).
command -v awk >/dev/null 2>&1 || awk() { gawk "$@"; }
command -v getconf >/dev/null 2>&1 || getconf() { [ "$1" = CLK_TCK ] && echo 100; }
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"
[ -z "${BPMC_BIN:-}" ] && [ -n "$_hw_bpmc" ] && BPMC=$_hw_bpmc
[ -z "${BPMC_BUILD:-}" ] && [ -n "$_hw_helpers" ] && HELPERS=$_hw_helpers
unset _hw_bpmc _hw_helpers

# csv_awk without python3 (the guest has none): gawk splits each record
# by FPAT, RFC 4180's fields (bpmc writes no newline inside a field:
# escape.h makes it \x0a), and unquotes them before PROGRAM sees them.
# Same contract as lib.sh's: PROGRAM reads columns by header name with
# $col("name"); a name the header lacks stops it with exit 2.
if ! command -v python3 >/dev/null 2>&1; then
	csv_awk() {
		local opts=() f files=()
		while [ "${1:-}" = -v ]; do
			opts+=(-v "$2")
			shift 2
		done
		for f in "${@:2}"; do
			case $f in
			*.gz) zcat "$f" >"$TMP/.csv_awk.${#files[@]}" || return 2
				files+=("$TMP/.csv_awk.${#files[@]}") ;;
			*) files+=("$f") ;;
			esac
		done
		gawk -v FPAT='([^,]*)|("([^"]|"")*")' "${opts[@]}" '
			function col(name) {
				if (name in _csv_col) return _csv_col[name]
				printf "csv_awk: no column \"%s\" in %s\n", name, FILENAME > "/dev/stderr"
				_csv_err = 1
				exit 2
			}
			{ for (_csv_i = 1; _csv_i <= NF; _csv_i++)
				if (substr($_csv_i, 1, 1) == "\"") {
					_csv_f = substr($_csv_i, 2, length($_csv_i) - 2)
					gsub(/""/, "\"", _csv_f)
					$_csv_i = _csv_f
				} }
			FNR == 1 { delete _csv_col; for (_csv_i = 1; _csv_i <= NF; _csv_i++) _csv_col[$_csv_i] = _csv_i; next }
			END { if (_csv_err) exit 2 }
			'"$1" "${files[@]}"
	}
fi

# need_hw_pmu: skips unless this host counts hardware cycles and
# instructions (the kernel's own answer, through bpmc's encoder).
need_hw_pmu() {
	need_root
	local out
	out=$("$BPMC" encode --count cycles,instructions 2>&1) ||
		skip "no hardware PMU on this host: $(echo "$out" | grep -m1 'not counted' | sed 's/^ *//')"
}

# need_perf: Debian's linux-perf, the peer the counts are compared with.
need_perf() {
	perf stat -e instructions:u -- true >/dev/null 2>&1 ||
		skip "perf (Debian's linux-perf) cannot count instructions:u here: $(perf stat -e instructions:u -- true 2>&1 | tail -1)"
}

# INSN_PER_ITER: the user instructions one insnloop iteration retires
# where that is exact (2 on arm64), 0 where only perf can say.
INSN_PER_ITER=$("$HELPERS/insnloop" -i 2>/dev/null || echo 0)

# PMU interrupts so far, all CPUs: the arm PMU's line of /proc/interrupts
# (arm-pmu), or x86's PMI line. Empty where neither is there.
pmu_irqs() {
	awk '/arm-pmu|armv8_pmu|PMI:/ { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; t += s; n++ }
		END { if (n) print t }' /proc/interrupts
}

# perf_cgroup_count FILE EVENT CGROUP_REL: the count `perf stat -x,` wrote
# for EVENT in cgroup CGROUP_REL (relative to the cgroup2 mount, as -G
# takes it); empty if none.
perf_cgroup_count() {
	awk -F, -v ev="$2" -v cg="$3" '$3 == ev && ($4 == cg || $4 == "/" cg) { print $1; exit }' "$1"
}

# stop_record: SIGINT to the recorder started with start_record, waits;
# false (and the log on stdout) if it failed.
stop_record() {
	kill -INT "$RECORD_PID" 2>/dev/null
	wait "$RECORD_PID"
	local rc=$?
	[ "$rc" -eq 0 ] || { echo "  bpmc record exited $rc:"; sed 's/^/    /' "$1"; return 1; }
}

# pct_off A B: A's distance from B in percent, signed, 4 places.
pct_off() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.4f", b ? 100 * (a - b) / b : 0 }'
}

# hold_sample_rate: kernel.perf_event_max_sample_rate back at the
# kernel's default (100000) and kept there (perf_cpu_time_max_percent 0:
# the kernel stops lowering it), both restored at exit. In the emulator
# a PMU interrupt takes some 30 us of virtual time (each instruction a
# ns), so the kernel lowers the limit to 3000/s within the first second
# of sampling ("perf: interrupt took too long"), and bpmc then refuses
# any period shorter than 2 x 10^6 cycles: too few samples for the
# tolerances here. Sets RATE.
hold_sample_rate() {
	local rate pct
	read -r rate </proc/sys/kernel/perf_event_max_sample_rate || return 1
	read -r pct </proc/sys/kernel/perf_cpu_time_max_percent || return 1
	ATEXIT+=("echo $pct >/proc/sys/kernel/perf_cpu_time_max_percent; echo $rate >/proc/sys/kernel/perf_event_max_sample_rate")
	# The rate first: the kernel refuses it while the limit is off.
	echo 100000 >/proc/sys/kernel/perf_event_max_sample_rate &&
		echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent || return 1
	RATE=100000
}
