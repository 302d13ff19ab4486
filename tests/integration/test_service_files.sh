#!/usr/bin/env bash
# Files as a service writes them: rotation on wall-clock multiples and by
# size, retention of this pattern's files only, SIGHUP, a planted link at
# the output path, -o - into a closed pipe, and no file left half-made.
. "$(dirname "$0")/lib.sh"
need_root
command -v python3 >/dev/null || skip "python3 is not installed (make test installs it)"
CHECK=$HELPERS_PY/check_exports.py

# Time: --rotate 1s with 250 ms intervals: every file's intervals start
# within one wall-clock second, and a new second starts a new file.
D=$TMP/time
"$BPMC" record -e cpu-clock -I 250 -d 4 --rotate 1s -o "$D/t.csv" 2>"$TMP/log.time" ||
	fail "record --rotate 1s: $(cat "$TMP/log.time")"
files=("$D"/t-*.csv)
python3 "$CHECK" "${files[@]}" >"$TMP/time.rows" || fail "time-rotated files are not whole"
# The second of each interval's start, per file: one per file, and no
# second in two files.
# (An interval starting within 2 ms of a second's edge is left out: the
# file's start is exact, the CSV's end and interval_ms are whole ms.)
awk '{ st = $2 - $3; if (st % 1000 < 2 || st % 1000 > 997) next
	s = int(st / 1000); if (!(($5, s) in seen)) { seen[$5, s] = 1; per[$5]++; sec[s]++ } }
	END { for (f in per) if (per[f] != 1) { print "  " f " spans " per[f] " seconds"; bad = 1 }
	      for (s in sec) if (sec[s] != 1) { print "  second " s " is in " sec[s] " files"; bad = 1 }
	      exit bad }' "$TMP/time.rows" || fail "time rotation is not on wall-clock seconds"
n=${#files[@]}
[ "$n" -ge 4 ] && [ "$n" -le 6 ] || fail "4 s with --rotate 1s made $n files: $(ls "$D")"
[[ $(basename "${files[0]}") =~ ^t-[0-9]{8}T[0-9]{6}Z(-[0-9]+)?\.csv$ ]] ||
	fail "a template without conversions gets the start time: $(basename "${files[0]}")"
echo "  --rotate 1s: $n files, each within one wall-clock second"

# Size and retention: --rotate 4K --keep 3 keeps the 3 newest of this
# host's pattern; another host's file and an unrelated one stay.
D=$TMP/size
mkdir "$D" && touch "$D/other.csv" "$D/s-otherhost-20260101T000000Z.csv.gz"
"$BPMC" record -e cpu-clock,page-faults --by cgroup,process,thread -I 20 -d 5 --rotate 4K --keep 3 \
	-o "$D/s-%h-%Y%m%dT%H%M%SZ.csv.gz" 2>"$TMP/log.size" ||
	fail "record --rotate 4K: $(cat "$TMP/log.size")"
files=("$D"/s-"$(hostname)"-*.csv.gz)
deleted=$(grep -c "retention: deleted" "$TMP/log.size")
[ "${#files[@]}" -eq 3 ] || fail "--keep 3 left ${#files[@]} files: $(ls "$D")"
[ "$deleted" -ge 1 ] || fail "--rotate 4K in 5 s made no more than 3 files: nothing to delete"
[ -e "$D/other.csv" ] && [ -e "$D/s-otherhost-20260101T000000Z.csv.gz" ] ||
	fail "retention deleted a file that is not this host's pattern"
for f in "${files[@]}"; do
	gzip -t "$f" || fail "gzip -t $f"
	size=$(stat -c %s "$f")
	[ "$size" -lt $((4096 + 4096)) ] || fail "$f is $size bytes with --rotate 4K"
done
python3 "$CHECK" --runs 20 "${files[@]}" >/dev/null 2>"$TMP/size.err" || fail "size-rotated files are not whole: $(cat "$TMP/size.err")"
echo "  --rotate 4K --keep 3: $((deleted + 3)) files made, $deleted deleted, 3 kept; mode $(stat -c %a "${files[0]}")"
[ "$(stat -c %a "${files[0]}")" = 640 ] || fail "files are not created 0640"

# SIGHUP: publishes the current file now and starts another; the
# intervals go on without a gap across the files.
D=$TMP/hup
mkdir -m 0700 "$D"
start_record "$TMP/log.hup" -e cpu-clock -I 200 -o "$D/h.csv" || exit 1
for i in 1 2; do
	sleep 1
	kill -HUP "$RECORD_PID"
	sleep 0.1
	[ "$(ls "$D" | grep -vc '^\.')" -eq "$i" ] || fail "SIGHUP $i did not publish a file: $(ls -a "$D")"
done
sleep 1
kill -TERM "$RECORD_PID"
wait "$RECORD_PID" || fail "record exited $? after SIGHUP, SIGTERM"
files=("$D"/h*.csv)
[ "${#files[@]}" -eq 3 ] || fail "two SIGHUPs made ${#files[@]} files, want 3: $(ls "$D")"
[ -e "$D/h.csv" ] || fail "the first file is not the name given"
python3 "$CHECK" --runs 200 "${files[@]}" >"$TMP/hup.runs" || fail "files around SIGHUP are not whole or have a gap"
echo "  SIGHUP twice: $(ls "$D" | tr '\n' ' ')"

# Extensions without case; -d to the millisecond.
"$BPMC" record -e cpu-clock -I 500 -d 1.5 -o "$TMP/case.CSV.GZ" 2>"$TMP/log.case" ||
	fail "record -d 1.5 -o x.CSV.GZ: $(cat "$TMP/log.case")"
gzip -t "$TMP/case.CSV.GZ" 2>/dev/null || fail "x.CSV.GZ is not gzip"
n=$(python3 "$CHECK" "$TMP/case.CSV.GZ" | wc -l)
[ "$n" -eq 3 ] || fail "-d 1.5 -I 500 wrote $n intervals, want 3"

# A link planted at the output path: refused, never followed.
echo precious >"$TMP/target"
ln -s "$TMP/target" "$TMP/link.csv"
"$BPMC" record -d 1 -o "$TMP/link.csv" 2>"$TMP/log.link"
rc=$?
[ "$rc" -eq 2 ] || fail "a link at the output path: exit $rc, want 2"
grep -q "link.csv' exists" "$TMP/log.link" || fail "the refusal does not name it: $(cat "$TMP/log.link")"
[ "$(cat "$TMP/target")" = precious ] || fail "the link's target was written"
# An existing file is never replaced either.
"$BPMC" record -d 1 -o "$TMP/target" 2>/dev/null && fail "an existing file was replaced"
[ "$(cat "$TMP/target")" = precious ] || fail "an existing file was written"

# -o - into a reader that goes away: bpmc ends cleanly, exit 0.
"$BPMC" record -e cpu-clock -I 100 -o - 2>"$TMP/log.pipe" | head -c 300 >/dev/null
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || fail "record -o - | head: exit $rc: $(cat "$TMP/log.pipe")"
# Exited, so its fds are closed: bpmc pins nothing, so nothing stays
# attached (bpftool would also list other collectors' programs).
echo "  -o - | head: exit $rc"
pass_or_fail
