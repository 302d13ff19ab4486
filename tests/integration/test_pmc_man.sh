#!/usr/bin/env bash
# libpmc as it is shipped: pmc_control(3) passes `mandoc -Tlint
# -Wwarning`, has its sections and documents every name include/pmc.h
# declares; `make install DESTDIR=` lays out the headers, the libraries
# (soname, symlinks, only pmc_* exported), libpmc.pc (following PREFIX)
# and the manual, and `make uninstall` takes them away; the manual's
# EXAMPLES program builds against the installed tree, with the static
# library, with the shared one and through pkg-config, and runs.
# Parts that cannot run here (no mandoc; a build/libpmc.a without
# pmc_control, before the library's sources are in) are skipped, and
# the test then exits 2 with the reasons, unless something failed.
. "$(dirname "$0")/lib.sh"
HDR=$ROOT/include/pmc.h
MAN=$ROOT/docs/pmc_control.3
SKIPPED=()
# The tests run under make: a nested make must not take its jobserver.
# Always the plain build (build/): the libraries are installed from it.
MAKE_CLEAN=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$ROOT" -s
	--no-print-directory SANITIZE= FUZZ=)
CC=${CC:-cc}

[ -f "$MAN" ] || { fail "no docs/pmc_control.3"; exit 1; }

echo "mandoc -Tlint -Wwarning"
if ! command -v mandoc >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		apt-get install -y mandoc >"$TMP/apt.log" 2>&1 ||
			echo "  apt-get install -y mandoc failed: $(tail -1 "$TMP/apt.log")"
	fi
fi
if command -v mandoc >/dev/null; then
	lint=$(mandoc -Tlint -Wwarning "$MAN" 2>&1)
	rc=$?
	[ "$rc" = 0 ] && [ -z "$lint" ] || fail "mandoc -Tlint -Wwarning (exit $rc): $lint"
	mandoc -Tascii "$MAN" >/dev/null 2>&1 || fail "mandoc cannot render the page"
	echo "  clean"
else
	SKIPPED+=("mandoc is not installed and could not be installed: no lint")
	echo "  skipped: no mandoc"
fi

# The manual's text, without its comments.
text=$(grep -v '^\.\\"' "$MAN")
for s in NAME LIBRARY SYNOPSIS DESCRIPTION "LINUX EXTENSIONS" \
	"DIFFERENCES FROM NETBSD" "RETURN VALUES" EXAMPLES ERRORS "SEE ALSO" \
	STANDARDS HISTORY; do
	grep -qx "\.Sh $s" <<<"$text" || fail "the manual has no section $s"
done
for n in pmc_control pmc_get_info; do
	grep -qx "\.Nm $n.*" <<<"$text" || fail "NAME does not name $n"
done
grep -qx '\.Lb libpmc' <<<"$text" || fail "LIBRARY is not libpmc"
grep -qx '\.In pmc\.h' <<<"$text" && grep -qx '\.In sys/pmc\.h' <<<"$text" ||
	fail "SYNOPSIS does not include <pmc.h> and <sys/pmc.h>"
for e in EINVAL EFAULT ENXIO EINPROGRESS EBUSY ENODEV ENOMEM EOVERFLOW; do
	grep -qx "\.It Bq Er $e" <<<"$text" || fail "ERRORS does not list $e"
done
for x in "perf_event_open 2" "bpmc 1" "perf-stat 1"; do
	sed -n '/^\.Sh SEE ALSO/,/^\.Sh/p' <<<"$text" | grep -q "^\.Xr $x" ||
		fail "SEE ALSO lacks $x"
done

# Every name of the header: its macros (PMC_OP_*, PMC_INFO_*,
# PMC_LINUX_*...) and every pmc_* identifier (the calls, pmc_linux_*,
# the types and structs), each as a whole word of the manual.
names=$( {
	sed -n 's/^#define \(PMC_[A-Z0-9_]*\).*/\1/p' "$HDR"
	grep -o '\bpmc_[a-z0-9_]*' "$HDR"
} | sort -u)
n=0
for name in $names; do
	n=$((n + 1))
	grep -qw -- "$name" <<<"$text" || fail "include/pmc.h declares $name; the manual does not say it"
done
for p in PMC_OP_ PMC_INFO_ PMC_LINUX_ pmc_linux_; do
	grep -q "^$p" <<<"$names" || fail "no $p name parsed from include/pmc.h"
done
echo "  $n names of include/pmc.h, every one in the manual"

