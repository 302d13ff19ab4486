#!/usr/bin/env bash
# make install into a DESTDIR (the file list, PREFIX followed by the
# unit's paths, make uninstall), the sysusers.d entry (systemd-sysusers
# --root), systemd-analyze verify on the installed unit, and then the
# unit's ExecStart run as systemd would run it, since PID 1 is not
# systemd here: as its User= and Group=, with its AmbientCapabilities=,
# CapabilityBoundingSet=, NoNewPrivileges= and UMask=, once as is (ended
# by SIGTERM, as systemctl stop does) and once in an emulation of its
# read-only sandbox (ProtectSystem=strict, ProtectKernelTunables,
# ProtectControlGroups, PrivateNetwork). Both must write rows.
. "$(dirname "$0")/lib.sh"
need_root
for c in setpriv unshare systemd-analyze systemd-sysusers useradd userdel; do
	command -v "$c" >/dev/null || skip "no $c"
done
setpriv --inh-caps=+bpf,+perfmon true 2>/dev/null ||
	skip "this setpriv or kernel knows no CAP_BPF/CAP_PERFMON"
# The tests run under make: a nested make must not take its jobserver.
MAKE_CLEAN=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$ROOT" -s --no-print-directory)

echo "make install"
DEST=$TMP/root
"${MAKE_CLEAN[@]}" install DESTDIR="$DEST" >"$TMP/install.log" 2>&1 ||
	{ fail "make install DESTDIR=$DEST: $(cat "$TMP/install.log")"; exit 1; }
