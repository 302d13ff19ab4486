#!/usr/bin/env bash
# bpmc record --listen, asked with curl: the text format by default,
# OpenMetrics when Accept asks for it (counter families without _total,
# "# EOF" last), gzip when Accept-Encoding allows it, the same series and
# values in every form of one snapshot, the q-values honoured; HEAD, 405 and 404. Stuck clients (40 that send a request and
# never read, from one address) get at most 4 connections, no thread and
# no memory to speak of, and are closed after the timeout, after which
# scrapes go on. Under --user, the server's thread holds no privilege
# either. Bad --listen, --textfile and --prom-* input is refused
# in one line, exit 2, no file.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom_lib.sh"
need_root
need_packages curl:curl python3:python3
SERIES="python3 $HELPERS_PY/prom_series.py"

# Long intervals: the forms compared come from one snapshot (checked);
# every process, for an exposition of some size.
start_record_listen "$TMP/log" -e cpu-clock,page-faults -I 3000 -d 90 -o "$TMP/out.csv" \
	--prom-scopes system,cgroup,process || exit 1
OM='application/openmetrics-text; version=1.0.0'

# get NAME CURL-ARGS...: headers to $TMP/NAME.h, body to $TMP/NAME.
get() {
	local name=$1
	shift
	scrape -D "$TMP/$name.h" -o "$TMP/$name" "$@" || fail "curl $*: failed"
}
header() {
	awk -v h="$2" 'tolower($0) ~ "^" tolower(h) ":" { sub(/^[^:]*: */, ""); sub(/\r$/, ""); print }' "$TMP/$1.h"
}
# series FILE: the series, canonical and sorted.
series() {
	$SERIES "$1" | sort
}
intervals() {
	awk '$1 == "bpmc_intervals_total" { print $2 }' "$1"
}

# The three forms from one snapshot (the same bpmc_intervals_total), not
# the first, made before any interval ended.
for _ in $(seq 10); do
	get plain
	get gz -H 'Accept-Encoding: gzip'
	get om -H "Accept: $OM"
	gunzip -c <"$TMP/gz" >"$TMP/gz.txt" 2>"$TMP/gz.err" || fail "the gzip body does not unzip: $(cat "$TMP/gz.err")"
	n=$(intervals "$TMP/plain")
	[ "$n" -ge 1 ] && [ "$n" = "$(intervals "$TMP/gz.txt")" ] && [ "$n" = "$(intervals "$TMP/om")" ] && break
	sleep 0.5
done
[ "$(header plain Content-Type)" = "text/plain; version=0.0.4; charset=utf-8" ] ||
	fail "plain: Content-Type '$(header plain Content-Type)'"
[ -z "$(header plain Content-Encoding)" ] || fail "plain: encoded without being asked"
[ "$(header plain Vary)" = "Accept, Accept-Encoding" ] || fail "plain: Vary '$(header plain Vary)'"
series "$TMP/plain" >"$TMP/plain.series" || fail "the text format does not parse"
grep -q '^# TYPE bpmc_node_perf_event_seconds_total counter$' "$TMP/plain" || fail "plain: no TYPE line for bpmc_node_perf_event_seconds_total"
! grep -q '^# EOF' "$TMP/plain" || fail "plain: has an OpenMetrics EOF"
if command -v promtool >/dev/null; then
	promtool check metrics <"$TMP/plain" >"$TMP/promtool" 2>&1 || fail "promtool: $(head -3 "$TMP/promtool")"
fi
echo "  text: $(wc -l <"$TMP/plain.series") series"

[ "$(header gz Content-Encoding)" = gzip ] || fail "gzip asked, Content-Encoding '$(header gz Content-Encoding)'"
series "$TMP/gz.txt" >"$TMP/gz.series" || fail "the unzipped body does not parse"
cmp -s "$TMP/plain.series" "$TMP/gz.series" || fail "gzip: other series or values than the text's"
echo "  gzip: $(stat -c %s "$TMP/gz") bytes for $(stat -c %s "$TMP/gz.txt")"

[ "$(header om Content-Type)" = "$OM; charset=utf-8" ] || fail "OpenMetrics: Content-Type '$(header om Content-Type)'"
[ "$(tail -n 1 "$TMP/om")" = "# EOF" ] || fail "OpenMetrics: the last line is '$(tail -n 1 "$TMP/om")'"
grep -q '^# TYPE bpmc_node_perf_event_seconds counter$' "$TMP/om" || fail "OpenMetrics: no '# TYPE bpmc_node_perf_event_seconds counter'"
! grep -q '^# TYPE [a-z_]*_total ' "$TMP/om" || fail "OpenMetrics: a family named with _total"
series "$TMP/om" >"$TMP/om.series" || fail "OpenMetrics does not parse"
cmp -s "$TMP/plain.series" "$TMP/om.series" || fail "OpenMetrics: other series or values than the text's"
echo "  OpenMetrics: $(grep -c '^# TYPE' "$TMP/om") families, # EOF last"

get omgz -H 'Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1' \
	-H 'Accept-Encoding: gzip'
[ "$(header omgz Content-Type)" = "$OM; charset=utf-8" ] && [ "$(header omgz Content-Encoding)" = gzip ] ||
	fail "Prometheus' Accept with gzip: '$(header omgz Content-Type)', '$(header omgz Content-Encoding)'"
[ "$(gunzip -c <"$TMP/omgz" | tail -n 1)" = "# EOF" ] || fail "OpenMetrics gzip'ed does not end in # EOF"

