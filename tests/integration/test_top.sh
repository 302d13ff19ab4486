#!/usr/bin/env bash
# bpmc top, driven under tmux (send-keys, capture-pane): two burners in
# two cgroups at different duty cycles are on the screen in the right
# order, at rates within 10 % of their cpu.stat; the keys sort, group,
# filter, expand, freeze and quit; after q and after SIGTERM the pane is
# back in normal mode and none of that bpmc's BPF programs is loaded.
. "$(dirname "$0")/lib.sh"
need_root
command -v tmux >/dev/null || skip "tmux is not installed"
command -v bpftool >/dev/null || skip "bpftool is not installed"

SOCK=bpmc-test-$$
tm() { tmux -L "$SOCK" "$@"; }
ATEXIT+=("tmux -L $SOCK kill-server 2>/dev/null")
# A pane runs bpmc top through two shells: the inner one writes its PID
# and becomes bpmc (exec), so that only that bpmc is signalled and its
# programs found; the outer one waits for it and writes its exit status
# (tmux's own pane_dead_status came late or never here). The outer one
# ignores the signals the test sends, which bpmc sets its own handlers
# for.
printf '#!/bin/sh\necho $$ > "$1"\nshift\nexec "$@"\n' > "$TMP/pid_exec"
printf '#!/bin/sh\ntrap "" INT HUP TERM\nst=$1\nshift\n"$@"\necho $? > "$st"\n' > "$TMP/status_of"
chmod +x "$TMP/pid_exec" "$TMP/status_of"

