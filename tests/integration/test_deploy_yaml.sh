#!/usr/bin/env bash
# deploy/kubernetes/ holds together: the Prometheus job of bpmc-scrape.yaml
# keeps the pods the DaemonSet makes (its namespace, its pod label, its
# port's name), the port bpmc listens on (--listen in args) is the
# containerPort, the host mounts are read-only, the capabilities added are
# CAP_BPF and CAP_PERFMON alone and nothing is privileged; and
# helpers/daemonset_podman.py, through which test_image.sh runs the
# image, translates every field of the DaemonSet.
# bpmc-test: static
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed (scripts/install-deps --image)"
K=$ROOT/deploy/kubernetes
python3 "$HELPERS_PY/daemonset_podman.py" "$K/bpmc-daemonset.yaml" >"$TMP/flags" 2>&1 ||
	fail "daemonset_podman.py: $(cat "$TMP/flags")"
python3 - "$K/bpmc-daemonset.yaml" "$K/bpmc-scrape.yaml" <<'PY' || fail "deploy/kubernetes/ does not hold together"
import re, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
ds = next(d for d in docs if d["kind"] == "DaemonSet")
pod = ds["spec"]["template"]
ctr = pod["spec"]["containers"][0]
job = yaml.safe_load(open(sys.argv[2]))["scrape_configs"][0]
bad = []
port = ctr["ports"][0]
args = ctr["args"]
listen = args[args.index("--listen") + 1]
if not listen.endswith(":%d" % port["containerPort"]):
    bad.append("--listen %s is not the containerPort %d" % (listen, port["containerPort"]))
sd = job["kubernetes_sd_configs"][0]
if sd["role"] != "pod" or ds["metadata"]["namespace"] not in sd["namespaces"]["names"]:
    bad.append("the job does not look for pods in the namespace %s" % ds["metadata"]["namespace"])
keeps = {r["source_labels"][0]: r["regex"] for r in job["relabel_configs"] if r.get("action") == "keep"}
for k, v in pod["metadata"]["labels"].items():
    meta = "__meta_kubernetes_pod_label_" + re.sub(r"[^a-zA-Z0-9_]", "_", k)
    if meta in keeps and not re.fullmatch(keeps[meta], v):
        bad.append("the job keeps %s=~%s, the pods have %s" % (meta, keeps[meta], v))
if not any(k.startswith("__meta_kubernetes_pod_label_") for k in keeps):
    bad.append("the job keeps pods by no label")
if not re.fullmatch(keeps.get("__meta_kubernetes_pod_container_port_name", ""), port["name"]):
    bad.append("the job keeps ports named %r, the container's is %r" % (keeps.get("__meta_kubernetes_pod_container_port_name"), port["name"]))
sec = ctr["securityContext"]
if sec.get("privileged") or sec.get("allowPrivilegeEscalation", True):
    bad.append("privileged or allowing privilege escalation")
if sorted(sec["capabilities"]["add"]) != ["BPF", "PERFMON"] or sec["capabilities"]["drop"] != ["ALL"]:
    bad.append("capabilities %r" % sec["capabilities"])
for m in ctr["volumeMounts"]:
    if not m.get("readOnly"):
        bad.append("%s is writable" % m["mountPath"])
for k in ("hostPID", "hostNetwork", "hostIPC"):
    if pod["spec"].get(k):
        bad.append(k)
for b in bad:
    print("  " + b)
print("  DaemonSet %s/%s: port %s %d, args %s; job %s keeps %s" % (ds["metadata"]["namespace"],
      ds["metadata"]["name"], port["name"], port["containerPort"], " ".join(args), job["job_name"], keeps))
sys.exit(1 if bad else 0)
PY
# Debian's promtool is built without Kubernetes discovery: checked where
# it has it.
if command -v promtool >/dev/null; then
	if promtool check config "$K/bpmc-scrape.yaml" >"$TMP/promtool" 2>&1; then
		echo "  promtool check config: ok"
	elif grep -q "kubernetes_sd_configs not found" "$TMP/promtool"; then
		echo "  promtool check config: this promtool has no Kubernetes discovery (Debian's), not checked"
	else
		fail "promtool check config: $(cat "$TMP/promtool")"
	fi
fi
pass_or_fail
