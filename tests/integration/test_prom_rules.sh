#!/usr/bin/env bash
# bpmc-test: static
# deploy/prometheus/'s recording rules and alerts: promtool accepts them
# (`promtool check rules`) and its unit tests pass (`promtool test
# rules`): on series shaped as bpmc exports them, a container's CPU share,
# IPC and cache-miss ratio are what their rates give, and the alerts fire
# when and only when they should. test_prom_grafana.sh loads the same
# rules into a Prometheus that scrapes a real bpmc and asks for their
# recordings.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom_lib.sh"
[ "$(id -u)" = 0 ] && [ -z "${BPMC_TEST_NO_INSTALL:-}" ] && need_packages promtool:prometheus
command -v promtool >/dev/null || skip "promtool is missing (Debian's prometheus package)"
cd "$ROOT/deploy/prometheus" || exit 1

if promtool check rules bpmc-rules.yml bpmc-alerts.yml >"$TMP/check" 2>&1; then
	echo "  promtool check rules: $(grep -o 'SUCCESS: [0-9]* rules found' "$TMP/check" | awk '{ n += $2 } END { print n }') rules"
else
	fail "promtool check rules: $(grep -v '^$' "$TMP/check" | head -5)"
fi
if promtool test rules bpmc-rules.test.yml >"$TMP/test" 2>&1; then
	echo "  promtool test rules: $(grep -c 'exp_samples:\|exp_alerts:' bpmc-rules.test.yml) cases pass"
else
	fail "promtool test rules: $(grep -v '^$' "$TMP/test" | head -12)"
fi
pass_or_fail