# start_top NAME COLSxROWS ARGS...: bpmc top ARGS in a detached pane
# that stays, dead, after bpmc exits; sets TOP_PID.
start_top() {
	local name=$1 w=${2%x*} h=${2#*x} i
	shift 2
	tm new-session -d -s "$name" -x "$w" -y "$h" "$TMP/status_of" "$TMP/$name.status" \
		"$TMP/pid_exec" "$TMP/$name.pid" "$BPMC" top "$@" \; \
		set-option -g remain-on-exit on || return 1
	for i in $(seq 50); do
		TOP_PID=$(cat "$TMP/$name.pid" 2>/dev/null) && [ -n "$TOP_PID" ] && break
		sleep 0.1
	done
	ATEXIT+=("kill -TERM $TOP_PID 2>/dev/null")
}
screen() { tm capture-pane -p -t "$1"; }
keys() { tm send-keys -t "$@"; sleep 0.4; }
# wait_screen NAME ERE: until the screen shows it (10 s at most).
wait_screen() {
	local i
	for i in $(seq 100); do
		screen "$1" | grep -qE "$2" && return 0
		sleep 0.1
	done
	return 1
}
# The interval the screen shows: its end, HH:MM:SS, in the first line.
shown_at() { screen "$1" | head -1 | grep -oE '[0-9]{2}:[0-9]{2}:[0-9]{2}' | head -1; }
# cpu_pct NAME KEY: the CPU% column of the line whose name is KEY.
cpu_pct() {
	screen "$1" | awk -v key="$2" '
		/NAME/ && !c { for (i = 1; i <= NF; i++) if ($i ~ /CPU%$/) c = i }
		c && $NF == key { print $c; exit }'
}
# line_of NAME KEY: the screen line of KEY (0: absent).
line_of() { screen "$1" | awk -v key="$2" '$NF == key { print NR; f = 1; exit } END { if (!f) print 0 }'; }
# prog_ids PID: the BPF programs that process holds, by their fds.
prog_ids() { grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u; }
# check_gone NAME IDS WHAT: the pane's bpmc exited 0, the terminal is in
# normal mode, and none of its programs is loaded.
check_gone() {
	local i id left rc alt
	for i in $(seq 100); do
		rc=$(cat "$TMP/$1.status" 2>/dev/null) && [ -n "$rc" ] && break
		sleep 0.1
	done
	[ -n "$rc" ] || { fail "$3: bpmc top still runs: $(screen "$1" | head -3)"; return; }
	alt=$(tm display -p -t "$1" '#{alternate_on}')
	# A program goes once its last fd is closed, a moment after exit.
	for i in $(seq 30); do
		left=""
		for id in $2; do
			bpftool prog show id "$id" >/dev/null 2>&1 && left="$left $id"
		done
		[ -z "$left" ] && break
		sleep 0.1
	done
	echo "  after $3: exit status $rc, alternate screen $alt, $(echo $2 | wc -w) programs held, left loaded (3 s allowed):${left:- none}"
	[ "$rc" = 0 ] || fail "$3: bpmc top exited $rc: $(screen "$1" | tail -5)"
	[ "$alt" = 0 ] || fail "$3: the terminal is still on the alternate screen"
	[ -z "$left" ] || fail "$3: programs$left are still loaded"
	[ -n "$2" ] || fail "$3: no BPF program was found held by bpmc top"
}

rel=bpmc-top-$$
start_two_burners "$rel/hot" 60 "$rel/cool" 20 60 || exit 1
A=/$rel/hot B=/$rel/cool

# 1. The two cgroups, in order, at the rates cpu.stat says, over five
# intervals: cpu.stat is read as each new interval is drawn.
start_top t1 100x30 -e cpu-clock,page-faults --by cgroup || exit 1
wait_screen t1 "$B\$" || { fail "the burners' cgroups never showed: $(screen t1)"; exit 1; }
ids=$(prog_ids "$TOP_PID")
prev=$(shown_at t1) n=0 sum_a=0 sum_b=0
for i in $(seq 200); do
	at=$(shown_at t1)
	if [ "$at" != "$prev" ]; then
		ua=$(usage_usec "$BURN_CG_A") ub=$(usage_usec "$BURN_CG_B")
		if [ "$n" = 0 ]; then
			ua0=$ua ub0=$ub
			lost_mark
		else
			pa=$(cpu_pct t1 "$A") pb=$(cpu_pct t1 "$B")
			la=$(line_of t1 "$A") lb=$(line_of t1 "$B")
			echo "  $at: $A ${pa:-?} % on line $la, $B ${pb:-?} % on line $lb"
			[ "$la" -gt 0 ] && [ "$la" -lt "$lb" ] || fail "$at: $A (line $la) is not above $B (line $lb)"
			sum_a=$(awk -v s="$sum_a" -v p="${pa:-0}" 'BEGIN { print s + p }')
			sum_b=$(awk -v s="$sum_b" -v p="${pb:-0}" 'BEGIN { print s + p }')
		fi
		n=$((n + 1)) prev=$at
		[ "$n" = 6 ] && break
	fi
	sleep 0.05
done
[ "$n" = 6 ] || fail "only $n intervals were drawn in 10 s"
lost=$(($(lost_ns) - LOST_MARK))
for k in a b; do
	if [ $k = a ]; then sum=$sum_a used=$(((ua - ua0) * 1000)) name=$A
	else sum=$sum_b used=$(((ub - ub0) * 1000)) name=$B; fi
	# Five 1 s intervals: the sum of CPU% is ns / 1e7.
	got=$(awk -v s="$sum" 'BEGIN { printf "%.0f", s * 1e7 }')
	echo "  $name: top $got ns over 5 intervals, cpu.stat $used ns ($(awk -v a="$got" -v b="$used" 'BEGIN { printf "%+.1f", b ? 100 * (a - b) / b : 0 }') %), the host lost $((lost / 1000000)) ms to steal and irqs"
	awk -v a="$got" -v b="$used" -v l="$lost" 'BEGIN { d = a - b
		exit !(b > 0 && d >= -0.1 * b && d <= 0.1 * b + l) }' ||
		fail "$name: top says $got ns, cpu.stat $used ns: beyond 10 %"
done

# 2. Sorting: r reverses, n sorts by name, < and > move the column.
keys t1 r
screen t1 | sed -n 2p | grep -q 'sort CPU% ascending' || fail "r: the header does not say ascending: $(screen t1 | sed -n 2p)"
[ "$(line_of t1 "$B")" -lt "$(line_of t1 "$A")" ] || fail "r: $B is not above $A"
keys t1 r
keys t1 n
screen t1 | sed -n 2p | grep -q 'sort name' || fail "n: not sorted by name: $(screen t1 | sed -n 2p)"
screen t1 | grep -q '\*NAME' || fail "n: the NAME column is not marked"
keys t1 '>'
screen t1 | sed -n 2p | grep -q 'sort cpu-clock' || fail ">: not sorted by cpu-clock: $(screen t1 | sed -n 2p)"
keys t1 '>' '>'
screen t1 | sed -n 2p | grep -q 'sort CPU%' || fail "> >: not back to CPU%: $(screen t1 | sed -n 2p)"
echo "  sorting: r, n, > and > > give the orders and headers expected"

# 3. Filtering: / TEXT Enter, then / ^U Enter clears it.
keys t1 / ; keys t1 -l "$rel/cool"; keys t1 Enter
[ "$(line_of t1 "$A")" = 0 ] && [ "$(line_of t1 "$B")" -gt 0 ] ||
	fail "filter '$rel/cool': the screen shows $A or lacks $B: $(screen t1)"
