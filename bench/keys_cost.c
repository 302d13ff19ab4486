// SPDX-License-Identifier: GPL-2.0
/*
 * keys_cost N prealloc|lazy: what --max-keys N costs with the counts
 * hashes preallocated or allocated as keys come (BPF_F_NO_PREALLOC): the
 * load time, the kernel's memlock of one hash (empty and full), and the
 * time to take a full generation, first and steady (the second).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "maps/collector.h"
#include "common/util.h"

/* The memlock line of the fdinfo of the first hash of max_entries n. */
static long long hash_memlock(long n)
{
	char path[64], line[128];
	long long memlock = -1, entries = 0, type = 0;

	for (int fd = 3; fd < 1024; fd++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			sscanf(line, "map_type: %lld", &type);
			sscanf(line, "max_entries: %lld", &entries);
			sscanf(line, "memlock: %lld", &memlock);
		}
		fclose(f);
		if (type == 1 && entries == n)
			return memlock;
		type = entries = 0;
		memlock = -1;
	}
	return -1;
}

int main(int argc, char **argv)
{
	long n = argc == 3 ? atol(argv[1]) : 0;
	struct collector_opts opts = { .key_tgid = true,
				       .nr_events = 1,
				       .v1_subsys = -1 };
	struct interval_data data = {};
	struct collector *c = NULL;
	struct bpmc_value v = {};
	struct bpmc_key k = { .cgroup_id = 1 };
	struct error err = {};
	uint64_t t0;
	int ret = 1;

	if (n <= 0 ||
	    (strcmp(argv[2], "prealloc") && strcmp(argv[2], "lazy"))) {
		fprintf(stderr, "usage: keys_cost N prealloc|lazy\n");
		return 2;
	}
	opts.max_keys = n;
	opts.no_prealloc = !strcmp(argv[2], "lazy");
	t0 = clock_ns(CLOCK_MONOTONIC);
	if (collector__load(&c, &opts, &err)) {
		fprintf(stderr, "keys_cost: %s\n", err.msg);
		return 1;
	}
	printf("keys_load_ms %.1f\n", (clock_ns(CLOCK_MONOTONIC) - t0) / 1e6);
	printf("keys_memlock_empty %lld\n", hash_memlock(n));
	v.ev[0].samples = 1;
	for (int round = 0; round < 2; round++) {
		t0 = clock_ns(CLOCK_MONOTONIC);
		for (long i = 0; i < n; i++) {
			k.tgid = i + 1;
			if (collector__inject(c, &k, &v))
				goto out;
		}
		printf("keys_%s_fill_ms %.1f\n", round ? "steady" : "first",
		       (clock_ns(CLOCK_MONOTONIC) - t0) / 1e6);
		if (!round)
			printf("keys_memlock_full %lld\n", hash_memlock(n));
		t0 = clock_ns(CLOCK_MONOTONIC);
		for (int cpu = 0; cpu < libbpf_num_possible_cpus(); cpu++)
			collector__flush_cpu(c, cpu, NULL);
		if (collector__take_retired(c, &data))
			goto out;
		printf("keys_%s_take_ms %.1f\n", round ? "steady" : "first",
		       (clock_ns(CLOCK_MONOTONIC) - t0) / 1e6);
		/* Back to the generation the injection writes. */
		if (collector__take_retired(c, &data))
			goto out;
	}
	ret = 0;
out:
	t0 = clock_ns(CLOCK_MONOTONIC);
	interval_data__free(&data);
	collector__destroy(c);
	printf("keys_destroy_ms %.1f\n",
	       (clock_ns(CLOCK_MONOTONIC) - t0) / 1e6);
	return ret;
}
