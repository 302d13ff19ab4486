#!/usr/bin/env bash
# The Debian packages (make deb: bpmc, libpmc1, libpmc-dev) as a host
# would take them: lintian finds no error; bpmc's Depends hold no
# compiler and no bpftool; dpkg -i installs the binary, the man pages,
# the completion, the unit and its sysusers.d entry, and postinst gives
# the unit's user; `bpmc record -d 2` run as that user with the unit's
# capabilities (read from the installed unit, as test_systemd_unit.sh
# does) writes rows; dpkg --purge leaves nothing: the file lists of /etc,
# /lib, /usr and /var/lib and /etc's user databases as they were before.
# The package build is cached (make deb remakes it only when a file of
# the tree changes): about 60-70 s the first time, none after.
. "$(dirname "$0")/lib.sh"
need_root
command -v dpkg >/dev/null || skip "not a Debian host (no dpkg)"
if ! command -v dh >/dev/null || ! command -v lintian >/dev/null; then
	[ -z "${BPMC_TEST_NO_INSTALL:-}" ] || skip "debhelper or lintian is not installed (scripts/install-deps --deb)"
	"$ROOT/scripts/install-deps" --deb >"$TMP/apt.log" 2>&1 || skip "scripts/install-deps --deb failed: $(tail -1 "$TMP/apt.log")"
fi
command -v setpriv >/dev/null || skip "no setpriv"
setpriv --inh-caps=+bpf,+perfmon true 2>/dev/null || skip "this setpriv or kernel knows no CAP_BPF/CAP_PERFMON"
PKGS=(bpmc libpmc1 libpmc-dev)
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "installed" &&
		skip "the package $p is installed on this host already: a purge could not be compared with before"
done
[ -e /usr/bin/bpmc ] && skip "/usr/bin/bpmc exists outside the package"

MAKE_CLEAN=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$ROOT" -s --no-print-directory)
start=$(date +%s)
"${MAKE_CLEAN[@]}" deb >"$TMP/deb.log" 2>&1 || { fail "make deb: $(tail -40 "$TMP/deb.log")"; exit 1; }
DEB=$ROOT/build/deb
echo "  make deb: $(($(date +%s) - start)) s; lintian, no error: $(grep -c . "$DEB/lintian.log") tag(s)"
sed 's/^/    /' "$DEB/lintian.log"
grep -q '^E:' "$DEB/lintian.log" && fail "lintian: $(grep '^E:' "$DEB/lintian.log")"
FILES=()
for p in "${PKGS[@]}"; do
	f=$(ls "$DEB/${p}"_*.deb 2>/dev/null | grep -v dbgsym | head -1)
	[ -n "$f" ] || { fail "make deb made no $p"; exit 1; }
	FILES+=("$f")
	echo "  $(basename "$f"): $(stat -c %s "$f") bytes, installed $(dpkg-deb -f "$f" Installed-Size) KiB"
done
depends=$(dpkg-deb -f "${FILES[0]}" Depends)
echo "  bpmc Depends: $depends"
for bad in clang llvm bpftool gcc linux-headers; do
	[[ $depends == *"$bad"* ]] && fail "bpmc depends on $bad: $depends"
done

# The lists dpkg --purge must give back: every path under the places the
# packages and their maintainer scripts write, and the user databases.
snapshot() {
	find /etc /lib /usr /var/lib -xdev \( -path /var/lib/apt -o -path /var/lib/dpkg \) -prune -o -print |
		LC_ALL=C sort >"$1.files"
	cat /etc/passwd /etc/group /etc/shadow /etc/gshadow >"$1.users"
}
snapshot "$TMP/before"
had_user=$(getent passwd bpmc)

# Whatever happens below, nothing of the packages stays.
ATEXIT+=("dpkg --purge ${PKGS[*]} >/dev/null 2>&1")
echo "dpkg -i"
dpkg -i "${FILES[@]}" >"$TMP/dpkg-i.log" 2>&1 || { fail "dpkg -i: $(cat "$TMP/dpkg-i.log")"; exit 1; }
for f in /usr/bin/bpmc /lib/systemd/system/bpmc.service /usr/lib/sysusers.d/bpmc.conf \
	/usr/share/man/man1/bpmc-record.1.gz /usr/share/bash-completion/completions/bpmc \
	/usr/share/zsh/site-functions/_bpmc /usr/include/pmc.h /usr/share/man/man3/pmc_control.3.gz; do
	[ -e "$f" ] || fail "dpkg -i installed no $f"
