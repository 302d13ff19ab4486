#!/usr/bin/env bash
# libpmc and bpmc stat on a hardware PMU (tests/pmc/hardware.c): cycles
# and instructions count, pinned counters past the PMU's are EBUSY, and
# bpmc stat prints the scaling ratio when it multiplexes. SKIP without
# a hardware PMU, saying so.
. "$(dirname "$0")/lib.sh"
need_root
BUILD=${BPMC_BUILD:-$ROOT/build}
CC=cc
FLAGS=(-O2 -Wall)
if [ "${SANITIZE:-}" = 1 ]; then
	CC=${CLANG:-clang}
	FLAGS+=(-fsanitize=address,undefined)
fi
$CC "${FLAGS[@]}" -I"$ROOT/include" "$ROOT/tests/pmc/hardware.c" -o "$TMP/hw" \
	-L"$BUILD" -Wl,-rpath,"$BUILD" -lpmc -pthread || { fail "does not compile"; pass_or_fail; }
"$TMP/hw" > "$TMP/out"
rc=$?
sed 's/^/  /' "$TMP/out"
[ "$rc" = 2 ] && skip "$(head -1 "$TMP/out")"
[ "$rc" = 0 ] || fail "hardware checks failed"
# Six hardware events split in two: twelve counters, more than a core
# PMU has: multiplexed, and said.
"$BPMC" stat -e cycles,instructions,branches,branch-misses,cache-references,cache-misses \
	-- "$HELPERS/spin" 50000000 2> "$TMP/stat" > /dev/null ||
	fail "bpmc stat failed: $(cat "$TMP/stat")"
grep -q "scaled from" "$TMP/stat" || fail "no scaling ratio: $(cat "$TMP/stat")"
pass_or_fail
