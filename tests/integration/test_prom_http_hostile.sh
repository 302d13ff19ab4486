#!/usr/bin/env bash
# bpmc record --listen against hostile clients, all on the loopback and
# bounded in time: with every connection slot taken by idle clients, a
# SIGTERM ends bpmc within 1 s and the CSV is published (it waited for
# the next connection's timeout, 7 to 10 s, the CSV still a partial).
# Slowloris: 32 connections from 4 addresses that each send a header
# line every 2 s (the timeout is an idle one) leave room for a scraper
# from a fifth address, answered within 1 s (it was never answered).
# Such clients from 20 addresses, enough to take every slot, delay a
# scrape by the 5 s deadline on a request at most (it was never
# answered while they kept at it).
# A request with a body is answered 405 (not GET or HEAD) or 413 (GET),
# chunked or with Expect: 100-continue too (the client got an empty
# reply), and a NUL in the path, raw or %00, is 404 (it was served).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom_lib.sh"
need_root
need_packages curl:curl python3:python3
HOSTILE="python3 $HELPERS_PY/http_hostile.py"

# established PORT: the server side's established connections on PORT.
established() {
	awk -v p="$(printf '%04X' "$1")" 'NR > 1 { split($2, a, ":"); if (a[2] == p && $4 == "01") n++ } END { print n + 0 }' /proc/net/tcp
}

# A SIGTERM while 64 idle clients, 4 an address, hold every slot.
start_record_listen "$TMP/stop.log" -e cpu-clock -I 500 -d 60 -o "$TMP/stop.csv" || exit 1
spawn $HOSTILE hold "$BPMC_PORT" 64 20 >"$TMP/hold.out"
HOLD_PID=$SPAWNED
for _ in $(seq 50); do
	grep -q '^held 64' "$TMP/hold.out" && [ "$(established "$BPMC_PORT")" -ge 64 ] && break
	sleep 0.1
done
held=$(established "$BPMC_PORT")
[ "$held" -ge 64 ] || fail "the idle clients hold $held connections, not 64"
t0=$(date +%s%N)
kill -TERM "$RECORD_PID"
for _ in $(seq 300); do
	kill -0 "$RECORD_PID" 2>/dev/null || break
	sleep 0.05
done
ms=$((($(date +%s%N) - t0) / 1000000))
wait "$RECORD_PID"
rc=$?
echo "  SIGTERM with $held idle connections: bpmc exited in $ms ms, exit $rc"
[ "$ms" -le 1000 ] || fail "bpmc took $ms ms to stop with every connection slot taken"
[ "$rc" = 0 ] || fail "bpmc exited $rc after SIGTERM: $(cat "$TMP/stop.log")"
[ -s "$TMP/stop.csv" ] || fail "stop.csv was not published: $(ls "$TMP")"
ls "$TMP" | grep -q partial && fail "a partial is left: $(ls "$TMP")"
kill -TERM "$HOLD_PID" 2>/dev/null
wait "$HOLD_PID" 2>/dev/null

# Slowloris, 12 s: past the 10 s idle timeout the attack outlives.
start_record_listen "$TMP/slow.log" -e cpu-clock -I 500 -d 60 -o "$TMP/slow.csv" || exit 1
timeout 30 $HOSTILE slowloris "$BPMC_PORT" 12 || fail "a scrape from a fifth address was not answered within 1 s"
[ "$(curl -sS --max-time 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$BPMC_PORT/metrics")" = 200 ] ||
	fail "no scrape after the slowloris"
timeout 30 $HOSTILE slowloris "$BPMC_PORT" 14 20 4 7 || fail "a scrape waited more than 7 s with every slot taken"

# Bodies and NULs, with curl and raw.
start_record_listen "$TMP/req.log" -e cpu-clock -I 500 -d 60 -o "$TMP/req.csv" || exit 1
URL=http://127.0.0.1:$BPMC_PORT/metrics
head -c 1000000 /dev/zero >"$TMP/big"
# expect CODE CURL-ARGS...
expect() {
	local want=$1 got
	shift
	got=$(curl -sS --max-time 5 -o /dev/null -w '%{http_code}' "$@" 2>"$TMP/curl.err")
	[ "$got" = "$want" ] && echo "  ok: curl $* -> $got" ||
		fail "curl $*: $got, not $want ($(cat "$TMP/curl.err"))"
}
expect 405 -X POST -d x "$URL"
expect 405 -X PUT -d x "$URL"
expect 405 -X POST --data-binary @"$TMP/big" "$URL"
expect 405 -X POST -H 'Expect: 100-continue' -d x "$URL"
expect 413 -X GET -d x "$URL"
expect 413 -X GET -H 'Transfer-Encoding: chunked' -d x "$URL"
expect 413 -X GET -H 'Expect: 100-continue' -d x "$URL"
expect 413 -X GET --data-binary @"$TMP/big" "$URL"
expect 404 "$URL%00junk"
expect 404 "$URL%00"
expect 200 "$URL?x=%00"
# Keep-alive is untouched: two scrapes on one connection.
curl -sS --max-time 5 -o /dev/null -o /dev/null -w '%{http_code} %{num_connects}\n' "$URL" "$URL" >"$TMP/ka" 2>&1
[ "$(cat "$TMP/ka" | tr '\n' ' ')" = "200 1 200 0 " ] || fail "two scrapes on one connection: $(cat "$TMP/ka")"
timeout 60 $HOSTILE requests "$BPMC_PORT" || fail "raw requests: a reply was not the one expected"

pass_or_fail
