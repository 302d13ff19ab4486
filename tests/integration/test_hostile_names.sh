#!/usr/bin/env bash
# Any user may name a process with any bytes. A file recorded while a
# process named ff fe \n "bad,\"x" burns a CPU, and a cgroup named with
# a comma, a quote and a backslash exists, must load into DuckDB and into
# PostgreSQL (UTF8) without options, keep one row per line, and give the
# names back from their escapes (\xHH, \\).
. "$(dirname "$0")/lib.sh"
need_root
command -v python3 >/dev/null || skip "python3 is not installed"

need_duckdb
need_postgres

mk_cgroup CG "bpmc-test-$$/a,\"b\\c" || exit 1
# ff fe, a newline, then text with a comma and a quote.
NAME_HEX=fffe0a6261642c227822
# Kubernetes' names, from a fixture of the kubelet's log trees: namespace
# n"s,\x, pod p \n fe, container c,"\ (identity/kube.h).
KUID=0b8e4f7a-9c3d-4e21-b5a6-7f8091a2b3c4 KID=$(printf "%064x" 7)
mk_cgroup KCG "bpmc-test-$$/kubepods/besteffort/pod$KUID/$KID" || exit 1
KNAMES_HEX=6e22732c5c78.700afe.632c225c
IFS=. read -r kns kpod kctr <<<"$KNAMES_HEX"
unhex() { printf "$(printf '%s' "$1" | sed 's/../\\x&/g')"; }
kdir="$TMP/pods/$(unhex "$kns")_$(unhex "$kpod")_$KUID"
mkdir -p "$kdir/$(unhex "$kctr")" "$TMP/ctrs" && : >"$kdir/$(unhex "$kctr")/0.log" &&
	ln -s "$kdir/$(unhex "$kctr")/0.log" "$TMP/ctrs/p_n_c-$KID.log" || fail "cannot make the pod's log tree"
start_record "$TMP/log" -e cpu-clock -I 500 -d 3 -o "$TMP/out.csv" \
	--kube-pods-dir "$TMP/pods" --kube-containers-dir "$TMP/ctrs" || exit 1
spawn_in "$CG" "$HELPERS/named_burner" "$NAME_HEX" 2
named=$SPAWNED
spawn_in "$KCG" "$HELPERS/burner" 20 2
wait "$named" "$SPAWNED" "$RECORD_PID" || fail "record failed: $(cat "$TMP/log")"

# One row per line, every byte valid UTF-8, no control character.
python3 - "$TMP/out.csv" <<'PY' || fail "the file is not one row per line of valid UTF-8"
import sys
data = open(sys.argv[1], "rb").read()
data.decode("utf-8")  # strict: raises on any invalid byte
lines = data.split(b"\n")
assert lines[-1] == b"", "no final newline"
bad = [c for c in data if c < 0x20 and c != 0x0a or c == 0x7f]
assert not bad, f"control bytes {bad[:5]}"
for i, l in enumerate(lines[1:-1], 2):
    # Quoted commas aside, every line is a whole record: an even count of quotes.
    assert l.count(b'"') % 2 == 0, f"line {i} is not a whole record"
PY

# DuckDB: read_csv with no options at all.
cat >"$TMP/q.mjs" <<'JS'
import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const r = await con.runAndReadAll(`SELECT comm, cgroup, sum(count) FROM read_csv('${process.argv[2]}')
	WHERE scope = 'process' AND comm LIKE '\\xFF%' GROUP BY ALL`);
for (const row of r.getRows()) console.log(row.map(String).join('\t'));
JS
(cd "$NODE_DIR" && cp "$TMP/q.mjs" ./q.mjs && node q.mjs "$TMP/out.csv") >"$TMP/duck" 2>"$TMP/duck.err" ||
	fail "DuckDB could not read the file: $(cat "$TMP/duck.err")"
IFS=$'\t' read -r d_comm d_cgroup d_ns <"$TMP/duck"
echo "  DuckDB: comm '$d_comm', cgroup '${d_cgroup#/bpmc-test-$$/}', $d_ns ns"
[ -n "$d_ns" ] && [ "$d_ns" -gt 500000000 ] || fail "DuckDB found no burner row: $(cat "$TMP/duck")"

