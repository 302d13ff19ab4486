/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --rollup: subtree totals. Every cgroup's own count is added to itself
 * and to each of its ancestors, giving one `cgroup_total` per ancestor:
 * its own tasks plus all of its descendants'.
 */
#ifndef BPMC_ROLLUP_H
#define BPMC_ROLLUP_H

#include <stddef.h>
#include <stdint.h>

#include "collect.h"

/* One cgroup's own counts in an interval (its cgroup row per event). */
struct rollup_in {
	const char *path; /* "/a/b", "/" for the root; NULL: unknown */
	uint64_t count[BPMC_MAX_EVENTS];
};

/* One subtree total. path points into the rollup's own storage. */
struct rollup_out {
	const char *path;
	int depth; /* "/" is 0, "/a" is 1, ... */
	uint64_t count[BPMC_MAX_EVENTS];
};

struct rollup;

/*
 * Sums nr inputs into subtree totals for every ancestor at depth <=
 * max_depth (max_depth < 0: no limit), the inputs' own cgroups included.
 * Inputs with a NULL path are skipped (their subtree is unknown). Returns
 * the totals sorted by path in *out (valid until rollup__free) and their
 * number, or -ENOMEM.
 */
int rollup__compute(struct rollup **r, const struct rollup_in *in, size_t nr,
		    int nr_events, int max_depth,
		    const struct rollup_out **out);
void rollup__free(struct rollup *r);

#endif
