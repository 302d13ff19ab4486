#!/usr/bin/env bash
# One interval, one write (issue 18): strace shows each plain-CSV frame
# (the header, then each interval) leave in a single write that writes
# all of it, to a published file and to a stream. On a full disk no
# write stops half-way (the blocks are reserved first), so a reader
# tailing the file never sees part of an interval, and the file, plain
# or gzip, and a stream into a regular file end on a whole interval with
# the error said.
. "$(dirname "$0")/lib.sh"
need_root
command -v strace >/dev/null || skip "strace is not installed (apt-get install strace)"
command -v python3 >/dev/null || skip "python3 is not installed (make test installs it)"

# traced TRACE CMD...: CMD under strace, its writes and reservations.
# LeakSanitizer cannot run under ptrace (SANITIZE=1): leaks are
# test_service_disk_full's to find on the same paths.
traced() {
	local out=$1
	shift
	ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0" strace -f --seccomp-bpf -y -s 0 -e trace=write,pwrite64,fallocate,ftruncate -o "$out" "$@"
}

# writes TRACE WHAT: "LEN RETURNED" of each write to WHAT (a regex of
# the fd's path as strace -y prints it).
writes() {
	grep -E "^[0-9]+ +p?write(64)?\([0-9]+<$2>, " "$1" |
		sed -nE -e 's#.*pwrite64\([^,]*, [^,]*, ([0-9]+), [0-9]+\) += (-?[0-9]+).*#\1 \2#p' \
			-e 's#.* write\([^,]*, [^,]*, ([0-9]+)\) += (-?[0-9]+).*#\1 \2#p'
}

# check_whole TRACE WHAT LABEL: every write to WHAT wrote all it was given.
check_whole() {
	local torn
	torn=$(writes "$1" "$2" | awk '$1 != $2' | head -3 | tr '\n' ';')
	[ -z "$torn" ] || fail "$3: writes cut short (asked, written): $torn"
}

intervals() { python3 "$HELPERS_PY/check_exports.py" "$1" | wc -l; }

# A published file and a stream into a file: frames = writes.
traced "$TMP/trace.file" "$BPMC" record -e cpu-clock -I 100 -d 1 -o "$TMP/out.csv" 2>"$TMP/log.file" ||
	fail "record -o out.csv exited $?: $(cat "$TMP/log.file")"
traced "$TMP/trace.stream" "$BPMC" record -e cpu-clock -I 100 -d 1 -o - >"$TMP/stream.csv" 2>"$TMP/log.stream" ||
	fail "record -o - exited $?: $(cat "$TMP/log.stream")"
for run in file:"$TMP/out.csv":'[^>]*\.out\.csv\.partial' stream:"$TMP/stream.csv":'[^>]*/stream\.csv'; do
	IFS=: read -r label csv fdpath <<<"$run"
	n=$(intervals "$csv") || fail "$label: $csv is not whole"
	w=$(writes "$TMP/trace.$label" "$fdpath" | wc -l)
	sizes=$(writes "$TMP/trace.$label" "$fdpath" | awk '{ printf "%s%s", s, $1; s = "," }')
	echo "  $label: $n intervals and a header in $w writes of $sizes bytes"
	[ "$n" -ge 8 ] || fail "$label: only $n intervals in 1 s at -I 100"
	[ "$w" -eq $((n + 1)) ] || fail "$label: $w writes for $n intervals and a header"
	check_whole "$TMP/trace.$label" "$fdpath" "$label"
done

# A 64 KiB tmpfs that fills and stays full.
TINY=$TMP/tiny
mkdir "$TINY" && mount -t tmpfs -o size=64k bpmc-test "$TINY" || skip "cannot mount a tmpfs here"
ATEXIT+=("umount '$TINY'")
for f in one.csv one.csv.gz stream.csv; do
	room=$([ "$f" = one.csv.gz ] && echo 16 || echo 24)
	dd if=/dev/zero of="$TINY/filler" bs=1k count=$((64 - room)) 2>/dev/null
	if [ "$f" = stream.csv ]; then
		traced "$TMP/trace.$f" "$BPMC" record -e cpu-clock,page-faults --by cgroup,process,thread \
			-I 50 -d 2 -o - >"$TINY/$f" 2>"$TMP/log.$f"
	else
		traced "$TMP/trace.$f" "$BPMC" record -e cpu-clock,page-faults --by cgroup,process,thread \
			-I 50 -d 2 -o "$TINY/$f" 2>"$TMP/log.$f"
	fi
	rc=$?
	fdpath="[^>]*/\\.?${f//./\\.}(\\.partial)?"
	refused=$(grep -c 'fallocate(.*ENOSPC' "$TMP/trace.$f")
	w=$(writes "$TMP/trace.$f" "$fdpath" | wc -l)
	grep -q "No space left on device" "$TMP/log.$f" || fail "$f: the full disk was not said: $(cat "$TMP/log.$f")"
	# gzip keeps room for its trailer: statvfs refuses its frames first.
	[ "$refused" -gt 0 ] || [ "$f" = one.csv.gz ] || fail "$f: the disk never refused a reservation"
	check_whole "$TMP/trace.$f" "$fdpath" "$f"
	[ -e "$TINY/$f" ] || fail "$f: nothing published: $(ls -a "$TINY")"
	n=$(intervals "$TINY/$f") || fail "$f does not end on a whole interval: $(python3 "$HELPERS_PY/check_exports.py" "$TINY/$f" 2>&1 >/dev/null | tail -1)"
	case $f in *.gz) gzip -t "$TINY/$f" || fail "$f fails gzip -t" ;; esac
	echo "  full disk, $f: exit $rc, $n whole intervals in $(stat -c %s "$TINY/$f") bytes, $w writes, $refused reservations refused; $(grep -m1 'No space' "$TMP/log.$f" | cut -c1-90)"
	rm -f "$TINY"/* "$TINY"/.??* 2>/dev/null
done
pass_or_fail
