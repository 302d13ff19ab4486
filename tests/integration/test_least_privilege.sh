#!/usr/bin/env bash
# Least privilege. (a) A non-root bpmc holding only CAP_BPF and
# CAP_PERFMON (setpriv, RLIMIT_MEMLOCK 0) attributes a burner's cgroup
# as root does. (b) --user started as root: while it runs, /proc says
# it is the user with no supplementary groups, an empty bounding set and
# only the capabilities it printed; rows written after the drop (a cgroup
# made after it) are still right, and the file is the user's. (c) The
# refusals: unknown user, --user without root, an output directory the
# user cannot write, and --self-stats without CAP_SYS_ADMIN.
. "$(dirname "$0")/lib.sh"
need_root
command -v setpriv >/dev/null || skip "no setpriv"
NOBODY_UID=$(id -u nobody 2>/dev/null) || skip "no user nobody"
NOBODY_GID=$(id -g nobody)
setpriv --inh-caps=+bpf,+perfmon true 2>/dev/null ||
	skip "this setpriv or kernel knows no CAP_BPF/CAP_PERFMON"
CAP_BPF_BIT=$((1 << 39)) CAP_PERFMON_BIT=$((1 << 38)) CAP_SYS_ADMIN_BIT=$((1 << 21))

# The user must reach its directory: mktemp made $TMP 0700.
chmod 711 "$TMP"
OUT=$TMP/out
mkdir "$OUT" && chown "$NOBODY_UID:$NOBODY_GID" "$OUT" || exit 1

AS_NOBODY=(setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups
	--inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon)

# status_field PID NAME: a line of /proc/PID/status, without its name.
status_field() {
	awk -v f="$2:" '$1 == f { $1 = ""; sub(/^ /, ""); print }' "/proc/$1/status"
}

# burn_and_check NAME CSV PID: makes a cgroup now, burns 50 % of a CPU in
# it for 4 s, waits for bpmc (PID), then compares with cpu.stat.
burn_and_check() {
	local cg usec ns
	mk_cgroup cg "bpmc-test-$$/$1" || return 1
	usec=$(usage_usec "$cg")
	lost_mark
	spawn_in "$cg" "$HELPERS/burner" 50 4
	wait "$SPAWNED"
	ns=$((($(usage_usec "$cg") - usec) * 1000))
	wait "$3" || fail "$1: bpmc record exited $?: $(cat "$TMP/$1.log")"
	check_usage "$2" "$cg" "$ns" 5
	csv_awk -v cg="/bpmc-test-$$/$1" '$col("scope") == "cgroup" && $col("cgroup") == cg { f = 1 }
		END { exit !f }' "$2" || fail "$1: no cgroup row named /bpmc-test-$$/$1"
}

echo "(a) uid $NOBODY_UID with CAP_BPF and CAP_PERFMON only"
spawn bash -c 'ulimit -l 0 && exec "$@"' sh "${AS_NOBODY[@]}" \
	"$BPMC" record -e cpu-clock -I 500 -d 7 -o "$OUT/a.csv" 2>"$TMP/a.log"
pid=$SPAWNED
wait_recording "$TMP/a.log" "$pid" || exit 1
uid=$(status_field "$pid" Uid) eff=$(status_field "$pid" CapEff)
echo "  running bpmc: Uid $uid, CapEff $eff, RLIMIT_MEMLOCK $(awk '/^Max locked memory/ { print $4 }' "/proc/$pid/limits")"
[ "$uid" = "$NOBODY_UID $NOBODY_UID $NOBODY_UID $NOBODY_UID" ] || fail "(a) runs as uid '$uid'"
[ $((0x$eff)) = $((CAP_BPF_BIT | CAP_PERFMON_BIT)) ] || fail "(a) CapEff $eff, want CAP_BPF and CAP_PERFMON"
burn_and_check a "$OUT/a.csv" "$pid"
# libbpf raises RLIMIT_MEMLOCK only where BPF memory is not memcg-charged.
grep -i "memlock\|rlimit" "$TMP/a.log" && fail "(a) bpmc or libbpf tried to raise RLIMIT_MEMLOCK"

echo "(b) --user nobody, started as root"
spawn "$BPMC" record --user nobody -e cpu-clock -I 500 -d 7 -o "$OUT/b.csv" 2>"$TMP/b.log"
pid=$SPAWNED
wait_recording "$TMP/b.log" "$pid" || exit 1
grep "now running as" "$TMP/b.log" | sed 's/^/  /'
kept=$(sed -n "s/.*now running as 'nobody'.* with capabilities: \([A-Z_, a-z]*\).*/\1/p" "$TMP/b.log")
case $kept in
none) want=0 ;;
CAP_BPF) want=$CAP_BPF_BIT ;; # kernels before 6.5, unprivileged BPF off
*) want=unknown; fail "(b) kept capabilities '$kept', want none or CAP_BPF" ;;
esac
for f in Uid Gid Groups CapEff CapPrm CapInh CapBnd CapAmb NoNewPrivs; do
	printf -v "st_$f" '%s' "$(status_field "$pid" "$f")"
