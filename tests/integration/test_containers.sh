#!/usr/bin/env bash
# Real cgroup trees shaped like each container layout, with the real
# naming, a burner in each: the container and pod columns of the cgroup
# and process rows, and the container and pod rows of --by container.
. "$(dirname "$0")/lib.sh"
need_root

T=bpmc-test-$$
h() { printf '%064x' "$1"; } # a 64-hex id
U1=3f2a1c0e-1b2d-4e5f-8a9b-0c1d2e3f4a5b
U2=0b8e4f7a-9c3d-4e21-b5a6-7f8091a2b3c4
U3=c4d5e6f7-0812-4a3b-9c4d-5e6f70819203
# leaf path | expected container | expected pod
cat > "$TMP/layouts" <<EOL
$T/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${U1//-/_}.slice/cri-containerd-$(h 1).scope|containerd://$(h 1)|$U1
$T/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${U2//-/_}.slice/crio-$(h 2).scope|cri-o://$(h 2)|$U2
$T/kubepods/burstable/pod$U3/$(h 3)|cri://$(h 3)|$U3
$T/system.slice/docker-$(h 4).scope|docker://$(h 4)|
$T/machine.slice/libpod-$(h 5).scope/container|podman://$(h 5)|
$T/default/web1|containerd://web1|
$T/system.slice/nginx.service||
EOL

start_record "$TMP/log" -e cpu-clock --by cgroup,process,container -I 500 -d 6 -o "$TMP/out.csv" || exit 1
pids=()
while IFS='|' read -r leaf want_c want_p; do
	mk_cgroup CG "$leaf" || exit 1
	spawn_in "$CG" "$HELPERS/burner" 15 3
	pids+=("$SPAWNED")
done < "$TMP/layouts"
wait "${pids[@]}"
wait "$RECORD_PID" || fail "bpmc record failed: $(cat "$TMP/log")"

while IFS='|' read -r leaf want_c want_p; do
	# The cgroup and process rows of the leaf; of those, any with the wrong names.
	leaf_rows='($col("scope") == "cgroup" || $col("scope") == "process") && $col("cgroup") == g'
	rows=$(csv_awk -v g="/$leaf" "$leaf_rows" "$TMP/out.csv")
	[ -n "$rows" ] || { fail "no rows for /$leaf"; continue; }
	bad=$(csv_awk -v g="/$leaf" -v c="$want_c" -v p="$want_p" \
		"$leaf_rows"' && ($col("container") != c || $col("pod") != p)' "$TMP/out.csv" | head -1)
	[ -z "$bad" ] || fail "/$leaf: want container '$want_c' pod '$want_p', got: $bad"
	echo "  ${leaf#$T} -> ${want_c:-(none)} ${want_p:+pod $want_p}"
	[ -z "$want_c" ] && continue
	# The container row sums its cgroups' rows, interval by interval.
	csv_awk -v c="$want_c" '$col("container") == c && $col("scope") == "cgroup" { cg[$col("time")] += $col("count") }
		$col("container") == c && $col("scope") == "container" { ct[$col("time")] += $col("count") }
		END { for (t in cg) if (cg[t] != ct[t]) exit 1; for (t in ct) if (cg[t] != ct[t]) exit 1 }' "$TMP/out.csv" ||
		fail "the container rows of $want_c are not the sum of its cgroup rows"
done < "$TMP/layouts"
for pod in $U1 $U2 $U3; do
	csv_awk -v p="$pod" '$col("scope") == "pod" && $col("pod") == p { n++ } END { exit !n }' "$TMP/out.csv" ||
		fail "no pod row for $pod"
done
pass_or_fail
