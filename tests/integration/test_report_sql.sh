#!/usr/bin/env bash
# docs/analysis.md's database recipes, run as the page writes them: the
# test takes every fenced block marked `-- recipe: NAME` out of the page,
# so the page cannot drift from what is tested. A real export (cgroups
# shaped like Docker containers, one of them idle for whole intervals, so
# that its zero rows are missing) is loaded, as .csv and as .csv.gz, into
# SQLite, PostgreSQL and DuckDB; each gives the three queries' answers,
# which must agree with an independent reading of the file (Python's csv
# module, the semantics of `bpmc report`), with each other, and with
# `bpmc report --csv` itself: keys and counts exactly, rates to 1e-6.
# ClickHouse is not run here (docs/analysis.md says why).
. "$(dirname "$0")/lib.sh"
need_root
command -v python3 >/dev/null || skip "python3 is not installed"
if ! command -v sqlite3 >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sqlite3 >/dev/null 2>&1 ||
		skip "cannot install sqlite3"
fi
need_duckdb
need_postgres
DOC=$ROOT/docs/analysis.md
ms() { date +%s%3N; }
took() { awk -v a="$1" -v b="$(ms)" 'BEGIN { printf "%.3f s", (b - a) / 1000 }'; }

# recipe NAME [OLD NEW]...: the page's block NAME, each OLD replaced by NEW.
recipe() {
	python3 - "$DOC" "$@" <<'PY'
import re, sys
doc, name, subs = sys.argv[1], sys.argv[2], sys.argv[3:]
blocks = re.findall(r'^```[a-z]*\n(.*?)^```$', open(doc).read(), re.M | re.S)
found = [b for b in blocks if b.startswith(f'-- recipe: {name}\n')]
if len(found) != 1:
    sys.exit(f'docs/analysis.md has {len(found)} blocks "-- recipe: {name}"')
text = found[0]
for old, new in zip(subs[::2], subs[1::2]):
    if old not in text:
        sys.exit(f'recipe {name} has no {old!r}')
    text = text.replace(old, new)
sys.stdout.write(text)
PY
}

# The workload: three cgroups named like Docker's, with burners of
# different weights, one (C3) asleep for 1.8 s in the middle, and one
# plain cgroup, which no container row may count (the outside-containers
# rows do, with the rest of the host).
T=bpmc-test-$$
h() { printf '%064x' "$1"; }
mk_cgroup C1 "$T/system.slice/docker-$(h 1).scope" || exit 1
mk_cgroup C2 "$T/system.slice/docker-$(h 2).scope" || exit 1
mk_cgroup C3 "$T/system.slice/docker-$(h 3).scope" || exit 1
mk_cgroup B "$T/batch.slice/job" || exit 1
start_record "$TMP/log" -e cpu-clock,page-faults,context-switches -I 500 -d 4 \
	--by cgroup,process,container -o "$TMP/out.csv.gz" || exit 1
