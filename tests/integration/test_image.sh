#!/usr/bin/env bash
# The OCI image (scripts/image) run by podman as the DaemonSet of
# deploy/kubernetes/bpmc-daemonset.yaml would run it: its capabilities
# (all dropped but CAP_BPF and CAP_PERFMON), securityContext, host namespaces,
# read-only host mounts and port, parsed from the YAML
# (helpers/daemonset_podman.py, which refuses a field it cannot
# translate, so the two cannot drift). In it, bpmc attributes a burner in
# a host cgroup within 5 % of that cgroup's cpu.stat, and its /metrics,
# published on the container's port, is scraped with curl while it runs.
# The image is cached (scripts/image: rebuilt when the package or the
# script changes; about 60 s with the package, then nothing).
. "$(dirname "$0")/lib.sh"
need_root
if ! command -v podman >/dev/null || ! command -v mmdebstrap >/dev/null || ! command -v runc >/dev/null ||
	! command -v lintian >/dev/null; then
	[ -z "${BPMC_TEST_NO_INSTALL:-}" ] || skip "podman, runc, mmdebstrap or lintian is not installed (scripts/install-deps --image)"
	"$ROOT/scripts/install-deps" --image >"$TMP/apt.log" 2>&1 || skip "scripts/install-deps --image failed: $(tail -1 "$TMP/apt.log")"
fi
for c in curl python3; do
	command -v "$c" >/dev/null || skip "no $c"
done
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed"
YAML=$ROOT/deploy/kubernetes/bpmc-daemonset.yaml
eval "$(python3 "$HELPERS_PY/daemonset_podman.py" "$YAML" "$TMP/seccomp.json")" || { fail "cannot translate $YAML"; exit 1; }

