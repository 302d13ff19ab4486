#!/usr/bin/env bash
# record's status line: on a terminal (a pty, by script(1)) one line
# redrawn in place after every interval, whose last drawing matches the
# file (intervals, rows, bytes); with stderr to a file, no trace of it.
. "$(dirname "$0")/lib.sh"
need_root
command -v script >/dev/null || skip "script (util-linux) is not installed"

# 1. Under a pty: -I 300 for 1.5 s is 5 intervals.
script -qfec "$BPMC record -e cpu-clock -I 300 -d 1.5 -o $TMP/tty.csv" "$TMP/typescript" >/dev/null ||
	fail "record under script failed: $(tail -3 "$TMP/typescript")"
grep -q 'COMMAND_EXIT_CODE="0"' "$TMP/typescript" ||
	fail "record under script did not exit 0: $(tail -3 "$TMP/typescript")"
# Each drawing starts with CR and erase-to-end-of-line.
draws=$(grep -o $'\r\e\[Kbpmc: [0-9:]* elapsed' "$TMP/typescript" | wc -l)
last=$(tr '\r' '\n' < "$TMP/typescript" | grep 'elapsed, ' | tail -1 | sed 's/^\x1b\[K//')
echo "  under a pty: $draws drawings; the last: $last"
[ "$draws" -eq 5 ] || fail "$draws drawings of the status line for 5 intervals"
rows=$(csv_awk '$col("scope") != "meta" && $col("scope") != "encoding" && $col("event") != "intervals_lost" { n++ } END { print n + 0 }' "$TMP/tty.csv")
size=$(stat -c %s "$TMP/tty.csv")
echo "  the file: $rows rows (beside meta, encoding and intervals_lost), $size bytes"
echo "$last" | grep -q "^bpmc: 00:00:0[12] elapsed, 5 intervals, $rows rows, " ||
	fail "the last status does not say 5 intervals and $rows rows: $last"
kb=$(echo "$last" | sed -n 's/.* rows, \([0-9.]*\) kB written.*/\1/p')
# Within half the last digit shown (119.2 kB, or 119 kB past 100 kB: a
# host busy with other cgroups writes more rows).
awk -v kb="${kb:-0}" -v b="$size" 'BEGIN { n = index(kb, ".") ? length(kb) - index(kb, ".") : 0
	d = kb * 1000 - b; if (d < 0) d = -d; exit !(d <= 500 / 10 ^ n + 1) }' ||
	fail "the status says ${kb:-?} kB written, the file has $size bytes"
echo "$last" | grep -q ', 0 samples and 0 intervals lost$' || fail "losses misreported: $last"
# Every other line (the warnings, 'wrote') starts at column 0.
tr '\r' '\n' < "$TMP/typescript" | sed $'s/\e\\[K//g' | grep -v '^$\|^Script ' | grep -v '^bpmc: ' &&
	fail "a line of record's stderr did not start a line of its own"
tr '\r' '\n' < "$TMP/typescript" | grep -q 'intervals lost.' &&
	fail "something was written after the status line, on its line"

# 2. stderr to a file: no status line, no escape sequence.
"$BPMC" record -e cpu-clock -I 300 -d 1 -o "$TMP/file.csv" 2>"$TMP/file.log" ||
	fail "record failed: $(cat "$TMP/file.log")"
grep -q 'elapsed' "$TMP/file.log" && fail "the status line is in a log file: $(cat -v "$TMP/file.log")"
grep -q $'\e\|\r' "$TMP/file.log" && fail "an escape or CR is in the log file: $(cat -v "$TMP/file.log")"
echo "  stderr to a file: $(wc -l < "$TMP/file.log") lines, none of them a status, no escape"
pass_or_fail
