#!/usr/bin/env bash
# Case 8: `bpmc report --by container --sort cycles --top 5` over one
# Kubernetes host's export (bench/report_gen: 3.3M rows, 1.3 GB; gzip -1
# of it), plain and .gz, side by side with DuckDB (node, @duckdb/node-api)
# answering the same question with SQL, and zcat of the .gz for
# reference. Each repetition runs every reader once, the pair's order
# alternated; a warm-up run of each goes first (the file is in the page
# cache for all). Whole-process wall time and peak RSS of each reader,
# DuckDB's query time inside node too; medians and min-max of REPORT_REPS
# (5) repetitions. bpmc's top 5 and their totals must equal DuckDB's
# (report_check_plain, report_check_gz).
. "$(dirname "$0")/lib.sh"
REPS=${REPORT_REPS:-5}
GEN="$ROOT/build/bench/report_gen"
NODE_DIR="$ROOT/build/node"
F="$TMP/host.csv"

[ -x "$GEN" ] || { echo "report_cost: $GEN is not built (make bench builds it)" >&2; exit 1; }
"$GEN" "$F" 2>"$TMP/gen.err" || { cat "$TMP/gen.err" >&2; exit 1; }
gzip -1 -k "$F" || exit 1
rows=$(awk '/rows \(header included\)/ { sub(/.*: /, ""); print $1 }' "$TMP/gen.err")
rows=$((rows - 1)) # the header is no row
echo "report_input_rows $rows"
echo "report_input_intervals $(awk '/intervals/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^intervals/) print $i }' "$TMP/gen.err")"
echo "report_input_plain_bytes $(stat -c %s "$F")"
echo "report_input_gz_bytes $(stat -c %s "$F.gz")"

# run NAME CMD...: CMD's stdout to $TMP/NAME.out; "wall_ms peak_rss_kib"
# of the whole process appended to $TMP/NAME.t.
run() {
	local name=$1 t0 t1 rss=0 v pid
	shift
	t0=$(date +%s%N)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M -o "$TMP/rss" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" ||
			{ echo "report_cost: $name failed: $(tail -n 3 "$TMP/$name.err")" >&2; return 1; }
		rss=$(tail -n 1 "$TMP/rss")
	else
		# Polled: the last VmHWM read before it exits.
		spawn "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
		pid=$SPAWNED
		while kill -0 "$pid" 2>/dev/null; do
			v=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
			[ -n "$v" ] && rss=$v
			sleep 0.02
		done
		wait "$pid" || { echo "report_cost: $name failed: $(tail -n 3 "$TMP/$name.err")" >&2; return 1; }
	fi
	t1=$(date +%s%N)
	echo "$(((t1 - t0) / 1000000)) $rss" >>"$TMP/$name.t"
}

# stats KEY FILE COLUMN [SCALE [FORMAT]]: "KEY median", "KEY_range min-max".
stats() {
	local f=${5:-%.6g}
	[ -s "$2" ] || return 0
	awk -v c="$3" -v s="${4:-1}" -v f="$f" '{ printf f "\n", $c / s }' "$2" | median |
		awk -v f="$f" '{ printf f "\n", $1 }' | sed "s/^/$1 /"
	awk -v c="$3" -v s="${4:-1}" -v f="$f" 'NR == 1 || $c < lo { lo = $c } NR == 1 || $c > hi { hi = $c }
		END { printf f "-" f "\n", lo / s, hi / s }' "$2" | sed "s/^/$1_range /"
}

# ratios KEY A B: the per-repetition ratios A/B of the wall times.
ratios() {
	[ -s "$TMP/$2.t" ] && [ -s "$TMP/$3.t" ] || return 0
	paste -d' ' "$TMP/$2.t" "$TMP/$3.t" | awk '{ printf "%.3f\n", $1 / $3 }' >"$TMP/$1.r"
	stats "$1" "$TMP/$1.r" 1 1 %.3f
	echo "$1_runs $(tr '\n' ' ' <"$TMP/$1.r")"
}

duck=1
if ! command -v node >/dev/null; then
	echo "report_cost: node is not installed: DuckDB skipped" >&2
	duck=0
elif [ ! -d "$NODE_DIR/node_modules/@duckdb/node-api" ]; then
	mkdir -p "$NODE_DIR" && (cd "$NODE_DIR" && npm install --silent @duckdb/node-api >/dev/null 2>&1) ||
		{ echo "report_cost: cannot install @duckdb/node-api from npm: DuckDB skipped" >&2; duck=0; }
