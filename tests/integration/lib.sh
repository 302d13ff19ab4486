# Shared by the integration tests: sourced, never run.
# Convention (perf's shell tests): exit 0 pass, 1 fail, 2 skip.
# Everything a test creates is registered here and removed by the EXIT
# trap, whether the test passes, fails or is interrupted.

set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# tests/run and `make test` set these; `make test SANITIZE=1` to build-san/.
BPMC="${BPMC_BIN:-$ROOT/bpmc}"
HELPERS="${BPMC_BUILD:-$ROOT/build}/tests"
HELPERS_PY="$ROOT/tests/helpers"
TMP=$(mktemp -d /tmp/bpmc-test.XXXXXX)
CG2=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") print $5; break } }' /proc/self/mountinfo | head -1)
. "$ROOT/scripts/children.sh"
CGROUPS=()
ATEXIT=()
FAILED=0

cleanup() {
	local pid cg i
	for i in "${ATEXIT[@]}"; do
		eval "$i"
	done
	end_children
	# Deepest first: a parent cannot go before its children.
	for ((i = ${#CGROUPS[@]} - 1; i >= 0; i--)); do
		cg=${CGROUPS[i]}
		[ -d "$cg" ] || continue
		# Move stragglers we started to the root so rmdir can succeed.
		while read -r pid; do
			for mine in "${PIDS[@]}"; do
				[ "$pid" = "$mine" ] && echo "$pid" > "$CG2/cgroup.procs" 2>/dev/null
			done
		done < "$cg/cgroup.procs"
		rmdir "$cg" 2>/dev/null || echo "  warning: could not remove $cg" >&2
	done
	if [ "$FAILED" = 1 ] && [ -n "${KEEP_FAILED:-}" ]; then echo "  kept $TMP" >&2; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
	echo "  FAIL: $*"
	FAILED=1
}

skip() {
	echo "  SKIP: $*"
	exit 2
}

pass_or_fail() {
	exit "$FAILED"
}

# mk_cgroup VAR REL: creates $CG2/REL (parents too), registers each new
# directory for removal and sets VAR to the path. Not for $(...): the
# registration must happen in this shell.
mk_cgroup() {
	local var=$1 rel=$2 path=$CG2 part
	local IFS=/
	for part in $rel; do
		[ -n "$part" ] || continue
		path="$path/$part"
		if [ ! -d "$path" ]; then
			mkdir "$path" || return 1
			CGROUPS+=("$path")
		fi
	done
	printf -v "$var" '%s' "$path"
}

# mk_memcg VAR LIMIT: a memory cgroup limited to LIMIT bytes, removed at
# exit, its directory in VAR (its cgroup.procs takes a task): under the
# cgroup2 mount where the memory controller is there, else in the v1
# memory hierarchy of a hybrid host. Not for $(...), like mk_cgroup.
mk_memcg() {
	local var=$1 limit=$2 v1
	if grep -qw memory "$CG2/cgroup.controllers" 2>/dev/null; then
		mk_cgroup "$var" "bpmc-test-$$/mem" || return 1
		grep -qw memory "$CG2/cgroup.subtree_control" ||
			echo +memory >"$CG2/cgroup.subtree_control" || return 1
		echo +memory >"$CG2/bpmc-test-$$/cgroup.subtree_control" &&
			echo "$limit" >"${!var}/memory.max"
		return
	fi
	v1=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup" && $(i + 3) ~ /(^|,)memory(,|$)/) print $5; break } }' /proc/self/mountinfo | head -1)
	[ -n "$v1" ] && mkdir "$v1/bpmc-test-$$" || return 1
	ATEXIT+=("rmdir '$v1/bpmc-test-$$'")
	printf -v "$var" '%s' "$v1/bpmc-test-$$"
	echo "$limit" >"$v1/bpmc-test-$$/memory.limit_in_bytes"
}

# spawn_in CGROUP_PATH CMD...: starts CMD inside the cgroup; sets SPAWNED.
# The child moves itself before exec, so CMD never runs outside.
spawn_in() {
	local cg=$1
	shift
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$cg" "$@" &
	SPAWNED=$!
	PIDS+=("$SPAWNED")
}


# start_record LOG ARGS...: starts bpmc record and waits until it counts.
start_record() {
	local log=$1
	shift
	spawn "$BPMC" record "$@" 2>"$log"
	RECORD_PID=$SPAWNED
	wait_recording "$log" "$RECORD_PID"
}

# wait_recording LOG PID: until bpmc says it records (after any drop).
wait_recording() {
	local i
	for i in $(seq 100); do
		grep -q "recording" "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	echo "  bpmc record did not start:" >&2
	cat "$1" >&2
	return 1
}

usage_usec() {
	awk '$1 == "usage_usec" { print $2 }' "$1/cpu.stat"
}

cgroup_id() {
	stat -c %i "$1"
}

# csv_awk [-v NAME=VALUE]... PROGRAM FILE...: awk over bpmc CSV files
# (plain or .gz), PROGRAM reading columns by header name, never by
# position (the schema only promises the names):
# $col("scope") == "cgroup" { s += $col("count") }. The files are read by
# a strict RFC 4180 reader first (tests/helpers/csv_fields.py), so quoted
# fields with commas or newlines are one field, and a torn row fails the
# test: exit 2 and a message. Each file's header sets the names and is
# skipped; a name the header lacks stops awk with exit 2 and a message.
csv_awk() {
	local opts=() f n=0 split=()
	while [ "${1:-}" = -v ]; do
		opts+=(-v "$2")
		shift 2
	done
	for f in "${@:2}"; do
		n=$((n + 1))
		python3 "$ROOT/tests/helpers/csv_fields.py" "$f" >"$TMP/.csv_awk.$n" ||
			{ echo "csv_awk: $f is not valid CSV" >&2; return 2; }
		split+=("$TMP/.csv_awk.$n")
	done
	awk -F '\037' "${opts[@]}" '
		function col(name) {
			if (name in _csv_col) return _csv_col[name]
			printf "csv_awk: no column \"%s\" in %s\n", name, FILENAME > "/dev/stderr"
			_csv_err = 1
			exit 2
		}
		FNR == 1 { delete _csv_col; for (_csv_i = 1; _csv_i <= NF; _csv_i++) _csv_col[$_csv_i] = _csv_i; next }
		END { if (_csv_err) exit 2 }
		'"$1" "${split[@]}"
}

# csv_sum FILE SCOPE EVENT FIELD VALUE: sums `count` over rows whose
# column FIELD (a header name) equals VALUE.
csv_sum() {
	csv_awk -v scope="$2" -v event="$3" -v field="$4" -v value="$5" '
		$col(field) == value && $col("scope") == scope && $col("event") == event { s += $col("count") }
		END { printf "%.0f\n", s }' "$1"
}

# check_conservation CSV LABEL: independently of --check, each interval's
# cgroup rows, and process rows, against its system row, per event (only
# events with system rows: meta rows carry keys in event too). Prints the
# worst interval per event and scope; false if one is above 0.1 %.
check_conservation() {
	csv_awk -v label="$2" '{ k = $col("time") SUBSEP $col("event"); s = $col("scope")
		if (s == "system") { sys[k] = $col("count"); ev[$col("event")] = 1 }
		else sum[k, s] += $col("count") }
		END {
		for (k in sys) for (si = 1; si <= 2; si++) {
			s = si == 1 ? "cgroup" : "process"
			d = sum[k, s] - sys[k]; if (d < 0) d = -d
			split(k, kk, SUBSEP)
			p = sys[k] ? 100 * d / sys[k] : 0
			if (p > worst[kk[2], s]) worst[kk[2], s] = p
		}
		bad = 0
		for (e in ev) for (si = 1; si <= 2; si++) {
			s = si == 1 ? "cgroup" : "process"
			printf "  %s%s %s rows: worst interval %.4f %% off the system row\n", label, e, s, worst[e, s]
			if (worst[e, s] > 0.1) bad = 1
		}
		exit bad }' "$1"
}

# within A B PCT: true when A is within PCT percent of B.
within() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN {
		d = a - b; if (d < 0) d = -d
		exit !(b > 0 && d * 100 <= p * b) }'
}

# lost_ns: the ns all CPUs lost to steal, irq and softirq since boot, by
# /proc/stat. cpu-clock counts that time to the task it interrupted;
# cgroup usage_usec does not (its clock skips steal and irq time), so a
# host under steal makes cpu-clock read high by up to this much.
lost_ns() {
	awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%.0f\n", ($7 + $8 + $9) * 1e9 / hz; exit }' /proc/stat
}
LOST_MARK=$(lost_ns)
# lost_mark: where check_usage's window of lost time starts (the test's
# start unless a test marks its own).
lost_mark() { LOST_MARK=$(lost_ns); }

# check_usage CSV CGROUP_PATH USED_NS PCT: the cgroup's cpu-clock rows
# against the ns the kernel's cpu.stat says it used: not below it by more
# than PCT, nor above it by more than PCT plus the host's lost time since
# lost_mark (and a tick of /proc/stat's resolution per CPU).
check_usage() {
	local got err lost
	got=$(csv_sum "$1" cgroup cpu-clock cgroup_id "$(cgroup_id "$2")")
	lost=$(($(lost_ns) - LOST_MARK + $(nproc) * 1000000000 / $(getconf CLK_TCK)))
	err=$(awk -v a="$got" -v b="$3" 'BEGIN { printf "%+.3f", b ? 100 * (a - b) / b : 0 }')
	echo "  ${2#$CG2}: bpmc $got ns, cpu.stat usage_usec $3 ns ($err %); the host lost $((lost / 1000000)) ms to steal and irqs"
	awk -v a="$got" -v b="$3" -v p="$4" -v l="$lost" 'BEGIN {
		d = a - b; slack = p * b / 100
		exit !(b > 0 && d >= -slack && d <= slack + l) }' ||
		fail "${2#$CG2}: $got ns vs $3 ns in cpu.stat (below by over $4 %, or above by over $4 % + $((lost / 1000000)) ms lost)"
}

