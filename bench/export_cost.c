// SPDX-License-Identifier: GPL-2.0
/*
 * export_cost N: the time and peak RSS to drain and write one interval
 * holding N distinct keys. The keys are put where the BPF side would put
 * them through the collector's test hook (as many processes in the root
 * cgroup): the live hash the first time, their store entries after. Then
 * one interval runs the real path: flush every CPU, take the retired
 * generation (the hash by batch look-ups, the store in place), merge,
 * resolve and write CSV to a file. The first interval of new keys, then
 * the steady state of keys that carry on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "identity/cgroups.h"
#include "maps/collector.h"
#include "fds/counters.h"
#include "rows/drain.h"
#include "names/events.h"
#include "sinks/csv_sink.h"
#include <bpf/libbpf.h>

#include "common/util.h"
#include "discard_sink.h"

int main(int argc, char **argv)
{
	long n = argc == 2 ? atol(argv[1]) : 0;
	struct collector_opts opts = { .key_tgid = true,
				       .nr_events = 1,
				       .v1_subsys = -1 };
	struct rows_opts ropts = { .scopes = SCOPE_CGROUP | SCOPE_PROCESS,
				   .rollup_depth = -1 };
	struct interval_info info = { .length_ns = 1000000000, .host = "h" };
	struct counter_totals totals = {};
	struct interval_data data = {};
	struct event_list events;
	struct collector *c = NULL;
	struct sink sink = {};
	struct drain_sums sums;
	struct bpmc_value v = {};
	struct bpmc_key k = {};
	struct rusage ru;
	char dir[] = "/tmp/bpmc-export-XXXXXX", path[64];
	struct events *names = NULL;
	struct cgroups *cgroups = NULL;
	struct error err = {};
	uint64_t t0, t1, inject0, cpu0;
	int ret = 1;

	if (n <= 0 || events__new(&names, NULL, &err) ||
	    events__parse_list(names, "cpu-clock", &events, &err) ||
	    cgroups__new(&cgroups, NULL, &err)) {
		fprintf(stderr, "export_cost: %s\n", err.msg);
		ret = 2;
		goto out;
	}
	ropts.cgroups = cgroups;
	opts.max_keys = n + 1024;
	/* As bpmc record chooses, on a kernel that allows it. */
	opts.no_prealloc = opts.max_keys > COLLECTOR_PREALLOC_MAX_KEYS;
	if (collector__load(&c, &opts, &err)) {
		fprintf(stderr, "export_cost: %s\n", err.msg);
		goto out;
	}
	if (!mkdtemp(dir))
		goto out;
	snprintf(path, sizeof(path), "%s/out.csv", dir);
	if (csv_sink__new(&sink, &(struct csv_config){ .path = path,
						       .host = "h",
						       .backlog = 1 })) {
		fprintf(stderr, "export_cost: %s\n", sink.error.msg);
		goto out;
	}
	k.cgroup_id = cgroups__root_id(cgroups);
	v.ev[0].samples = 1;
	totals.raw[0].enabled = totals.raw[0].running = 1;
	/* Twice: the first interval also pays for growing the buffers,
	 * which a running collector does once. */
	for (int round = 0; round < 2; round++) {
		inject0 = clock_ns(CLOCK_MONOTONIC);
		for (long i = 0; i < n; i++) {
			k.tgid = i + 1;
			v.ev[0].count = 1000 + i;
			snprintf(v.comm, sizeof(v.comm), "k%ld", i % 100000);
			if (collector__inject(c, &k, &v))
				goto out;
		}
		t0 = clock_ns(CLOCK_MONOTONIC);
		cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		for (int cpu = 0; cpu < libbpf_num_possible_cpus(); cpu++)
			collector__flush_cpu(c, cpu, NULL);
		if (collector__take_retired(c, &data))
			goto out;
		printf("export_%s_take_ms %.1f\n", round ? "steady" : "first",
		       (clock_ns(CLOCK_MONOTONIC) - t0) / 1e6);
		printf("export_%s_take_cpu_ms %.1f\n",
		       round ? "steady" : "first",
		       (clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0) / 1e6);
		if (sink.ops->begin_interval(&sink, &info) ||
		    drain__write_rows(&data, &ropts, &events, &totals, &sink,
				      &sums) ||
		    sink.ops->end_interval(&sink))
			goto out;
		t1 = clock_ns(CLOCK_MONOTONIC);
		printf("export_%s_ms %.1f\n", round ? "steady" : "first",
		       (t1 - t0) / 1e6);
		printf("export_%s_cpu_ms %.1f\n", round ? "steady" : "first",
		       (clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0) / 1e6);
	}
	{
		struct sink discard = { .ops = &discard_ops };

		/* And its CPU time, which a loaded host's waits leave out. */
		cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		t1 = clock_ns(CLOCK_MONOTONIC);
		if (drain__write_rows(&data, &ropts, &events, &totals, &discard,
				      &sums))
			goto out;
		printf("export_rows_ms %.1f\n",
		       (clock_ns(CLOCK_MONOTONIC) - t1) / 1e6);
		printf("export_rows_cpu_ms %.1f\n",
		       (clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0) / 1e6);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("export_keys %zu\n", data.nr);
	printf("export_peak_rss_mib %.1f\n", ru.ru_maxrss / 1024.0);
	printf("export_inject_ms %.1f\n", (t0 - inject0) / 1e6);
	ret = data.nr == (size_t)n ? 0 : 1;
out:
	if (sink.priv)
		sink.ops->close(&sink);
	unlink(path);
	rmdir(dir);
	interval_data__free(&data);
	collector__destroy(c);
	cgroups__free(cgroups);
	events__free(names);
	return ret;
}
