#!/usr/bin/env bash
# libpmc's two libraries export the same names, and only those
# user/pmc/libpmc.map lists: libpmc.a's one member has every internal
# symbol made local, so a program that defines names of ours
# (error__set, cpus_online, verbose...) links with it statically and
# keeps its own. Then the drain thread's life (tests/pmc/dlclose.c): it
# ends, joined, when the last counter goes and at dlclose(3), and the
# process lives on.
. "$(dirname "$0")/lib.sh"
need_root
BUILD=${BPMC_BUILD:-$ROOT/build}
MAP=$ROOT/user/pmc/libpmc.map
[ -e "$BUILD/libpmc.a" ] && [ -e "$BUILD/libpmc.so" ] || fail "no $BUILD/libpmc.a or .so: 'make' builds them"
CC=cc
FLAGS=(-O2 -Wall -Werror)
if [ "${SANITIZE:-}" = 1 ]; then
	CC=${CLANG:-clang}
	FLAGS+=(-fsanitize=address,undefined -fno-omit-frame-pointer)
fi

# The map's global patterns, as shell globs.
mapfile -t globs < <(sed -n '/global:/,/local:/{s/[[:space:];]//g;/^[a-z_*]*$/p}' "$MAP")
[ "${#globs[@]}" -ge 2 ] || fail "no global: patterns parsed from $MAP"
static=$(nm -g --defined-only "$BUILD/libpmc.a" | awk 'NF == 3 { print $3 }' | sort)
shared=$(nm -D --defined-only "$BUILD/libpmc.so" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort)
n=$(grep -c . <<<"$static")
echo "  libpmc.a: $n global symbols; libpmc.so: $(grep -c . <<<"$shared")"
[ "$static" = "$shared" ] || fail "libpmc.a and libpmc.so export different names: $(diff <(echo "$static") <(echo "$shared") | grep '^[<>]' | tr '\n' ' ')"
for sym in $static; do
	ok=0
	for g in "${globs[@]}"; do
		# shellcheck disable=SC2053 # $g is a glob on purpose
		[[ $sym == $g ]] && ok=1
	done
	[ "$ok" = 1 ] || fail "libpmc.a exports $sym, which $MAP does not list"
done
for sym in pmc_control pmc_get_info; do
	grep -qx "$sym" <<<"$static" || fail "libpmc.a does not export $sym"
done

# A program with names of ours, linked statically with libpmc.a.
cat >"$TMP/clash.c" <<'C'
#include <pmc.h>
#include <stdio.h>
int verbose = 42;
static int called;
static volatile unsigned long x;
int cpus_online(void) { return ++called, 1000; }
int cpus_possible(void) { return ++called, 1000; }
void error__set(void *err, int code, const char *fmt, ...) { called++; }
int main(void)
{
	struct pmc_counter_cfg cfg = { PMC_LINUX_EV_TASK_CLOCK, 0, 0 };
	uint64_t v = 0;
	int n = 0;
	if (pmc_get_info(0, PMC_INFO_NCOUNTERS, &n) ||
	    pmc_control(0, PMC_OP_CONFIGURE, &cfg) ||
	    pmc_control(0, PMC_OP_START, NULL))
		return 1;
	for (unsigned long i = 0; i < 10000000; i++)
		x += i;
	pmc_control(0, PMC_OP_STOP, NULL);
	pmc_get_info(0, PMC_INFO_COUNTER_VALUE, &v);
	printf("counters %d task-clock %llu called %d verbose %d\n", n,
	       (unsigned long long)v, called, verbose);
	return !(v > 0 && n > 0 && called == 0 && verbose == 42);
}
C
if $CC "${FLAGS[@]}" -Wno-unused-parameter -I"$ROOT/include" "$TMP/clash.c" -o "$TMP/clash" \
	"$BUILD/libpmc.a" -lpfm -lm -pthread 2>"$TMP/cc.log"; then
	readelf -d "$TMP/clash" | grep -q libpmc && fail "the static link needs libpmc.so"
	out=$("$TMP/clash" 2>&1) || fail "a program with names of ours, static: $out"
	echo "  static, with our names of its own: $out"
else
	fail "a program with names of ours does not link with libpmc.a: $(head -5 "$TMP/cc.log")"
fi

# The drain thread's life.
$CC "${FLAGS[@]}" -I"$ROOT/include" "$ROOT/tests/pmc/dlclose.c" -o "$TMP/dlclose" \
	-ldl -pthread 2>"$TMP/cc.log" || { fail "dlclose.c does not compile: $(head -5 "$TMP/cc.log")"; pass_or_fail; }
"$TMP/dlclose" "$BUILD/libpmc.so" >"$TMP/out" 2>&1 || fail "drain thread checks failed (exit $?)"
sed 's/^/  /' "$TMP/out"
grep -q '^ok none after dlclose' "$TMP/out" || fail "dlclose check did not run"
pass_or_fail