spawn_in "$C1" sh -c "$HELPERS/burner 45 3.4 & for i in 1 2 3 4 5 6; do $HELPERS/pagetouch 3000; sleep 0.5; done; wait"
w1=$SPAWNED
spawn_in "$C2" sh -c "$HELPERS/burner 15 3.4 & $HELPERS/sleeper 100 3.4 >/dev/null; wait"
w2=$SPAWNED
spawn_in "$C3" sh -c "$HELPERS/pagetouch 2000; $HELPERS/burner 30 0.7; sleep 1.8; $HELPERS/burner 30 0.7"
w3=$SPAWNED
spawn_in "$B" "$HELPERS/burner" 20 3.4
wait "$w1" "$w2" "$w3" "$SPAWNED"
wait "$RECORD_PID" || { fail "record failed: $(cat "$TMP/log")"; exit 1; }
gzip -dc "$TMP/out.csv.gz" >"$TMP/out.csv" || { fail "the .csv.gz does not decompress"; exit 1; }
ROWS=$(($(wc -l <"$TMP/out.csv") - 1))
SERIES_CG=${C3#"$CG2"}
echo "  recorded $ROWS rows; the series is that of ${SERIES_CG#/"$T"}"
# A fleet: the same rows again as another host's, recorded side by side,
# written as bpmc writes (text quoted, numbers and empty fields bare).
python3 - "$TMP/out.csv" "$TMP/out2.csv" <<'PY' || { fail "cannot write the second host's file"; exit 1; }
import csv, sys
r = csv.reader(open(sys.argv[1], newline='', encoding='utf-8'))
hdr = next(r)
bare = {hdr.index(c) for c in ('time', 'interval_ms', 'cgroup_id', 'pid', 'tid', 'count', 'samples', 'running_pct')}
with open(sys.argv[2], 'w', encoding='utf-8') as f:
    f.write(','.join(hdr) + '\n')
    for row in r:
        row[hdr.index('host')] += '-2'
        f.write(','.join(v if v == '' or i in bare else '"' + v.replace('"', '""') + '"'
                         for i, v in enumerate(row)) + '\n')
PY
# PostgreSQL's psql, as the postgres user, reads the files itself.
chmod 0755 "$TMP" && chmod 0644 "$TMP"/out*

# Every recipe maps columns by position: the header must be schema 6's.
want_header=$(sed -n '/^time,host,interval_ms,/{p;q}' "$DOC")
[ "$(head -1 "$TMP/out.csv")" = "$want_header" ] ||
	fail "the export's header is not the one docs/analysis.md's recipes expect: $(head -1 "$TMP/out.csv")"

# The inputs: the .csv, the .csv.gz, and two hosts' .csv files.
KINDS="plain gz fleet"
files_of() {
	case $1 in
	plain) echo "$TMP/out.csv" ;;
	gz) echo "$TMP/out.csv.gz" ;;
	fleet) echo "$TMP/out.csv $TMP/out2.csv" ;;
	esac
}
# The series is one host's: not asked of the fleet.
queries_of() { if [ "$1" = fleet ]; then echo "nulls q1 q2"; else echo "nulls q1 q2 q3"; fi; }

mkdir "$TMP/res"
# Not a recipe: how many fields of each column are not NULL after a load.
cat >"$TMP/nulls.sql" <<'SQL'
SELECT count(*) AS "rows", count(time) AS time, count(host) AS host,
  count(interval_ms) AS interval_ms, count(scope) AS scope, count(cgroup_id) AS cgroup_id,
  count(cgroup) AS cgroup, count(pid) AS pid, count(tid) AS tid, count(comm) AS comm,
  count(event) AS event, count(count) AS count, count(samples) AS samples,
  count(running_pct) AS running_pct, count(container) AS container, count(pod) AS pod,
  count(value) AS value, count(namespace) AS namespace, count(pod_name) AS pod_name,
  count(container_name) AS container_name
FROM bpmc;
SQL
# The queries as the test runs them: IPC becomes page faults per CPU ns
# (no hardware PMU on the test VMs), the series is C3's.
recipe q1-top >"$TMP/q1.sql" &&
	recipe q2-ipc instructions page-faults cycles cpu-clock >"$TMP/q2.sql" &&
	recipe q3-series "'/system.slice/nginx.service'" "'$SERIES_CG'" >"$TMP/q3.sql" ||
	{ fail "the queries are not in docs/analysis.md"; exit 1; }

# SQLite: one .import per file, then the NULLs.
nulls=$(recipe sqlite-nulls) || { fail "no SQLite NULL recipe"; exit 1; }
for kind in $KINDS; do
	db=$TMP/sqlite.$kind.db
	load=""
	for f in $(files_of $kind); do
		case $f in
		*.gz) load+=$(recipe sqlite-load-gz host1.csv.gz "$f") ;;
		*) load+=$(recipe sqlite-load host1.csv "$f") ;;
		esac || { fail "no SQLite load recipe"; continue 2; }
		load+=$'\n'
	done
	recipe sqlite-table | sqlite3 -bail "$db" || { fail "SQLite: the table"; continue; }
	t=$(ms)
	{ echo "$load" | sqlite3 -bail "$db" && echo "$nulls" | sqlite3 -bail "$db"; } 2>"$TMP/err" ||
		{ fail "SQLite ($kind) load: $(cat "$TMP/err")"; continue; }
	echo "  SQLite $(sqlite3 -version | cut -d' ' -f1), $kind: $(sqlite3 "$db" 'SELECT count(*) FROM bpmc') rows loaded in $(took "$t")"
	for q in $(queries_of $kind); do
		sqlite3 -bail -csv -header "$db" <"$TMP/$q.sql" >"$TMP/res/sqlite.$kind.$q.csv" 2>"$TMP/err" ||
			fail "SQLite ($kind) $q: $(cat "$TMP/err")"
	done
