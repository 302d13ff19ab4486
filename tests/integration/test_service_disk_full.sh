#!/usr/bin/env bash
# A small tmpfs fills up during a run: bpmc must go on collecting, say
# so, hold what it cannot write (a backlog of 5 intervals here), drop and
# count what does not fit, and write the held intervals in order once
# space is freed. No published file may hold a torn row, and every gap
# in the sequence of intervals must be accounted for by intervals_lost.
. "$(dirname "$0")/lib.sh"
need_root
command -v python3 >/dev/null || skip "python3 is not installed (make test installs it)"
SMALL=$TMP/small
mkdir "$SMALL" && mount -t tmpfs -o size=320k,mode=0755 bpmc-test "$SMALL" ||
	skip "cannot mount a tmpfs here"
ATEXIT+=("umount '$SMALL'")
I=200

# -d, not a signal: the run ends on the grid, with no partial interval.
start_record "$TMP/log" -e cpu-clock -I $I -d 7 --rotate 32K --backlog 5 \
	-o "$SMALL/d-%Y%m%dT%H%M%SZ.csv" || exit 1
sleep 1.5
# Fill what is left, then hold the disk full for about 12 intervals.
dd if=/dev/zero of="$SMALL/filler" bs=4k 2>/dev/null
sleep 2.5
kill -0 "$RECORD_PID" 2>/dev/null || fail "bpmc died when the disk filled: $(cat "$TMP/log")"
grep -q "collection goes on" "$TMP/log" || fail "the write failure was not reported: $(cat "$TMP/log")"
grep -q "No space left on device" "$TMP/log" || fail "the reason was not given: $(cat "$TMP/log")"
rm -f "$SMALL/filler"
wait "$RECORD_PID"
rc=$?
grep -q "writing again" "$TMP/log" || fail "the end of the failure was not reported"
[ "$rc" -eq 0 ] || fail "bpmc exited $rc: $(cat "$TMP/log")"
sed 's/^/  /' "$TMP/log" | grep -v 'recording\|wrote' | head -5

files=("$SMALL"/d-*.csv)
python3 "$HELPERS_PY/check_exports.py" --runs $I "${files[@]}" >"$TMP/runs" 2>"$TMP/check.err" ||
	fail "published files are not whole, or a gap is unaccounted for: $(head -3 "$TMP/check.err")"
read -r _ _ first last n lost <"$TMP/runs"
span=$(((last - first + I / 2) / I + 1))
echo "  ${#files[@]} files; $n intervals written, $lost lost (intervals_lost rows), $span on the grid"
[ "$lost" -gt 0 ] || fail "a full disk for 2.5 s with --backlog 5 lost nothing: the test did not fill it"
[ $((n + lost)) -eq "$span" ] || fail "$n written + $lost lost != $span intervals"
# Intervals after the disk was freed made it: the last is recent.
[ $(($(date +%s%3N) - last)) -lt 3000 ] || fail "no interval written after space was freed"

# A one-shot run into a 64 KiB tmpfs that fills and stays full, plain
# and gzip: the file still ends on a whole interval, the .gz with its
# trailer, and the message names the real cause.
# The room left must hold a few intervals, whose size grows with the
# host's processes and threads (a busy host's first interval passed
# 24 KiB): measured first, in KiB, from a 4-interval recording.
"$BPMC" record -e cpu-clock,page-faults --by cgroup,process,thread -I 50 -d 0.2 \
	-o "$TMP/probe.csv" 2>/dev/null || fail "the probe recording failed"
per=$(( ($(stat -c %s "$TMP/probe.csv" 2>/dev/null || echo 0) + 4095) / 4096 ))
room_csv=$(( per * 3 > 24 ? per * 3 : 24 ))
size=$(( room_csv + 40 ))
echo "  an interval here: about $per KiB; room for one.csv $room_csv KiB of $size"
TINY=$TMP/tiny
mkdir "$TINY" && mount -t tmpfs -o size=${size}k bpmc-test "$TINY" || skip "cannot mount a tmpfs here"
ATEXIT+=("umount '$TINY'")
# gzip writes a seventh as much: less room for it, so that it fills too.
for f in one.csv one.csv.gz; do
	room=$([ "$f" = one.csv ] && echo "$room_csv" || echo 16)
	dd if=/dev/zero of="$TINY/filler" bs=1k count=$((size - room)) 2>/dev/null
	"$BPMC" record -e cpu-clock,page-faults --by cgroup,process,thread -I 50 -d 3 \
		-o "$TINY/$f" 2>"$TMP/log.$f"
	rc=$?
	grep -q "Input/output error" "$TMP/log.$f" && fail "$f: a full disk called an I/O error"
	grep -q "No space left on device" "$TMP/log.$f" || fail "$f: the disk never filled: $(cat "$TMP/log.$f")"
	[ -e "$TINY/$f" ] || fail "$f: nothing published: $(ls -a "$TINY")"
	python3 "$HELPERS_PY/check_exports.py" "$TINY/$f" >"$TMP/one.rows" 2>"$TMP/one.err" ||
		fail "$f is not whole: $(cat "$TMP/one.err")"
	case $f in *.gz) gzip -t "$TINY/$f" || fail "$f fails gzip -t" ;; esac
	echo "  one-shot $f on a full ${size} KiB tmpfs: exit $rc, $(wc -l <"$TMP/one.rows") whole intervals, $(grep -c . "$TMP/log.$f") lines on stderr"
	rm -f "$TINY"/* "$TINY"/.??* 2>/dev/null
done
pass_or_fail
