#!/usr/bin/env bash
# Names on this CPU: libpfm's table for its core PMU where libpfm has one,
# else (QEMU's arm64 "max" CPU: implementer 0, reserved for software)
# `bpmc list` says why there is none in one warning naming the CPU as
# /proc/cpuinfo does, and still offers perf's generic names and the
# kernel's sysfs aliases of the core PMU; `bpmc encode --count` counts
# cycles and instructions, and a sysfs alias, on this PMU.
. "$(dirname "$0")/lib.sh"
need_hw_pmu

"$BPMC" list >"$TMP/list" 2>"$TMP/list.err" || fail "bpmc list failed: $(cat "$TMP/list.err")"
sed 's/^/  list: /' "$TMP/list.err"
tables=$(awk '/^libpfm tables:/ { t = 1; next } /^kernel PMUs/ { t = 0 } t && $2 == "present" && $1 !~ /^perf/ { print $1 }' "$TMP/list")
core=$(awk '/^kernel PMUs/ { k = 1; next } /^$/ { k = 0 } k { print $1 }' "$TMP/list" |
	grep -m1 -E '^(cpu|cpu_core|armv8_[a-z0-9_]*|armv[0-9]_[a-z0-9_]*|arm_[a-z0-9_]*)$')
echo "  libpfm tables present: ${tables:-none}; the kernel's core PMU: ${core:-?}"
grep -q '^perf::CYCLES$' "$TMP/list" && grep -q '^perf::INSTRUCTIONS$' "$TMP/list" ||
	fail "bpmc list does not offer perf's generic names"
if [ -z "$tables" ]; then
	impl=$(awk -F': *' '/^CPU implementer/ { print $2; exit }' /proc/cpuinfo)
	part=$(awk -F': *' '/^CPU part/ { print $2; exit }' /proc/cpuinfo)
	if [ -n "$impl" ]; then
		grep -q "no event table for this CPU (CPU implementer $impl.*part $part)" "$TMP/list.err" ||
			fail "no warning naming CPU implementer $impl part $part"
	else
		grep -q "no event table for this CPU" "$TMP/list.err" || fail "no warning saying libpfm has no table"
	fi
else
	[ -s "$TMP/list.err" ] && fail "a warning although libpfm has a table: $(cat "$TMP/list.err")"
fi

"$BPMC" encode --count cycles instructions >"$TMP/enc" 2>&1 || fail "bpmc encode --count failed: $(cat "$TMP/enc")"
sed 's/^/  encode: /' "$TMP/enc"
[ "$(grep -c 'count=[1-9]' "$TMP/enc")" = 2 ] || fail "cycles and instructions do not both count"
if [ -n "$core" ]; then
	alias=$(grep -m1 -E "^$core/(inst_retired|instructions)/$" "$TMP/list")
	if [ -n "$alias" ]; then
		"$BPMC" encode --count "$alias" >"$TMP/alias" 2>&1 || fail "$alias: $(cat "$TMP/alias")"
		sed 's/^/  encode: /' "$TMP/alias"
		grep -q 'count=[1-9]' "$TMP/alias" || fail "the kernel's alias $alias does not count"
	fi
fi
# What a bare name of the architecture's own tables does here, for the log.
"$BPMC" encode INST_RETIRED 2>&1 | sed 's/^/  encode INST_RETIRED: /'
pass_or_fail