echo "make install DESTDIR= PREFIX=/usr LIBDIR=/usr/lib/multiarch, make uninstall"
# Another PREFIX and LIBDIR first, so that build/libpmc.pc ends as the
# default install leaves it.
D2=$TMP/usr
"${MAKE_CLEAN[@]}" install DESTDIR="$D2" PREFIX=/usr LIBDIR=/usr/lib/multiarch >"$TMP/install2.log" 2>&1 ||
	{ fail "make install PREFIX=/usr: $(cat "$TMP/install2.log")"; exit 1; }
PC2=$D2/usr/lib/multiarch/pkgconfig/libpmc.pc
[ -f "$PC2" ] || fail "LIBDIR=/usr/lib/multiarch: no $PC2"
[ -f "$D2/usr/lib/multiarch/libpmc.so.1.0.0" ] || fail "LIBDIR=/usr/lib/multiarch: no libpmc.so.1.0.0 there"
grep -qx 'prefix=/usr' "$PC2" && grep -qx 'libdir=${prefix}/lib/multiarch' "$PC2" &&
	grep -qx 'includedir=${prefix}/include' "$PC2" ||
	fail "libpmc.pc does not follow PREFIX=/usr LIBDIR=/usr/lib/multiarch: $(grep dir= "$PC2")"
"${MAKE_CLEAN[@]}" uninstall DESTDIR="$D2" PREFIX=/usr LIBDIR=/usr/lib/multiarch >/dev/null 2>&1 ||
	fail "make uninstall failed"
left=$(cd "$D2" && find . \( -type f -o -type l \) -printf '/%P\n')
[ -z "$left" ] || fail "make uninstall left: $left"

echo "make install DESTDIR="
D=$TMP/root
P=$D/usr/local
"${MAKE_CLEAN[@]}" install DESTDIR="$D" >"$TMP/install.log" 2>&1 ||
	{ fail "make install DESTDIR=$D: $(cat "$TMP/install.log")"; exit 1; }
