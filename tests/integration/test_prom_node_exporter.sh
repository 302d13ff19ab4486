#!/usr/bin/env bash
# bpmc record --textfile DIR, read by the real node_exporter (Debian's
# prometheus-node-exporter, --collector.textfile.directory=DIR): every
# series of DIR/bpmc.prom is in node_exporter's /metrics, the burner's
# cgroup counter at a value between the file's before and after, with no
# textfile error. The file is replaced whole (a reader that reads it 300
# times while bpmc rewrites it four times a second never sees a part of
# one), and goes when bpmc stops. The burner's cgroup is shaped like a
# Kubernetes container's: its container and pod series are exported (the
# default --prom-scopes) while the CSV, --by cgroup,process here (the
# default adds container), gets no container or pod rows.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom_lib.sh"
need_root
need_packages curl:curl python3:python3 prometheus-node-exporter:prometheus-node-exporter
SERIES="python3 $HELPERS_PY/prom_series.py"

REL=bpmc-test-$$
POD=3f2a1c0e-1b2d-4e5f-8a9b-0c1d2e3f4a5b
ID=$(printf '%064x' 42)
CGP="$REL/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${POD//-/_}.slice/cri-containerd-$ID.scope"
mk_cgroup BURN "$CGP" || exit 1
TF=$TMP/textfile
mkdir "$TF" || exit 1
start_record "$TMP/log" -e cpu-clock,page-faults -I 250 -d 30 --by cgroup,process -o "$TMP/out.csv" --textfile "$TF" || exit 1
spawn_in "$BURN" "$HELPERS/burner" 50 8
port=$(free_port)
spawn prometheus-node-exporter --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$TF" >"$TMP/ne.log" 2>&1
for _ in $(seq 100); do
	curl -sf "http://127.0.0.1:$port/metrics" >/dev/null 2>&1 && break
	sleep 0.1
done
sleep 2

# Whole files only, while they are replaced.
python3 - "$TF/bpmc.prom" <<'PY' || fail "a read of bpmc.prom saw part of a file"
import sys, time
parts = 0
for i in range(300):
    text = open(sys.argv[1], encoding="utf-8").read()
    if not text.endswith("\n") or "\nbpmc_interval_end_timestamp_seconds " not in text:
        parts += 1
    time.sleep(0.005)
print(f"  300 reads of bpmc.prom: {300 - parts} whole, {parts} partial")
sys.exit(parts > 0)
PY

$SERIES "$TF/bpmc.prom" >"$TMP/before" || fail "bpmc.prom does not parse"
curl -sS --max-time 10 "http://127.0.0.1:$port/metrics" >"$TMP/ne.txt" || fail "node_exporter did not answer"
$SERIES "$TF/bpmc.prom" >"$TMP/after" || fail "bpmc.prom does not parse"
$SERIES "$TMP/ne.txt" >"$TMP/ne" || fail "node_exporter's exposition does not parse"

err=$(awk -F '\t' '$1 == "node_textfile_scrape_error" { print $2 }' "$TMP/ne")
[ "$err" = 0 ] || fail "node_exporter reports a textfile error ($err): $(grep -i textfile "$TMP/ne.log" | tail -3)"
# Every series of the file (name and labels: values move) is served.
missing=$(awk -F '\t' 'NR == FNR { if ($1 ~ /^bpmc_/) { NF--; want[$0] = 1 }; next }
	{ NF--; have[$0] = 1 }
	END { OFS = "\t"; for (k in want) if (!(k in have)) { print k; n++ } }' OFS='\t' "$TMP/before" "$TMP/ne")
total=$(grep -c '^bpmc_' "$TMP/before")
if [ -n "$missing" ]; then
	fail "series of bpmc.prom that node_exporter does not serve: $(echo "$missing" | head -3)"
else
	echo "  node_exporter serves all $total bpmc series of bpmc.prom"
fi
# The burner's counter, in order: file, node_exporter, file.
key=$(printf 'bpmc_cgroup_perf_event_seconds_total\tcgroup=/%s\tcontainer_id=containerd://%s\tevent=cpu-clock\tpod_uid=%s' "$CGP" "$ID" "$POD")
b=$(awk -F '\t' -v k="$key" '{ v = $NF; NF--; if ($0 == k) print v }' OFS='\t' "$TMP/before")
n=$(awk -F '\t' -v k="$key" '{ v = $NF; NF--; if ($0 == k) print v }' OFS='\t' "$TMP/ne")
a=$(awk -F '\t' -v k="$key" '{ v = $NF; NF--; if ($0 == k) print v }' OFS='\t' "$TMP/after")
echo "  the burner's cpu-clock: file $b, node_exporter $n, file again $a"
awk -v b="$b" -v n="$n" -v a="$a" 'BEGIN { exit !(b != "" && b > 0 && b + 0 <= n + 0 && n + 0 <= a + 0) }' ||
	fail "node_exporter's value is not between the file's"

for scope in container pod; do
	grep -q "^bpmc_${scope}_perf_event_seconds_total	.*pod_uid=$POD	" "$TMP/before" ||
		fail "no $scope series for the burner's pod in bpmc.prom"
done

kill -TERM "$RECORD_PID" && wait "$RECORD_PID" || fail "bpmc record did not stop cleanly: $(cat "$TMP/log")"
n=$(csv_awk '$col("scope") == "container" || $col("scope") == "pod" { n++ } END { print n + 0 }' "$TMP/out.csv")
[ "$n" = 0 ] || fail "the CSV has $n container and pod rows without --by container"
n=$(csv_awk -v c="/$CGP" '$col("scope") == "cgroup" && $col("cgroup") == c { n++ } END { print n + 0 }' "$TMP/out.csv")
[ "$n" -gt 0 ] || fail "the CSV has no rows of the burner's cgroup"
echo "  container and pod series exported; the CSV has $n rows of the burner's cgroup and none of scope container or pod"
left=$(ls -A "$TF")
[ -z "$left" ] || fail "bpmc left files in the textfile directory: $left"
pass_or_fail