done
echo "  /proc/$pid/status: Uid $st_Uid, Gid $st_Gid, Groups '$st_Groups', CapEff $st_CapEff, CapPrm $st_CapPrm, CapInh $st_CapInh, CapBnd $st_CapBnd, CapAmb $st_CapAmb, NoNewPrivs $st_NoNewPrivs"
[ "$st_Uid" = "$NOBODY_UID $NOBODY_UID $NOBODY_UID $NOBODY_UID" ] || fail "(b) Uid '$st_Uid'"
[ "$st_Gid" = "$NOBODY_GID $NOBODY_GID $NOBODY_GID $NOBODY_GID" ] || fail "(b) Gid '$st_Gid'"
[ -z "$st_Groups" ] || fail "(b) supplementary groups '$st_Groups' kept"
[ $((0x$st_CapEff)) = "$want" ] && [ $((0x$st_CapPrm)) = "$want" ] ||
	fail "(b) CapEff $st_CapEff, CapPrm $st_CapPrm: want what bpmc said, $kept"
[ $((0x$st_CapInh | 0x$st_CapBnd | 0x$st_CapAmb)) = 0 ] ||
	fail "(b) inheritable, bounding or ambient capabilities left"
[ "$st_NoNewPrivs" = 1 ] || fail "(b) NoNewPrivs is $st_NoNewPrivs"
burn_and_check b "$OUT/b.csv" "$pid"
[ "$(stat -c %u "$OUT/b.csv")" = "$NOBODY_UID" ] || fail "(b) $OUT/b.csv belongs to uid $(stat -c %u "$OUT/b.csv")"

echo "(c) refusals"
# expect_refusal CULPRIT CMD...: exit 2, one line naming CULPRIT, no file.
expect_refusal() {
	local culprit=$1 rc
	shift
	rm -f "$OUT/refused.csv"
	"$@" >"$TMP/stdout" 2>"$TMP/stderr"
	rc=$?
	if [ "$rc" -ne 2 ]; then
		fail "$*: exit $rc, want 2: $(cat "$TMP/stderr")"
	elif [ "$(wc -l <"$TMP/stderr")" -ne 1 ] || ! grep -qF -- "$culprit" "$TMP/stderr"; then
		fail "$*: want one line naming '$culprit': $(cat "$TMP/stderr")"
	elif [ -e "$OUT/refused.csv" ] || [ -s "$TMP/stdout" ]; then
		fail "$*: left output"
	else
		echo "  ok: $(cat "$TMP/stderr")"
	fi
}
expect_refusal "'--user bpmc-no-such-user'" \
	"$BPMC" record --user bpmc-no-such-user -d 1 -o "$OUT/refused.csv"
expect_refusal "CAP_SETUID and CAP_SETGID" \
	"${AS_NOBODY[@]}" "$BPMC" record --user nobody -d 1 -o "$OUT/refused.csv"
mkdir "$TMP/root-only"
expect_refusal "'$TMP/root-only'" \
	"$BPMC" record --user nobody -d 1 -o "$TMP/root-only/refused.csv"
[ -e "$TMP/root-only/refused.csv" ] && fail "a refused --user run created $TMP/root-only/refused.csv"

# A stream creates no file: -o /dev/null (the Prometheus-only form) and
# -o - need no directory of the user's (issue 26: "cannot create files in
# '/dev'").
echo "(d) --user nobody -o /dev/null, -o -"
"$BPMC" record --user nobody -e cpu-clock -I 200 -d 1 -o /dev/null 2>"$TMP/null.log" ||
	fail "--user nobody -o /dev/null: $(cat "$TMP/null.log")"
grep -q "now running as 'nobody'" "$TMP/null.log" && echo "  ok: -o /dev/null ran as nobody"
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
"$BPMC" record --user nobody -e cpu-clock -I 200 -d 1 -o - 2>"$TMP/stdout.log" | grep -q intervals_lost ||
	fail "--user nobody -o -: no rows: $(cat "$TMP/stdout.log")"

# --self-stats wants CAP_SYS_ADMIN (bpf_enable_stats): one warning naming
# it, and the run goes on. With --user, root turns them on before the drop.
self_ns() {
	csv_awk '$col("scope") == "self" && $col("event") == "bpf_run_time_ns" { s += $col("count") }
		END { printf "%.0f\n", s }' "$1"
}
"${AS_NOBODY[@]}" "$BPMC" record --self-stats -e cpu-clock -I 500 -d 1 -o "$OUT/self.csv" 2>"$TMP/self.log" ||
	fail "--self-stats without CAP_SYS_ADMIN failed: $(cat "$TMP/self.log")"
[ "$(grep -c "self-stats" "$TMP/self.log")" = 1 ] &&
	grep -q "warning: --self-stats needs CAP_SYS_ADMIN" "$TMP/self.log" ||
	fail "--self-stats without CAP_SYS_ADMIN: want one warning naming it: $(cat "$TMP/self.log")"
echo "  ok: $(grep self-stats "$TMP/self.log")"
if [ "$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null)" != 1 ]; then
	[ "$(self_ns "$OUT/self.csv")" = 0 ] || fail "bpf_run_time_ns is not 0 without statistics"
fi
"$BPMC" record --user nobody --self-stats -e cpu-clock -I 500 -d 2 -o "$OUT/self-user.csv" 2>"$TMP/self-user.log" ||
	fail "--user nobody --self-stats failed: $(cat "$TMP/self-user.log")"
grep -q self-stats "$TMP/self-user.log" && fail "--user --self-stats warned: $(cat "$TMP/self-user.log")"
ns=$(self_ns "$OUT/self-user.csv")
echo "  --user nobody --self-stats: bpf_run_time_ns $ns in all"
[ "$ns" -gt 0 ] || fail "--user nobody --self-stats: no BPF run time after the drop"
pass_or_fail