done

# PostgreSQL, a server of its own in $TMP, on a unix socket only.
PGDATA=$TMP/pg
mkdir "$PGDATA" "$TMP/sock" && chown postgres "$PGDATA" "$TMP/sock"
pgrun() { runuser -u postgres -- "$@"; }
psql() { runuser -u postgres -- "$PGBIN/psql" -h "$TMP/sock" -p 54331 -X -q -v ON_ERROR_STOP=1 "$@"; }
if pgrun "$PGBIN/initdb" -D "$PGDATA" -E UTF8 --locale=C.UTF-8 >"$TMP/pg.log" 2>&1 &&
	ATEXIT+=("runuser -u postgres -- '$PGBIN/pg_ctl' -D '$PGDATA' -s -m immediate stop >/dev/null 2>&1") &&
	pgrun "$PGBIN/pg_ctl" -D "$PGDATA" -s -w -l "$TMP/pg/server.log" \
		-o "-k $TMP/sock -c listen_addresses='' -p 54331" start >>"$TMP/pg.log" 2>&1; then
	for kind in $KINDS; do
		load=""
		for f in $(files_of $kind); do
			case $f in
			# The page's pre-15 spelling, CSV HEADER, on the .csv.gz.
			*.gz) load+=$(recipe pg-load-gz host1.csv.gz "$f" "WITH (FORMAT csv, HEADER match)" "CSV HEADER") ;;
			*) load+=$(recipe pg-load host1.csv "$f") ;;
			esac || { fail "no PostgreSQL load recipe"; continue 2; }
			load+=$'\n'
		done
		psql -d postgres -c "CREATE DATABASE bpmc_$kind" && recipe pg-table | psql -d "bpmc_$kind" ||
			{ fail "PostgreSQL: the table"; continue; }
		t=$(ms)
		echo "$load" | psql -d "bpmc_$kind" 2>"$TMP/err" || { fail "PostgreSQL ($kind) load: $(cat "$TMP/err")"; continue; }
		echo "  PostgreSQL $("$PGBIN/postgres" -V | awk '{ print $3 }'), $kind: $(psql -d "bpmc_$kind" -At -c 'SELECT count(*) FROM bpmc') rows loaded in $(took "$t")"
		for q in $(queries_of $kind); do
			psql -d "bpmc_$kind" --csv <"$TMP/$q.sql" >"$TMP/res/pg.$kind.$q.csv" 2>"$TMP/err" ||
				fail "PostgreSQL ($kind) $q: $(cat "$TMP/err")"
		done
	done
else
	fail "PostgreSQL did not start: $(cat "$TMP/pg.log")"
fi

