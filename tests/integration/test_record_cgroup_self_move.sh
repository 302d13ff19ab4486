#!/usr/bin/env bash
# Tasks that move themselves to another cgroup and exec at once (`echo $$
# > cgroup.procs; exec CMD`, the way shells and runtimes start a
# workload), with no context switch between the move and the next one.
# Exact mode must credit each cgroup with the page faults made in it, as
# the kernel counts them: no split by run time, which is right for clocks
# and wrong for counts.
#
# Each child of a shell in parent/ faults in PRE fresh pages (quickly),
# moves itself to its own cNN/ and execs `spin`, which makes ~60 faults
# (its exec and start) and spins ~5 ms: few faults over most of the run
# time. A split by run time gave most of the PRE faults to cNN/. The
# reference is the kernel's: `perf stat -e page-faults -G` for each
# cgroup where perf is installed, and always the child's own count, the
# faults of exec'ing spin alone (measured here under `perf stat`, or
# bounded by 200 without perf).
# Again under -G keeping the children only (the parent left out).
# A last phase does it with shells, as the issue reported it: `sh -c
# 'echo $$ > cNN/cgroup.procs; exec pagetouch 50'`, against perf -G.
# In every phase, the children's cpu-clock against perf -G: a split by run time
# read sum_exec_runtime, which lags by up to a tick where no cpu
# controller updates it at the move (+0.2 to +3.9 ms a child here).
. "$(dirname "$0")/lib.sh"
need_root