fi
# The same answer in SQL, with read_csv's defaults (its sniffer), as
# docs/csv-schema.md promises the files load.
cat >"$NODE_DIR/report_top.mjs" <<'JS'
import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const t0 = performance.now();
const r = await con.runAndReadAll(`SELECT container, sum(count) AS cycles FROM read_csv('${process.argv[2]}')
	WHERE scope = 'container' AND event = 'cycles' GROUP BY container ORDER BY cycles DESC LIMIT 5`);
const ms = performance.now() - t0;
for (const row of r.getRows()) console.log(row.map(String).join('\t'));
console.error(`query_ms ${ms.toFixed(1)}`);
JS
duck() { run "$1" env -C "$NODE_DIR" node report_top.mjs "$2" &&
	awk '/^query_ms/ { print $2 }' "$TMP/$1.err" >>"$TMP/$1_query.t"; }

report=1
if [ ! -x "$BPMC" ] || "$BPMC" report --help 2>&1 | grep -q "unknown command"; then
	echo "report_cost: \`bpmc report\` does not exist yet: its side is skipped" >&2
	report=0
fi
bpmc_report() { run "$1" "$BPMC" report --by container --sort cycles --top 5 "$2"; }

# Warm-up: the page cache, node's modules, DuckDB's extension.
[ $duck = 1 ] && { duck warm "$F" && duck warm "$F.gz" || echo "report_cost: DuckDB failed: $(cat "$TMP/warm.err")" >&2; }
[ $report = 1 ] && { bpmc_report warm "$F" || echo "report_cost: bpmc report failed: $(cat "$TMP/warm.err")" >&2; }
for i in $(seq "$REPS"); do
	for ext in "" .gz; do
		k=${ext:+gz}
		k=${k:-plain}
		if [ $((i % 2)) = 1 ]; then
			[ $duck = 1 ] && duck "duckdb_$k" "$F$ext"
			[ $report = 1 ] && bpmc_report "bpmc_$k" "$F$ext"
		else
			[ $report = 1 ] && bpmc_report "bpmc_$k" "$F$ext"
			[ $duck = 1 ] && duck "duckdb_$k" "$F$ext"
		fi
	done
	run zcat sh -c 'zcat "$1" >/dev/null' sh "$F.gz"
done

for k in plain gz; do
	stats "duckdb_${k}_ms" "$TMP/duckdb_$k.t" 1 1 %.0f
	stats "duckdb_${k}_query_ms" "$TMP/duckdb_${k}_query.t" 1 1 %.0f
	stats "duckdb_${k}_rss_mib" "$TMP/duckdb_$k.t" 2 1024 %.1f
	stats "bpmc_report_${k}_ms" "$TMP/bpmc_$k.t" 1 1 %.0f
	stats "bpmc_report_${k}_rss_mib" "$TMP/bpmc_$k.t" 2 1024 %.1f
	ratios "report_ratio_$k" "bpmc_$k" "duckdb_$k"
	for who in duckdb bpmc; do
		[ -s "$TMP/${who}_$k.t" ] || continue
		key=${who/bpmc/bpmc_report}_${k}_rows_per_s
		awk -v n="$rows" '{ printf "%.0f\n", n / ($1 / 1000) }' "$TMP/${who}_$k.t" |
			median | sed "s/^/$key /"
	done
done
stats zcat_ms "$TMP/zcat.t" 1 1 %.0f

# The same top 5, with the same totals: bpmc's CSV (the same reader,
# the same keys; its table shortens the ids) against DuckDB's answer.
check() {
	local k=$1 ext=$2
	if [ $report = 0 ] || [ ! -s "$TMP/duckdb_$k.out" ]; then
		echo "report_check_$k skipped"
		return
	fi
	"$BPMC" report --by container --sort cycles --top 5 --csv "$F$ext" 2>"$TMP/check.err" |
		python3 -c 'import csv, sys
for row in csv.DictReader(sys.stdin):
    print(row["container"] + "\t" + row["cycles"])' >"$TMP/bpmc_$k.csv"
	if cmp -s "$TMP/bpmc_$k.csv" "$TMP/duckdb_$k.out"; then
		echo "report_check_$k equal"
		return
	fi
	echo "report_check_$k differ"
	{
		echo "report_cost: bpmc's top 5 ($k) is not DuckDB's: DuckDB says"
		cat "$TMP/duckdb_$k.out"
		echo "report_cost: bpmc says"
		cat "$TMP/bpmc_$k.csv" "$TMP/check.err"
	} >&2
}
check plain ""
check gz .gz