done
ls /usr/lib/*/libpmc.so.1 >/dev/null 2>&1 || fail "libpmc1 installed no libpmc.so.1"
pkg-config --modversion libpmc >/dev/null 2>&1 || fail "pkg-config finds no libpmc"
/usr/bin/bpmc --version >"$TMP/version" 2>&1 || fail "bpmc --version: $(cat "$TMP/version")"
echo "  $(head -1 "$TMP/version")"
entry=$(getent passwd bpmc)
[ -n "$entry" ] || { fail "postinst made no user bpmc"; exit 1; }
if [ -n "$had_user" ]; then
	echo "  the user bpmc was there before the package (not its entry: kept): $entry"
else
	echo "  postinst's user: $entry"
	[[ $entry == bpmc:x:*:*:*:/var/lib/bpmc:*nologin ]] || fail "postinst made '$entry'"
fi

echo "bpmc record -d 2 as the unit's user, with its capabilities"
UNIT=/lib/systemd/system/bpmc.service
unit_value() { sed -n "s/^$1=//p" "$UNIT"; }
caps_arg() {
	local c out=""
	for c in $1; do
		c=${c#CAP_}
		out+=",+${c,,}"
	done
	echo "${out#,}"
}
U=$(unit_value User) G=$(unit_value Group)
AMBIENT=$(unit_value AmbientCapabilities) BOUNDING=$(unit_value CapabilityBoundingSet)
read -r exe _ <<<"$(unit_value ExecStart)"
[ "$exe" = /usr/bin/bpmc ] || fail "the unit's ExecStart runs $exe, not /usr/bin/bpmc"
echo "  User=$U Group=$G AmbientCapabilities=$AMBIENT CapabilityBoundingSet=$BOUNDING"
chmod 711 "$TMP"
mkdir "$TMP/state" && chown "$U:$G" "$TMP/state" && chmod 0750 "$TMP/state"
setpriv --reuid="$U" --regid="$G" --clear-groups --inh-caps="$(caps_arg "$AMBIENT")" \
	--ambient-caps="$(caps_arg "$AMBIENT")" --bounding-set=-all,"$(caps_arg "$BOUNDING")" --no-new-privs \
	/usr/bin/bpmc record -d 2 -o "$TMP/state/r.csv" 2>"$TMP/record.log" ||
	fail "bpmc record -d 2 as $U: $(cat "$TMP/record.log")"
rows=$(csv_awk '$col("scope") == "system" && $col("count") > 0 { n++ } END { print n + 0 }' "$TMP/state/r.csv" 2>/dev/null)
echo "  $rows system rows with counts, $(wc -l <"$TMP/state/r.csv") lines, owner $(stat -c %U "$TMP/state/r.csv")"
[ "${rows:-0}" -gt 0 ] || fail "no system rows: $(cat "$TMP/record.log")"
rm -rf "$TMP/state"

echo "dpkg --purge"
dpkg --purge "${PKGS[@]}" >"$TMP/purge.log" 2>&1 || fail "dpkg --purge: $(cat "$TMP/purge.log")"
snapshot "$TMP/after"
if ! cmp -s "$TMP/before.users" "$TMP/after.users"; then
	fail "the user databases differ after the purge: $(diff "$TMP/before.users" "$TMP/after.users")"
fi
# Another package installed meanwhile (the machine may be shared) is not
# ours; anything of bpmc's, its unit's or its libraries' is.
diff "$TMP/before.files" "$TMP/after.files" >"$TMP/files.diff"
ours=$(grep -E '^[<>]' "$TMP/files.diff" | grep -Ei 'bpmc|pmc|deb-systemd|systemd/system|sysusers')
others=$(grep -E '^[<>]' "$TMP/files.diff" | grep -vEi 'bpmc|pmc|deb-systemd|systemd/system|sysusers')
[ -z "$ours" ] || fail "dpkg --purge left or removed: $ours"
[ -z "$others" ] || echo "  changed meanwhile, not by these packages: $(echo "$others" | head -5)"
echo "  after the purge: $(grep -c . "$TMP/after.files") paths, as before: $([ -z "$ours$others" ] && echo all || echo "all of ours"); user databases identical"
pass_or_fail
