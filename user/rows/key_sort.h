/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The drained keys in row order (cgroup, then process, then thread),
 * sorted as packed copies: qsort_r over indices compared the keys
 * through the index, a cache miss per comparison in hash order, and
 * was a third of the rows stage at 100k keys (bench/export_cost).
 */
#ifndef BPMC_ROWS_KEY_SORT_H
#define BPMC_ROWS_KEY_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "collect.h"

struct key_order {
	uint64_t cgroup_id;
	uint64_t task; /* tgid << 32 | tid: one comparison for both */
	size_t index; /* the entry's place in the drained data */
};

static inline uint32_t key_order__tgid(const struct key_order *k)
{
	return (uint32_t)(k->task >> 32);
}

/* Fills out[0..n) from keys and sorts it; out has room for n. */
void key_sort(const struct bpmc_key *keys, size_t n, struct key_order *out);

#endif