# DuckDB, through node: each SQL file's result as CSV.
cat >"$NODE_DIR/report_sql.mjs" <<'JS'
// node report_sql.mjs DB SQL OUT [SQL OUT]...: runs each SQL file, writes its
// result as CSV to OUT, prints the milliseconds each took.
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync, writeFileSync } from 'node:fs';
const db = await DuckDBInstance.create(process.argv[2]);
const con = await db.connect();
const q = (v) => { const s = v === null ? '' : String(v); return /[",\n]/.test(s) ? '"' + s.replaceAll('"', '""') + '"' : s; };
for (let i = 3; i + 1 < process.argv.length; i += 2) {
	const t = performance.now();
	const r = await con.runAndReadAll(readFileSync(process.argv[i], 'utf8'));
	const ms = performance.now() - t;
	const lines = [r.columnNames().map(q).join(',')];
	for (const row of r.getRows()) lines.push(row.map(q).join(','));
	writeFileSync(process.argv[i + 1], lines.join('\n') + '\n');
	console.log(ms.toFixed(0));
}
JS
echo "SELECT version() AS v, count(*) AS n FROM bpmc;" >"$TMP/duck_n.sql"
for kind in $KINDS; do
	# Several files are a list: read_csv(['a.csv', 'b.csv']).
	list=$(for f in $(files_of $kind); do printf "'%s'\n" "$f"; done | paste -sd,)
	[ $kind = fleet ] && list="[$list]"
	recipe duckdb-table "'host1.csv.gz'" "$list" >"$TMP/duck_table.$kind.sql" || { fail "no DuckDB recipe"; continue; }
	args=("$TMP/duck_table.$kind.sql" "$TMP/duck_load.csv" "$TMP/duck_n.sql" "$TMP/duck_n.csv")
	for q in $(queries_of $kind); do args+=("$TMP/$q.sql" "$TMP/res/duckdb.$kind.$q.csv"); done
	if (cd "$NODE_DIR" && node report_sql.mjs :memory: "${args[@]}") >"$TMP/duck.ms" 2>"$TMP/err"; then
		IFS=, read -r v n < <(tail -1 "$TMP/duck_n.csv")
		echo "  DuckDB $v, $kind: $n rows loaded in $(awk 'NR == 1 { printf "%.3f s", $1 / 1000 }' "$TMP/duck.ms")"
	else
		fail "DuckDB ($kind): $(cat "$TMP/err")"
	fi
done

# bpmc report, where this build has it.
HAVE_REPORT=0
if "$BPMC" report --help >/dev/null 2>&1; then
	HAVE_REPORT=1
	for kind in $KINDS; do
		# shellcheck disable=SC2046 # the files are words
		"$BPMC" report --by container --sort cpu-clock --top 10 --csv $(files_of $kind) \
			>"$TMP/res/report.$kind.q1.csv" 2>"$TMP/err" ||
			fail "bpmc report ($kind) failed: $(cat "$TMP/err")"
		# shellcheck disable=SC2046
		if ! "$BPMC" report --by container --metric ipc=page-faults/cpu-clock --csv $(files_of $kind) \
			>"$TMP/res/report.$kind.q2.csv" 2>"$TMP/err"; then
			fail "bpmc report --metric ipc=page-faults/cpu-clock ($kind) refused: $(cat "$TMP/err")"
			# Its counts at least: the IPC query's ratio is then not checked against the CLI.
			# shellcheck disable=SC2046
			"$BPMC" report --by container --csv $(files_of $kind) >"$TMP/res/report.$kind.q2.csv" 2>"$TMP/err" ||
				fail "bpmc report ($kind) failed: $(cat "$TMP/err")"
		fi
		[ $kind = fleet ] && continue
		# shellcheck disable=SC2046
		"$BPMC" report --series --by cgroup --cgroup "$SERIES_CG" --csv $(files_of $kind) \
			>"$TMP/res/report.$kind.q3.csv" 2>"$TMP/err" ||
			fail "bpmc report --series ($kind) failed: $(cat "$TMP/err")"
	done
fi

# The answers: against the files read by Python, against each other, and
# against bpmc report.
python3 - "$TMP" "$SERIES_CG" <<'PY' || fail "the answers differ (above)"
import csv, math, os, sys
from datetime import datetime
from decimal import Decimal

tmp, series_cg = sys.argv[1:]
res = os.path.join(tmp, 'res')
EVENTS = ['context-switches', 'cpu-clock', 'page-faults']  # byte order
KEY = ['container', 'namespace', 'pod_name', 'container_name']
bad = []

def err(msg):
    bad.append(msg)
    print('  ' + msg)

def read(name):
    return list(csv.DictReader(open(os.path.join(tmp, name), newline='', encoding='utf-8')))

def full(key, cells, seconds):
    """A row of bpmc report: the key, seconds, each event's count and
    rate, then the metrics (cpu_pct; ipc, which the test defines as
    page-faults/cpu-clock), each with its _multiplexed flag: one of its
    events' count-weighted running_pct below 90 (--min-running)."""
    row = dict(key, seconds=seconds)
    for e in EVENTS:
        row[e] = cells[e][0]
        row[e + '/s'] = cells[e][0] / seconds
    low = lambda *evs: int(any(cells[e][2] and cells[e][1] / cells[e][2] < 90 for e in evs))
    row['cpu_pct'] = 100 * row['cpu-clock'] / (seconds * 1e9)
    row['cpu_pct_multiplexed'] = low('cpu-clock')
    row['ipc'] = row['page-faults'] / row['cpu-clock'] if row['cpu-clock'] else None
    row['ipc_multiplexed'] = low('page-faults', 'cpu-clock')
    return row

def add(cells, r):
    c = cells.setdefault(r['event'], [0, 0.0, 0])  # count, running-weighted, its count
    c[0] += int(r['count'])
    if r['running_pct'] != '':
        c[1] += float(r['running_pct']) * int(r['count'])
        c[2] += int(r['count'])

def oracle(rows):
    """What bpmc report computes, from the rows themselves."""
    intervals = [r for r in rows if r['scope'] == 'self' and r['event'] == 'intervals_lost']
    per_host = {}
    for r in intervals:
        per_host[r['host']] = per_host.get(r['host'], 0) + int(r['interval_ms'])
    # The hosts recorded side by side: the fleet's time is the most of them.
    seconds = max(per_host.values()) / 1000
    empty = lambda: {e: [0, 0.0, 0] for e in EVENTS}
    tot, cg = {}, {}
    for r in rows:
        if r['event'] not in EVENTS:
            continue
        if r['scope'] == 'container':
            add(tot.setdefault(tuple(r[c] for c in KEY), empty()), r)
        if r['scope'] == 'cgroup' and r['cgroup'] == series_cg:
            add(cg.setdefault((r['host'], r['time']), empty()), r)
    q1 = [full(dict(zip(KEY, k)), c, seconds) for k, c in tot.items()]
    q1.sort(key=lambda r: tuple(r[c].encode() for c in KEY))
    q1.sort(key=lambda r: -r['cpu-clock'])
    q2 = list(q1)
    q3 = [full(dict(time=r['time'], cgroup=series_cg), cg.get((r['host'], r['time']), empty()),
               int(r['interval_ms']) / 1000) for r in intervals]
    q3.sort(key=lambda r: r['time'])
    nulls = {'rows': len(rows)}
    for c in rows[0]:
        nulls[c] = sum(1 for r in rows if r[c] != '')
    return {'nulls': [nulls], 'q1': q1[:10], 'q2': q2, 'q3': q3}, len(intervals), seconds

one, two = read('out.csv'), read('out2.csv')
want = {}
want['plain'], nr_intervals, seconds = oracle(one)
want['gz'] = want['plain']
want['fleet'] = oracle(one + two)[0]
q1, q3 = want['plain']['q1'], want['plain']['q3']
zero = sum(1 for r in q3 if not any(r[e] for e in EVENTS))
print(f'  the file: {len(one)} rows, {nr_intervals} intervals, {seconds} s, {len(q1)} containers; '
      f'the idle one has no rows in {zero} intervals')
# The containers, and the outside-containers key (the system rows less
# the containers: the plain cgroup's share among the rest).
if len([r for r in q1 if r['container']]) != 3:
    err(f'{len(q1) - 1} containers in the file, want 3')
if len([r for r in q1 if not r['container']]) != 1:
    err('no outside-containers key in the file')
if not zero or zero == len(q3):
    err(f'the idle cgroup has no rows in {zero} of {len(q3)} intervals: nothing to zero-fill')

def is_time(s):
    return len(s) > 18 and s[4] == '-' and s[10] in 'T '

def norm(v):
    """A cell as a comparable value: '' for NULL or NaN, Unix ms for a
    time, a Decimal for a number, else the text."""
    if v is None:
        return ''
    if isinstance(v, float):
        return '' if math.isnan(v) else Decimal(repr(v))
    if isinstance(v, int):
        return Decimal(v)
    if v.lower() in ('', 'nan', '-nan', 'null'):
        return ''
    if is_time(v):
        return round(datetime.fromisoformat(v).timestamp() * 1000)
    try:
        return Decimal(v)
    except Exception:
        return v

COLS = {'nulls': list(want['plain']['nulls'][0]),
        'q1': KEY + ['seconds'] + [x for e in EVENTS for x in (e, e + '/s')] + ['cpu_pct'],
        'q2': KEY + ['page-faults', 'cpu-clock', 'ipc'],
        'q3': ['time', 'cgroup', 'seconds'] + EVENTS}
# Keys, times and counts compare exactly; rates and ratios to rel.
EXACT = set(KEY + EVENTS + COLS['nulls'] + ['cgroup', 'time', 'cpu_pct_multiplexed', 'ipc_multiplexed'])

def same(a, b, col, rel):
    a, b = norm(a), norm(b)
    if isinstance(a, Decimal) and isinstance(b, Decimal) and col not in EXACT:
        return abs(a - b) <= Decimal(rel) * max(abs(a), abs(b))
    return a == b

def compare(name, got, want, cols, rel, ordered):
    if len(got) != len(want):
        err(f'{name}: {len(got)} rows, want {len(want)}')
        return False
    if not ordered:
        k = lambda r: tuple(str(r[c]) for c in KEY)
        got, want = sorted(got, key=k), sorted(want, key=k)
    for i, (g, w) in enumerate(zip(got, want)):
        for c in cols:
            if not same(g.get(c), w.get(c), c, rel):
                err(f'{name}: row {i + 1} {c}: {g.get(c)!r}, want {w.get(c)!r}')
                return False
    return True

results, agreed = {}, {}
for f in sorted(os.listdir(res)):
    engine, kind, q = f[:-4].split('.')
    with open(os.path.join(res, f), newline='', encoding='utf-8') as fh:
        rd = csv.DictReader(fh)
        hdr, got = rd.fieldnames or [], list(rd)
    results[engine, kind, q] = got
    cols = COLS[q]
    if engine == 'report':
        # The report has the SQL's columns, and may have more of what
        # a report row holds (rates, metrics, their flags): all compared.
        known = set(want[kind][q][0]) if want[kind][q] else set(cols)
        if q == 'q2' and 'ipc' not in hdr:
            print(f'  {f}: no ipc column (--metric refused): its counts are compared, not the ratio')
            cols = [c for c in cols if c != 'ipc']
        if [c for c in cols if c not in hdr] or [c for c in hdr if c not in known]:
            err(f'{f}: columns {hdr}, want {cols} and perhaps some of {sorted(known - set(cols))}')
            continue
        cols, rel = hdr, '1e-6'
    elif hdr != cols:
        err(f'{f}: columns {hdr}, want {cols}')
        continue
    else:
        rel = '1e-9'
    if compare(f, got, want[kind][q], cols, rel, ordered=q != 'q2') and q != 'nulls':
        agreed.setdefault(engine, []).append(f'{kind} {q} ({len(got)})')
for engine, what in sorted(agreed.items()):
    print(f'  {engine} agrees with the file: {", ".join(what)}')
for e in ('sqlite', 'pg', 'duckdb'):
    for k in ('plain', 'gz', 'fleet'):
        for q in COLS:
            if (e, k, q) not in results and not (k == 'fleet' and q == 'q3'):
                err(f'no result from {e}.{k}.{q}')

# The three queries agree with each other (SQLite's answers; the others
# equal them by now): IPC's totals are the top's, the series sums to the
# idle container's totals (its own and only cgroup) over all of the time.
r1, r2, r3 = (results.get(('sqlite', 'plain', q)) for q in ('q1', 'q2', 'q3'))
if r1 and r2 and r3:
    ok = True
    by = {tuple(r[c] for c in KEY): r for r in r1}
    for r in r2:
        t = by.get(tuple(r[c] for c in KEY))
        if not t or any(norm(r[e]) != norm(t[e]) for e in ('page-faults', 'cpu-clock')) or \
                not norm(t['cpu-clock']) or \
                not same(r['ipc'], str(norm(t['page-faults']) / norm(t['cpu-clock'])), 'ipc', '1e-9'):
            err(f'IPC row {r} does not match the top row {t}')
            ok = False
    c3 = [r for r in r1 if r['container'].endswith('%064x' % 3)]
    if len(c3) != 1:
        err('the idle container is not in the top')
        ok = False
    else:
        for e in EVENTS:
            s = sum(norm(r[e]) for r in r3)
            if s != norm(c3[0][e]):
                err(f'the series sums {e} to {s}, the top has {c3[0][e]}')
                ok = False
        s = sum(norm(r['seconds']) for r in r3)
        if not same(str(s), c3[0]['seconds'], 'seconds', '1e-9'):
            err(f'the series covers {s} s, the top says {c3[0]["seconds"]}')
            ok = False
    if ok:
        print("  the queries agree: IPC's totals are the top's, the series adds up to the idle container's")
sys.exit(1 if bad else 0)
PY
if [ "$HAVE_REPORT" = 0 ]; then
	fail "this build has no 'bpmc report' ('$BPMC report --help' fails): the SQL answers are checked against the files only; run this test again once the report command has landed"
fi
pass_or_fail
