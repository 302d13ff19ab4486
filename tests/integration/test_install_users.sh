#!/usr/bin/env bash
# make install creates the system user bpmc only when it installs to the
# real root: no DESTDIR and PREFIX /usr or /usr/local (the Makefile's
# REAL_ROOT). `make install PREFIX=/some/scratch/dir` once added bpmc to
# /etc/passwd. Each install runs in a mount namespace of its own where
# /etc is a copy without bpmc and /usr/local an empty directory, so the
# host's users and files are never touched whatever make does; the host's
# /etc/passwd and /etc/group are compared before and after all the same.
. "$(dirname "$0")/lib.sh"
need_root
for c in unshare systemd-sysusers; do
	command -v "$c" >/dev/null || skip "no $c"
done
MAKE_CLEAN=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$ROOT" -s --no-print-directory)
"${MAKE_CLEAN[@]}" all >"$TMP/build.log" 2>&1 || { fail "make: $(cat "$TMP/build.log")"; exit 1; }
host_before=$(cat /etc/passwd /etc/group)

# in_ns NAME MAKE-ARGS...: make install MAKE-ARGS in a namespace whose /etc
# is $TMP/NAME/etc (a copy, bpmc removed) and /usr/local $TMP/NAME/local;
# prints the copy's bpmc entry, if any.
in_ns() {
	local d=$TMP/$1
	shift
	mkdir -p "$d/local" && cp -a /etc "$d/etc" || return 1
	sed -i '/^bpmc:/d' "$d"/etc/passwd "$d"/etc/group "$d"/etc/shadow "$d"/etc/gshadow 2>/dev/null
	unshare --mount --propagation private sh -c '
		mount --bind "$1/etc" /etc && mount --bind "$1/local" /usr/local || exit 99
		shift; exec "$@"' sh "$d" "${MAKE_CLEAN[@]}" install "$@" >"$d.log" 2>&1 ||
		{ fail "make install $*: $(cat "$d.log")"; return 1; }
	grep '^bpmc:' "$d/etc/passwd"
}

echo "make install PREFIX=$TMP/scratch (no DESTDIR): no user"
got=$(in_ns scratch PREFIX="$TMP/scratch")
[ -x "$TMP/scratch/bin/bpmc" ] || fail "PREFIX=$TMP/scratch: no bin/bpmc"
[ -z "$got" ] || fail "make install PREFIX=$TMP/scratch created the user: $got"
echo "  /etc/passwd: ${got:-no bpmc}"

echo "make install DESTDIR=$TMP/dest PREFIX=/usr: no user"
got=$(in_ns dest DESTDIR="$TMP/dest" PREFIX=/usr)
[ -x "$TMP/dest/usr/bin/bpmc" ] || fail "DESTDIR=$TMP/dest: no usr/bin/bpmc"
[ -z "$got" ] || fail "make install DESTDIR=... created the user: $got"
echo "  /etc/passwd: ${got:-no bpmc}"

# The real root, as far as make can tell: /usr/local is the namespace's
# empty directory, /etc its copy.
echo "make install (PREFIX=/usr/local, no DESTDIR): the user, from sysusers.d"
got=$(in_ns real)
[ -x "$TMP/real/local/bin/bpmc" ] || fail "PREFIX=/usr/local: no bin/bpmc"
[[ $got == bpmc:x:*:*:*:/var/lib/bpmc:*nologin ]] || fail "make install to the real root made '$got'"
echo "  /etc/passwd: $got"
echo "make install PREFIX=/usr/local/ (a trailing slash): the user too"
got=$(in_ns slash PREFIX=/usr/local/)
[ -n "$got" ] || fail "make install PREFIX=/usr/local/ created no user"

[ "$(cat /etc/passwd /etc/group)" = "$host_before" ] || fail "the host's /etc/passwd or /etc/group changed"
pass_or_fail
