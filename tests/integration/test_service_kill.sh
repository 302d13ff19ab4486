#!/usr/bin/env bash
# 15 SIGKILLs at random moments of a rotating .csv.gz run, each followed
# by a restart that repairs what the killed run left. Every published
# file must pass gzip -t, parse with a strict CSV reader and hold whole
# intervals only; no partial file may remain; and every interval that had
# ended before a kill must be in some file: a kill loses at most the
# interval in flight.
. "$(dirname "$0")/lib.sh"
need_root
command -v python3 >/dev/null || skip "python3 is not installed (make test installs it)"
OUT=$TMP/out
I=200
ARGS=(-e cpu-clock -I $I --rotate 2s,8K -o "$OUT/k-%h-%Y%m%dT%H%M%SZ.csv.gz")
now_ms() { date +%s%3N; }
: >"$TMP/kills"

for i in $(seq 15); do
	start_record "$TMP/log.$i" "${ARGS[@]}" || { fail "run $i did not start"; break; }
	# From just after start (the first interval not yet ended) to
	# 1.8 s in, past the first rotation (8K: ~6 intervals here): kills
	# land before, between and inside writes.
	sleep "$(awk -v r="$RANDOM" 'BEGIN { printf "%.3f", 0.05 + (r % 1750) / 1000 }')"
	kill -KILL "$RECORD_PID"
	echo "$RECORD_PID $(now_ms)" >>"$TMP/kills"
	wait "$RECORD_PID" 2>/dev/null
done
# The last restart repairs the last kill's partial, then stops cleanly.
start_record "$TMP/log.final" "${ARGS[@]}" || fail "the last run did not start"
sleep 0.5
kill -TERM "$RECORD_PID"
wait "$RECORD_PID" || fail "the last run exited $? after SIGTERM"

partials=$(find "$OUT" -name '.*.partial' | wc -l)
[ "$partials" -eq 0 ] || fail "$partials partial files remain: $(ls -a "$OUT")"
repaired=$(cat "$TMP"/log.* | grep -c "recovered '")
deleted=$(cat "$TMP"/log.* | grep -c "held no whole interval")
files=("$OUT"/k-*.csv.gz)
for f in "${files[@]}"; do
	gzip -t "$f" 2>"$TMP/gzip.err" || fail "gzip -t $f: $(cat "$TMP/gzip.err")"
done
python3 "$HELPERS_PY/check_exports.py" --runs $I "${files[@]}" >"$TMP/runs" 2>"$TMP/check.err" ||
	fail "published files are not whole: $(head -3 "$TMP/check.err")"
echo "  ${#files[@]} files, $repaired repaired and $deleted deleted partials, $(grep -c '^run' "$TMP/runs") runs with intervals"

# Each killed run: its last interval in the files ended no earlier than
# one interval (the one in flight) plus writing time before the kill.
while read -r pid killed; do
	last=$(awk -v p="$pid" '$1 == "run" && $2 == p { print $4 }' "$TMP/runs")
	# None: killed before its first interval ended, nothing to lose.
	[ -n "$last" ] || continue
	late=$((killed - last))
	[ "$late" -le $((I + 150)) ] ||
		fail "run $pid: killed at $killed, its last published interval ended $late ms before"
	echo "$late" >>"$TMP/late"
done <"$TMP/kills"
[ -s "$TMP/late" ] && echo "  kill to last published interval end: $(sort -n "$TMP/late" | tr '\n' ' ')ms"
pass_or_fail
