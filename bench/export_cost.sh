#!/usr/bin/env bash
# Case 4: drain and write one interval of 1k, 10k and 100k keys (steady
# state: the second interval, as in a running collector), and peak RSS.
. "$(dirname "$0")/lib.sh"
for n in 1000 10000 100000; do
	runs=()
	for i in 1 2 3; do
		runs+=("$("$ROOT/build/bench/export_cost" "$n")")
	done
	printf '%s\n' "${runs[@]}" | awk '/export_steady_ms/ { print $2 }' | median | sed "s/^/export_${n}_ms /"
	printf '%s\n' "${runs[@]}" | awk '/export_steady_take_ms/ { print $2 }' | median | sed "s/^/export_${n}_take_ms /"
	printf '%s\n' "${runs[@]}" | awk '/export_peak_rss_mib/ { print $2 }' | median | sed "s/^/export_${n}_rss_mib /"
done
