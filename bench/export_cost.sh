#!/usr/bin/env bash
# Case 4: drain and write one interval of 1k, 10k and 100k keys (steady
# state: the second interval, as in a running collector), and peak RSS.
# Wall and CPU time, the BPF batch take's share, the rows stage alone
# (a sink that discards), and the floor: the same take from a bare BPF
# hash with no bpmc code (map_take_floor), what any syscall drain pays.
. "$(dirname "$0")/lib.sh"
for n in 1000 10000 100000; do
	runs=()
	for i in 1 2 3 4 5; do
		runs+=("$("$ROOT/build/bench/export_cost" "$n")")
	done
	for f in steady_ms:ms steady_cpu_ms:cpu_ms steady_take_ms:take_ms steady_take_cpu_ms:take_cpu_ms rows_cpu_ms:rows_cpu_ms peak_rss_mib:rss_mib; do
		printf '%s\n' "${runs[@]}" | awk -v k="export_${f%%:*}" '$1 == k { print $2 }' | median |
			sed "s/^/export_${n}_${f#*:} /"
	done
	"$ROOT/build/bench/map_take_floor" "$n" 48 | sed "s/^take_floor/export_${n}_take_floor/"
done
