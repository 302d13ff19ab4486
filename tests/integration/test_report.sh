#!/usr/bin/env bash
# bpmc report on real exports: per-key totals, seconds and rates equal
# what the rows say (read here by an independent RFC 4180 reader);
# --cgroup, --series (zeros for the intervals a key had no row), files of
# schema v1 and v3 beside v6 give the same answer, a truncated .gz is read
# up to its last whole row and said so, an input that is not an export is
# refused with its name and leaves no output, and --diff flags the cgroup
# whose load changed, not the ones that kept theirs.
. "$(dirname "$0")/lib.sh"
need_root

T=bpmc-test-$$
mk_cgroup A "$T/a" || exit 1
mk_cgroup B "$T/b" || exit 1
mk_cgroup C "$T/c" || exit 1
record() { # OUT A_ROUNDS
	start_record "$TMP/log" -e cpu-clock,page-faults,context-switches \
		--by cgroup,process -I 250 -d 4 -o "$1" || return 1
	# a and b do A_ROUNDS and 1,000,000 rounds every 20 ms (b: a tenth of a CPU here)
	# (tests/helpers/worker catches up what a loaded host delays: a
	# steady rate, not a burner's share of the host, which moved 56.6 %
	# between two recordings once) and outlast the recording, so that
	# every interval has them (a workload that stops makes a step, which
	# --diff rightly trusts less).
	spawn_in "$A" "$HELPERS/worker" "$2" 20 4
	local a=$SPAWNED
	spawn_in "$B" "$HELPERS/worker" 1000000 20 4
	local b=$SPAWNED
	# c works for the first second only: later intervals have no c rows.
	spawn_in "$C" "$HELPERS/burner" 50 1
	wait "$a" "$b" "$SPAWNED"
	wait "$RECORD_PID" || { fail "bpmc record failed: $(cat "$TMP/log")"; return 1; }
}
record "$TMP/one.csv" 1500000 || exit 1
record "$TMP/two.csv" 150000 || exit 1

# The independent answer: per cgroup and event, the sum of count; the
# seconds, the sum of interval_ms of the intervals_lost rows.
expect() { # FILE... -> "cgroup event count" lines, and "seconds S"
	csv_awk '$col("scope") == "cgroup" { s[$col("cgroup") " " $col("event")] += $col("count") }
		$col("scope") == "self" && $col("event") == "intervals_lost" { ms += $col("interval_ms") }
		END { for (k in s) printf "%s %.0f\n", k, s[k]; printf "seconds %.3f\n", ms / 1000 }' "$@" | sort
}
# The report's, from its CSV: one line per cgroup and event, and seconds.
got() { # REPORT.csv
	python3 - "$1" <<'PY' | sort
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
events = [c for c in (rows[0].keys() if rows else []) if c not in ('cgroup', 'seconds') and not c.endswith('/s') and c not in ('cpu_pct', 'cpu_pct_multiplexed')]
secs = set()
for r in rows:
    secs.add(r['seconds'])
    for e in events:
        if r[e] != '0':
            print(r['cgroup'], e, r[e])
    for e in events:  # the rate is count / seconds
        if abs(float(r[e + '/s']) * float(r['seconds']) - float(r[e])) > 1e-6 * max(1, float(r[e])):
            print('BAD-RATE', r['cgroup'], e)
for s in secs:
    print('seconds %.3f' % float(s))
PY
}
"$BPMC" report --by cgroup --csv "$TMP/one.csv" >"$TMP/r1.csv" || fail "report failed"
expect "$TMP/one.csv" >"$TMP/want1"
got "$TMP/r1.csv" >"$TMP/got1"
diff "$TMP/want1" "$TMP/got1" >"$TMP/d1" && echo "  $(grep -vc seconds "$TMP/want1") cgroup x event totals and the seconds equal the rows'" ||
	fail "report totals differ from the rows': $(head -5 "$TMP/d1")"

