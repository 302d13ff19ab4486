#!/usr/bin/env bash
# Feature probes (docs/kernels.md, "Feature probes"): BPMC_TEST_PROBE_FAIL forces a probe
# to report its feature missing. A feature bpmc cannot do without is
# refused before anything is opened: exit 2, one line naming the feature
# and the first Linux that has it, no output file. A feature with a
# fallback (the ring buffer of new cgroups' paths, batch map operations,
# exact mode's loads of perf_events and of the run queue's clock) is said
# once, and the rows stay right: a burner's cgroup against its
# cpu.stat within 5 %, in both modes.
. "$(dirname "$0")/lib.sh"
need_root

# refused FEATURE KERNEL WORDS ARGS...: the one-line refusal.
refused() {
	local feature=$1 kernel=$2 words=$3 out=$TMP/refused-$1.csv rc lines
	shift 3
	BPMC_TEST_PROBE_FAIL=$feature "$BPMC" record -e cpu-clock -d 1 -o "$out" "$@" 2>"$TMP/log"
	rc=$?
	lines=$(wc -l <"$TMP/log")
	echo "  $feature: exit $rc: $(cat "$TMP/log")"
	[ "$rc" = 2 ] || fail "$feature: exit $rc, not 2"
	[ "$lines" = 1 ] || fail "$feature: $lines lines on stderr, not one"
	grep -q "this kernel lacks .*$words.*(Linux $kernel has it)" "$TMP/log" ||
		fail "$feature: the refusal does not name '$words' and Linux $kernel"
	[ ! -e "$out" ] || fail "$feature: an output file was made"
}

refused btf 5.4 "kernel BTF"
refused btf 5.4 "kernel BTF" --mode sampling
refused tp_btf 5.5 "tp_btf programs (tp_btf/cgroup_attach_task)" --mode sampling
refused tp_btf 5.5 "tp_btf programs" --mode exact
refused test_run_on_cpu 5.10 "BPF_F_TEST_RUN_ON_CPU" --mode sampling
refused test_run_on_cpu 5.10 "BPF_F_TEST_RUN_ON_CPU" --mode exact
refused perf_event 4.9 "perf_event programs" --mode sampling
refused perf_event_read_value 4.15 "bpf_perf_event_read_value.*--mode exact" --mode exact
# Exact mode is the default: the same refusal without --mode.
refused perf_event_read_value 4.15 "bpf_perf_event_read_value.*--mode exact"
refused perf_event_read_value 4.15 "bpf_perf_event_read_value.*sampling with event groups" -e '{cpu-clock,task-clock}' --mode sampling
# Not needed by a sampling run without groups: it records.
BPMC_TEST_PROBE_FAIL=perf_event_read_value "$BPMC" record --mode sampling -e cpu-clock -d 1 -o "$TMP/plain.csv" 2>"$TMP/log" ||
	fail "perf_event_read_value refused a sampling run without groups: $(cat "$TMP/log")"

# fallback NAME FEATURES WARNING ARGS...: runs, says so once, rows right.
fallback() {
	local name=$1 features=$2 warning=$3 n
	shift 3
	mk_cgroup CG "bpmc-test-$$/$name" || return 1
	BPMC_TEST_PROBE_FAIL=$features start_record "$TMP/$name.log" -e cpu-clock -I 500 -d 3 \
		-o "$TMP/$name.csv" "$@" || { fail "$name: did not start"; return 1; }
	local before=$(usage_usec "$CG")
	lost_mark
	spawn_in "$CG" "$HELPERS/burner" 50 2
	wait "$SPAWNED"
	local used=$((($(usage_usec "$CG") - before) * 1000))
	wait "$RECORD_PID" || fail "$name: bpmc record exited $?: $(cat "$TMP/$name.log")"
	n=$(grep -c "$warning" "$TMP/$name.log")
	[ "$n" = 1 ] || fail "$name: said $n times, not once: '$warning'"
	check_usage "$TMP/$name.csv" "$CG" "$used" 5
}

fallback ringbuf ringbuf "no BPF ring buffer .*(Linux 5.8 has both): recording without the capture of new cgroups' paths" --mode sampling
fallback ringbuf-exact ringbuf "no BPF ring buffer" --mode exact
fallback batch batch "no batch map operations (Linux 5.6 has them): each interval's counts are taken one key at a time" --mode sampling
fallback batch-exact batch "no batch map operations" --mode exact --by cgroup,process,thread
# Exact mode's context-switch shortcuts (test_exact_switch_paths compares
# the paths): without them, the counters are read.
fallback rdonly_cast rdonly_cast "no kfunc bpf_rdonly_cast (Linux 6.2 has it): exact mode reads every counter" --mode exact
fallback rq_clock rq_clock "run-queue clock is out of BPF's reach .*: exact mode reads cpu-clock and task-clock" --mode exact
# Without the ring, a cgroup made after the start still gets its path
# from the walk on a miss.
csv_awk -v id="$(cgroup_id "$CG2/bpmc-test-$$/ringbuf")" -v cg="/bpmc-test-$$/ringbuf" \
	'$col("scope") == "cgroup" && $col("cgroup_id") == id && $col("cgroup") == cg { f = 1 } END { exit !f }' \
	"$TMP/ringbuf.csv" || fail "ringbuf: the burner's cgroup row has no path"
pass_or_fail
