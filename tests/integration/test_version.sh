#!/usr/bin/env bash
# bpmc --version, bpmc version and bpmc -V say the same: bpmc's version
# (user/common/version.h), the commit from git describe at build time,
# and the libbpf and libpfm the process loaded, as the dynamic loader
# resolves them (ldd, readlink -f) and as LD_LIBRARY_PATH moves them.
# A tree without .git (a tarball unpacked inside another repository)
# builds "unknown", not the outer repository's commit.
. "$(dirname "$0")/lib.sh"

out=$("$BPMC" --version 2>&1) || fail "bpmc --version exited $?: $out"
echo "$out" | sed 's/^/  /'
for alt in version -V; do
	got=$("$BPMC" $alt 2>&1) || fail "bpmc $alt exited $?"
	[ "$got" = "$out" ] || fail "bpmc $alt differs from bpmc --version: $got"
done

echo "bpmc and its commit"
want=$(sed -n 's/^#define BPMC_VERSION "\(.*\)"/\1/p' "$ROOT/user/common/version.h")
line1=$(sed -n 1p <<<"$out")
[[ $line1 =~ ^bpmc\ ([^ ]+)\ \(git\ ([^ ]+)\)$ ]] || fail "first line is '$line1'"
[ "${BASH_REMATCH[1]:-}" = "$want" ] || fail "version '${BASH_REMATCH[1]:-}', version.h says '$want'"
described=${BASH_REMATCH[2]:-}
if [ -e "$ROOT/.git" ] && command -v git >/dev/null; then
	head=$(git -C "$ROOT" describe --always 2>/dev/null)
	# -dirty follows edits made since the build; the commit must not.
	[ "${described%-dirty}" = "$head" ] ||
		fail "built from '$described', the tree is at '$head' (rebuild?)"
	echo "  git describe --always here: $head; the binary: $described"
else
	echo "  no .git here: the binary says '$described'"
fi

# lib_line NAME: the line of library NAME.
lib_line() { grep "^$1 " <<<"$2"; }
# check_lib NAME OUTPUT DIR: the line names the file the loader picks in
# DIR (or the default search when DIR is empty) and the version of its name.
check_lib() {
	local name=$1 text=$2 so file ver line
	so=$(LD_LIBRARY_PATH=$3 ldd "$BPMC" | awk -v n="$name" '$1 ~ "^" n "\\.so" { print $3 }')
	[ -n "$so" ] || { fail "ldd does not show $name"; return; }
	file=$(readlink -f "$so")
	ver=${file##*.so.}
	line=$(lib_line "$name" "$text")
	[ "$line" != "${line#"$name $ver ($file; "}" ] ||
		fail "$name: '$line'; the loader resolves $so to $file, version $ver"
	[[ $line =~ reports\ [0-9]+\.[0-9]+,\ built\ with\ [0-9]+\.[0-9]+\)$ ]] ||
		fail "$name: no run-time and build-time numbers in '$line'"
	echo "  $name: the loader's $file, version $ver; bpmc: ${line#"$name "}"
}

echo "the libraries in use"
check_lib libbpf "$out" ""
check_lib libpfm "$out" ""
# The same libraries from elsewhere: the line follows what is loaded.
mkdir -p "$TMP/lib"
for name in libbpf libpfm; do
	so=$(ldd "$BPMC" | awk -v n="$name" '$1 ~ "^" n "\\.so" { print $1, $3 }')
	real=$(readlink -f "${so#* }")
	cp "$real" "$TMP/lib/"
	ln -sf "$(basename "$real")" "$TMP/lib/${so%% *}"
done
moved=$(LD_LIBRARY_PATH=$TMP/lib "$BPMC" --version 2>&1) || fail "bpmc --version with LD_LIBRARY_PATH: $moved"
for name in libbpf libpfm; do
	lib_line "$name" "$moved" | grep -qF "($TMP/lib/" ||
		fail "LD_LIBRARY_PATH=$TMP/lib: $(lib_line "$name" "$moved")"
	check_lib "$name" "$moved" "$TMP/lib"
done

echo "a tree without .git, inside another repository"
if command -v git >/dev/null && [ -e "$ROOT/.git" ]; then
	OUTER=$TMP/outer
	git init -q "$OUTER" &&
		git -C "$OUTER" -c user.name=t -c user.email=t@t commit -q --allow-empty -m outer ||
		fail "git init $OUTER"
	mkdir "$OUTER/src"
	(cd "$ROOT" && git ls-files -co --exclude-standard -z | tar -c --null -T -) |
		tar -x -C "$OUTER/src" || fail "copying the tree"
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$OUTER/src" -s --no-print-directory \
		SANITIZE= FUZZ= build/cmd/git_version.h >"$TMP/make.log" 2>&1 ||
		fail "make build/cmd/git_version.h: $(cat "$TMP/make.log")"
	hdr=$(cat "$OUTER/src/build/cmd/git_version.h" 2>/dev/null)
	echo "  $hdr"
	[ "$hdr" = '#define BPMC_GIT_DESCRIBE "unknown"' ] ||
		fail "without .git the build says '$hdr', not unknown"
else
	echo "  skipped: no git or no .git here"
fi
pass_or_fail
