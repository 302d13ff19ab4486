#!/usr/bin/env bash
# libpmc on a hardware PMU (tests/pmc/hardware.c): PMC_INFO_NCOUNTERS is
# the kernel's count of the core PMU's counters (its boot line: "N
# counters available" on arm64, "generic registers" plus "fixed-purpose
# events" on x86) plus 16 software ones; PMC_INFO_CPUCTR_TYPE says
# hardware for the first ones and the class is a hardware one; pinned
# counters past the PMU's are EBUSY at start (docs/pmc_control.3). Then
# `bpmc stat -e cycles,instructions` against perf's :u and :k counts of
# the same command: user space within 1 %, kernel within a factor of 2
# (the kernel's share varies from run to run: page faults, interrupts).
. "$(dirname "$0")/lib.sh"
need_hw_pmu

# The program: the cross build's (build-arm64/pmc/), else built here.
prog=${HELPERS%/tests}/pmc/hardware
if [ ! -x "$prog" ]; then
	command -v cc >/dev/null || skip "no built tests/pmc/hardware and no cc to build it"
	BUILD=${BPMC_BUILD:-$ROOT/build}
	cc -O2 -Wall -I"$ROOT/include" "$ROOT/tests/pmc/hardware.c" -o "$TMP/hardware" \
		-L"$BUILD" -Wl,-rpath,"$BUILD" -lpmc -pthread || { fail "tests/pmc/hardware.c does not compile"; pass_or_fail; }
	prog=$TMP/hardware
fi
"$prog" >"$TMP/out"
rc=$?
sed 's/^/  /' "$TMP/out"
[ "$rc" = 2 ] && fail "libpmc sees no hardware PMU where bpmc encode counts cycles: $(head -1 "$TMP/out")"
[ "$rc" = 0 ] || fail "tests/pmc/hardware: exit $rc"

# The kernel's count, from its boot line. On x86 a fourth fixed counter
# (Ice Lake's topdown slots) counts no generic event: three at most.
kernel=$(dmesg 2>/dev/null | awk '
	/perfevents: enabled with .* counters available/ { for (i = 1; i < NF; i++) if ($(i + 1) == "counters") n = $i }
	/generic registers:/ { g = $NF } /fixed-purpose events:/ { f = $NF }
	END { if (n) print n; else if (g) print g + (f > 3 ? 3 : f) }')
read -r _ total _ hw _ <<<"$(grep -m1 '^ncounters' "$TMP/out")"
echo "  PMC_INFO_NCOUNTERS $total: $hw hardware; the kernel's boot line: ${kernel:-not in dmesg} counters"
if [ -n "$kernel" ]; then
	[ "$hw" = "$kernel" ] || fail "libpmc has $hw hardware counters, the kernel says $kernel"
	[ "$total" = $((kernel + 16)) ] || fail "PMC_INFO_NCOUNTERS $total, want $kernel + 16"
else
	echo "  (dmesg has no PMU line: the count is not checked)"
fi

# bpmc stat's user/kernel split against perf's :u and :k. bpmc stat
# starts counting before the fork, perf at exec: the kernel's share of an
# exec (measured on `true`) is in bpmc's kernel count and not in perf's.
cmd=("$HELPERS/spin" 2000000)
command -v perf >/dev/null || skip "perf is not installed: nothing to compare bpmc stat with"
split() { # TOOL-OUTPUT EVENT: user kernel running%
	if [ "$1" = bpmc ]; then
		awk -F, -v e="$2" '$1 == e { print $2, $3, $6 }' "$3"
	else
		awk -F, -v e="$2" '$3 == e ":u" { u = $1; r = $5 } $3 == e ":k" { k = $1 } END { print u, k, r }' "$3"
	fi
}
for run in true spin; do
	c=("${cmd[@]}")
	[ "$run" = true ] && c=(true)
	"$BPMC" stat -x, -e cycles,instructions -- "${c[@]}" 2>"$TMP/stat.$run" >/dev/null ||
		fail "bpmc stat failed: $(cat "$TMP/stat.$run")"
	perf stat -x, -e cycles:u,cycles:k,instructions:u,instructions:k -- "${c[@]}" 2>"$TMP/perf.$run" >/dev/null ||
		fail "perf stat failed: $(cat "$TMP/perf.$run")"
done
for ev in cycles instructions; do
	read -r u k pct <<<"$(split bpmc "$ev" "$TMP/stat.spin")"
	read -r pu pk ppct <<<"$(split perf "$ev" "$TMP/perf.spin")"
	read -r _ kt _ <<<"$(split bpmc "$ev" "$TMP/stat.true")"
	read -r _ pkt _ <<<"$(split perf "$ev" "$TMP/perf.true")"
	echo "  $ev: bpmc stat user $u kernel $k (running $pct %); perf :u $pu :k $pk (running $ppct %); user $(pct_off "$u" "$pu") %; an exec's kernel share: bpmc $kt, perf $pkt"
	[[ $u =~ ^[0-9]+$ && $k =~ ^[0-9]+$ && $pu =~ ^[0-9]+$ && $pk =~ ^[0-9]+$ && $kt =~ ^[0-9]+$ && $pkt =~ ^[0-9]+$ ]] ||
		{ fail "$ev: a count is missing"; continue; }
	# Counted whole, the user counts agree within 1 %; scaled for
	# multiplexing, within what the ratio can miss (5 %).
	tol=1
	[ "${pct%%.*}" -lt 100 ] && tol=5
	within "$u" "$pu" "$tol" || fail "$ev: user $u is not within $tol % of perf's $pu"
	[ "$k" -ge $((pk / 2)) ] && [ "$k" -le $((pk + 2 * (kt > pkt ? kt - pkt : 0) + pk / 2)) ] ||
		fail "$ev: kernel $k is not perf's $pk plus at most twice the exec's share ($kt - $pkt) and half"
done
pass_or_fail
