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

# The kernel's count, from its boot line.
kernel=$(dmesg 2>/dev/null | awk '
	/perfevents: enabled with .* counters available/ { for (i = 1; i < NF; i++) if ($(i + 1) == "counters") n = $i }
	/generic registers:/ { g = $NF } /fixed-purpose events:/ { f = $NF }
	END { if (n) print n; else if (g) print g + f }')
read -r _ total _ hw _ <<<"$(grep -m1 '^ncounters' "$TMP/out")"
echo "  PMC_INFO_NCOUNTERS $total: $hw hardware; the kernel's boot line: ${kernel:-not in dmesg} counters"
if [ -n "$kernel" ]; then
	[ "$hw" = "$kernel" ] || fail "libpmc has $hw hardware counters, the kernel says $kernel"
	[ "$total" = $((kernel + 16)) ] || fail "PMC_INFO_NCOUNTERS $total, want $kernel + 16"
else
	echo "  (dmesg has no PMU line: the count is not checked)"
fi

# bpmc stat's user/kernel split against perf's :u and :k.
cmd=("$HELPERS/spin" 2000000)
"$BPMC" stat -x, -e cycles,instructions -- "${cmd[@]}" 2>"$TMP/stat" >/dev/null ||
	fail "bpmc stat failed: $(cat "$TMP/stat")"
if ! command -v perf >/dev/null; then
	skip "perf is not installed: the split is not compared (bpmc stat: $(tr '\n' ' ' <"$TMP/stat"))"
fi
perf stat -x, -e cycles:u,cycles:k,instructions:u,instructions:k -- "${cmd[@]}" 2>"$TMP/perf" >/dev/null ||
	fail "perf stat failed: $(cat "$TMP/perf")"
for ev in cycles instructions; do
	read -r u k pct <<<"$(awk -F, -v e="$ev" '$1 == e { print $2, $3, $6 }' "$TMP/stat")"
	pu=$(awk -F, -v e="$ev:u" '$3 == e { print $1 }' "$TMP/perf")
	pk=$(awk -F, -v e="$ev:k" '$3 == e { print $1 }' "$TMP/perf")
	echo "  $ev: bpmc stat user $u kernel $k (running $pct %); perf :u $pu :k $pk; user $(pct_off "$u" "$pu") %"
	[[ $u =~ ^[0-9]+$ && $k =~ ^[0-9]+$ && $pu =~ ^[0-9]+$ && $pk =~ ^[0-9]+$ ]] ||
		{ fail "$ev: a count is missing"; continue; }
	within "$u" "$pu" 1 || fail "$ev: user $u is not within 1 % of perf's $pu"
	[ "$k" -gt 0 ] && [ "$k" -le $((2 * pk)) ] && [ "$pk" -le $((2 * k)) ] ||
		fail "$ev: kernel $k is not within a factor of 2 of perf's $pk"
done
pass_or_fail