screen t1 | sed -n 2p | grep -q "filter '$rel/cool'" || fail "the header does not name the filter"
keys t1 / ; keys t1 C-u Enter
[ "$(line_of t1 "$A")" -gt 0 ] || fail "the cleared filter still hides $A"
echo "  filtering: '$rel/cool' shows $B alone; cleared, both"

# 4. Grouping: g goes cgroup -> process -> container (none here: by
# cgroup, said) -> pod -> cgroup; a process is comm[pid].
keys t1 g
screen t1 | sed -n 2p | grep -q 'by process' || fail "g: not by process: $(screen t1 | sed -n 2p)"
wait_screen t1 "burner\\[$BURN_PID_A\\]" && wait_screen t1 "burner\\[$BURN_PID_B\\]" ||
	fail "by process: the burners $BURN_PID_A and $BURN_PID_B are not shown"
keys t1 g
screen t1 | sed -n 2p | grep -q 'by cgroup (no containers here)' || fail "g: container grouping without containers: $(screen t1 | sed -n 2p)"
keys t1 g g
screen t1 | sed -n 2p | grep -q 'by cgroup - ' || fail "g g: not back to cgroups: $(screen t1 | sed -n 2p)"
echo "  grouping: process (both burners by PID), container (none: cgroups, said), pod, cgroup"

# 5. Expanding: the first key (hot, sorted first) opens into its process.
keys t1 / ; keys t1 -l "$rel/hot"; keys t1 Enter
keys t1 e
wait_screen t1 "\`- burner\\[$BURN_PID_A\\]" || fail "e: $A did not expand into burner[$BURN_PID_A]: $(screen t1)"
keys t1 e
sleep 1.2
screen t1 | grep -q "\`- burner" && fail "e again: $A did not fold"
echo "  expanding: $A opens into burner[$BURN_PID_A] and folds back"

# 6. Freezing: the interval shown stays while frozen, moves once thawed.
keys t1 f
at=$(shown_at t1)
sleep 2.2
screen t1 | sed -n 2p | grep -q FROZEN || fail "f: the header does not say FROZEN"
[ "$(shown_at t1)" = "$at" ] || fail "f: the screen moved on while frozen ($at, then $(shown_at t1))"
keys t1 f
sleep 1.2
[ "$(shown_at t1)" != "$at" ] || fail "f again: the screen stays at $at"
echo "  freezing: $at held for 2.2 s, then moving again"

# 7. q quits: exit 0, normal mode, nothing loaded.
keys t1 q
check_gone t1 "$ids" q

# 8. SIGTERM, at 80x24, with an event list wider than the screen.
start_top t2 80x24 -e cpu-clock,task-clock,page-faults,context-switches,cpu-migrations --by cgroup || exit 1
wait_screen t2 "$B\$" || fail "at 80x24 the burners never showed: $(screen t2)"
w=$(screen t2 | awk '{ if (length($0) > w) w = length($0) } END { print w }')
cols=$(screen t2 | grep NAME | head -1)
echo "  at 80x24, 5 events: widest line $w columns; columns: $cols"
[ "$w" -le 80 ] || fail "a line is $w columns wide at 80"
echo "$cols" | grep -q 'CPU%' && echo "$cols" | grep -q NAME || fail "at 80x24 the CPU% or NAME column went: $cols"
ids=$(prog_ids "$TOP_PID")
kill -TERM "$TOP_PID"
check_gone t2 "$ids" SIGTERM

# 9. Ctrl-C on the terminal (SIGINT), and SIGHUP (the terminal went).
start_top t3 80x24 -e cpu-clock --by process || exit 1
wait_screen t3 'burner\[' || fail "by process, the burners never showed: $(screen t3)"
ids=$(prog_ids "$TOP_PID")
keys t3 C-c
check_gone t3 "$ids" Ctrl-C
# With a map too small for the host, the warnings: each on the bottom
# line as it comes, all of them on the terminal once the screen is gone.
start_top t4 80x24 -e cpu-clock --max-keys 4 || exit 1
wait_screen t4 'samples lost this interval: the counts map is full' ||
	fail "a warning did not come to the bottom line: $(screen t4 | tail -1)"
ids=$(prog_ids "$TOP_PID")
kill -HUP "$TOP_PID"
check_gone t4 "$ids" SIGHUP
n=$(screen t4 | grep -c '^bpmc: warning: .* samples lost this interval')
echo "  --max-keys 4: the bottom line said a loss; $n warnings of losses printed once the screen was gone"
[ "$n" -ge 1 ] || fail "the warnings held while the screen was up were not printed: $(screen t4)"
pass_or_fail