# start_two_burners REL_A DUTY_A REL_B DUTY_B SECONDS: makes the cgroups
# $CG2/REL_A and $CG2/REL_B (registered; ones that exist are reused),
# notes their usage_usec and starts `burner DUTY SECONDS` in each
# (registered). Sets BURN_CG_A, BURN_CG_B (the paths) and BURN_PID_A,
# BURN_PID_B. Not for $(...), like mk_cgroup.
start_two_burners() {
	mk_cgroup BURN_CG_A "$1" || return 1
	mk_cgroup BURN_CG_B "$3" || return 1
	BURN_USEC_A=$(usage_usec "$BURN_CG_A") BURN_USEC_B=$(usage_usec "$BURN_CG_B")
	lost_mark
	spawn_in "$BURN_CG_A" "$HELPERS/burner" "$2" "$5"
	BURN_PID_A=$SPAWNED
	spawn_in "$BURN_CG_B" "$HELPERS/burner" "$4" "$5"
	BURN_PID_B=$SPAWNED
}

# wait_two_burners: waits for start_two_burners' burners; sets BURN_NS_A
# and BURN_NS_B, the ns each cgroup used meanwhile by its cpu.stat.
wait_two_burners() {
	wait "$BURN_PID_A" "$BURN_PID_B"
	BURN_NS_A=$((($(usage_usec "$BURN_CG_A") - BURN_USEC_A) * 1000))
	BURN_NS_B=$((($(usage_usec "$BURN_CG_B") - BURN_USEC_B) * 1000))
}

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	[ -n "$CG2" ] || skip "no cgroup2 mount in /proc/self/mountinfo"
}

# need_duckdb: DuckDB's node client, installed once under build/node
# (npm registry), or the test skips; sets NODE_DIR.
need_duckdb() {
	command -v node >/dev/null || skip "node is not installed"
	NODE_DIR=$ROOT/build/node
	if [ ! -d "$NODE_DIR/node_modules/@duckdb/node-api" ]; then
		mkdir -p "$NODE_DIR" && (cd "$NODE_DIR" && npm install --silent @duckdb/node-api >/dev/null 2>&1) ||
			skip "cannot install @duckdb/node-api from npm"
	fi
}

# need_postgres: Debian's PostgreSQL server, installed if missing, or the
# test skips; sets PGBIN to its newest version's bin/.
need_postgres() {
	if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null 2>&1 ||
			skip "cannot install postgresql"
	fi
	PGBIN=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")
}
