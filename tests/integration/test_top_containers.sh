#!/usr/bin/env bash
# bpmc top per container, as a platform engineer runs it: two containers
# of one pod, named by a kubelet log tree given with --kube-pods-dir and
# --kube-containers-dir (record's identity options, one table), and two
# Docker-style containers whose ids share their first 63 digits. --batch
# shows every key by a distinct name (namespace/pod/container; ids cut
# in the middle, never to the same string), an outside-containers key,
# and --filter 'shop/' keeps the pod's two containers.
. "$(dirname "$0")/lib.sh"
need_root

T=bpmc-test-$$
h() { printf '%08x%055x%x' $$ 0 "$1"; }
U1=3f2a1c0e-1b2d-4e5f-8a9b-0c1d2e3f4a5b
PODS=$TMP/pods CTRS=$TMP/containers
mkdir -p "$PODS" "$CTRS"
pod_logs() {
	local dir="$PODS/$1_$2_$3"
	mkdir -p "$dir/$4" && : >"$dir/$4/0.log" &&
		ln -s "$dir/$4/0.log" "$CTRS/$2_$1_$4-$5.log"
}
POD=$T/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${U1//-/_}.slice
pod_logs shop cart-7d9f5c6b8d-xk2lp "$U1" api-gateway "$(h 1)" || exit 1
pod_logs shop cart-7d9f5c6b8d-xk2lp "$U1" api-worker "$(h 2)" || exit 1
mk_cgroup CGA "$POD/cri-containerd-$(h 1).scope" && mk_cgroup CGB "$POD/cri-containerd-$(h 2).scope" &&
	mk_cgroup CGC "$T/system.slice/docker-$(h 3).scope" && mk_cgroup CGD "$T/system.slice/docker-$(h 4).scope" || exit 1
pids=()
for cg in "$CGA" "$CGB" "$CGC" "$CGD"; do
	spawn_in "$cg" "$HELPERS/burner" 15 8
	pids+=("$SPAWNED")
done

# A recording beside top, for report's table: names first there too.
start_record "$TMP/log" -e cpu-clock -I 1000 -d 4 --kube-pods-dir "$PODS" --kube-containers-dir "$CTRS" \
	-o "$TMP/out.csv" || exit 1
rec=$RECORD_PID
# 60 columns: the names must be cut to fit.
"$BPMC" top -b -d 3 -I 1000 -e cpu-clock --by container --width 60 \
	--kube-pods-dir "$PODS" --kube-containers-dir "$CTRS" >"$TMP/all" 2>"$TMP/err" ||
	fail "bpmc top: $(cat "$TMP/err")"
"$BPMC" top -b -d 3 -I 1000 -e cpu-clock --by container --filter 'shop/' \
	--kube-pods-dir "$PODS" --kube-containers-dir "$CTRS" >"$TMP/shop" 2>"$TMP/err" ||
	fail "bpmc top --filter: $(cat "$TMP/err")"
wait "$rec" || fail "bpmc record failed: $(cat "$TMP/log")"
kill "${pids[@]}" 2>/dev/null
wait "${pids[@]}" 2>/dev/null

# The last screen's names (after its NAME header).
names() { awk '/NAME$/ { p = index($0, "NAME"); delete a; k = 0; next } p && NF { a[++k] = substr($0, p) } END { for (i = 1; i <= k; i++) print a[i] }' "$1"; }
names "$TMP/all" >"$TMP/names"
sed 's/^/  key: /' "$TMP/names"
dup=$(sort "$TMP/names" | uniq -d)
[ -z "$dup" ] || fail "two keys shown as the same string: $dup"
grep -q '^(outside containers)$' "$TMP/names" || fail "no outside-containers key"
grep -q '^shop/cart-.*/api-gateway$' "$TMP/names" && grep -q '^shop/cart-.*/api-worker$' "$TMP/names" ||
	fail "the pod's containers are not namespace/pod/container"
grep -q "$(h 3 | tail -c 9)$" "$TMP/names" && grep -q "$(h 4 | tail -c 9)$" "$TMP/names" ||
	fail "the two ids alike in their first 12 are not told apart by their ends"
names "$TMP/shop" >"$TMP/shop.names"
sed 's/^/  --filter shop\/: /' "$TMP/shop.names"
[ "$(grep -c '^shop/' "$TMP/shop.names")" = 2 ] && [ "$(wc -l <"$TMP/shop.names")" = 2 ] ||
	fail "--filter shop/ did not keep the pod's two containers alone"

# report --by container: the same names in its first column, apart.
"$BPMC" report --by container "$TMP/out.csv" >"$TMP/table" 2>&1 || fail "report: $(cat "$TMP/table")"
head -1 "$TMP/table" | grep -q "pod_name" && fail "report's table repeats the names in their own columns: $(head -1 "$TMP/table")"
sed -n '2,/^$/p' "$TMP/table" | awk 'NF { print $1 }' >"$TMP/report.names"
sed 's/^/  report: /' "$TMP/report.names"
[ -z "$(sort "$TMP/report.names" | uniq -d)" ] || fail "report: two keys shown the same: $(sort "$TMP/report.names" | uniq -d)"
grep -qx 'shop/cart-7d9f5c6b8d-xk2lp/api-gateway' "$TMP/report.names" &&
	grep -qx 'shop/cart-7d9f5c6b8d-xk2lp/api-worker' "$TMP/report.names" ||
	fail "report: the pod's containers are not namespace/pod/container"
pass_or_fail