get q1 -H 'Accept: application/openmetrics-text;q=0.3, text/plain;q=0.9' -H 'Accept-Encoding: gzip;q=0, identity'
[ "$(header q1 Content-Type)" = "text/plain; version=0.0.4; charset=utf-8" ] && [ -z "$(header q1 Content-Encoding)" ] ||
	fail "q-values: '$(header q1 Content-Type)', '$(header q1 Content-Encoding)'"

code() {
	curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "$@"
}
head_len=$(curl -sSI --max-time 10 "http://127.0.0.1:$BPMC_PORT/metrics" | tr -d '\r' | awk -F ': ' 'tolower($1) == "content-length" { print $2 }')
[ "${head_len:-0}" -gt 0 ] || fail "HEAD: no Content-Length"
[ "$(code -X POST "http://127.0.0.1:$BPMC_PORT/metrics")" = 405 ] || fail "POST is not 405"
[ "$(code "http://127.0.0.1:$BPMC_PORT/")" = 404 ] || fail "/ is not 404"
echo "  HEAD 200 (Content-Length $head_len), POST 405, / 404"

# Stuck clients: each asks, then never reads a byte.
threads() { awk '/^Threads:/ { print $2 }' "/proc/$RECORD_PID/status"; }
t0=$(threads) r0=$(rss_kib "$RECORD_PID")
python3 - "$BPMC_PORT" "$RECORD_PID" "$t0" "$r0" <<'PY' || FAILED=1
import socket, sys, time
port, pid, t0, r0 = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def status(key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
def served():
    """The server's established connections: local port ours, state 01."""
    n = 0
    for line in open("/proc/net/tcp").readlines()[1:]:
        f = line.split()
        if int(f[1].split(":")[1], 16) == port and f[3] == "01":
            n += 1
    return n
socks = []
for i in range(40):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n")
    socks.append(s)
time.sleep(1)
held = served()
t1, r1 = status("Threads"), status("VmRSS")
print(f"  40 stuck clients: {held} connections held, threads {t0} -> {t1}, VmRSS {r0} -> {r1} KiB")
bad = 0
if held > 4:
    print("  FAIL: more than 4 connections for one client address"); bad = 1
if t1 != t0:
    print("  FAIL: the stuck clients cost threads"); bad = 1
if r1 - r0 > 8192:
    print("  FAIL: the stuck clients cost more than 8 MiB"); bad = 1
start = time.time()
while served() and time.time() - start < 20:
    time.sleep(0.25)
print(f"  {served()} still held {time.time() - start:.1f} s later")
if served():
    print("  FAIL: stuck connections were not closed"); bad = 1
for s in socks:
    s.close()
sys.exit(bad)
PY
[ "$(code "http://127.0.0.1:$BPMC_PORT/metrics")" = 200 ] || fail "no scrape after the stuck clients"

# --user: the server's thread starts after the drop, so it holds
# nothing either.
chmod 0777 "$TMP"
"$BPMC" record -e cpu-clock -d 3 -o "$TMP/user.csv" --listen 127.0.0.1:0 --user nobody 2>"$TMP/user.log" &
USER_PID=$!
PIDS+=("$USER_PID")
wait_recording "$TMP/user.log" "$USER_PID" || fail "record --user nobody --listen did not start"
threads=0
for t in /proc/"$USER_PID"/task/*; do
	threads=$((threads + 1))
	awk '/^Uid:/ { u = $2 } /^CapEff:/ { c = $2 } /^CapPrm:/ { p = $2 }
		END { exit !(u == 65534 && c == "0000000000000000" && p == "0000000000000000") }' "$t/status" ||
		fail "thread ${t##*/} of bpmc --user nobody: $(grep -E '^(Uid|CapEff|CapPrm)' "$t/status" | tr '\n' ' ')"
done
[ "$threads" -ge 2 ] && echo "  --user nobody: $threads threads, all uid 65534 without capabilities" ||
	fail "bpmc --user nobody --listen has $threads threads"
wait "$USER_PID" || fail "record --user nobody --listen failed: $(cat "$TMP/user.log")"

# Refusals: one line naming the culprit, exit 2, no file.
refused() {
	local culprit=$1 rc
	shift
	rm -f "$TMP/refused.csv"
	"$BPMC" record -o "$TMP/refused.csv" "$@" >"$TMP/r.out" 2>"$TMP/r.err"
	rc=$?
	if [ "$rc" != 2 ] || [ "$(wc -l <"$TMP/r.err")" != 1 ] || ! grep -qF -- "$culprit" "$TMP/r.err" ||
		[ -s "$TMP/r.out" ] || [ -e "$TMP/refused.csv" ]; then
		fail "record $*: exit $rc, stderr: $(cat "$TMP/r.err")"
	else
		echo "  ok: $(cat "$TMP/r.err")"
	fi
}
refused "'--listen bogus'" --listen bogus
refused "'--listen 127.0.0.1:70000'" --listen 127.0.0.1:70000
refused "'--listen localhost:9467'" --listen localhost:9467
refused "'--listen [::1]'" --listen '[::1]'
refused "'--listen ::1:9467'" --listen ::1:9467
refused "'pods'" --listen :0 --prom-scopes cgroup,pods
refused "'--prom-expire -1'" --listen :0 --prom-expire -1
refused "'--prom-scopes' needs --listen or --textfile" --prom-scopes cgroup
refused "'--prom-expire' needs --listen or --textfile" --prom-expire 5
refused "'--textfile $TMP/none'" --textfile "$TMP/none"
refused "'--textfile $TMP/log'" --textfile "$TMP/log"
refused "cannot listen on '127.0.0.1:$BPMC_PORT'" --listen "127.0.0.1:$BPMC_PORT"
pass_or_fail
