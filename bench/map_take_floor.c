// SPDX-License-Identifier: GPL-2.0
/*
 * map_take_floor N VALUE_SIZE: the kernel's own floor under export_cost's
 * take. A bare BPF hash (no bpmc program, no bpmc code) of N keys of
 * bpmc's key size and VALUE_SIZE bytes of value, sized as the collector
 * sizes its maps (N + 1024), emptied with one lookup_and_delete_batch
 * call as collector__take_retired() does: what any syscall-based drain
 * of that many keys pays on this host. The median of 5 rounds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "collect.h"
#include "common/util.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n = argc == 3 ? atol(argv[1]) : 0,
	     size = argc == 3 ? atol(argv[2]) : 0;
	struct bpmc_key *keys, out_key;
	uint64_t ns[5], cpu[5], t0, c0;
	char *values;
	int fd;

	if (n <= 0 || size <= 0) {
		fprintf(stderr, "usage: map_take_floor KEYS VALUE_SIZE\n");
		return 2;
	}
	keys = calloc(n, sizeof(*keys));
	values = calloc(n, size);
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "take_floor", sizeof(*keys),
			    size, n + 1024, NULL);
	if (!keys || !values || fd < 0) {
		fprintf(stderr, "map_take_floor: %s\n", strerror(errno));
		return 1;
	}
	for (int round = 0; round < 5; round++) {
		LIBBPF_OPTS(bpf_map_batch_opts, opts);
		__u32 count = n;

		for (long i = 0; i < n; i++) {
			struct bpmc_key k = { .cgroup_id = 1, .tgid = i + 1 };

			if (bpf_map_update_elem(fd, &k, values, BPF_NOEXIST)) {
				fprintf(stderr, "map_take_floor: update: %s\n",
					strerror(errno));
				return 1;
			}
		}
		t0 = clock_ns(CLOCK_MONOTONIC);
		c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		if (bpf_map_lookup_and_delete_batch(fd, NULL, &out_key, keys,
						    values, &count, &opts) &&
		    errno != ENOENT) {
			fprintf(stderr, "map_take_floor: batch: %s\n",
				strerror(errno));
			return 1;
		}
		ns[round] = clock_ns(CLOCK_MONOTONIC) - t0;
		cpu[round] = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		if (count != (__u32)n) {
			fprintf(stderr, "map_take_floor: took %u of %ld keys\n",
				count, n);
			return 1;
		}
	}
	qsort(ns, 5, sizeof(*ns), cmp_u64);
	qsort(cpu, 5, sizeof(*cpu), cmp_u64);
	printf("take_floor_ms %.1f\n", ns[2] / 1e6);
	printf("take_floor_cpu_ms %.1f\n", cpu[2] / 1e6);
	close(fd);
	return 0;
}
