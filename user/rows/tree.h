/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rows derived from the cgroup tree: container, pod and --rollup's
 * cgroup_total rows, made from the cgroup sums that drain.c hands over.
 * drain.c calls in; nothing here calls back.
 */
#ifndef BPMC_ROWS_TREE_H
#define BPMC_ROWS_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "collect.h"
#include "identity/cgroups.h"
#include "rows/opts.h"
#include "names/events.h"
#include "sinks/sink.h"

/* One cgroup's own rows of an interval, scaled: the tree's input. */
struct cgroup_sum {
	uint64_t id;
	const struct cgroup_info *info; /* NULL when never resolved */
	uint64_t count[BPMC_MAX_EVENTS];
	uint64_t samples[BPMC_MAX_EVENTS];
};

/* Kubernetes' names of a pod (and container, or NULL) into r. */
void tree__set_names(const struct rows_opts *opts, const char *pod,
		     const char *container, struct row *r);

/*
 * The container and pod rows (opts->scopes has SCOPE_CONTAINER), each
 * followed by its "outside" row: scope
 * "container" (or "pod") with an empty container and pod, the system
 * row (system, system_samples; NULL: none) less those rows. Then
 * --rollup's rows.
 */
int tree__write_rows(const struct cgroup_sum *sums, size_t nr,
		     const struct rows_opts *opts,
		     const struct event_list *events, const double *running_pct,
		     const uint64_t *system, const uint64_t *system_samples,
		     struct sink *sink);

#endif