# And SQLite's, from both files at once: sum(count) of the cgroup rows
# per cgroup and event, against the report of the same two files.
if ! command -v sqlite3 >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sqlite3 >/dev/null 2>&1
fi
if command -v sqlite3 >/dev/null; then
	sqlite3 -bail -csv "$TMP/both.db" ".import --csv $TMP/one.csv bpmc" \
		".import --csv --skip 1 $TMP/two.csv bpmc" \
		"SELECT cgroup || ' ' || event || ' ' || sum(CAST(count AS INTEGER)) FROM bpmc
		 WHERE scope = 'cgroup' GROUP BY cgroup, event" 2>"$TMP/sqlite.err" |
		tr -d '"' | sort >"$TMP/want.sqlite" || fail "sqlite3: $(cat "$TMP/sqlite.err")"
	"$BPMC" report --by cgroup --csv "$TMP/one.csv" "$TMP/two.csv" >"$TMP/r12.csv" || fail "report of two files failed"
	got "$TMP/r12.csv" | grep -v '^seconds' >"$TMP/got12"
	if [ -s "$TMP/want.sqlite" ] && diff "$TMP/want.sqlite" "$TMP/got12" >"$TMP/d12"; then
		echo "  sqlite3 $(sqlite3 -version | cut -d' ' -f1): $(wc -l <"$TMP/want.sqlite") cgroup x event totals of both files, the report's exactly"
	else
		fail "report totals differ from sqlite3's: $(head -5 "$TMP/d12")"
	fi
else
	fail "sqlite3 is not installed and could not be"
fi

# --cgroup keeps the subtree, whole components only.
"$BPMC" report --by cgroup --csv --cgroup "/$T/a" "$TMP/one.csv" >"$TMP/ra.csv" || fail "--cgroup failed"
keys=$(csv_awk 'FNR > 0 { print $col("cgroup") }' "$TMP/ra.csv" | sort -u | tr '\n' ' ')
[ "$keys" = "/$T/a " ] || fail "--cgroup /$T/a gave keys: $keys"

# --series: c's rows every interval, zeros after its burner ended; the
# sum is c's total.
"$BPMC" report --series --by cgroup --cgroup "/$T/c" --csv "$TMP/one.csv" >"$TMP/s.csv" || fail "--series failed"
n_iv=$(csv_awk '$col("scope") == "self" && $col("event") == "intervals_lost"' "$TMP/one.csv" | wc -l)
csv_awk -v n="$n_iv" -v want="$(grep "^/$T/c cpu-clock" "$TMP/want1" | cut -d' ' -f3)" '
	{ rows++; s += $col("cpu-clock"); if ($col("cpu-clock") == 0) zeros++ }
	END { printf "  --series: %d rows for %d intervals, %d of them zero; sum %.0f, total %.0f\n", rows, n, zeros, s, want
	      exit !(rows == n && zeros > 0 && s == want) }' "$TMP/s.csv" ||
	fail "--series is not one row per interval with zeros, summing to the total"

# Old schemas: v1 (12 columns) and v3 (15) with raw, minimally quoted
# text, no meta rows and no intervals_lost rows, as those versions wrote.
python3 - "$TMP/one.csv" "$TMP" <<'PY'
import csv, sys
src, tmp = sys.argv[1], sys.argv[2]
rows = list(csv.reader(open(src, newline='')))
head = rows[0]
for ver, ncols, host in (('v1', 12, 'h1'), ('v3', 15, 'h3')):
    with open(f'{tmp}/{ver}.csv', 'w', newline='') as f:
        w = csv.writer(f, quoting=csv.QUOTE_MINIMAL, lineterminator='\n')
        w.writerow(head[:ncols])
        for r in rows[1:]:
            d = dict(zip(head, r))
            if d['scope'] in ('meta', 'encoding') or (ver == 'v1' and d['scope'] in ('system',)) or \
               (d['scope'] == 'self'):
                continue
            d['host'] = host
            w.writerow([d[c] for c in head[:ncols]])
PY
"$BPMC" report --by host,cgroup --csv --cgroup "/$T" "$TMP/v1.csv" "$TMP/v3.csv" "$TMP/one.csv" >"$TMP/mix.csv" 2>"$TMP/mix.err" ||
	fail "mixed schemas refused: $(cat "$TMP/mix.err")"
csv_awk -v me="$(hostname)" '{ k = $col("cgroup"); h = $col("host"); c[h, k] = $col("cpu-clock"); s[h, k] = $col("seconds"); keys[k] = 1 }
	END { for (k in keys) { n++
		if (c["h1", k] != c[me, k] || c["h3", k] != c[me, k]) { printf "  %s: cpu-clock v1 %s v3 %s v6 %s\n", k, c["h1", k], c["h3", k], c[me, k]; bad = 1 }
		if (s["h1", k] == "" || s["h1", k] + 0 <= 0) { printf "  %s: no seconds from v1 rows\n", k; bad = 1 } }
	      printf "  v1, v3 and v6 files of one recording: %d cgroups, the same counts\n", n
	      exit bad || n < 3 }' "$TMP/mix.csv" || fail "schema versions do not mix"

