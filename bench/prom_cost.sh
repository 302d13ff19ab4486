#!/usr/bin/env bash
# Case 7: one Prometheus scrape of 1k and 10k series (render + serve, as
# Prometheus asks: OpenMetrics, gzip), beside the CSV sink's cost for the
# same interval's rows; medians of 3 runs of bench/prom_cost (each the
# median of its rounds).
. "$(dirname "$0")/lib.sh"
for n in 1000 10000; do
	runs=()
	for i in 1 2 3; do
		runs+=("$("$ROOT/build/bench/prom_cost" "$n")")
	done
	for k in rows_ms render_ms serve_gzip_ms serve_plain_ms scrape_ms scrape_plain_ms response_gzip_bytes response_plain_bytes; do
		printf '%s\n' "${runs[@]}" | awk -v k="prom_${n}_$k" '$1 == k { print $2 }' | median | sed "s/^/prom_${n}_$k /"
	done
	printf '%s\n' "${runs[@]}" | awk -v k="csv_${n}_interval_ms" '$1 == k { print $2 }' | median | sed "s/^/csv_${n}_interval_ms /"
done
