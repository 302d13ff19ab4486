#!/usr/bin/env bash
# The real Prometheus (Debian's) scrapes bpmc --listen every second while
# a burner takes about 50 % of a CPU in a cgroup of its own: the rate
# Prometheus computes from bpmc's counter over 10 s must be the cgroup's
# cpu.stat rate over the same 10 s, within 5 %, in CPUs (seconds a
# second: cpu-clock is exported in seconds). A sum() over the node family
# is the host's CPUs, within 5 %, though cgroups and processes are exported beside
# it (one family a scope: no scope adds to another). promtool accepts the
# exposition, no counter ever went back, and hostile names come back
# through the labels: a cgroup named with a quote, a backslash, a tab and
# UTF-8; a process named with a newline (a cgroup name cannot hold one:
# the kernel refuses it); a cgroup named with a byte that is not UTF-8,
# which Prometheus would refuse raw, reads back as the text \xFF.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom_lib.sh"
need_root
need_packages curl:curl jq:jq prometheus:prometheus promtool:prometheus

REL=bpmc-test-$$
mk_cgroup BURN "$REL/burn" || exit 1
HOSTILE_REL="/$REL/h\"q\\b	t é"
mk_cgroup HOSTILE "$HOSTILE_REL" || exit 1
BAD_REL="/$REL/bad"$'\xff'"name"
mk_cgroup BAD "$BAD_REL" || exit 1
# c " \ newline m: the comm of the named burner.
COMM_HEX=63225c0a6d
COMM=$'c"\\\nm'

start_record_listen "$TMP/log" -e cpu-clock -I 250 -d 60 -o "$TMP/out.csv" \
	--prom-scopes system,cgroup,container,pod,process || exit 1
start_prometheus 1s "127.0.0.1:$BPMC_PORT" && wait_scraped || exit 1
spawn_in "$HOSTILE" "$HELPERS/named_burner" "$COMM_HEX" 2
spawn_in "$BAD" "$HELPERS/burner" 20 2
# Niced up a little, so that other load on the host does not make its
# rate swing within the window: rate() reads a straight line through it.
spawn_in "$BURN" nice -n -5 "$HELPERS/burner" 50 16
BURN_PID=$SPAWNED
# Scraped every second for a while: rate() extrapolates to the window's
# ends only from samples all along it.
sleep 3

# The window: cpu.stat read at its two ends, Prometheus asked at its end.
t_a=$(date +%s.%N) u_a=$(usage_usec "$BURN")
sleep 10
t_b=$(date +%s.%N) u_b=$(usage_usec "$BURN")
sleep 2.5 # the scrapes up to t_b are in
rate=$(prom_value "rate(bpmc_cgroup_perf_event_seconds_total{event=\"cpu-clock\",cgroup=\"/$REL/burn\"}[10s])" "$t_b")
truth=$(awk -v a="$u_a" -v b="$u_b" -v ta="$t_a" -v tb="$t_b" 'BEGIN { printf "%.6f", (b - a) / 1e6 / (tb - ta) }')
err=$(awk -v a="$rate" -v b="$truth" 'BEGIN { printf "%+.2f", b ? 100 * (a - b) / b : 0 }')
echo "  rate over 10 s: Prometheus $rate CPUs, cpu.stat $truth CPUs ($err %)"
if ! [ -n "$rate" ] || ! within "$rate" "$truth" 5; then
	fail "Prometheus' rate ${rate:-(none)} is not within 5 % of cpu.stat's $truth; the samples:"
	prom_query "bpmc_cgroup_perf_event_seconds_total{event=\"cpu-clock\",cgroup=\"/$REL/burn\"}[10s]" "$t_b" |
		jq -r '.data.result[0].values[] | "    \(.[0]) \(.[1])"'
fi

# The node family alone: every CPU's time, a second a second each.
cpus=$(getconf _NPROCESSORS_ONLN)
node=$(prom_value 'sum(rate(bpmc_node_perf_event_seconds_total{event="cpu-clock"}[10s]))' "$t_b")
echo "  sum(rate(bpmc_node_perf_event_seconds_total{event=\"cpu-clock\"}[10s])): $node CPUs, the host has $cpus"
[ -n "$node" ] && within "$node" "$cpus" 5 || fail "the node family sums to ${node:-(none)} CPUs, not the host's $cpus"
for fam in cgroup process; do
	n=$(prom_query "count(bpmc_${fam}_perf_event_seconds_total)" "$t_b" | jq -r '.data.result[0].value[1] // 0')
	[ "$n" -gt 0 ] || fail "no series of bpmc_${fam}_perf_event_seconds_total beside the node's"
done

up=$(prom_value 'up{job="bpmc"}')
scrapes=$(prom_value 'bpmc_scrapes_total')
echo "  up $up, $scrapes scrapes served"
[ "$up" = 1 ] || fail "Prometheus says the target is down: $(tail -3 "$TMP/prometheus.log")"
# Family by family: resets() drops the name, and a container's labels
# are its cgroup's.
resets=$(prom_value 'sum(resets(bpmc_node_perf_event_seconds_total[1m])) + sum(resets(bpmc_cgroup_perf_event_seconds_total[1m])) + sum(resets(bpmc_process_perf_event_seconds_total[1m]))')
[ "$resets" = 0 ] || fail "counters went back $resets times"

scrape >"$TMP/metrics.txt" || fail "curl could not scrape bpmc"
if promtool check metrics <"$TMP/metrics.txt" >"$TMP/promtool.out" 2>&1; then
	echo "  promtool check metrics: ok ($(grep -c '^bpmc_[a-z]*_perf_' "$TMP/metrics.txt") series of the bpmc_*_perf_* families)"
else
	fail "promtool check metrics: $(head -5 "$TMP/promtool.out")"
fi

# The names, from Prometheus' API: JSON strings, unescaped by jq.
prom_query '{__name__=~"bpmc_(cgroup|process)_perf_event_seconds_total",event="cpu-clock"}' >"$TMP/series.json"
n=$(jq --arg p "$HOSTILE_REL" '[.data.result[] | select(.metric.__name__ == "bpmc_cgroup_perf_event_seconds_total" and .metric.cgroup == $p)] | length' "$TMP/series.json")
[ "$n" = 1 ] && echo "  cgroup $(printf %q "$HOSTILE_REL") came back" ||
	fail "the cgroup $(printf %q "$HOSTILE_REL") is not a label: $(jq -c '[.data.result[].metric.cgroup]' "$TMP/series.json")"
n=$(jq --arg c "$COMM" '[.data.result[] | select(.metric.__name__ == "bpmc_process_perf_event_seconds_total" and .metric.comm == $c)] | length' "$TMP/series.json")
[ "$n" -ge 1 ] && echo "  comm $(printf %q "$COMM") came back" ||
	fail "the comm $(printf %q "$COMM") is not a label: $(jq -c '[.data.result[].metric.comm] | unique' "$TMP/series.json")"
n=$(jq --arg p "/$REL/bad\\xFFname" '[.data.result[] | select(.metric.__name__ == "bpmc_cgroup_perf_event_seconds_total" and .metric.cgroup == $p)] | length' "$TMP/series.json")
[ "$n" = 1 ] && echo "  a byte that is not UTF-8 reads \\xFF" ||
	fail "the cgroup named with ff is not '/$REL/bad\\xFFname'"
wait "$BURN_PID"
pass_or_fail
