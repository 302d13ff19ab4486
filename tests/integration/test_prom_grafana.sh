#!/usr/bin/env bash
# deploy/grafana/'s dashboard against what bpmc really exports: a real
# Prometheus (Debian's; Grafana is not in Debian) scrapes bpmc every
# second while two burners run in two Kubernetes-shaped containers named
# by a kubelet log fixture, with deploy/prometheus/'s rules loaded. Every
# target of every panel (rows' panels too), its Grafana variables
# replaced as Grafana would ($instance: All, its allValue; the rate
# window: 10 s), is sent to Prometheus' HTTP API and must return data. A
# panel on an event this host cannot count (cycles, instructions, the
# caches, without a hardware PMU: bpmc_event_supported 0 under
# --best-effort) is skipped, named, with that reason; the events asked
# for are the dashboard's own. The "CPU by container" panel gives the
# burner's container its cgroup's cpu.stat rate within 10 %, the
# recorded CPU share is the families' within 1 %, and the node's and
# bpmc's own recordings have data.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom_lib.sh"
need_root
need_packages curl:curl jq:jq prometheus:prometheus python3:python3
DASH=$ROOT/deploy/grafana/bpmc-containers.json
RULES=$ROOT/deploy/prometheus

T=bpmc-test-$$
U1=3f2a1c0e-1b2d-4e5f-8a9b-0c1d2e3f4a5b
h() { printf '%064x' "$1"; }
PODS=$TMP/pods CTRS=$TMP/containers
mkdir -p "$PODS/shop_web-0_$U1/api" "$PODS/shop_web-0_$U1/sidecar" "$CTRS" || exit 1
: >"$PODS/shop_web-0_$U1/api/0.log" && ln -s "$PODS/shop_web-0_$U1/api/0.log" "$CTRS/web-0_shop_api-$(h 1).log"
: >"$PODS/shop_web-0_$U1/sidecar/0.log" && ln -s "$PODS/shop_web-0_$U1/sidecar/0.log" "$CTRS/web-0_shop_sidecar-$(h 2).log"
POD=$T/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${U1//-/_}.slice
mk_cgroup C1 "$POD/cri-containerd-$(h 1).scope" && mk_cgroup C2 "$POD/cri-containerd-$(h 2).scope" || exit 1

# The dashboard's events, from its expressions.
EVENTS=$(python3 - "$DASH" <<'PY'
import json, re, sys
def panels(ps):
    for p in ps:
        yield p
        yield from panels(p.get("panels", []))
d = json.load(open(sys.argv[1]))
ev = set()
for p in panels(d["panels"]):
    for t in p.get("targets", []):
        ev.update(re.findall(r'event="([^"]+)"', t.get("expr", "")))
print(",".join(sorted(ev)))
PY
) || fail "the dashboard is not JSON"
[ -n "$EVENTS" ] || fail "no event in the dashboard's expressions"
echo "  the dashboard's events: $EVENTS"
start_record_listen "$TMP/log" --best-effort -e "$EVENTS" -I 250 -d 60 -o /dev/null \
	--kube-pods-dir "$PODS" --kube-containers-dir "$CTRS" || exit 1
start_prometheus 1s "127.0.0.1:$BPMC_PORT" "$RULES/bpmc-rules.yml" "$RULES/bpmc-alerts.yml" && wait_scraped || exit 1
spawn_in "$C2" "$HELPERS/burner" 20 25
spawn_in "$C1" nice -n -5 "$HELPERS/burner" 40 25
BURN_PID=$SPAWNED
sleep 3
t_a=$(date +%s.%N) u_a=$(usage_usec "$C1")
sleep 10
t_b=$(date +%s.%N) u_b=$(usage_usec "$C1")
sleep 2.5

python3 - "$DASH" "$PROM_URL" "$t_b" >"$TMP/panels" 2>&1 <<'PY'
import json, re, sys, urllib.parse, urllib.request
dash, url, at = sys.argv[1], sys.argv[2], sys.argv[3]
def query(expr):
    q = urllib.parse.urlencode({"query": expr, "time": at})
    with urllib.request.urlopen(f"{url}/api/v1/query?{q}", timeout=10) as r:
        return json.load(r)
def panels(ps):
    for p in ps:
        yield p
        yield from panels(p.get("panels", []))
d = json.load(open(dash))
allv = {v["name"]: v.get("allValue", ".*") for v in d["templating"]["list"] if v["type"] == "query"}
supported = {r["metric"]["event"]: r["value"][1] == "1"
             for r in query("bpmc_event_supported")["data"]["result"]}
bad = 0
for p in panels(d["panels"]):
    if p["type"] == "row":
        continue
    for t in p["targets"]:
        expr = t["expr"].replace("$__rate_interval", "10s").replace("$__interval", "1s")
        for name, value in allv.items():
            expr = expr.replace("${" + name + "}", value).replace("$" + name, value)
        need = [e for e in re.findall(r'event="([^"]+)"', expr) if not supported.get(e)]
        if need:
            print(f"skip\t{p['title']} {t['refId']}\t{', '.join(sorted(set(need)))} not counted on this host (no hardware PMU)")
            continue
        res = query(expr)
        n = len(res.get("data", {}).get("result", [])) if res.get("status") == "success" else 0
        print(f"{'data' if n else 'none'}\t{p['title']} {t['refId']}\t{n} series" + ("" if n else f": {expr}: {res.get('error', 'no data')}"))
        bad += not n
sys.exit(bad > 0)
PY
rc=$?
awk -F '\t' '{ printf "  %s: %s (%s)\n", $1, $2, $3 }' "$TMP/panels"
[ "$rc" = 0 ] || fail "panels without data: $(grep -c '^none' "$TMP/panels")"
n_data=$(grep -c '^data' "$TMP/panels") n_skip=$(grep -c '^skip' "$TMP/panels")
echo "  $n_data targets with data, $n_skip skipped for want of a hardware PMU"
[ "$n_data" -gt 0 ] || fail "no panel could be checked"

# The CPU panel against the kernel: the burner's container, by its name.
rate=$(prom_value "sum(rate(bpmc_container_perf_event_seconds_total{event=\"cpu-clock\",namespace=\"shop\",pod=\"web-0\",container=\"api\"}[10s]))" "$t_b")
truth=$(awk -v a="$u_a" -v b="$u_b" -v ta="$t_a" -v tb="$t_b" 'BEGIN { printf "%.6f", (b - a) / 1e6 / (tb - ta) }')
echo "  shop/web-0/api: $rate CPUs in Prometheus, $truth in cpu.stat"
[ -n "$rate" ] && within "$rate" "$truth" 10 || fail "shop/web-0/api: ${rate:-(none)} CPUs, cpu.stat $truth"
# The outside panel is the outside-containers key, where the rows stage
# makes it (a node's cpu-clock less its containers').
out_key=$(prom_value 'sum(rate(bpmc_container_perf_event_seconds_total{event="cpu-clock",container="(outside containers)"}[10s]))' "$t_b")
out_panel=$(prom_value 'sum(rate(bpmc_node_perf_event_seconds_total{event="cpu-clock"}[10s])) - sum(rate(bpmc_container_perf_event_seconds_total{event="cpu-clock",container!="(outside containers)"}[10s]))' "$t_b")
if [ -n "$out_key" ]; then
	echo "  outside containers: the key $out_key CPUs, node less containers $out_panel"
	# 3 %: rate() extrapolates each series to the window's ends, so
	# containers that other work on the host starts or stops inside it
	# make the sum of rates differ from the rate of the sum (0.8 to 1.2 %).
	within "$out_key" "$out_panel" 3 || fail "the outside key $out_key is not the node less the containers, $out_panel"
else
	echo "  outside containers: node less containers $out_panel CPUs (no outside key from the rows stage)"
fi

# The rules on the real series: the share recorded is the container's
# CPU over the node's, as the raw families give it over the same minute,
# within 1 % (the panel above holds the raw families to
# cpu.stat; a minute's rate over this shorter run is no rate to compare
# with cpu.stat); the node's and bpmc's own recordings have data.
t_r=$(awk -v t="$t_b" 'BEGIN { printf "%.3f", t + 1 }')
# The recorded sample is the last evaluation's: the families are asked
# at its own time, as the rule was.
rec='namespace_pod_container:bpmc_cpu_share:ratio1m{namespace="shop",pod="web-0",container="api"}'
t_e=$(prom_query "timestamp($rec)" "$t_r" | jq -r '.data.result[0].value[1] // empty')
share=$(prom_value "$rec" "$t_r")
want=$(prom_value 'sum(rate(bpmc_container_perf_event_seconds_total{event="cpu-clock",namespace="shop",pod="web-0",container="api"}[1m])) / sum(rate(bpmc_node_perf_event_seconds_total{event="cpu-clock"}[1m]))' "${t_e:-$t_r}")
echo "  namespace_pod_container:bpmc_cpu_share:ratio1m of shop/web-0/api: $share, the families' $want"
[ -n "$share" ] && [ -n "$want" ] && within "$share" "$want" 1 || fail "the recorded share ${share:-(none)} is not within 1 % of ${want:-(none)}"
for rec in instance:bpmc_cpu_seconds:rate1m instance:bpmc_self_cpu_seconds:rate1m; do
	v=$(prom_value "$rec")
	[ -n "$v" ] && echo "  $rec: $v" || fail "the recording $rec has no data"
done
wait "$BURN_PID"
pass_or_fail
