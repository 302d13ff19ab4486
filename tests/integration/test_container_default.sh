#!/usr/bin/env bash
# Containers by default: a recording on the defaults (no --by), and make
# run's (scripts/run-default, which shows the top containers), in real
# cgroups named as Docker, containerd and the kubelet name them has
# container and pod rows and an outside-containers row; `report --by
# container` and `--by pod` answer the same from a recording made with
# --by cgroup,process (its cgroup rows' container and pod columns, never
# a cgroup twice: a --rollup's cgroup_total rows are left apart), and on
# both the keys, outside containers included, add up to the system row.
# The table and the HTML page name every key apart (ids sharing 63
# digits) and the outside key by name.
. "$(dirname "$0")/lib.sh"
need_root

T=bpmc-test-$$
# 64-hex ids unique to this run (other tests may fake containers at the
# same time), the three sharing their first 63 digits.
h() { printf '%08x%055x%x' $$ 0 "$1"; }
U1=3f2a1c0e-1b2d-4e5f-8a9b-0c1d2e3f4a5b
C1=$T/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${U1//-/_}.slice/cri-containerd-$(h 1).scope
C2=$T/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${U1//-/_}.slice/cri-containerd-$(h 2).scope
C3=$T/system.slice/docker-$(h 3).scope
C4=$T/system.slice/nginx.service
mk_cgroup CGA "$C1" && mk_cgroup CGB "$C2" && mk_cgroup CGC "$C3" && mk_cgroup CGD "$C4" || exit 1

# Two recordings at once, of the same burners: the defaults, and cgroup
# and process rows only (with a rollup, whose rows must not be summed).
start_record "$TMP/log1" -e cpu-clock -I 500 -d 5 -o "$TMP/def.csv" || exit 1
pid1=$RECORD_PID
start_record "$TMP/log2" -e cpu-clock --by cgroup,process --rollup -I 500 -d 5 -o "$TMP/cg.csv" || exit 1
pid2=$RECORD_PID
# And make run's script, on the defaults too.
BPMC_BIN=$BPMC BPMC_RUN_SECONDS=4 BPMC_RUN_OUT=$TMP/run.csv "$ROOT/scripts/run-default" >"$TMP/run.out" 2>&1 &
run_pid=$!
PIDS+=("$run_pid")
pids=()
for cg in "$CGA" "$CGB" "$CGC" "$CGD"; do
	spawn_in "$cg" "$HELPERS/burner" 15 2
	pids+=("$SPAWNED")
done
wait "${pids[@]}"
wait "$run_pid" || fail "scripts/run-default failed: $(cat "$TMP/run.out")"
grep -q "top containers" "$TMP/run.out" && grep -q "docker://$(h 3 | head -c 12)" "$TMP/run.out" &&
	grep -q "(outside containers)" "$TMP/run.out" || fail "make run shows no top containers: $(cat "$TMP/run.out")"
wait "$pid1" || fail "bpmc record (defaults) failed: $(cat "$TMP/log1")"
wait "$pid2" || fail "bpmc record --by cgroup,process failed: $(cat "$TMP/log2")"

# The defaults record container and pod rows, and the outside rows.
for s in container pod; do
	csv_awk -v s=$s '$col("scope") == s && $col(s) != "" { n++ } END { exit !n }' "$TMP/def.csv" ||
		fail "the defaults wrote no $s rows"
	csv_awk -v s=$s '$col("scope") == s && $col(s) == "" { n++ } END { exit !n }' "$TMP/def.csv" ||
		fail "the defaults wrote no outside-${s}s row"
done
# In every interval the container rows with the outside row are the system row.
csv_awk '$col("event") == "cpu-clock" && $col("scope") == "container" { c[$col("time")] += $col("count") }
	$col("event") == "cpu-clock" && $col("scope") == "system" { s[$col("time")] = $col("count") }
	END { for (t in s) if (c[t] != s[t]) { print t, c[t], s[t]; exit 1 } }' "$TMP/def.csv" ||
	fail "container rows and the outside row do not add up to the system row"

# report --by container|pod: every key, and the system row, as CSV.
for f in def cg; do
	for by in container pod; do
		"$BPMC" report --by $by --csv "$TMP/$f.csv" >"$TMP/$f.$by" 2>"$TMP/err" ||
			fail "report --by $by $f.csv: $(cat "$TMP/err")"
		grep -q "no '$by' rows" "$TMP/err" && fail "report --by $by $f.csv: $(cat "$TMP/err")"
	done
done
sys=$(csv_sum "$TMP/cg.csv" system cpu-clock scope system)
echo "  system row: $sys ns"
for by in container pod; do
	keys=$(csv_awk '{ n += $col("cpu-clock") } END { printf "%.0f", n }' "$TMP/cg.$by")
	echo "  --by $by over --by cgroup,process: $keys ns in all keys"
	[ "$keys" = "$sys" ] || fail "--by $by on cgroup rows: keys $keys, system row $sys"
	keys=$(csv_awk '{ n += $col("cpu-clock") } END { printf "%.0f", n }' "$TMP/def.$by")
	dsys=$(csv_sum "$TMP/def.csv" system cpu-clock scope system)
	[ "$keys" = "$dsys" ] || fail "--by $by on the defaults: keys $keys, system row $dsys"
done
# Each container's key over the cgroup rows is the sum of its cgroups' own rows.
for i in 1 2 3; do
	want=$(csv_awk -v c="/$(eval echo \$C$i)" '$col("scope") == "cgroup" && $col("cgroup") == c && $col("event") == "cpu-clock" { n += $col("count") } END { printf "%.0f", n }' "$TMP/cg.csv")
	got=$(csv_awk -v id="$(h $i)" 'index($col("container"), id) { n += $col("cpu-clock") } END { printf "%.0f", n }' "$TMP/cg.container")
	echo "  container $i: $got ns (its cgroup rows: $want)"
	[ "$got" -gt 0 ] && [ "$got" = "$want" ] || fail "container $i: key $got, its cgroup rows $want"
done
# The table names each key apart: ids 1 and 2 share 63 digits, so the
# 12 `docker ps` shows would not (their whole ids, cut in the middle);
# id 3's 12 are its own; the empty key is outside containers.
"$BPMC" report --by container "$TMP/cg.csv" >"$TMP/table" 2>&1 || fail "report --by container: $(cat "$TMP/table")"
sed -n '2,/^$/p' "$TMP/table" | awk 'NF { print $1 }' >"$TMP/names"
cat "$TMP/names" | sed 's/^/  key: /'
[ "$(sort "$TMP/names" | uniq -d)" = "" ] || fail "two keys shown as the same string: $(sort "$TMP/names" | uniq -d)"
grep -q '^(outside' "$TMP/names" || fail "no outside-containers key in the table"
for i in 1 2; do
	grep -q "$(h $i | tail -c 13)\$" "$TMP/names" || fail "container $i ($(h $i)) not shown by its id's end"
done
# A container whose 12 are its own: as docker ps shows it.
grep -qx "docker://$(h 3 | head -c 12)" "$TMP/names" || fail "container 3 not shown as docker://$(h 3 | head -c 12)"
# The HTML page's table has the outside key too, named.
"$BPMC" report --by container --html "$TMP/page.html" "$TMP/cg.csv" >/dev/null 2>"$TMP/err" ||
	fail "report --html: $(cat "$TMP/err")"
grep -q '<td>(outside containers)</td>' "$TMP/page.html" || fail "no outside-containers key in the HTML table"
pass_or_fail
