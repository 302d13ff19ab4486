/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sampling mode: which sampled events are too rare for the interval.
 * A row built from n samples is off by about 1/sqrt(n) of itself (more
 * when the samples alias with the workload), so an event whose system
 * row gets fewer than RARE_MIN_SAMPLES samples an interval has rows
 * whose per-interval error exceeds RARE_MAX_REL_ERR even for the one
 * key that has them all. Judged once, on the first RARE_INTERVALS
 * intervals (or all of them, at exit, for shorter runs): their samples
 * per nominal interval (-I), so that one interval stretched by a busy
 * host does not hide the others.
 */
#ifndef BPMC_RARE_H
#define BPMC_RARE_H
#include <stdbool.h>
#include <stdint.h>
#include "rows/drain.h"

#define RARE_MAX_REL_ERR 0.10
#define RARE_MIN_SAMPLES 100 /* 1 / RARE_MAX_REL_ERR^2 */
#define RARE_INTERVALS 3

struct rare {
	uint64_t intervals;
	uint64_t length_ns; /* the intervals' lengths, summed */
	uint64_t samples[BPMC_MAX_EVENTS];
	uint64_t count[BPMC_MAX_EVENTS];
	bool judged;
};

/* What rare__judge found about one event. */
struct rare_event {
	int event; /* index in the event list */
	double samples_per_interval;
	double rel_err; /* 1/sqrt(samples_per_interval); INFINITY for 0 */
};

/* 1/sqrt(n), the relative error of a count made of n samples. */
double rare_rel_err(double samples);
/* Adds one interval's system samples and counts, and its length. */
void rare__interval(struct rare *r, const struct drain_sums *sums,
		    int nr_events, uint64_t length_ns);
/*
 * Once RARE_INTERVALS intervals are in, or at_exit with at least one:
 * fills out with each event that counted something yet had fewer than
 * RARE_MIN_SAMPLES samples per interval of interval_ns, and returns how
 * many (at most nr_events). Judges once: 0 from then on, and before it
 * is time.
 */
int rare__judge(struct rare *r, int nr_events, uint64_t interval_ns,
		bool at_exit, struct rare_event *out);
#endif
