#!/usr/bin/env bash
# bpmc record --listen against hostile clients, all on the loopback and
# bounded in time: with every connection slot taken by idle clients, a
# SIGTERM ends bpmc within 1 s and the CSV is published (it waited for
# the next connection's timeout, 7 to 10 s, the CSV still a partial).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom_lib.sh"
need_root
need_packages curl:curl python3:python3
HOSTILE="python3 $HELPERS_PY/http_hostile.py"

# established PORT: the server side's established connections on PORT.
established() {
	awk -v p="$(printf '%04X' "$1")" 'NR > 1 { split($2, a, ":"); if (a[2] == p && $4 == "01") n++ } END { print n + 0 }' /proc/net/tcp
}

# A SIGTERM while 32 idle clients hold every slot.
start_record_listen "$TMP/stop.log" -e cpu-clock -I 500 -d 60 -o "$TMP/stop.csv" || exit 1
spawn $HOSTILE hold "$BPMC_PORT" 32 20 >"$TMP/hold.out"
HOLD_PID=$SPAWNED
for _ in $(seq 50); do
	grep -q '^held 32' "$TMP/hold.out" && [ "$(established "$BPMC_PORT")" -ge 32 ] && break
	sleep 0.1
done
held=$(established "$BPMC_PORT")
[ "$held" -ge 32 ] || fail "the idle clients hold $held connections, not 32"
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

pass_or_fail
