/* SPDX-License-Identifier: GPL-2.0 */
/* attrs -> fds: one perf_event fd per event per CPU, system-wide. */
#ifndef BPMC_COUNTERS_H
#define BPMC_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#include "events.h"

struct counter_opts {
	uint64_t period; /* -c: sample every N events, or 0 */
	uint64_t freq; /* -F: samples per second, used when !period */
	bool sampling; /* false: counting fds only */
};

/* One reading of a counter, or the difference of two. */
struct counter_reading {
	uint64_t value;
	uint64_t enabled;
	uint64_t running;
};

struct counters {
	int nr_events;
	int nr_cpus; /* possible CPUs: the fd array stride */
	int *fd; /* [event * nr_cpus + cpu], -1 if unused */
	struct counter_reading *last; /* same layout */
};

/* Opens every event on every CPU its PMU covers; prints why on failure. */
int counters__open(struct counters *c, const struct event_list *events,
		   const struct counter_opts *opts);
int counters__enable(struct counters *c);
int counters__disable(struct counters *c);
void counters__close(struct counters *c);

/*
 * Reads every fd and fills delta[event] with the change since the last
 * call, summed over CPUs; scaled[event] (if not NULL) gets the sum of the
 * per-CPU counts scaled for multiplexing.
 */
int counters__read_delta(struct counters *c, struct counter_reading *delta,
			 uint64_t *scaled);

/*
 * Why perf_event_open(attr, cpu) of ev failed with errno err, in words.
 * cpu < 0 means the calling thread.
 */
const char *counters__open_reason(const struct event *ev,
				  const struct perf_event_attr *attr, int cpu,
				  int err);

/* The one multiplexing formula: value * enabled / running, 0 if never ran. */
uint64_t counter_scale(uint64_t value, uint64_t enabled, uint64_t running);

/* Difference of two cumulative readings, tolerating a counter wrap. */
struct counter_reading counter_delta(const struct counter_reading *now,
				     const struct counter_reading *prev);

#endif
