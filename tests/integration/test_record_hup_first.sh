#!/usr/bin/env bash
# A SIGHUP during the first interval rotates too (issue 26: at 0.2 s or
# 0.8 s of a 1 s first interval it was dropped, 3 of 3, since no file
# existed yet): the file the first interval makes is published as soon
# as it is written, holding that interval alone, and the next intervals
# go to another file. A SIGHUP later publishes the current file at once.
. "$(dirname "$0")/lib.sh"
need_root

for at in 0.2 0.8; do
	d="$TMP/at-$at"
	mkdir -p "$d"
	start_record "$TMP/log-$at" -e cpu-clock -I 1000 -d 4 -o "$d/h.csv" || exit 1
	sleep "$at"
	kill -HUP "$RECORD_PID"
	wait "$RECORD_PID" || fail "HUP at $at s: record failed: $(cat "$TMP/log-$at")"
	files=$(ls "$d" | wc -l)
	first=$(grep -c ',"intervals_lost",' "$d/h.csv" 2>/dev/null)
	rest=$(cat "$d"/h-*.csv 2>/dev/null | grep -c ',"intervals_lost",')
	echo "  HUP at $at s of the first interval: $files files; h.csv holds ${first:-no} interval(s), the others $rest"
	[ "$files" = 2 ] || fail "HUP at $at s: $files files, want 2: $(ls "$d")"
	[ "${first:-0}" = 1 ] || fail "HUP at $at s: h.csv holds ${first:-no} intervals, want the first alone"
	[ "$rest" -ge 2 ] || fail "HUP at $at s: the next file holds $rest intervals"
done
pass_or_fail