KIDS=6 PRE=2000 SPIN=3000000
mk_cgroup PARENT "bpmc-test-$$/parent" || exit 1
rel=${PARENT#$CG2/}
rel=${rel%/parent}
for i in $(seq -f %02g 1 $KIDS); do
	mk_cgroup "KID$i" "$rel/c$i" || exit 1
done

HAVE_PERF=0
command -v perf >/dev/null && perf stat -x, -e page-faults -o "$TMP/perf.probe" true 2>/dev/null && HAVE_PERF=1
[ "$HAVE_PERF" = 1 ] || echo "  perf is not installed (Debian: linux-perf): checking against the known counts only"

# The faults of exec'ing spin, which is all a child's cgroup gets.
EXEC_FAULTS=
if [ "$HAVE_PERF" = 1 ]; then
	perf stat -x, -e page-faults -o "$TMP/spin.perf" -- "$HELPERS/spin" $SPIN >/dev/null
	EXEC_FAULTS=$(awk -F, '$3 == "page-faults" { print $1 }' "$TMP/spin.perf")
	echo "  exec'ing spin alone: $EXEC_FAULTS page-faults (perf stat)"
fi

# run_phase NAME SCRIPT [ARG...]: runs SCRIPT (sh, in $PARENT: $1 is the
# children's cgroup prefix) under bpmc record ARG..., and under perf stat
# -a -G for every cgroup when perf is there; leaves $TMP/NAME.csv and
# $TMP/NAME.perf.
run_phase() {
	local name=$1 script=$2 evs= cgs= i
	shift 2
	start_record "$TMP/$name.log" --mode exact -e page-faults,cpu-clock -I 500 -d 4 \
		-o "$TMP/$name.csv" "$@" || return 1
	for i in parent $(seq -f 'c%02g' 1 $KIDS); do
		evs="$evs${evs:+,}page-faults,cpu-clock" cgs="$cgs${cgs:+,}$rel/$i,$rel/$i"
	done
	if [ "$HAVE_PERF" = 1 ]; then
		spawn perf stat -a -x, -e "$evs" -G "$cgs" -o "$TMP/$name.perf" -- \
			sh -c 'echo $$ > "$1/cgroup.procs" && exec sh -c "$2" sh "$3"' sh "$PARENT" "$script" "$CG2/$rel/c"
	else
		spawn sh -c 'echo $$ > "$1/cgroup.procs" && exec sh -c "$2" sh "$3"' sh "$PARENT" "$script" "$CG2/$rel/c"
	fi
	wait "$SPAWNED" || fail "$name: the workload failed"
	wait "$RECORD_PID" || fail "$name: bpmc record exited $?: $(cat "$TMP/$name.log")"
}

# check_phase NAME KNOWN_KID [FILTERED]: each cgroup's page-faults against
# perf -G (within 2 faults or 2 %), and each child's against KNOWN_KID (a
# count or LOW-HIGH), when given; with perf, the children's cpu-clock,
# summed, against perf -G's within 100 us a child (perf prints 10 us
# steps; the switches' boundaries, docs/accuracy.md, move a few us a
# child). FILTERED: the parent was left out by -G, so it has nothing.
check_phase() {
	local name=$1 known=$2 filtered=${3:-} i cg got ref lo hi c cref csum=0 cdiff=0 d worst=0 rest
	for i in parent $(seq -f 'c%02g' 1 $KIDS); do
		cg=$CG2/$rel/$i
		got=$(csv_sum "$TMP/$name.csv" cgroup page-faults cgroup_id "$(cgroup_id "$cg")")
		ref= c= cref=
		if [ "$i" = parent ] && [ -n "$filtered" ]; then
			echo "  $name: $i: bpmc $got page-faults (left out by -G)"
			[ "$got" = 0 ] || fail "$name: $i: $got page-faults where -G leaves it out"
			continue
		fi
		if [ "$HAVE_PERF" = 1 ]; then
			ref=$(awk -F, -v cg="$rel/$i" '$3 == "page-faults" && $4 == cg { print $1 }' "$TMP/$name.perf")
			c=$(csv_sum "$TMP/$name.csv" cgroup cpu-clock cgroup_id "$(cgroup_id "$cg")")
			cref=$(awk -F, -v cg="$rel/$i" '$3 == "cpu-clock" && $4 == cg { printf "%.0f", $1 * 1e6 }' "$TMP/$name.perf")
		fi
		echo "  $name: $i: bpmc $got page-faults${ref:+, perf -G $ref}${c:+; cpu-clock bpmc $c ns, perf -G $cref ns ($((c - cref)) ns)}"
		if [ -n "$ref" ]; then
			awk -v a="$got" -v b="$ref" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 2 || d * 100 <= 2 * b) }' ||
				fail "$name: $i: $got page-faults, perf -G counts $ref"
		fi
		[ "$i" = parent ] && continue
		if [ -n "$c" ]; then
			csum=$((csum + cref)) cdiff=$((cdiff + c - cref))
			d=$((c - cref))
			[ "${d#-}" -gt "${worst#-}" ] && worst=$d
		fi
		[ -n "$known" ] || continue
		lo=${known%-*} hi=${known#*-}
		# exec's own faults vary by a few (5, or 1 % under ASan's shadow)
		[ "$got" -ge "$((lo - 5 - lo / 100))" ] && [ "$got" -le "$((hi + 5 + hi / 100))" ] ||
			fail "$name: $i: $got page-faults, where exec'ing spin makes $known"
	done
	[ "$HAVE_PERF" = 1 ] || return 0
	echo "  $name: the children's cpu-clock: bpmc $((csum + cdiff)) ns, perf -G $csum ns ($cdiff ns, $((cdiff / KIDS)) ns a child; the worst child $worst ns)"
	# One child may hold a stay credited from another task's switch-in
	# (docs/accuracy.md, *What "exact" does not cover*: 2.3-3.5 ms; here
	# +3.4 ms in one child of six in a sanitized suite run, the other
	# five within 40 us): the others within 100 us a child, it within 5 ms.
	rest=$((cdiff - worst))
	[ "${rest#-}" -le $(((KIDS - 1) * 100000)) ] ||
		fail "$name: the children's cpu-clock, less the worst child's, is $rest ns off perf -G's (over 100 us a child)"
	[ "${worst#-}" -le 5000000 ] ||
		fail "$name: a child's cpu-clock is $worst ns off perf -G's (over 5 ms)"
}

TOUCH="for i in \$(seq -f '%02g' 1 $KIDS); do '$HELPERS/pagetouch' $PRE \"\$1\$i/cgroup.procs\" '$HELPERS/spin' $SPIN >/dev/null; done"
run_phase pages "$TOUCH" || exit 1
check_phase pages "${EXEC_FAULTS:-1-200}"
got=$(csv_sum "$TMP/pages.csv" cgroup page-faults cgroup_id "$(cgroup_id "$PARENT")")
[ "$got" -ge $((KIDS * PRE)) ] || fail "parent: $got page-faults, below the $((KIDS * PRE)) pages its children touched there"

# -G keeping the children only: what the children made before their
# move is read at the move and left out with the parent, not split (the
# split got it right too where a slot still held the old key).
kids=
for i in $(seq -f %02g 1 $KIDS); do kids="$kids${kids:+,}/$rel/c$i"; done
run_phase filtered "$TOUCH" -G "$kids" || exit 1
check_phase filtered "${EXEC_FAULTS:-1-200}" filtered

if [ "$HAVE_PERF" = 1 ]; then
	run_phase shells "for i in \$(seq -f '%02g' 1 $KIDS); do sh -c 'echo \$\$ > \"\$1/cgroup.procs\"; exec \"\$2\" 50' sh \"\$1\$i\" '$HELPERS/pagetouch'; done" || exit 1
	check_phase shells ""
fi
pass_or_fail
