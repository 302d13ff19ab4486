/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sampling mode: the overflows that the kernel counted and no sample
 * credited. A sampled event's system row is its counter's own count; its
 * rows are the periods its overflows credited. The two differ by what
 * each CPU counted since its last overflow (less than a period a CPU,
 * credited by the next one) unless overflows are lost: an overflow
 * interrupt later than a whole period (the kernel then sets the next
 * period and drops those in between: a period shorter than the
 * interrupt's latency, an emulator's late interrupt, a vCPU's late
 * hrtimer for cpu-clock), or an overflow program that did not run.
 * Counted on the totals since the start, so that one interval's residual
 * is the next one's credit and never looks like a loss.
 */
#ifndef BPMC_MISSED_H
#define BPMC_MISSED_H
#include <stdint.h>

#include "names/events.h"
#include "rows/drain.h"

/* A loss is counted beyond this many periods a CPU: the residuals. */
#define MISSED_RESIDUAL_PERIODS 2

struct missed {
	uint64_t system[BPMC_MAX_EVENTS]; /* the system rows, summed */
	uint64_t keyed[BPMC_MAX_EVENTS]; /* every key's rows, summed */
	uint64_t samples[BPMC_MAX_EVENTS];
	uint64_t said[BPMC_MAX_EVENTS]; /* overflows counted missed so far */
};

/*
 * Adds one interval's sums; fills out[e] with the overflows of each
 * sampled event (a group member is read, never sampled: 0) that went
 * missing in this interval, at the mean period its samples credited so
 * far, beyond MISSED_RESIDUAL_PERIODS a CPU; returns their sum.
 */
uint64_t missed__interval(struct missed *m, const struct event_list *events,
			  const struct drain_sums *sums, int nr_cpus,
			  uint64_t *out);
/* The share of event e's count since the start that no sample credited. */
double missed__share(const struct missed *m, int e);
#endif
