#!/usr/bin/env bash
# The NetBSD pmc API: tests/pmc/netbsd_api.c, written as a NetBSD program
# would be (<sys/pmc.h>, pmc_control and pmc_get_info only), compiles
# unchanged against include/, links with -lpmc, and every check in it
# passes: counts against the thread's CPU time and the children's
# rusage, every errno of the manual, fork, 8 threads. Then the Linux
# extensions: names to ids, times, a profile of the program itself; and
# every pointer argument of theirs, bad (EFAULT, never a crash).
. "$(dirname "$0")/lib.sh"
need_root
BUILD=${BPMC_BUILD:-$ROOT/build}
[ -e "$BUILD/libpmc.so" ] || fail "no $BUILD/libpmc.so: 'make' builds it"
CC=cc
FLAGS=(-O2 -Wall -Werror)
if [ "${SANITIZE:-}" = 1 ]; then
	# The library carries ASan and UBSan: so must its program.
	CC=${CLANG:-clang}
	FLAGS+=(-fsanitize=address,undefined -fno-omit-frame-pointer)
fi
$CC "${FLAGS[@]}" -I"$ROOT/include" "$ROOT/tests/pmc/netbsd_api.c" \
	-o "$TMP/netbsd_api" -L"$BUILD" -Wl,-rpath,"$BUILD" -lpmc -pthread \
	2> "$TMP/cc.log" || { fail "does not compile: $(head -5 "$TMP/cc.log")"; pass_or_fail; }
# Only the two calls: nothing else of libpmc is used.
used=$(nm -u "$TMP/netbsd_api" | awk '/ pmc_/ { sub(/@.*/, "", $2); print $2 }' | sort | tr '\n' ' ')
[ "$used" = "pmc_control pmc_get_info " ] || fail "uses more than the two calls: $used"
"$TMP/netbsd_api" > "$TMP/out" 2>&1
rc=$?
sed 's/^/  /' "$TMP/out"
[ "$rc" = 0 ] || fail "$rc checks failed"
n=$(grep -c '^ok ' "$TMP/out")
[ "$n" -ge 50 ] || fail "only $n checks ran"

# The Linux extensions, as a new program uses them (pmc_linux_*).
$CC "${FLAGS[@]}" -rdynamic -I"$ROOT/include" "$ROOT/tests/pmc/linux_ext.c" \
	-o "$TMP/linux_ext" -L"$BUILD" -Wl,-rpath,"$BUILD" -lpmc -pthread -ldl \
	2> "$TMP/cc.log" || { fail "linux_ext.c does not compile: $(head -5 "$TMP/cc.log")"; pass_or_fail; }
"$TMP/linux_ext" > "$TMP/out" 2>&1 || fail "$? extension checks failed"
sed 's/^/  /' "$TMP/out"

# Each pointer argument of each extension: (void *)1, PROT_NONE, read-only.
$CC "${FLAGS[@]}" -I"$ROOT/include" "$ROOT/tests/pmc/linux_efault.c" \
	-o "$TMP/linux_efault" -L"$BUILD" -Wl,-rpath,"$BUILD" -lpmc -pthread \
	2> "$TMP/cc.log" || { fail "linux_efault.c does not compile: $(head -5 "$TMP/cc.log")"; pass_or_fail; }
"$TMP/linux_efault" > "$TMP/out" 2>&1 || fail "$? bad-pointer checks failed"
sed 's/^/  /' "$TMP/out"
[ "$(grep -c '^ok ' "$TMP/out")" = 30 ] || fail "not 30 bad-pointer checks passed"
pass_or_fail