# A .gz cut mid-stream: read to its last whole row, and said so.
gzip -c "$TMP/one.csv" >"$TMP/one.csv.gz"
size=$(stat -c %s "$TMP/one.csv.gz")
head -c $((size * 6 / 10)) "$TMP/one.csv.gz" >"$TMP/cut.csv.gz"
zcat "$TMP/cut.csv.gz" 2>/dev/null | sed '$d' >"$TMP/cut-whole.csv"
zcat "$TMP/cut.csv.gz" 2>/dev/null | tail -c1 | od -An -c | grep -q '\\n' && zcat "$TMP/cut.csv.gz" 2>/dev/null >"$TMP/cut-whole.csv"
"$BPMC" report --by cgroup --csv "$TMP/cut.csv.gz" >"$TMP/rc.csv" 2>"$TMP/rc.err" || fail "truncated gz refused: $(cat "$TMP/rc.err")"
grep -q "cut.csv.gz.*cut.*last whole row" "$TMP/rc.err" || fail "no word of the cut: $(cat "$TMP/rc.err")"
want=$(csv_awk '$col("scope") == "cgroup" && $col("event") == "cpu-clock" { s += $col("count") } END { printf "%.0f", s }' "$TMP/cut-whole.csv")
have=$(csv_awk '{ s += $col("cpu-clock") } END { printf "%.0f", s }' "$TMP/rc.csv")
[ "$want" = "$have" ] && echo "  truncated gz: cpu-clock $have over its whole rows" || fail "truncated gz: report $have, whole rows $want"
"$BPMC" report --by cgroup --csv "$TMP/one.csv.gz" | cmp -s - "$TMP/r1.csv" || fail ".csv.gz and .csv reports differ"

# Not an export: refused by name, nothing written.
printf 'a,b,c\n1,2,3\n' >"$TMP/other.csv"
"$BPMC" report -o "$TMP/out.csv" --csv "$TMP/one.csv" "$TMP/other.csv" 2>"$TMP/bad.err" && fail "a file that is not an export was read"
grep -q "other.csv: not a bpmc export" "$TMP/bad.err" || fail "refusal does not name the file: $(cat "$TMP/bad.err")"
printf '\037\213garbage' >"$TMP/bad.csv.gz"
"$BPMC" report "$TMP/bad.csv.gz" 2>"$TMP/bad2.err" >/dev/null && fail "bad gzip read"
grep -q "bad.csv.gz" "$TMP/bad2.err" || fail "bad gzip refusal does not name the file: $(cat "$TMP/bad2.err")"
[ ! -e "$TMP/out.csv" ] && [ -z "$(ls "$TMP" | grep 'out.csv.')" ] || fail "a refused report left a file"

# --diff: a's work fell to a tenth, b's stayed the same: a flagged, b
# not; b moved less than 15 %.
"$BPMC" report --diff --by cgroup --csv --cgroup "/$T" "$TMP/one.csv" -- "$TMP/two.csv" >"$TMP/diff.csv" 2>"$TMP/diff.err" ||
	fail "--diff failed: $(cat "$TMP/diff.err")"
csv_awk -v a="/$T/a" -v b="/$T/b" '{ g = $col("cgroup"); p[g] = $col("cpu-clock/s:change_pct"); sig[g] = $col("cpu-clock/s:significant") }
	END { printf "  --diff: a %+.1f%% (significant %s), b %+.1f%% (significant %s)\n", p[a], sig[a], p[b], sig[b]
	      exit !(sig[a] == 1 && p[a] < -60 && sig[b] == 0 && (p[b] < 0 ? -p[b] : p[b]) < 15) }' "$TMP/diff.csv" ||
	fail "--diff did not flag a's drop alone"
"$BPMC" report --diff --by cgroup --csv "$TMP/one.csv" -- "$TMP/one.csv" >"$TMP/same.csv" || fail "--diff of a file with itself failed"
sig=$(python3 -c "
import csv,sys
n=0
for r in csv.DictReader(open('$TMP/same.csv')):
    n+=sum(1 for k,v in r.items() if k.endswith(':significant') and v=='1')
print(n)")
[ "$sig" = 0 ] || fail "--diff of a file with itself flags $sig changes"
pass_or_fail
