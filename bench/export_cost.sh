#!/usr/bin/env bash
# Case 4: drain and write one interval of 1k, 10k and 100k keys (steady
# state: the second interval, keys that carry on, read in place from the
# store; and the first, every key new, through the hashes), and peak RSS.
# Wall and CPU time, the take's share, the rows stage alone (a sink that
# discards), and what a hash drain pays at least: the same keys taken
# from a bare BPF hash with no bpmc code (map_take_floor).
# Then the user-space half alone at 100k keys (rows_cost, no BPF): the
# rows stage, CSV formatted to /dev/null, the CSV file, the .gz file; in
# one cgroup as above, and over 1000 Kubernetes containers (long paths),
# without and with their container and pod rows (k8sc: record's default).
. "$(dirname "$0")/lib.sh"
for n in 1000 10000 100000; do
	runs=()
	for i in 1 2 3 4 5; do
		runs+=("$("$ROOT/build/bench/export_cost" "$n")")
	done
	for f in steady_ms:ms steady_cpu_ms:cpu_ms steady_take_ms:take_ms steady_take_cpu_ms:take_cpu_ms rows_cpu_ms:rows_cpu_ms first_cpu_ms:first_cpu_ms peak_rss_mib:rss_mib; do
		printf '%s\n' "${runs[@]}" | awk -v k="export_${f%%:*}" '$1 == k { print $2 }' | median |
			sed "s/^/export_${n}_${f#*:} /"
	done
	"$ROOT/build/bench/map_take_floor" "$n" 48 | sed "s/^take_floor/export_${n}_take_floor/"
done
for c in "root:" "k8s:-c 1000" "k8sc:-c 1000 -C"; do
	runs=()
	for i in 1 2 3 4 5; do
		# shellcheck disable=SC2086 # the options are words
		runs+=("$("$ROOT/build/bench/rows_cost" ${c#*:} 100000)")
	done
	for f in rows_cpu_ms csv_null_cpu_ms csv_cpu_ms csv_gz_cpu_ms peak_rss_mib; do
		printf '%s\n' "${runs[@]}" | awk -v k="rows_cost_$f" '$1 == k { print $2 }' | median |
			sed "s/^/rows_cost_${c%%:*}_$f /"
	done
done
