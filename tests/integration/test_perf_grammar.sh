#!/usr/bin/env bash
# perf's own event-grammar expectations (tests/data/perf_parse_events.tsv,
# from tools/perf/tests/parse-events.c and pmu.c) through `bpmc encode` on
# the fixture Intel sysfs tree, then perf's all-aliases loop over that
# tree, then the same grammar against this kernel: a tracepoint's id from
# the real tracefs and its count against the syscalls the workload makes,
# and the software events opened for real. A breakpoint counted for real
# is test_breakpoint's (the machine may not deliver one).
. "$(dirname "$0")/lib.sh"

FIX=$ROOT/tests/fixtures
DATA=$ROOT/tests/data/perf_parse_events.tsv

# norm VALUE: hex without leading zeros, so 0x0400 == 0x400.
norm() {
	local v=${1,,}
	if [[ $v =~ ^0x0*([0-9a-f]+)$ ]]; then echo "0x${BASH_REMATCH[1]}"; else echo "$v"; fi
}

# value LINE KEY: KEY's value in an encode line ("name" is its prefix);
# 0 for a flag encode leaves out because it is clear.
value() {
	local line=$1 key=$2 w
	if [ "$key" = name ]; then echo "${line%%: type=*}"; return; fi
	for w in ${line#*: }; do
		[ "${w%%=*}" = "$key" ] && { echo "${w#*=}"; return; }
	done
	echo 0
}

# check_case SOURCE INPUT EXPECTED: one line of the data file.
check_case() {
	local src=$1 input=$2 want=$3 out got key i=0 ev
	out=$(BPMC_SYSFS_ROOT=$FIX/sysfs-intel BPMC_TRACEFS_ROOT=$FIX/tracefs \
		"$BPMC" encode "$input" 2>&1)
	local rc=$?
	if [[ $want == refused:* ]]; then
		local part=${want#refused: }
		part=${part%% -- *}
		if [ $rc -eq 2 ] && [[ $out == *"$part"* ]] && [[ $out == *"$input"* || $out == *"'"* ]]; then
			REFUSED=$((REFUSED + 1))
			echo "  refused $src '$input': ${out#bpmc: }"
		else
			fail "$src '$input': want a refusal naming '$part', got (exit $rc): $out"
		fi
		return
	fi
	[ $rc -eq 0 ] || { fail "$src '$input': exit $rc: $out"; return; }
	mapfile -t lines <<<"$out"
	IFS='|' read -ra evs <<<"$want"
	[ "${#lines[@]}" -eq "${#evs[@]}" ] ||
		{ fail "$src '$input': ${#lines[@]} events, want ${#evs[@]}: $out"; return; }
	for ev in "${evs[@]}"; do
		for kv in $ev; do
			key=${kv%%=*}
			got=$(value "${lines[i]}" "$key")
			[ "$(norm "$got")" = "$(norm "${kv#*=}")" ] ||
				{ fail "$src '$input' event $i: $key=$got, want ${kv#*=}: ${lines[i]}"; return; }
		done
		i=$((i + 1))
	done
	PASSED=$((PASSED + 1))
}

PASSED=0 REFUSED=0 TOTAL=0
while IFS=$'\t' read -r src input want; do
	[[ -z $src || $src == \#* ]] && continue
	TOTAL=$((TOTAL + 1))
	check_case "$src" "$input" "$want"
done < "$DATA"
echo "  perf's cases: $PASSED of $TOTAL pass, $REFUSED refused on purpose, $((TOTAL - PASSED - REFUSED)) fail"
[ "$TOTAL" -ge 100 ] || fail "only $TOTAL cases read from $DATA"

# perf's test__pmu_events: every alias of every fixture PMU as
# PMU/event=ALIAS/u counts user space only on that PMU's type.
n=0
for alias in "$FIX"/sysfs-intel/*/events/*; do
	ev=$(basename "$alias")
	[[ $ev == *.* ]] && continue
	pmu=$(basename "$(dirname "$(dirname "$alias")")")
	line=$(BPMC_SYSFS_ROOT=$FIX/sysfs-intel "$BPMC" encode "$pmu/event=$ev/u" 2>&1) ||
		{ fail "$pmu/event=$ev/u: $line"; continue; }
	for kv in "type=$(cat "$FIX/sysfs-intel/$pmu/type")" exclude_user=0 exclude_kernel=1 exclude_hv=1 precise_ip=0 pinned=0 exclusive=0; do
		[ "$(value "$line" "${kv%%=*}")" = "${kv#*=}" ] || fail "$pmu/event=$ev/u: want $kv: $line"
	done
	# The alias's terms alone must give the same config.
	[ "$(value "$line" config)" = "$(value "$(BPMC_SYSFS_ROOT=$FIX/sysfs-intel "$BPMC" encode "$pmu/$(cat "$alias")/")" config)" ] ||
		fail "$pmu/event=$ev/u: config differs from the alias's terms"
	n=$((n + 1))
done
echo "  perf's alias loop: $n fixture aliases as PMU/event=ALIAS/u"
[ "$n" -ge 30 ] || fail "only $n fixture aliases"

# A refused modifier or term names itself.
refuses() { # INPUT PART
	local out
	out=$(BPMC_SYSFS_ROOT=$FIX/sysfs-intel "$BPMC" encode "$1" 2>&1) && { fail "'$1' encoded: $out"; return; }
	[[ $out == *"$2"* ]] || fail "'$1': message does not name $2: $out"
}
refuses cycles:W "modifier 'W'"
refuses 'cpu/cycles/x' "bad modifier 'x'"
refuses 'msr/tsc/q' "bad modifier 'q'"
refuses 'cycles:pppp' "modifier 'p'"
refuses 'cpu/krava=1/' "'krava'"
refuses 'cycles/umask=1/' "unknown term 'umask'"
refuses 'cpu/cycles,event=0x3c/' "takes no 'event' term"
refuses 'mem:0/3' "bad length '3'"
refuses 'mem:0:rx' "mixes x"
refuses 'cpu/event=nosuch/' "'nosuch'"

# One default privilege level: a name means the same exclude_* whichever
# way it is encoded (perf's: nothing excluded, :u counts user only).
same_levels() { # NAME...
	local first="" levels
	for name in "$@"; do
		levels=$(BPMC_SYSFS_ROOT=$FIX/sysfs-intel "$BPMC" encode "$name" 2>&1 | grep -o 'exclude_user=. exclude_kernel=. exclude_hv=.')
		[ -n "$levels" ] || { fail "$name did not encode"; continue; }
		[ -z "$first" ] && first=$levels
		[ "$levels" = "$first" ] || fail "$name: $levels, but $1: $first"
	done
	echo "  $*: $first"
}
same_levels r1 cpu/config=0x1/ PERF_COUNT_HW_INSTRUCTIONS amd64_fam19h_zen4::RETIRED_INSTRUCTIONS cycles 1:0
same_levels r1:u cpu/config=0x1/u instructions:u PERF_COUNT_HW_INSTRUCTIONS:u amd64_fam19h_zen4::RETIRED_INSTRUCTIONS:u
same_levels r1:k cpu/config=0x1/k cycles:k amd64_fam19h_zen4::RETIRED_INSTRUCTIONS:k
line=$("$BPMC" encode PERF_COUNT_HW_INSTRUCTIONS 2>&1)
[[ $line == *exclude_guest=* ]] && fail "libpfm's default guest exclusion kept: $line"

# This kernel: tracefs found (or mounted) by bpmc, its id as the kernel
# has it, and the tracepoint counted over encode's workload, which makes
# exactly one munmap between enabling and disabling the counter.
need_root
out=$("$BPMC" encode --count syscalls:sys_enter_munmap sched:sched_process_fork 2>&1) ||
	fail "tracepoints on this kernel: $out"
tracefs=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "tracefs") print $5; break } }' /proc/self/mountinfo | head -1)
[ -n "$tracefs" ] || fail "tracefs is not mounted after a tracepoint was encoded"
want=$(cat "$tracefs/events/syscalls/sys_enter_munmap/id" 2>/dev/null)
got=$(value "$(grep '^syscalls:sys_enter_munmap:' <<<"$out")" config)
[ "$(norm "$got")" = "$(printf '0x%x' "$want")" ] || fail "sys_enter_munmap: config $got, tracefs id $want"
count=$(sed -n 's/^  syscalls:sys_enter_munmap: count=\([0-9]*\).*/\1/p' <<<"$out")
forks=$(sed -n 's/^  sched:sched_process_fork: count=\([0-9]*\).*/\1/p' <<<"$out")
echo "  syscalls:sys_enter_munmap: id $want (tracefs at $tracefs), counted $count over the workload's 1 munmap; sched_process_fork counted $forks over its 0 forks"
[ "$count" = 1 ] || fail "sys_enter_munmap counted '$count', want 1"
[ "$forks" = 0 ] || fail "sched_process_fork counted '$forks', want 0"

# Where tracefs is nowhere (a private mount namespace without it), bpmc
# mounts it; where it cannot (no CAP_SYS_ADMIN), it says how.
if command -v unshare >/dev/null && command -v setpriv >/dev/null; then
	out=$(unshare -m --propagation private sh -c 'umount /sys/kernel/tracing 2>/dev/null
		umount /sys/kernel/debug/tracing 2>/dev/null
		grep -q " - tracefs " /proc/self/mountinfo && echo "still mounted"
		"$1" encode sched:sched_switch && grep -c " - tracefs " /proc/self/mountinfo' sh "$BPMC" 2>&1)
	[[ $out == *"sched:sched_switch: type=2 "* && $out == *$'\n1' ]] ||
		fail "bpmc did not mount tracefs where it was missing: $out"
	out=$(unshare -m --propagation private sh -c 'umount /sys/kernel/tracing 2>/dev/null
		umount /sys/kernel/debug/tracing 2>/dev/null
		setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin "$1" encode sched:sched_switch' sh "$BPMC" 2>&1)
	[[ $out == *"mount -t tracefs nodev /sys/kernel/tracing"* ]] ||
		fail "without CAP_SYS_ADMIN and tracefs, the message does not say how: $out"
	echo "  tracefs missing: mounted by bpmc; without CAP_SYS_ADMIN: ${out#bpmc: }"
fi

# The software names through perf's grammar count like libpfm's did.
out=$("$BPMC" encode --count page-faults:u 'cpu-clock/name=clk/' 2>&1) || fail "software events: $out"
pf=$(sed -n 's/^  page-faults:u: count=\([0-9]*\).*/\1/p' <<<"$out")
echo "  page-faults:u counted $pf over the workload's 64 fresh pages"
[ -n "$pf" ] && [ "$pf" -ge 64 ] || fail "page-faults:u counted '$pf', want >= 64"
grep -q '^  clk: count=[1-9]' <<<"$out" || fail "name=clk did not name the counter: $out"

# name= names the rows, whatever bytes it holds.
"$BPMC" record -e "cpu-clock/name='clk,\"x'/" -d 1 -o "$TMP/n.csv" 2>"$TMP/err" ||
	fail "record with name=: $(cat "$TMP/err")"
csv_awk '$col("scope") == "system" && $col("event") == "clk,\"x" && $col("count") > 0 { n++ } END { exit !n }' "$TMP/n.csv" ||
	fail "no system row named clk,\"x: $(grep -m3 system "$TMP/n.csv")"
pass_or_fail