# The escapes give back the bytes.
back=$(python3 -c '
import sys
s = sys.argv[1]
out, i = bytearray(), 0
while i < len(s):
    if s[i] == "\\" and s[i + 1] == "\\": out += b"\\"; i += 2
    elif s[i] == "\\" and s[i + 1] == "x": out.append(int(s[i + 2:i + 4], 16)); i += 4
    else: out += s[i].encode(); i += 1
print(out.hex())' "$d_comm")
[ "$back" = "$NAME_HEX" ] || fail "comm unescapes to $back, want $NAME_HEX"
cg_back=$(python3 -c 'import sys; print(sys.argv[1].replace("\\\\", "\\"))' "$d_cgroup")
[ "$cg_back" = "/bpmc-test-$$/a,\"b\\c" ] || fail "cgroup path unescapes to '$cg_back'"

# Kubernetes' names, through DuckDB, back to their bytes.
cat >"$NODE_DIR/kube.mjs" <<'JS'
import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const r = await con.runAndReadAll(`SELECT DISTINCT namespace, pod_name, container_name
	FROM read_csv('${process.argv[2]}') WHERE scope = 'cgroup' AND namespace IS NOT NULL`);
for (const row of r.getRows()) console.log(row.map(String).join('\t'));
JS
(cd "$NODE_DIR" && node kube.mjs "$TMP/out.csv") >"$TMP/kube" 2>"$TMP/kube.err" ||
	fail "DuckDB could not read the names: $(cat "$TMP/kube.err")"
k_back=$(python3 -c '
import sys
def unescape(s):
    out, i = bytearray(), 0
    while i < len(s):
        if s[i] == "\\" and s[i + 1] == "\\": out += b"\\"; i += 2
        elif s[i] == "\\" and s[i + 1] == "x": out.append(int(s[i + 2:i + 4], 16)); i += 4
        else: out += s[i].encode(); i += 1
    return out.hex()
print(".".join(unescape(f) for f in sys.stdin.read().rstrip("\n").split("\t")))' <"$TMP/kube")
echo "  DuckDB: namespace, pod_name, container_name unescape to $k_back"
[ "$k_back" = "$KNAMES_HEX" ] || fail "the Kubernetes names unescape to $k_back, want $KNAMES_HEX"

# DuckDB's sniffer reads the first rows: a file whose first comma in a
# field comes at row 25,000 of 30,000 must still read that field whole.
"$HELPERS/csv_writer" "$TMP/late.csv" 30000 25000 || fail "csv_writer failed"
cat >"$NODE_DIR/late.mjs" <<'JS'
import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const r = await con.runAndReadAll(`SELECT count(*) FILTER (WHERE scope = 'process'),
	count(*) FILTER (WHERE cgroup LIKE '/late,%') FROM read_csv('${process.argv[2]}')`);
console.log(r.getRows()[0].map(String).join(' '));
JS
read -r n late < <(cd "$NODE_DIR" && node late.mjs "$TMP/late.csv" 2>"$TMP/late.err")
echo "  DuckDB, first quoted comma at row 25000: $n process rows, $late with the late cgroup"
[ "$n" = 30000 ] && [ "$late" = 1 ] || fail "DuckDB misread the late field: $n rows, $late late: $(cat "$TMP/late.err")"

# PostgreSQL, a UTF8 database: COPY ... CSV HEADER and nothing else.
PGDATA=$TMP/pg
chown postgres "$TMP" 2>/dev/null; mkdir "$PGDATA" "$TMP/sock" && chown postgres "$PGDATA" "$TMP/sock"
pg() { runuser -u postgres -- "$@"; }
pg "$PGBIN/initdb" -D "$PGDATA" -E UTF8 --locale=C.UTF-8 >/dev/null 2>&1 || fail "initdb failed"
pg "$PGBIN/pg_ctl" -D "$PGDATA" -s -w -o "-k $TMP/sock -c listen_addresses='' -p 54329" start >/dev/null 2>&1 ||
	fail "postgres did not start"
ATEXIT+=("runuser -u postgres -- '$PGBIN/pg_ctl' -D '$PGDATA' -s -m immediate stop >/dev/null 2>&1")
chmod 0644 "$TMP/out.csv"
psql() { runuser -u postgres -- "$PGBIN/psql" -h "$TMP/sock" -p 54329 -d postgres -v ON_ERROR_STOP=1 -qAt "$@"; }
psql -c "CREATE TABLE t (time timestamptz, host text, interval_ms bigint, scope text, cgroup_id numeric,
	cgroup text, pid bigint, tid bigint, comm text, event text, count numeric, samples numeric,
	running_pct double precision, container text, pod text, value text, namespace text, pod_name text,
	container_name text)" >/dev/null || fail "create table"
psql -c "\\copy t FROM '$TMP/out.csv' WITH (FORMAT csv, HEADER true)" 2>"$TMP/pg.err" ||
	fail "PostgreSQL COPY refused the file: $(cat "$TMP/pg.err")"
p_comm=$(psql -c "SELECT DISTINCT comm FROM t WHERE scope = 'process' AND comm LIKE E'\\\\\\\\xFF%'")
echo "  PostgreSQL: $(psql -c 'SELECT count(*) FROM t') rows, comm '$p_comm'"
[ "$p_comm" = "$d_comm" ] || fail "PostgreSQL's comm '$p_comm' differs from DuckDB's '$d_comm'"
p_kube=$(psql -F $'\t' -c "SELECT DISTINCT namespace, pod_name, container_name FROM t
	WHERE scope = 'cgroup' AND namespace IS NOT NULL")
[ "$p_kube" = "$(cat "$TMP/kube")" ] || fail "PostgreSQL's names '$p_kube' differ from DuckDB's '$(cat "$TMP/kube")'"
pass_or_fail