want=$( {
	echo "0755 /usr/local/bin/bpmc"
	echo "0644 /usr/local/lib/systemd/system/bpmc.service"
	echo "0644 /usr/local/lib/sysusers.d/bpmc.conf"
	# libpmc (test_pmc_man.sh checks those files themselves).
	echo "0644 /usr/local/include/pmc.h"
	echo "0644 /usr/local/include/sys/pmc.h"
	echo "0644 /usr/local/lib/libpmc.a"
	echo "0755 /usr/local/lib/libpmc.so.1.0.0"
	echo "0644 /usr/local/lib/pkgconfig/libpmc.pc"
	echo "0644 /usr/local/share/man/man3/pmc_control.3"
	echo "0644 /usr/local/share/man/man3/pmc_get_info.3"
	for f in "$ROOT"/README.md "$ROOT"/docs/*.md; do
		echo "0644 /usr/local/share/doc/bpmc/$(basename "$f")"
	done
	# bpmc(1) and the commands' pages, and the completion
	# (test_man_pages.sh and test_completion.sh check them).
	for f in "$ROOT"/man/*.1; do
		echo "0644 /usr/local/share/man/man1/$(basename "$f")"
	done
	echo "0644 /usr/local/share/bash-completion/completions/bpmc"
	echo "0644 /usr/local/share/zsh/site-functions/_bpmc"
} | sort)
got=$(cd "$DEST" && find . -type f -printf '%#m /%P\n' | sed 's|^0*\([0-7]\{4\}\) |\1 |' | sort)
[ "$got" = "$want" ] || fail "installed files differ from the expected list:
$(diff <(echo "$want") <(echo "$got"))"
echo "$got" | sed 's/^/  /'
UNIT=$DEST/usr/local/lib/systemd/system/bpmc.service
cmp -s "$DEST/usr/local/bin/bpmc" "$BPMC" || fail "the installed binary is not ./bpmc"
grep -q "@[A-Z]*@" "$UNIT" && fail "placeholders left in the unit: $(grep "@[A-Z]*@" "$UNIT")"

# PREFIX moves everything, the unit's ExecStart included.
"${MAKE_CLEAN[@]}" install DESTDIR="$TMP/opt" PREFIX=/opt/bpmc >/dev/null 2>&1 ||
	fail "make install PREFIX=/opt/bpmc failed"
grep -q '^ExecStart=/opt/bpmc/bin/bpmc ' "$TMP/opt/opt/bpmc/lib/systemd/system/bpmc.service" ||
	fail "PREFIX=/opt/bpmc: the unit's ExecStart does not follow: $(grep ExecStart "$TMP/opt/opt/bpmc/lib/systemd/system/bpmc.service")"
[ -x "$TMP/opt/opt/bpmc/bin/bpmc" ] || fail "PREFIX=/opt/bpmc: no bin/bpmc"
"${MAKE_CLEAN[@]}" uninstall DESTDIR="$TMP/opt" PREFIX=/opt/bpmc >/dev/null 2>&1 || fail "make uninstall failed"
left=$(find "$TMP/opt" -type f)
[ -z "$left" ] || fail "make uninstall left: $left"

# The sysusers.d entry, applied to the DESTDIR tree rather than this host.
mkdir -p "$DEST/etc"
systemd-sysusers --root="$DEST" "$DEST/usr/local/lib/sysusers.d/bpmc.conf" >"$TMP/sysusers.log" 2>&1 ||
	fail "systemd-sysusers rejects bpmc.conf: $(cat "$TMP/sysusers.log")"
entry=$(grep '^bpmc:' "$DEST/etc/passwd")
echo "  sysusers.d: $entry"
[[ $entry == bpmc:x:*:*:*:/var/lib/bpmc:*nologin ]] || fail "sysusers.d made '$entry'"
rm -rf "$DEST/etc"

echo "systemd-analyze verify"
# In the DESTDIR tree, where ExecStart's binary is; the tree has no
# sysinit.target, so dependencies are not followed there...
systemd-analyze verify --recursive-errors=no --root="$DEST" \
	/usr/local/lib/systemd/system/bpmc.service >"$TMP/verify.log" 2>&1 ||
	fail "systemd-analyze verify --root: $(cat "$TMP/verify.log")"
# ...and against this host's units, with ExecStart pointed into DESTDIR.
mkdir "$TMP/unit"
sed "s|^ExecStart=/usr/local/bin/bpmc |ExecStart=$DEST/usr/local/bin/bpmc |" "$UNIT" >"$TMP/unit/bpmc.service"
systemd-analyze verify "$TMP/unit/bpmc.service" >>"$TMP/verify.log" 2>&1 ||
	fail "systemd-analyze verify: $(cat "$TMP/verify.log")"
[ -s "$TMP/verify.log" ] && fail "systemd-analyze verify warned: $(cat "$TMP/verify.log")"
echo "  ok: $(systemd-analyze --version | head -1), no warnings"

# unit_value KEY: the value of KEY= in the installed unit.
unit_value() {
	sed -n "s/^$1=//p" "$UNIT"
}
# caps_arg "CAP_BPF CAP_PERFMON": setpriv's +bpf,+perfmon.
caps_arg() {
	local c out=""
	for c in $1; do
		c=${c#CAP_}
		out+=",+${c,,}"
	done
	echo "${out#,}"
}
USER_=$(unit_value User) GROUP_=$(unit_value Group)
AMBIENT=$(unit_value AmbientCapabilities) BOUNDING=$(unit_value CapabilityBoundingSet)
EXEC=$(unit_value ExecStart) UMASK_=$(unit_value UMask)
[ "$USER_" = bpmc ] && [ "$GROUP_" = bpmc ] || fail "the unit runs as '$USER_:$GROUP_', not bpmc:bpmc"
[ "$(unit_value NoNewPrivileges)" = yes ] || fail "the unit lacks NoNewPrivileges=yes"
[ "$(unit_value StateDirectory)" = bpmc ] && [ "$(unit_value StateDirectoryMode)" = 0750 ] ||
	fail "the unit's StateDirectory is not bpmc, mode 0750"
# A lone % would be one of systemd's specifiers, not bpmc's strftime.
[[ ${EXEC//%%/} == *%* ]] && fail "ExecStart has a % not written %%: $EXEC"
echo "  User=$USER_ Group=$GROUP_ AmbientCapabilities=$AMBIENT CapabilityBoundingSet=$BOUNDING UMask=$UMASK_"
echo "  ExecStart=$EXEC"

# The user: created only if missing, and then removed on the way out.
if ! id "$USER_" >/dev/null 2>&1; then
	had_group=$(getent group "$USER_" >/dev/null && echo 1)
	useradd --system --no-create-home --shell /usr/sbin/nologin "$USER_" ||
		{ fail "cannot create the user $USER_"; exit 1; }
	# After our processes, which userdel would refuse to orphan.
	ATEXIT+=("end_children; userdel '$USER_' 2>/dev/null; [ -n '$had_group' ] || ! getent group '$USER_' >/dev/null || groupdel '$USER_'")
	echo "  created the user $USER_ for this test"
fi

# The unit's command line: %% unescaped, the DESTDIR binary, and a state
# directory of our own (StateDirectoryMode=0750) instead of /var/lib/bpmc.
chmod 711 "$TMP"
read -ra ARGV <<<"${EXEC//%%/%}"
ARGV[0]=$DEST${ARGV[0]}
AS_UNIT=(setpriv --reuid="$USER_" --regid="$GROUP_" --clear-groups
	--inh-caps="$(caps_arg "$AMBIENT")" --ambient-caps="$(caps_arg "$AMBIENT")"
	--bounding-set=-all,"$(caps_arg "$BOUNDING")" --no-new-privs)

# state_dir VAR NAME: a fresh state directory as systemd would make it.
state_dir() {
	local dir=$TMP/$2
	mkdir "$dir" && chown "$USER_:$GROUP_" "$dir" && chmod 0750 "$dir" || return 1
	printf -v "$1" '%s' "$dir"
}

# check_rows DIR WHAT: published *.csv.gz files with system rows, the
# user's, UMask'ed, and no partial dot-file left.
check_rows() {
	local files f rows
	files=$(find "$1" -maxdepth 1 -name '*.csv.gz' ! -name '.*')
	[ -n "$files" ] || { fail "$2: no *.csv.gz in $1: $(ls -A "$1")"; return; }
	rows=$(for f in $files; do zcat "$f"; done | csv_awk '$col("scope") == "system" && $col("count") > 0 { n++ } END { print n + 0 }' /dev/stdin)
	echo "  $2: $(echo "$files" | wc -l) file(s), $rows system rows: $(basename -a $files | tr '\n' ' ')"
	[ "$rows" -gt 0 ] || fail "$2: no system rows"
	for f in $files; do
		[ "$(stat -c %U "$f")" = "$USER_" ] || fail "$2: $f belongs to $(stat -c %U "$f")"
		[ $((0$(stat -c %a "$f") & ~(0777 & ~0$UMASK_))) = 0 ] ||
			fail "$2: $f has mode $(stat -c %a "$f") under UMask=$UMASK_"
	done
	[ -z "$(find "$1" -maxdepth 1 -name '.*')" ] || fail "$2: left $(find "$1" -maxdepth 1 -name '.*')"
}

echo "ExecStart as the unit runs it, stopped by SIGTERM"
state_dir STATE state || exit 1
spawn bash -c 'umask "$1" && shift && exec "$@"' sh "$UMASK_" "${AS_UNIT[@]}" \
	"${ARGV[@]//\/var\/lib\/bpmc/$STATE}" 2>"$TMP/run.log"
pid=$SPAWNED
for i in $(seq 100); do
	grep -q recording "$TMP/run.log" && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
sleep 3
eff=$(awk '$1 == "CapEff:" { print $2 }' "/proc/$pid/status" 2>/dev/null)
echo "  running: uid $(awk '$1 == "Uid:" { print $2 }' "/proc/$pid/status" 2>/dev/null) ($USER_ is $(id -u "$USER_")), CapEff $eff"
kill -TERM "$pid"
wait "$pid" || fail "ExecStart exited $? on SIGTERM: $(cat "$TMP/run.log")"
[ $((0x${eff:-0})) = $(((1 << 39) | (1 << 38))) ] || fail "CapEff $eff, want CAP_BPF and CAP_PERFMON"
check_rows "$STATE" "as is"

echo "ExecStart in the unit's read-only sandbox, emulated, -d 3"
state_dir STATE2 sandbox || exit 1
# Every mount read-only but /dev, /proc (bar /proc/sys) and the state
# directory; a network namespace of its own.
SANDBOX='set -e
	mount --bind "$1" "$1"
	mount --bind /proc/sys /proc/sys
	awk '\''$5 !~ /\\/ { print $5 }'\'' /proc/self/mountinfo | while read -r m; do
		case $m in
		/proc/sys | /proc/sys/*) ;;
		/dev | /dev/* | /proc | /proc/* | "$1") continue ;;
		esac
		mount -o remount,bind,ro "$m"
	done
	for p in /usr /etc "$CG2" /proc/sys/kernel/perf_event_max_sample_rate; do
		[ ! -w "$p" ] || { echo "sandbox: $p is still writable" >&2; exit 99; }
	done
	[ -w "$1" ] || { echo "sandbox: $1 is not writable" >&2; exit 99; }
	shift; umask "$1"; shift; exec "$@"'
spawn env CG2="$CG2" unshare --mount --net --propagation private sh -c "$SANDBOX" sh "$STATE2" "$UMASK_" \
	"${AS_UNIT[@]}" "${ARGV[@]//\/var\/lib\/bpmc/$STATE2}" -d 3 2>"$TMP/sandbox.log"
pid=$SPAWNED
wait "$pid"
rc=$?
[ "$rc" = 0 ] || fail "ExecStart in the sandbox exited $rc: $(cat "$TMP/sandbox.log")"
check_rows "$STATE2" "sandbox"
pass_or_fail
