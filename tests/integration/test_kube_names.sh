#!/usr/bin/env bash
# Kubernetes' names without a kubelet: cgroups named as the kubelet names
# them (systemd and cgroupfs drivers), a fixture of /var/log/pods and
# /var/log/containers in $TMP given with --kube-pods-dir and
# --kube-containers-dir, a burner in each container. The rows carry
# namespace, pod_name and container_name (hostile bytes escaped like any
# text), pod rows the pod's. A pod made after bpmc started is named from
# its first rows (a miss rescans at once); one whose cgroup comes before
# its log directory, once the rescans that back off find it.
. "$(dirname "$0")/lib.sh"
need_root

T=bpmc-test-$$
h() { printf '%064x' "$1"; }
U1=3f2a1c0e-1b2d-4e5f-8a9b-0c1d2e3f4a5b
U2=0b8e4f7a-9c3d-4e21-b5a6-7f8091a2b3c4
U3=c4d5e6f7-0812-4a3b-9c4d-5e6f70819203
U4=5e6f7081-9203-4c4d-8e6f-708192031234
PODS=$TMP/pods CTRS=$TMP/containers
mkdir -p "$PODS" "$CTRS"

# pod_logs NS POD UID CTR ID: the kubelet's log directory and its link.
pod_logs() {
	local dir="$PODS/$1_$2_$3"
	mkdir -p "$dir/$4" && : >"$dir/$4/0.log" &&
		ln -s "$dir/$4/0.log" "$CTRS/$2_$1_$4-$5.log"
}

