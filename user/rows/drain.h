/* SPDX-License-Identifier: GPL-2.0 */
/* maps -> rows: one interval's entries become rows for every scope. */
#ifndef BPMC_DRAIN_H
#define BPMC_DRAIN_H

#include <stdbool.h>

#include "common/scope.h"
#include "fds/counters.h"
#include "identity/cgroups.h"
#include "maps/collector.h"
#include "names/events.h"
#include "rows/opts.h"
#include "rows/tree.h"
#include "sinks/sink.h"

/* What one interval's rows add up to, per event, for the checks. */
struct drain_sums {
	uint64_t system[BPMC_MAX_EVENTS];
	uint64_t samples[BPMC_MAX_EVENTS]; /* the system rows' */
	uint64_t scope[3][BPMC_MAX_EVENTS]; /* cgroup, process, thread */
	/* Every key's counts, whichever scopes are written. */
	uint64_t keyed[BPMC_MAX_EVENTS];
};

/*
 * Writes a system row per event (the fds' scaled total), then sorts and
 * merges the interval's entries into one row per scope, key and event
 * with a non-zero count. totals carries the interval's per-event
 * enabled/running sums that scale sampled counts and make running_pct.
 */
int drain__write_rows(struct interval_data *data, const struct rows_opts *opts,
		      const struct event_list *events,
		      const struct counter_totals *totals, struct sink *sink,
		      struct drain_sums *sums);

#endif
