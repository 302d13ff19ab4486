/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The conservation check: per interval and event, how far the sum of the
 * cgroup rows, and of the process rows, is from the system row.
 */
#ifndef BPMC_CHECK_H
#define BPMC_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "rows/drain.h"
#include "names/events.h"

struct check {
	double tolerance_pct;
	/* worst relative discrepancy seen, in %, per [scope][event] */
	double worst[2][BPMC_MAX_EVENTS];
	uint64_t intervals;
};

/* |sum - system| / system in %; 0 when both are 0, 100 when only one is. */
double check_discrepancy_pct(uint64_t sum, uint64_t system);

void check__interval(struct check *c, const struct drain_sums *sums,
		     unsigned scopes, int nr_events);
/*
 * Prints the worst discrepancy per event on stderr. Returns true when
 * every one is within the tolerance.
 */
bool check__report(const struct check *c, const struct event_list *events,
		   unsigned scopes);

#endif
