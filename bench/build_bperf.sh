#!/bin/bash
# bench/build_bperf.sh: builds perf with BPF skeletons (BUILD_BPF_SKEL=1)
# from Debian's linux-source-6.1, the peer `perf stat --bpf-counters
# --for-each-cgroup` (bperf_cgroup: a BPF program reads the counters at
# each cgroup switch) that Debian's own perf lacks ("unknown option").
# Prints the binary's path on stdout, nothing else; exit 0. Any failure:
# non-zero exit, stderr's last line "build_bperf: ..." naming the culprit
# (a build says first that it builds, and where its log is). Patches
# bench/bperf-*.patch, if any, are applied to the extracted source (none
# is needed: perf 6.1.192 loads and counts unpatched on kernel 6.18).
#
# Cached outside the tree, in $BPERF_CACHE (default
# /var/cache/bpmc-bench/perf-6.1-bpf): perf, and a stamp holding the
# source package's version and the make flags. Reused while the stamp
# matches; rebuilt when linux-source-6.1's version (or this script's flags,
# or a patch) changes, or with FORCE=1. Only tools/perf/MANIFEST's paths are extracted
# (34 MB), built with O= out of tree; the source and objects are removed
# afterwards (keep them with BPERF_KEEP=1). The build log stays in the
# cache (build.log). A full build takes 1.5-3 minutes of 2 CPUs. Root only:
# it installs the Debian packages it needs (apt-get) and writes
# /var/cache. Concurrent callers wait on a lock and reuse the result.
set -euo pipefail

CACHE=${BPERF_CACHE:-/var/cache/bpmc-bench/perf-6.1-bpf}
PKG=linux-source-6.1
TARBALL=/usr/src/linux-source-6.1.tar.xz
# Everything perf 6.1 can do without that the benches do not need: fewer
# packages, a shorter build. libelf (libbpf), zlib and clang/llvm (the
# skeletons, bpftool's bootstrap) remain.
FLAGS="BUILD_BPF_SKEL=1 NO_LIBPYTHON=1 NO_LIBPERL=1 NO_GTK2=1 NO_SLANG=1 \
NO_LIBUNWIND=1 NO_LIBNUMA=1 NO_LIBBABELTRACE=1 NO_LIBCRYPTO=1 NO_JVMTI=1 \
NO_LIBAUDIT=1 NO_DEMANGLE=1 NO_LZMA=1 NO_SDT=1 NO_LIBZSTD=1 NO_DWARF=1 \
NO_LIBDW_DWARF_UNWIND=1 NO_LIBCAP=1 WERROR=0"
DEPS="$PKG xz-utils make gcc clang llvm libelf-dev zlib1g-dev bison flex pkg-config"

die() {
	echo "build_bperf: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "needs root (apt-get, $CACHE)"

need=""
for p in $DEPS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $need >&2 ||
		{ apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends $need >&2; } ||
		die "apt-get install$need failed"
fi
[ -r "$TARBALL" ] || die "$TARBALL missing after installing $PKG"

version=$(dpkg-query -W -f='${Version}' "$PKG")
stamp="$PKG $version $FLAGS"
# The patches, if any, are part of what was built.
for p in "$(dirname "$0")"/bperf-*.patch; do
	[ -e "$p" ] && stamp="$stamp $(basename "$p")=$(sha256sum <"$p" | cut -c1-12)"
done
mkdir -p "$CACHE" 2>/dev/null || die "cannot create $CACHE"

exec 9>"$CACHE/.lock"
flock 9 || die "cannot lock $CACHE/.lock"

if [ "${FORCE:-0}" != 1 ] && [ -x "$CACHE/perf" ] && [ "$(cat "$CACHE/stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "$CACHE/perf"
	exit 0
fi

# The old binary stays usable until the new one replaces it (mv).
rm -f "$CACHE/stamp"
work="$CACHE/work"
rm -rf "$work"
mkdir -p "$work/build"
log="$CACHE/build.log"
: >"$log"
echo "build_bperf: building perf from $PKG $version (log: $log)" >&2

top=linux-source-6.1
tar -xJf "$TARBALL" -C "$work" "$top/tools/perf/MANIFEST" "$top/Makefile" >>"$log" 2>&1 ||
	die "cannot extract tools/perf/MANIFEST from $TARBALL"
# shellcheck disable=SC2046
tar -xJf "$TARBALL" -C "$work" $(sed "s|^|$top/|" "$work/$top/tools/perf/MANIFEST") >>"$log" 2>&1 ||
	die "cannot extract tools/perf/MANIFEST's paths from $TARBALL (see $log)"
src="$work/$top"
# No .git: PERF-VERSION-GEN takes the version from this file rather than
# running the kernel's top Makefile (whose scripts/ is not extracted).
kv=$(awk '$1 == "VERSION" { v = $3 } $1 == "PATCHLEVEL" { p = $3 } $1 == "SUBLEVEL" { s = $3 }
	END { print v "." p "." s }' "$src/Makefile")
echo "#define PERF_VERSION \"$kv\"" >"$src/PERF-VERSION-FILE"

for p in "$(dirname "$0")"/bperf-*.patch; do
	[ -e "$p" ] || continue
	patch -d "$src" -p1 <"$p" >>"$log" 2>&1 || die "patch $(basename "$p") does not apply (see $log)"
done

jobs=$(nproc)
# shellcheck disable=SC2086
if ! make -C "$src/tools/perf" -j"$jobs" O="$work/build" $FLAGS >>"$log" 2>&1; then
	err=$(grep -m1 -E '(error|Error)( [0-9]+)?:|\*\*\*' "$log" || tail -1 "$log")
	die "make failed: $err (see $log)"
fi
bin="$work/build/perf"
[ -x "$bin" ] || die "make succeeded but $bin is missing (see $log)"
# Only a perf built with HAVE_BPF_SKEL has the option (6.1's
# --build-options does not list the skeletons).
# (Captured first: grep -q closing the pipe would fail it under pipefail.)
help=$("$bin" stat -h 2>&1 || true)
grep -q -- '--bpf-counters' <<<"$help" ||
	die "built perf has no --bpf-counters (HAVE_BPF_SKEL off? see $log)"

cp "$bin" "$CACHE/perf.new"
mv "$CACHE/perf.new" "$CACHE/perf"
echo "$stamp" >"$CACHE/stamp"
[ "${BPERF_KEEP:-0}" = 1 ] || rm -rf "$work"
echo "$CACHE/perf"