for f in "0644 include/pmc.h" "0644 include/sys/pmc.h" "0644 lib/libpmc.a" \
	"0755 lib/libpmc.so.1.0.0" "0644 lib/pkgconfig/libpmc.pc" \
	"0644 share/man/man3/pmc_control.3" "0644 share/man/man3/pmc_get_info.3"; do
	mode=${f% *} f=${f#* }
	if [ ! -f "$P/$f" ] || [ -L "$P/$f" ]; then
		fail "not installed: /usr/local/$f"
		continue
	fi
	got=$(stat -c %a "$P/$f")
	[ "$got" = "${mode#0}" ] || fail "/usr/local/$f is mode $got, not $mode"
done
[ "$(readlink "$P/lib/libpmc.so.1")" = libpmc.so.1.0.0 ] ||
	fail "lib/libpmc.so.1 is not a link to libpmc.so.1.0.0"
[ "$(readlink "$P/lib/libpmc.so")" = libpmc.so.1 ] ||
	fail "lib/libpmc.so is not a link to libpmc.so.1"
cmp -s "$HDR" "$P/include/pmc.h" || fail "the installed pmc.h is not include/pmc.h"
cmp -s "$MAN" "$P/share/man/man3/pmc_control.3" || fail "the installed pmc_control.3 is not docs/pmc_control.3"
[ "$(cat "$P/share/man/man3/pmc_get_info.3")" = ".so man3/pmc_control.3" ] ||
	fail "pmc_get_info.3 is not '.so man3/pmc_control.3'"
if command -v mandoc >/dev/null; then
	(cd "$P/share/man" && mandoc -Tascii man3/pmc_get_info.3 2>&1 | grep -q 'pmc_get_info') ||
		fail "man3/pmc_get_info.3 does not render pmc_control(3)"
fi
soname=$(readelf -d "$P/lib/libpmc.so.1.0.0" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libpmc.so.1 ] || fail "libpmc.so.1.0.0's soname is '$soname', not libpmc.so.1"
# Exports: pmc_* alone (the A entry is the version node, PMC_1).
leaked=$(nm -D --defined-only "$P/lib/libpmc.so.1.0.0" | awk '$2 != "A" && $3 !~ /^pmc_/ { print $3 }')
[ -z "$leaked" ] || fail "libpmc.so exports more than pmc_*: $(tr "\n" " " <<<"$leaked")"
exported=$(nm -D --defined-only "$P/lib/libpmc.so.1.0.0" | awk '$3 ~ /^pmc_/ { sub(/@.*/, "", $3); print $3 }' | sort)
echo "  soname $soname; exports: $(tr "\n" " " <<<"$exported")"
PC=$P/lib/pkgconfig/libpmc.pc
grep -qx 'prefix=/usr/local' "$PC" || fail "libpmc.pc: $(grep prefix= "$PC")"
grep -q '@[A-Z_]*@' "$PC" && fail "placeholders left in libpmc.pc: $(grep '@[A-Z_]*@' "$PC")"
if command -v pkg-config >/dev/null; then
	pcs=$(pkg-config --with-path="$P/lib/pkgconfig" --define-prefix --static --cflags --libs libpmc 2>&1) ||
		fail "pkg-config --static libpmc: $pcs"
	for w in "-I$P/include" "-L$P/lib" -lpmc -lpfm -lm -pthread; do
		[[ " $pcs " == *" $w "* ]] || fail "pkg-config --static --cflags --libs libpmc lacks $w: $pcs"
	done
	echo "  pkg-config --static: $pcs"
else
	SKIPPED+=("no pkg-config")
fi

echo "a program built against the installed tree"
# The manual's own example, unescaped from its literal display.
sed -n '/^\.Sh EXAMPLES/,/^\.Sh/p' "$MAN" | sed -n '/^\.Bd -literal/,/^\.Ed/p' |
	sed -e '1d' -e '$d' -e 's/\\e/\\/g' -e 's/\\&//g' >"$TMP/example.c"
grep -q '^int main(void)$' "$TMP/example.c" && grep -q 'PMC_LINUX_EV_TASK_CLOCK' "$TMP/example.c" ||
	fail "no example program in EXAMPLES: $(cat "$TMP/example.c")"
# Compiles against the installed headers whatever the library holds.
CFL=(-std=gnu11 -Wall -Werror -I"$P/include")
$CC "${CFL[@]}" -c "$TMP/example.c" -o "$TMP/example.o" 2>"$TMP/cc.log" ||
	fail "the EXAMPLES program does not compile against the installed <pmc.h>: $(cat "$TMP/cc.log")"
printf '#include <sys/pmc.h>\nint op = PMC_OP_START;\n' >"$TMP/sys.c"
$CC "${CFL[@]}" -c "$TMP/sys.c" -o "$TMP/sys.o" 2>"$TMP/cc.log" ||
	fail "<sys/pmc.h> does not compile: $(cat "$TMP/cc.log")"
if ! nm --defined-only "$ROOT/build/libpmc.a" 2>/dev/null | grep -q ' T pmc_control$'; then
	SKIPPED+=("build/libpmc.a defines no pmc_control (the library's sources are not in): no link check")
	echo "  compiles; link skipped: build/libpmc.a defines no pmc_control"
else
	# run_example BINARY LABEL: it prints a positive task-clock.
	run_example() {
		local out
		out=$("$1" 2>&1) || { fail "$2: the example failed: $out"; return; }
		[[ $out =~ ^task-clock:\ [1-9][0-9]*\ ns$ ]] || fail "$2: the example printed '$out'"
		echo "  $2: $out"
	}
	$CC "$TMP/example.o" -o "$TMP/ex-static" -L"$P/lib" -Wl,-Bstatic -lpmc -Wl,-Bdynamic \
		-lpfm -lm -pthread 2>"$TMP/ld.log" || fail "static link: $(cat "$TMP/ld.log")"
	if [ -x "$TMP/ex-static" ]; then
		readelf -d "$TMP/ex-static" | grep -q 'libpmc' && fail "the static link needs libpmc.so"
		run_example "$TMP/ex-static" "-lpmc, static"
	fi
	$CC "$TMP/example.o" -o "$TMP/ex-shared" -L"$P/lib" -Wl,-rpath,"$P/lib" -lpmc \
		2>"$TMP/ld.log" || fail "shared link: $(cat "$TMP/ld.log")"
	if [ -x "$TMP/ex-shared" ]; then
		readelf -d "$TMP/ex-shared" | grep -q 'NEEDED.*\[libpmc\.so\.1\]' ||
			fail "the shared link does not need libpmc.so.1"
		run_example "$TMP/ex-shared" "-lpmc, shared"
	fi
	if command -v pkg-config >/dev/null; then
		# shellcheck disable=SC2046 # pkg-config's words are separate flags
		$CC "$TMP/example.o" -o "$TMP/ex-pc" -Wl,-rpath,"$P/lib" \
			$(pkg-config --with-path="$P/lib/pkgconfig" --define-prefix --libs libpmc) \
			2>"$TMP/ld.log" || fail "link with pkg-config --libs: $(cat "$TMP/ld.log")"
		[ -x "$TMP/ex-pc" ] && run_example "$TMP/ex-pc" "pkg-config --libs"
	fi
fi

[ "$FAILED" = 1 ] && exit 1
[ ${#SKIPPED[@]} -eq 0 ] || { IFS=';'; skip "${SKIPPED[*]}"; }
exit 0
