#!/usr/bin/env python3
"""daemonset_podman.py YAML [SECCOMP_OUT]: the `podman run` flags that run the first
container of the DaemonSet in YAML as Kubernetes would run it, printed as
bash assignments for eval: FLAGS (an array), ARGS (the container's args),
PORT (its containerPort), CAPS and MOUNTS (what they hold, for the log).
Every field of the pod spec, the container and its securityContext that
bears on privilege is translated or refused: a field this script does not
know fails it, so that the DaemonSet cannot drift from what the test runs.
seccompProfile RuntimeDefault is podman's default profile, amended as
runtime_default() says, written to SECCOMP_OUT.
"""
import json
import shlex
import sys

import yaml

POD_KNOWN = {"hostPID", "hostNetwork", "hostIPC", "containers", "volumes", "tolerations",
             "automountServiceAccountToken", "enableServiceLinks", "priorityClassName"}
CTR_KNOWN = {"name", "image", "imagePullPolicy", "args", "ports", "securityContext",
             "resources", "readinessProbe", "volumeMounts"}
DEFAULT_SECCOMP = "/usr/share/containers/seccomp.json"
SEC_KNOWN = {"privileged", "allowPrivilegeEscalation", "readOnlyRootFilesystem", "runAsUser",
             "runAsGroup", "capabilities", "seccompProfile"}


def die(msg):
    print("daemonset_podman.py: " + msg, file=sys.stderr)
    sys.exit(1)


def runtime_default(out):
    """Writes to OUT podman's default seccomp profile as a current runtime's
    RuntimeDefault has it: containerd (1.6 on) and moby allow bpf with
    CAP_BPF and perf_event_open with CAP_PERFMON, where the profile of
    Debian 12's containers-common allows them with CAP_SYS_ADMIN alone."""
    prof = json.load(open(DEFAULT_SECCOMP))
    calls = []
    for rule in prof["syscalls"]:
        names = set(rule["names"])
        mine = names & {"bpf", "perf_event_open"}
        if not mine:
            calls.append(rule)
            continue
        rest = dict(rule, names=sorted(names - mine))
        if rest["names"]:
            calls.append(rest)
        for n in sorted(mine):
            cap = {"bpf": "CAP_BPF", "perf_event_open": "CAP_PERFMON"}[n]
            r = dict(rule, names=[n])
            if rule["action"] == "SCMP_ACT_ALLOW":
                calls.append(r)
                calls.append(dict(r, includes={"caps": [cap]}))
            else:
                excl = list(rule.get("excludes", {}).get("caps", []))
                calls.append(dict(r, excludes=dict(rule.get("excludes", {}), caps=excl + [cap])))
    prof["syscalls"] = calls
    json.dump(prof, open(out, "w"))


def main():
    docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
    ds = [d for d in docs if d.get("kind") == "DaemonSet"]
    if len(ds) != 1:
        die("%s holds %d DaemonSets, want 1" % (sys.argv[1], len(ds)))
    pod = ds[0]["spec"]["template"]["spec"]
    for k in pod:
        if k not in POD_KNOWN:
            die("pod spec field '%s' is not translated" % k)
    if len(pod["containers"]) != 1:
        die("want one container")
    ctr = pod["containers"][0]
    for k in ctr:
        if k not in CTR_KNOWN:
            die("container field '%s' is not translated" % k)
    sec = ctr.get("securityContext", {})
    for k in sec:
        if k not in SEC_KNOWN:
            die("securityContext field '%s' is not translated" % k)
    flags = []
    if sec.get("privileged"):
        die("the container is privileged")
    caps = sec.get("capabilities", {})
    if [c.upper() for c in caps.get("drop", [])] != ["ALL"]:
        die("capabilities.drop is not [ALL]: %r" % caps.get("drop"))
    added = ["CAP_" + c.upper() for c in caps.get("add", [])]
    flags += ["--cap-drop=all"] + (["--cap-add=" + ",".join(added)] if added else [])
    if sec.get("allowPrivilegeEscalation", True) is False:
        flags += ["--security-opt=no-new-privileges"]
    if sec.get("readOnlyRootFilesystem"):
        # Kubernetes mounts no tmpfs of its own on /tmp or /run.
        flags += ["--read-only", "--read-only-tmpfs=false"]
    if "runAsUser" in sec:
        flags += ["--user=%d:%d" % (sec["runAsUser"], sec.get("runAsGroup", sec["runAsUser"]))]
    seccomp = sec.get("seccompProfile", {}).get("type", "Unconfined")
    if seccomp == "Unconfined":
        flags += ["--security-opt=seccomp=unconfined"]
    elif seccomp == "RuntimeDefault":
        if len(sys.argv) > 2:
            runtime_default(sys.argv[2])
            flags += ["--security-opt=seccomp=" + sys.argv[2]]
    else:
        die("seccompProfile %s is not translated" % seccomp)
    flags += ["--pid=host"] if pod.get("hostPID") else []
    flags += ["--ipc=host"] if pod.get("hostIPC") else []
    flags += ["--network=host"] if pod.get("hostNetwork") else []
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    mounts = []
    for m in ctr.get("volumeMounts", []):
        v = volumes[m["name"]]
        if "hostPath" not in v:
            die("volume %s is not a hostPath" % m["name"])
        if not m.get("readOnly"):
            die("the host mount %s is writable" % m["mountPath"])
        mounts.append("%s:%s:ro" % (v["hostPath"]["path"], m["mountPath"]))
    flags += ["--volume=" + m for m in mounts]
    ports = ctr.get("ports", [])
    if len(ports) != 1:
        die("want one port")
    out = {
        "FLAGS": flags,
        "ARGS": [str(a) for a in ctr.get("args", [])],
    }
    for k, v in out.items():
        print("%s=(%s)" % (k, " ".join(shlex.quote(x) for x in v)))
    print("PORT=%d" % ports[0]["containerPort"])
    print("CAPS=%s" % shlex.quote(" ".join(added)))
    print("MOUNTS=%s" % shlex.quote(" ".join(mounts)))


main()