C1=$T/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${U1//-/_}.slice/cri-containerd-$(h 1).scope
C2=$T/kubepods/besteffort/pod$U2/$(h 2)
C3=$T/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${U3//-/_}.slice/cri-containerd-$(h 3).scope
C4=$T/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${U4//-/_}.slice/cri-containerd-$(h 4).scope
pod_logs shop cart-7d9f "$U1" api "$(h 1)" || exit 1
# Every byte a directory name may hold that a CSV reader fears.
BAD_NS=$'we"ird,ns' BAD_POD=$'p\\o\nd\xff' BAD_CTR=$'c"1,\\'
pod_logs "$BAD_NS" "$BAD_POD" "$U2" "$BAD_CTR" "$(h 2)" || exit 1
# ... as bpmc writes them (docs/csv-schema.md, Text).
ESC_NS='we"ird,ns' ESC_POD='p\\o\x0Ad\xFF' ESC_CTR='c"1,\\'

mk_cgroup CGA "$C1" && mk_cgroup CGB "$C2" && mk_cgroup CGD "$C4" || exit 1
used1=$(usage_usec "$CGA")
lost_mark
mkdir "$TMP/prom"
start_record "$TMP/log" -e cpu-clock --by cgroup,process,container -I 500 -d 7 \
	--kube-pods-dir "$PODS" --kube-containers-dir "$CTRS" --textfile "$TMP/prom" \
	-o "$TMP/out.csv" || exit 1
pids=()
for cg in "$CGA" "$CGB" "$CGD"; do
	spawn_in "$cg" "$HELPERS/burner" 20 5
	pids+=("$SPAWNED")
done
sleep 2
# A pod made now, as the kubelet makes one: its log directory, then its
# cgroups and tasks. And the log directory of the pod that runs already.
pod_logs late-ns late-pod "$U3" worker "$(h 3)" || exit 1
mk_cgroup CGC "$C3" || exit 1
spawn_in "$CGC" "$HELPERS/burner" 20 3
pids+=("$SPAWNED")
late=$(date +%s%3N)
pod_logs early-ns early-pod "$U4" app "$(h 4)" || exit 1
wait "${pids[@]}"
used1=$((($(usage_usec "$CGA") - used1) * 1000))
cp "$TMP/prom/bpmc.prom" "$TMP/prom.copy" 2>/dev/null
wait "$RECORD_PID" || fail "record failed: $(cat "$TMP/log")"

# names CGROUP-PATH SCOPE: "namespace|pod_name|container_name" of its rows.
names() {
	csv_awk -v g="/$1" -v s="$2" '$col("scope") == s && $col("cgroup") == g {
		print $col("namespace") "|" $col("pod_name") "|" $col("container_name") }' "$TMP/out.csv" | sort -u
}
for s in cgroup process container; do
	got=$(names "$C1" "$s")
	[ "$got" = "shop|cart-7d9f|api" ] || fail "$s rows of pod 1: '$got', want 'shop|cart-7d9f|api'"
	got=$(names "$C2" "$s")
	[ "$got" = "$ESC_NS|$ESC_POD|$ESC_CTR" ] || fail "$s rows of the hostile pod: '$got', want '$ESC_NS|$ESC_POD|$ESC_CTR'"
done
echo "  /${C1#$T/} -> shop/cart-7d9f/api"
echo "  /${C2#$T/} -> $ESC_NS/$ESC_POD/$ESC_CTR"
got=$(csv_awk -v p="$U1" '$col("scope") == "pod" && $col("pod") == p {
	print $col("namespace") "|" $col("pod_name") "|" $col("container_name") }' "$TMP/out.csv" | sort -u)
[ "$got" = "shop|cart-7d9f|" ] || fail "pod rows of pod 1: '$got', want 'shop|cart-7d9f|'"
check_usage "$TMP/out.csv" "$CGA" "$used1" 5
# The same names as Prometheus labels (the textfile is removed at exit:
# the copy taken while bpmc ran is read).
[ -s "$TMP/prom.copy" ] || fail "no textfile exposition was copied"
grep -q "^bpmc_container_perf_event_seconds_total{event=\"cpu-clock\",cgroup=\"/$C1\",namespace=\"shop\",pod=\"cart-7d9f\",container=\"api\",container_id=\"containerd://$(h 1)\",pod_uid=\"$U1\"} " "$TMP/prom.copy" ||
	fail "no container series with the kubelet's names: $(grep -m3 '^bpmc_container_' "$TMP/prom.copy")"
grep -q "^bpmc_pod_perf_event_seconds_total{event=\"cpu-clock\",namespace=\"shop\",pod=\"cart-7d9f\",pod_uid=\"$U1\"} " "$TMP/prom.copy" ||
	fail "no pod series with the kubelet's names: $(grep -m3 '^bpmc_pod_' "$TMP/prom.copy")"

# The pod made late: named in every row but those of its first second
# (rescans are a second apart at least). The pod whose directory came
# late: unnamed before, named from a rescan after it came.
python3 - "$TMP/out.csv" "/$C3" "/$C4" "$late" <<'PY' ||
import csv, datetime, sys
path, made, slow, late = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rows = {made: [], slow: []}
for r in csv.DictReader(open(path, newline="")):
    if r["scope"] == "cgroup" and r["cgroup"] in rows:
        t = datetime.datetime.strptime(r["time"], "%Y-%m-%dT%H:%M:%S.%fZ")
        t = int(t.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)
        rows[r["cgroup"]].append((t, (r["namespace"], r["pod_name"], r["container_name"])))
want = ("late-ns", "late-pod", "worker")
first = rows[made][0][0]
bad = [n for t, n in rows[made] if n != want and t > first + 1000]
print(f"  pod made late: {len(rows[made])} intervals, "
      f"{sum(n == want for t, n in rows[made])} named, {len(bad)} unnamed after its first second")
want = ("early-ns", "early-pod", "app")
early = sum(n == want for t, n in rows[slow] if t < late)
unnamed = sum(n != want for t, n in rows[slow] if t < late)
named = [t for t, n in rows[slow] if n == want]
last = all(n == want for t, n in rows[slow][-2:])
print(f"  directory after its cgroup: {unnamed} intervals unnamed before it came, "
      f"named {named[0] - late if named else None} ms after it; the last two named: {last}")
sys.exit(bool(bad) or not rows[made] or early or not unnamed or not named or not last)
PY
	fail "a pod was not named once its log directory was there"
python3 "$HELPERS_PY/check_exports.py" "$TMP/out.csv" >/dev/null || fail "check_exports refuses the file"
pass_or_fail
