// SPDX-License-Identifier: GPL-2.0
/*
 * agg_table_cost N [ROWS]: the report's aggregation table alone. N keys
 * of the shape a --by cgroup,process key has (a cgroup path of about 90
 * bytes and a pid), then ROWS (default 10 x N) look-ups of them in a
 * scrambled order, as rows come: ns per look-up, ns per insert (the
 * keys made beforehand, the hash included), and the heap the table
 * holds per key (mallinfo2, the key bytes included).
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/table.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void key_of(struct agg_key *k, unsigned long i)
{
	char path[128], pid[24];
	int n;

	n = snprintf(
		path, sizeof(path),
		"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%08lx.slice/cri-containerd-%08lx.scope",
		i / 7, i);
	agg_key__reset(k);
	agg_key__add(k, path, n);
	n = snprintf(pid, sizeof(pid), "%lu", 1000 + i);
	agg_key__add(k, pid, n);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000;
	unsigned long rows = argc > 2 ? strtoul(argv[2], NULL, 0) : 10 * n;
	static struct agg_key k;
	struct agg_table t;
	char *blob;
	size_t *off, used = 0;
	size_t heap0, heap1;
	double t0, t1, t2;
	unsigned long sum = 0;

	blob = malloc(n * 160);
	off = malloc((n + 1) * sizeof(*off));
	if (!blob || !off)
		return 1;
	for (unsigned long i = 0; i < n; i++) {
		key_of(&k, i);
		off[i] = used;
		memcpy(blob + used, k.buf, k.len);
		used += k.len;
	}
	off[n] = used;
	heap0 = mallinfo2().uordblks + mallinfo2().hblkhd;
	if (agg_table__init(&t))
		return 1;
	t0 = now_ns();
	for (unsigned long i = 0; i < n; i++) {
		const char *b = blob + off[i];
		uint32_t len = off[i + 1] - off[i];
		struct agg_entry *e;

		e = agg_table__get(&t, b, len, agg_hash(b, len));
		if (!e || !agg_entry__cell(e, 0))
			return 1;
	}
	t1 = now_ns();
	heap1 = mallinfo2().uordblks + mallinfo2().hblkhd;
	for (unsigned long r = 0; r < rows; r++) {
		/* A multiplicative walk over the keys: no two rows in a row
		 * are neighbours. */
		unsigned long i = (r * 2654435761ul) % n;
		const char *b = blob + off[i];
		uint32_t len = off[i + 1] - off[i];
		struct agg_entry *e =
			agg_table__get(&t, b, len, agg_hash(b, len));
		e->cells[0].rows++;
		sum += e->key_len;
	}
	t2 = now_ns();
	printf("agg_table_keys %lu\n", n);
	printf("agg_table_insert_ns %.1f\n", (t1 - t0) / n);
	printf("agg_table_lookup_ns %.1f\n", (t2 - t1) / rows);
	printf("agg_table_bytes_per_key %.1f\n", (double)(heap1 - heap0) / n);
	agg_table__free(&t);
	free(blob);
	free(off);
	return sum == 0;
}
