/* SPDX-License-Identifier: GPL-2.0 */
/* maps -> rows: one interval's entries become rows for every scope. */
#ifndef BPMC_DRAIN_H
#define BPMC_DRAIN_H

#include <stdbool.h>

#include "collector.h"
#include "counters.h"
#include "events.h"
#include "sink.h"

enum scope {
	SCOPE_CGROUP = 1 << 0,
	SCOPE_PROCESS = 1 << 1,
	SCOPE_THREAD = 1 << 2,
};

/* Parses "cgroup,process,thread" into a mask; -EINVAL names nothing. */
int scopes_parse(const char *list, unsigned *mask, char *bad, size_t badlen);

/*
 * Sorts and merges the interval's entries and writes one row per scope,
 * key and event with a non-zero count. mux[event] carries the interval's
 * enabled/running sums that scale the sampled counts.
 */
int drain__write_rows(struct interval_data *data, unsigned scopes,
		      const struct event_list *events,
		      const struct counter_reading *mux, struct sink *sink);

#endif
