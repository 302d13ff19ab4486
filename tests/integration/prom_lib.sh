# The Prometheus tests' helpers, on top of lib.sh: sourced after it.
# Every server started here is registered with spawn and ended by PID.

# need_packages CMD:PACKAGE...: installs the Debian packages whose command
# is missing, or skips the test saying which one could not be had.
need_packages() {
	local pair cmd pkg
	for pair in "$@"; do
		cmd=${pair%%:*} pkg=${pair#*:}
		command -v "$cmd" >/dev/null && continue
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null 2>&1 ||
			skip "$cmd is missing and cannot install $pkg"
		command -v "$cmd" >/dev/null || skip "$pkg installed no $cmd"
	done
}

# free_port: a TCP port of 127.0.0.1 nobody listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_record_listen LOG ARGS...: start_record on 127.0.0.1:0; sets
# BPMC_PORT to the port bpmc says it took.
start_record_listen() {
	local log=$1
	shift
	start_record "$log" --listen 127.0.0.1:0 "$@" || return 1
	BPMC_PORT=$(sed -n 's|.*serving metrics on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$log")
	[ -n "$BPMC_PORT" ] || { echo "  bpmc said no port: $(cat "$log")" >&2; return 1; }
}

# scrape [CURL-ARGS...]: bpmc's /metrics, as curl gets it.
scrape() {
	curl -sS --max-time 10 "$@" "http://127.0.0.1:$BPMC_PORT/metrics"
}

# rss_kib PID: VmRSS, in KiB.
rss_kib() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"
}

# start_prometheus INTERVAL TARGET [RULE-FILE...]: the real server,
# scraping TARGET (host:port) every INTERVAL and evaluating the rule
# files as often, its data in $TMP; sets PROM_URL.
start_prometheus() {
	local port i rules="" f
	port=$(free_port)
	for f in "${@:3}"; do
		rules+="  - '$f'"$'\n'
	done
	cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: $1
  scrape_timeout: $1
  evaluation_interval: $1
rule_files:
${rules:-  []}
scrape_configs:
  - job_name: bpmc
    static_configs:
      - targets: ['$2']
EOF
	spawn prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
		--web.listen-address="127.0.0.1:$port" --log.level=warn >"$TMP/prometheus.log" 2>&1
	PROM_URL=http://127.0.0.1:$port
	for i in $(seq 100); do
		curl -sf "$PROM_URL/-/ready" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "  prometheus did not start: $(tail -5 "$TMP/prometheus.log")" >&2
	return 1
}

# wait_scraped: until Prometheus has scraped its target once (it waits a
# few seconds after start before the first scrape).
wait_scraped() {
	local i
	for i in $(seq 200); do
		[ "$(prom_value 'up' 2>/dev/null)" = 1 ] && return 0
		sleep 0.1
	done
	echo "  prometheus never scraped bpmc: $(tail -5 "$TMP/prometheus.log")" >&2
	return 1
}

# prom_query EXPR [TIME]: the instant query's JSON, from PROM_URL.
prom_query() {
	curl -sS --max-time 10 "$PROM_URL/api/v1/query" --data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"}
}

# prom_value EXPR [TIME]: the value of a query that gives one series.
prom_value() {
	prom_query "$@" | jq -r 'if (.data.result | length) == 1 then .data.result[0].value[1] else empty end'
}