start=$(date +%s)
TAG=$("$ROOT/scripts/image" 2>"$TMP/image.log") || { fail "scripts/image: $(tail -20 "$TMP/image.log")"; exit 1; }
echo "  image $TAG: $(podman image inspect -f '{{.Size}}' "$TAG") bytes, $(($(date +%s) - start)) s to build or find"
grep '^image:' "$TMP/image.log" | sed 's/^/  /'
IMAGE=$(python3 -c 'import sys, yaml
print(next(d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == "DaemonSet")["spec"]["template"]["spec"]["containers"][0]["image"])' "$YAML")
[ "$(podman image inspect -f '{{.Id}}' "$IMAGE" 2>/dev/null)" = "$(podman image inspect -f '{{.Id}}' "$TAG")" ] ||
	fail "the DaemonSet's image $IMAGE is not the one scripts/image built ($TAG)"

# The runtime: crun where it runs here; crun 1.8 refuses a hybrid cgroup
# host whose cgroup2 holds a controller (this one's has hugetlb), runc
# does not. Kubernetes sets no rlimits (the runtime's own stay); podman
# would raise them, which a root without CAP_SYS_RESOURCE cannot: so
# limits within reach.
ULIMITS=(--ulimit=nofile=4096:4096 --ulimit=nproc=4096:4096)
RUNTIME=
for r in crun runc; do
	command -v "$r" >/dev/null || continue
	podman --runtime "$r" run --rm "${ULIMITS[@]}" --entrypoint /bin/true "$TAG" >"$TMP/probe.$r" 2>&1 &&
		{ RUNTIME=$r; break; }
	echo "  $r cannot run a container here: $(tail -1 "$TMP/probe.$r")"
done
[ -n "$RUNTIME" ] || skip "podman runs no container on this host: $(cat "$TMP"/probe.* | tail -2)"
PODMAN=(podman --runtime "$RUNTIME")

# hostPath DirectoryOrCreate: the kubelet's log directories, made (and
# removed at exit) where this host has none.
for m in $MOUNTS; do
	src=${m%%:*}
	if [ ! -e "$src" ]; then
		mkdir -p "$src" && ATEXIT+=("rmdir '$src' 2>/dev/null")
	fi
done
echo "  runtime $RUNTIME; capabilities: $CAPS; mounts: $MOUNTS"
[ "$CAPS" = "CAP_BPF CAP_PERFMON" ] || fail "the DaemonSet adds '$CAPS', want CAP_BPF and CAP_PERFMON"
[[ " ${FLAGS[*]} " == *" --network=host "* || " ${FLAGS[*]} " == *" --pid=host "* ]] &&
	fail "the DaemonSet shares a host namespace: ${FLAGS[*]}"
echo "  podman flags: ${FLAGS[*]}"

# The DaemonSet's args, its CSV (-o /dev/null) to stdout instead, for a
# run of 8 s of cpu-clock at 250 ms.
A=()
for ((i = 0; i < ${#ARGS[@]}; i++)); do
	if [ "${ARGS[i]}" = -o ]; then
		i=$((i + 1))
		continue
	fi
	A+=("${ARGS[i]}")
done
A+=(-e cpu-clock -I 250 -d 8 -o -)
NAME=bpmc-test-$$
ATEXIT+=("podman rm -f -t 0 '$NAME' >/dev/null 2>&1")
mk_cgroup CG "bpmc-test-$$/burn" || exit 1
spawn "${PODMAN[@]}" run --rm --name "$NAME" "${ULIMITS[@]}" "${FLAGS[@]}" -p "127.0.0.1::$PORT" \
	"$TAG" "${A[@]}" >"$TMP/out.csv" 2>"$TMP/run.log"
PODMAN_PID=$SPAWNED
# Counting once the first interval is out (with -o - it says nothing else).
for i in $(seq 150); do
	[ "$(wc -l <"$TMP/out.csv")" -gt 2 ] && break
	kill -0 "$PODMAN_PID" 2>/dev/null || break
	sleep 0.1
done
[ "$(wc -l <"$TMP/out.csv")" -gt 2 ] || { fail "the container wrote no interval: $(cat "$TMP/run.log")"; exit 1; }
echo "  first interval $((i / 10)).$((i % 10)) s after podman run"
pid=$(podman inspect -f '{{.State.Pid}}' "$NAME")
echo "  bpmc in the container: host pid $pid, Uid $(awk '$1 == "Uid:" { print $2 }' "/proc/$pid/status"), CapEff $(awk '$1 == "CapEff:" { print $2 }' "/proc/$pid/status"), NoNewPrivs $(awk '$1 == "NoNewPrivs:" { print $2 }' "/proc/$pid/status")"
eff=$(awk '$1 == "CapEff:" { print $2 }' "/proc/$pid/status")
[ $((0x${eff:-0})) = $(((1 << 39) | (1 << 38))) ] || fail "CapEff $eff, want CAP_BPF and CAP_PERFMON only"

usec=$(usage_usec "$CG")
lost_mark
spawn_in "$CG" "$HELPERS/burner" 50 4
wait "$SPAWNED"
ns=$((($(usage_usec "$CG") - usec) * 1000))

# /metrics while it still runs: the burner's cgroup is there with its
# cpu-clock, whichever family names the series.
hostport=$(podman port "$NAME" "$PORT/tcp" | head -1)
curl -sf --max-time 5 "http://$hostport/metrics" >"$TMP/metrics" || fail "curl http://$hostport/metrics failed"
series=$(grep -v '^#' "$TMP/metrics" | grep -F "/bpmc-test-$$/burn\"" | grep 'cpu-clock' | head -1)
echo "  /metrics on $hostport: $(grep -vc '^#' "$TMP/metrics") series; the burner's: ${series:-none}"
[ -n "$series" ] && awk '{ exit !($NF > 0) }' <<<"$series" || fail "no cpu-clock series for the burner's cgroup in /metrics"

wait "$PODMAN_PID" || fail "podman run exited $?: $(tail -5 "$TMP/run.log")"
check_usage "$TMP/out.csv" "$CG" "$ns" 5
csv_awk -v cg="/bpmc-test-$$/burn" '$col("scope") == "cgroup" && $col("cgroup") == cg { f = 1 } END { exit !f }' \
	"$TMP/out.csv" || fail "no cgroup row named /bpmc-test-$$/burn"
pass_or_fail
