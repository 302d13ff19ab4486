#!/usr/bin/env bash
# The NetBSD pmc API: tests/pmc/netbsd_api.c, written as a NetBSD program
# would be (<sys/pmc.h>, pmc_control and pmc_get_info only), compiles
# unchanged against include/, links with -lpmc, and every check in it
# passes: counts against the thread's CPU time and the children's
# rusage, every errno of the manual, fork, 8 threads. Then the Linux
# extensions: names to ids, times, a profile of the program itself; and
# every pointer argument of theirs, bad (EFAULT, never a crash). Last,
# the manual's ERRORS section against the errors the calls return.
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
[ "$(grep -c '^ok ' "$TMP/out")" = 31 ] || fail "not 31 bad-pointer checks passed"

# pmc_control(3)'s ERRORS, held to the code both ways: tests/pmc/errors.c
# brings about each call-specific error and prints "ERRNO CALL"; every
# pair it got is in the manual (the entry of ERRNO names CALL), and every
# pair the manual gives is one it got, but those this host cannot bring
# about (listed, with why).
$CC "${FLAGS[@]}" -I"$ROOT/include" "$ROOT/tests/pmc/errors.c" \
	-o "$TMP/errors" -L"$BUILD" -Wl,-rpath,"$BUILD" -lpmc -pthread \
	2> "$TMP/cc.log" || { fail "errors.c does not compile: $(head -5 "$TMP/cc.log")"; pass_or_fail; }
"$TMP/errors" > "$TMP/errors.out" 2>&1 || fail "errors.c: $(grep FAIL "$TMP/errors.out")"
grep -v '^FAIL' "$TMP/errors.out" | sort -u > "$TMP/got"
awk '/^\.Sh /{ in_errors = ($0 == ".Sh ERRORS") }
	in_errors && /^\.It Bq Er / { e = $4 }
	in_errors && e { while (match($0, /PMC_(OP|INFO|LINUX_INFO)_[A-Z_]+|pmc_linux_[a-z_]+/)) {
		print e, substr($0, RSTART, RLENGTH); $0 = substr($0, RSTART + RLENGTH) } }' \
	"$ROOT/docs/pmc_control.3" | sort -u > "$TMP/page"
# Only a hardware PMU under contention takes a pinned counter away; only
# a flood of exits overflows the rings (test_stat_many_children's, which
# does not every time).
cat > "$TMP/cannot" << 'EOF'
EBUSY PMC_INFO_COUNTER_VALUE
EBUSY PMC_LINUX_INFO_INHERITED_TIMES
EBUSY PMC_LINUX_INFO_INHERITED_VALUE
EBUSY PMC_LINUX_INFO_TIMES
EOVERFLOW PMC_INFO_ACCUMULATED_COUNTER_VALUE
EOVERFLOW PMC_LINUX_INFO_ACCUMULATED_TIMES
EOF
echo "  ERRORS: $(wc -l < "$TMP/page") pairs in the manual, $(wc -l < "$TMP/got") brought about"
while read -r pair; do
	grep -qxF "$pair" "$TMP/page" || fail "the call returns '$pair', which pmc_control(3)'s ERRORS does not give"
done < "$TMP/got"
while read -r pair; do
	grep -qxF "$pair" "$TMP/got" || grep -qxF "$pair" "$TMP/cannot" ||
		fail "pmc_control(3)'s ERRORS gives '$pair', which the call does not return"
done < "$TMP/page"
pass_or_fail
